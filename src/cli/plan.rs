//! `sei-console plan`: the TaskPlan the controller would build for a SeiNode manifest, exactly
//! as it would be stored in `.status.plan`.
//!
//! A `status` in the file selects init or update plans, drift, conditions, peers and syncers; the
//! answer is the plan, or `null` / `no plan: <reason>`. Bad input exits 2 with the CRD's or the
//! planner's own message. It works offline: the platform config comes only from `--platform-config
//! FILE` or `SEI_CONSOLE_PLATFORM_CONFIG`, never from the cluster.
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::manifest::{read_seinode, unknown_fields};
use super::{CliError, GlobalArgs};
use crate::api::{ConditionType, SeiNode, TaskPlan};
use crate::executor::peering;
use crate::planner::{PlanContext, Preview, classify_plan, preview};
use crate::platform::PlatformConfig;

/// Output format of `plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanOutput {
    /// Ordered tasks with their params.
    Table,
    /// The plan as stored in `.status.plan` (`null` when none).
    Json,
    /// The same as YAML.
    Yaml,
}

const AFTER_HELP: &str = "\
The plan is built offline by the console's port of the controller's planner. A `status` in the
file is honoured: its phase selects the init or the running (update) plans, and currentImage,
currentSidecarImage, conditions and resolvedStateSyncers are used as the controller would.
spec.peers is resolved into resolvedPeers first, as the controller does on every reconcile:
static addresses sorted and de-duplicated (an empty spec.peers clears the list); label and
ec2Tags sources need the cluster or EC2, so the status's resolvedPeers are kept beside the
static ones and a note on standard error names each such source. A Failed, paused, deleting or workflow-adopted node, a node whose Active plan
is in progress, a node held by the state-sync gate and a Running node without drift get no plan.

With --platform-config, its images.sidecar is the default sidecar image and the StateSyncReady
gate is re-evaluated against its canonical syncers, as the controller does on every reconcile.
Without it, the status's gate is taken as is and the default sidecar image is assumed to be the
one running (only spec.sidecar.image can then cause sidecar drift).

Exit codes: 0 plan printed (or no plan), 2 bad input (unreadable file, YAML error, not a
SeiNode, zero or several mode sub-specs, a planner validation error).

Example:
  sei-console plan -f validator.yaml --plan-id 11111111-1111-4111-8111-111111111111 -o json";

/// Arguments of `sei-console plan`.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct PlanArgs {
    /// SeiNode manifest (YAML or JSON); `-` reads standard input.
    #[arg(short = 'f', long, value_name = "NODE.yaml")]
    pub file: PathBuf,
    /// The controller's app-config file (`config.yaml`).
    #[arg(long, value_name = "FILE", env = "SEI_CONSOLE_PLATFORM_CONFIG")]
    pub platform_config: Option<PathBuf>,
    /// Fix the plan ID (a UUID) so task IDs are reproducible; default a fresh random UUIDv4.
    #[arg(long, value_name = "UUID")]
    pub plan_id: Option<uuid::Uuid>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = PlanOutput::Table)]
    pub output: PlanOutput,
}

/// Runs the command.
pub fn run(global: &GlobalArgs, args: &PlanArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let mut node = read_seinode(&args.file)?;
    if node.namespace().is_empty() {
        node.metadata.namespace =
            Some(global.namespace.clone().unwrap_or_else(|| "default".into()));
    }
    node.spec
        .mode()
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    for path in unknown_fields(&node) {
        eprintln!("warning: {path} is not a SeiNode field; the API server would drop it");
    }
    let platform = args
        .platform_config
        .as_deref()
        .map(read_platform)
        .transpose()?;
    // After every refusal, so bad input stays one line.
    for note in resolve_peers_offline(&mut node) {
        eprintln!("note: {note}");
    }
    let result = plan_node(
        &node,
        platform.as_ref(),
        args.plan_id,
        jiff::Timestamp::now(),
    )?;
    write_output(&result, args.output, out)
        .map_err(|e| CliError::Failed(format!("writing output: {e}")))
}

