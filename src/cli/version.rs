//! `sei-console version`: the console's version and git commit, what it ports
//! (`api::upstream::ported_line`), and how the cluster's SeiNode CRD compares with the embedded
//! one (`ops::skew::read_crd`), as text or `-o json`. `--client` reads nothing from a cluster.
//! `--version` prints [`version_line`], the same first two lines.
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use serde_json::json;

use super::{CliError, GlobalArgs};
use crate::api::crd_compare::CrdView;
use crate::api::upstream;
use crate::ops::skew::read_crd;

/// The console's own version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit the binary was built from (`build.rs`), `unknown` outside a git checkout.
pub fn commit() -> &'static str {
    option_env!("SEI_CONSOLE_GIT_COMMIT").unwrap_or("unknown")
}

/// The UTC date the binary was built (`build.rs`; `SOURCE_DATE_EPOCH` when set), `unknown`
/// when the build script could not tell.
pub fn build_date() -> &'static str {
    option_env!("SEI_CONSOLE_BUILD_DATE").unwrap_or("unknown")
}

/// `0.1.0 (commit abc1234, built 2026-12-05)\nports sei-k8s-controller …`: what `--version`
/// prints after the program's name.
pub fn version_line() -> &'static str {
    static LINE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    LINE.get_or_init(|| {
        format!(
            "{VERSION} (commit {}, built {})\n{}",
            commit(),
            build_date(),
            upstream::ported_line()
        )
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum VersionOutput {
    #[default]
    Text,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct VersionArgs {
    /// Only the console's own versions: no cluster is read.
    #[arg(long)]
    pub client: bool,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = VersionOutput::Text)]
    pub output: VersionOutput,
}

/// The cluster's part: its context and CRD, or why it could not be read.
struct ClusterPart {
    context: String,
    crd: Result<CrdView, CliError>,
}

pub async fn run(global: &GlobalArgs, args: &VersionArgs) -> Result<ExitCode, CliError> {
    let cluster = if args.client {
        None
    } else {
        Some(match super::fetch::connection(global).await {
            Ok(conn) => {
                let cluster = crate::kube::cluster::KubeCluster::new(conn.client.clone());
                ClusterPart {
                    context: conn.context.clone(),
                    crd: Ok(read_crd(&cluster).await),
                }
            }
            Err(err) => ClusterPart {
                context: global.one_context().unwrap_or("").to_owned(),
                crd: Err(err),
            },
        })
    };
    match args.output {
        VersionOutput::Text => print!("{}", text(cluster.as_ref())),
        VersionOutput::Json => println!("{}", json(cluster.as_ref())),
    }
    Ok(ExitCode::SUCCESS)
}

fn text(cluster: Option<&ClusterPart>) -> String {
    let mut out = format!("sei-console {}\n", version_line());
    let Some(cluster) = cluster else {
        return out;
    };
    let context = if cluster.context.is_empty() {
        "current context".to_owned()
    } else {
        format!("context {}", cluster.context)
    };
    match &cluster.crd {
        Err(err) => out.push_str(&format!("cluster ({context}): not read: {err}\n")),
        Ok(view) => {
            out.push_str(&format!("cluster ({context}): {}\n", headline(view)));
            if let Some(comparison) = view.comparison() {
                for difference in &comparison.differences {
                    out.push_str(&format!("  {difference}\n"));
                }
            }
            for consequence in view.consequences() {
                out.push_str(&format!("  means: {consequence}\n"));
            }
        }
    }
    out
}

/// `CRD newer: 2 fields`, or why it was not compared.
fn headline(view: &CrdView) -> String {
    match view.comparison() {
        Some(comparison) => comparison.summary(),
        None => view.line(),
    }
}

fn json(cluster: Option<&ClusterPart>) -> serde_json::Value {
    let mut out = json!({
        "console": {"version": VERSION, "commit": commit(), "buildDate": build_date()},
        "ports": {
            "controller": upstream::CONTROLLER_COMMIT,
            "seictl": upstream::SEICTL_VERSION,
            "seiConfig": upstream::SEI_CONFIG_VERSION,
            "crdSha256": upstream::CRD_SHA256,
        },
    });
    if let Some(cluster) = cluster {
        let crd = match &cluster.crd {
            Err(err) => json!({"error": err.to_string()}),
            Ok(view) => crd_json(view),
        };
        out["cluster"] = json!({"context": cluster.context, "crd": crd});
    }
    out
}

/// The comparison as `describe` and `version` print it in JSON.
pub fn crd_json(view: &CrdView) -> serde_json::Value {
    match view {
        CrdView::Compared(comparison) => json!({
            "skew": comparison.skew().as_str(),
            "summary": comparison.summary(),
            "differences": comparison.differences,
            "planning": comparison.planning().iter().map(|d| &d.path).collect::<Vec<_>>(),
            "means": view.consequences(),
        }),
        CrdView::Forbidden(why) => {
            json!({"skew": null, "forbidden": why, "means": view.consequences()})
        }
        CrdView::Unread(why) => json!({"skew": null, "error": why}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_line_names_the_console_its_commit_and_what_it_ports() {
        let line = version_line();
        assert!(line.starts_with(&format!("{VERSION} (commit ")), "{line}");
        assert!(line.ends_with(&upstream::ported_line()), "{line}");
        assert!(!commit().is_empty());
        // Built in a git checkout by build.rs: both are known, the date as YYYY-MM-DD.
        assert!(
            line.contains(&format!("(commit {}, built ", commit())),
            "{line}"
        );
        let date = build_date();
        assert_eq!(date.len(), 10, "{date}");
        assert!(
            jiff::civil::Date::strptime("%Y-%m-%d", date).is_ok(),
            "{date}"
        );
    }

    #[test]
    fn client_only_text_and_json_say_the_same_versions() {
        let text = text(None);
        assert!(text.contains("sei-k8s-controller 2d670ad"), "{text}");
        let json = json(None);
        assert_eq!(json["ports"]["controller"], "2d670ad");
        assert_eq!(json["ports"]["seictl"], "v0.0.68");
        assert_eq!(json["ports"]["seiConfig"], "v0.0.23");
        assert_eq!(json["ports"]["crdSha256"], upstream::CRD_SHA256);
        assert!(json.get("cluster").is_none());
    }
}
