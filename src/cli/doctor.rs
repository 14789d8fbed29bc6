//! `sei-console doctor`: every problem of the fleet, ranked, with its evidence and its fix
//! (`ops::doctor`), as text or JSON, for people and for cron: exit 0 when nothing is at or above
//! `--fail-on`, 1 otherwise, 2 when the doctor itself could not run.
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use jiff::Timestamp;
use serde::Serialize;

use super::doctor_fetch::{ClusterData, ReadOptions, Unavailable};
use super::{CliError, EXIT_BAD_INPUT, GlobalArgs, fetch};
use crate::fleet::text::age;
use crate::kube::platform_config::DEFAULT_CONTROLLER_NAMESPACE;
use crate::ops::doctor::{Counts, DoctorInput, Finding, Severity, diagnose};

/// The version of the JSON document's shape (README "sei-console doctor").
pub const JSON_API_VERSION: &str = "sei-console.doctor/v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum DoctorOutput {
    #[default]
    Text,
    Json,
}

/// The severity from which `doctor` exits 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Critical,
    Warning,
}

impl FailOn {
    fn severity(self) -> Severity {
        match self {
            FailOn::Critical => Severity::Critical,
            FailOn::Warning => Severity::Warning,
        }
    }
}

/// Arguments of `doctor`.
#[derive(Debug, Clone, Args)]
pub struct DoctorArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = DoctorOutput::Text)]
    pub output: DoctorOutput,
    /// Exit 1 when a finding of this severity or worse is found (else 0; 2 on error).
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub fail_on: Option<FailOn>,
    /// The controller's app-config file; without it, the controller's ConfigMap is read.
    #[arg(long, value_name = "FILE", env = "SEI_CONSOLE_PLATFORM_CONFIG")]
    pub platform_config: Option<PathBuf>,
    /// Namespace of the controller: its ConfigMap and its leader-election Lease.
    #[arg(
        long,
        value_name = "NS",
        env = "SEI_CONSOLE_CONTROLLER_NAMESPACE",
        default_value = DEFAULT_CONTROLLER_NAMESPACE
    )]
    pub controller_namespace: String,
    /// Do not dial the published seeds nor read the nodes' RPC (no seed or chain findings then).
    #[arg(long)]
    pub no_probe: bool,
}

/// The JSON document.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct DoctorJson<'a> {
    api_version: &'static str,
    generated_at: Timestamp,
    counts: Counts,
    fail_on: Option<Severity>,
    /// Whether a finding is at or above `failOn` (the exit code is 1 then).
    failed: bool,
    findings: &'a [Finding],
    unavailable: &'a [Unavailable],
}

/// Runs the doctor; every error is exit 2 (so cron tells "sick" from "could not look").
pub async fn run(global: &GlobalArgs, args: &DoctorArgs) -> ExitCode {
    match examine(global, args).await {
        Ok(code) => code,
        Err(error) => {
            eprintln!(
                "error: {}",
                crate::limits::elide_long_lines(&error.to_string())
            );
            ExitCode::from(EXIT_BAD_INPUT)
        }
    }
}

async fn examine(global: &GlobalArgs, args: &DoctorArgs) -> Result<ExitCode, CliError> {
    let loaded = crate::config::load(
        global.config.as_deref(),
        &crate::app::console_actions::config_names(),
    )
    .map_err(|e| CliError::BadInput(e.to_string()))?;
    for problem in &loaded.problems {
        eprintln!("warning: {problem}");
    }
    let thresholds = loaded.config.doctor;
    let now = Timestamp::now();
    let mut clusters = Vec::new();
    let mut chain_reads = Vec::new();
    for context in fetch::contexts(global) {
        let conn = fetch::connection_to(global, context.as_deref()).await?;
        let namespace = fetch::namespace(global, &conn);
        let options = ReadOptions {
            namespace: namespace.as_deref(),
            controller_namespace: &args.controller_namespace,
            platform_file: args.platform_config.as_deref(),
            probe_seeds: !args.no_probe,
            now,
        };
        let mut data = ClusterData::read(&conn, &options).await?;
        // The permission checks of the fixes found, asked once the findings are known.
        let first = diagnose(DoctorInput {
            now,
            thresholds: &thresholds,
            clusters: vec![data.snapshot()],
            more: Vec::new(),
        });
        data.check_fix_permissions(&conn, &first).await;
        if !args.no_probe {
            chain_reads.extend(super::doctor_chain::read(&conn, &data.context, &data.nodes).await);
        }
        clusters.push(data);
    }
    // The config's reference RPC of each chain read, once.
    let chains = chain_reads.iter().map(|read| read.chain_id.as_str());
    let references =
        super::chain_health::read_references(&loaded.config.reference_rpc, chains).await;
    let findings = diagnose(DoctorInput {
        now,
        thresholds: &thresholds,
        clusters: clusters.iter().map(ClusterData::snapshot).collect(),
        more: super::doctor_chain::findings(&chain_reads, &references, now),
    });
    let unavailable: Vec<Unavailable> = clusters
        .iter()
        .flat_map(|c| c.unavailable.iter().cloned())
        .collect();
    let counts = Counts::of(&findings);
    let fail_on = args.fail_on.map(FailOn::severity);
    let failed = fail_on.is_some_and(|s| counts.at_or_above(s) > 0);
    let text = match args.output {
        DoctorOutput::Json => {
            let document = DoctorJson {
                api_version: JSON_API_VERSION,
                generated_at: now,
                counts,
                fail_on,
                failed,
                findings: &findings,
                unavailable: &unavailable,
            };
            serde_json::to_string_pretty(&document).map_err(|e| CliError::Failed(e.to_string()))?
                + "\n"
        }
        DoctorOutput::Text => {
            for gap in &unavailable {
                eprintln!(
                    "warning: {}{} not read: {}",
                    context_prefix(&gap.context),
                    gap.what,
                    gap.reason
                );
            }
            to_text(&findings, counts, now, clusters.len() > 1)
        }
    };
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| CliError::Failed(format!("cannot write output: {e}")))?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn context_prefix(context: &str) -> String {
    if context.is_empty() {
        String::new()
    } else {
        format!("{context}: ")
    }
}

/// The findings as text: a head line per finding, then its evidence and fix indented, then the
/// counts.
pub fn to_text(findings: &[Finding], counts: Counts, now: Timestamp, with_context: bool) -> String {
    let mut out = String::new();
    for finding in findings {
        let object = &finding.object;
        let place = if object.namespace.is_empty() {
            object.name.clone()
        } else {
            format!("{}/{}", object.namespace, object.name)
        };
        let context = if with_context {
            context_prefix(&object.context)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "{:<8} {context}{} {place} [{}]\n  {}\n",
            finding.severity.as_str().to_uppercase(),
            object.kind,
            finding.class.as_str(),
            finding.summary
        ));
        for evidence in &finding.evidence {
            let when = evidence
                .at
                .map_or(String::new(), |at| format!(" ({} ago)", age(Some(at), now)));
            out.push_str(&format!(
                "    · {}: {}{when}\n",
                evidence.source, evidence.detail
            ));
        }
        out.push_str(&format!("  fix: {}\n", finding.fix.summary));
        if let Some(command) = &finding.fix.command {
            out.push_str(&format!("    $ {command}\n"));
        }
    }
    if findings.is_empty() {
        out.push_str("no findings: nothing wrong that the doctor can see\n");
    } else {
        out.push_str(&format!(
            "{} critical, {} warning, {} info\n",
            counts.critical, counts.warning, counts.info
        ));
    }
    out
}