/// `spec.peers` into `status.resolvedPeers` as the controller's reconcile does before it plans,
/// as far as that is possible without a cluster; returns one line per source that could not be
/// resolved, naming what was used instead.
pub fn resolve_peers_offline(node: &mut SeiNode) -> Vec<String> {
    let prior = node
        .status
        .as_ref()
        .and_then(|s| s.resolved_peers.clone())
        .unwrap_or_default();
    let (resolved, unresolved) = peering::resolve_peers_offline(node, &prior);
    peering::store_resolved(node, &resolved.peers);
    let kept = if prior.is_empty() {
        "the status has no resolvedPeers to keep".to_owned()
    } else {
        format!("the status's {} resolvedPeers were kept", prior.len())
    };
    unresolved
        .iter()
        .map(|source| format!("spec.peers: {source}, which plan -f cannot reach; {kept}"))
        .collect()
}

/// Plans `node` as the controller's next reconcile would (see `--help`).
pub fn plan_node(
    node: &SeiNode,
    platform: Option<&PlatformConfig>,
    plan_id: Option<uuid::Uuid>,
    now: jiff::Timestamp,
) -> Result<Preview, CliError> {
    let sidecar_default = match platform {
        Some(platform) => platform.images.sidecar.clone(),
        None => node
            .status
            .as_ref()
            .map_or("", |s| s.current_sidecar_image())
            .to_owned(),
    };
    let mut ctx = PlanContext::new(sidecar_default, now);
    if let Some(id) = plan_id {
        ctx = ctx.with_plan_id(id);
    }
    let syncers = platform.map(|p| p.syncers_for_chain(&node.spec.chain_id));
    preview(node, syncers.as_deref(), &ctx).map_err(|e| CliError::BadInput(e.to_string()))
}

fn read_platform(path: &Path) -> Result<PlatformConfig, CliError> {
    if !path.exists() {
        return Err(CliError::BadInput(format!(
            "platform config file {} does not exist",
            path.display()
        )));
    }
    PlatformConfig::read_file(path).map_err(|e| CliError::BadInput(e.to_string()))
}

fn write_output(result: &Preview, format: PlanOutput, out: &mut dyn Write) -> std::io::Result<()> {
    let plan = result.outcome.as_ref().ok();
    match format {
        PlanOutput::Json => {
            let text = serde_json::to_string_pretty(&plan).map_err(std::io::Error::other)?;
            writeln!(out, "{text}")
        }
        PlanOutput::Yaml => {
            let text = serde_yaml_ng::to_string(&plan).map_err(std::io::Error::other)?;
            write!(out, "{text}")
        }
        PlanOutput::Table => match &result.outcome {
            Ok(plan) => write_table(&result.node, plan, out),
            Err(reason) => writeln!(out, "no plan: {reason}"),
        },
    }
}

fn write_table(node: &SeiNode, plan: &TaskPlan, out: &mut dyn Write) -> std::io::Result<()> {
    let phase = |p: Option<crate::api::Phase>| p.map_or("-".to_owned(), |p| p.to_string());
    writeln!(
        out,
        "plan {}  ({}, {} tasks)  target phase: {}  failed phase: {}",
        plan.id,
        classify_plan(plan).as_str(),
        plan.tasks.len(),
        phase(plan.target_phase),
        phase(plan.failed_phase),
    )?;
    let status = node.status.as_ref();
    if let Some(condition) = status.and_then(|s| s.condition(ConditionType::NodeUpdateInProgress)) {
        writeln!(
            out,
            "NodeUpdateInProgress={} ({}): {}",
            condition.status, condition.reason, condition.message
        )?;
    }
    writeln!(
        out,
        "node phase after persisting: {}",
        phase(status.and_then(|s| s.phase))
    )?;
    let width = plan
        .tasks
        .iter()
        .map(|t| t.kind.as_str().len())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(
        out,
        "{:>2}  {:<width$}  {:<36}  {:>7}  PARAMS",
        "#", "TYPE", "ID", "RETRIES"
    )?;
    for (index, task) in plan.tasks.iter().enumerate() {
        let params = task
            .params
            .as_ref()
            .map_or("-".to_owned(), |p| p.to_string());
        writeln!(
            out,
            "{index:>2}  {:<width$}  {:<36}  {:>7}  {params}",
            task.kind.as_str(),
            task.id,
            task.max_retries
        )?;
    }
    Ok(())
}
