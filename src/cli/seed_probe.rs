//! `sei-console seed probe (NODE | NODEID@HOST:PORT)`: dial a seed the way a peer would, complete
//! sei-tendermint's P2P handshake, and check what it shows against what is published. Exit 0 only
//! when every check passes. Sends nothing beyond the handshake.
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};
use kube::Api;

use super::{CliError, GlobalArgs};
use crate::api::SeiNode;
use crate::ops::seed_probe::{NotProbeable, probe_target};
use crate::p2p::address::NodeAddress;
use crate::p2p::tcp::TcpDialer;
use crate::p2p::{Expected, ProbeReport, probe, report};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProbeOutput {
    Text,
    Json,
}

#[derive(Debug, Args)]
pub struct SeedProbeArgs {
    /// A seed SeiNode (in `-n NS`), or `NODEID@HOST:PORT` to probe any address.
    #[arg(value_name = "NODE | NODEID@HOST:PORT")]
    pub target: String,
    /// Bound on the dial and the handshake together: `10s`, `500ms`, `1m`.
    #[arg(long, value_name = "D", value_parser = super::durations::probe_timeout, default_value = "10s")]
    pub timeout: Duration,
    /// The chain the seed must be on (default: the SeiNode's `spec.chainId`; required with an
    /// address).
    #[arg(long, value_name = "ID")]
    pub chain_id: Option<String>,
    #[arg(short = 'o', long, value_enum, default_value_t = ProbeOutput::Text)]
    pub output: ProbeOutput,
}

pub async fn run(global: &GlobalArgs, args: &SeedProbeArgs) -> Result<ExitCode, CliError> {
    probe_command(global, args).await
}

async fn probe_command(global: &GlobalArgs, args: &SeedProbeArgs) -> Result<ExitCode, CliError> {
    let expected = if args.target.contains('@') {
        from_argument(args)?
    } else {
        from_seinode(global, args).await?
    };
    let mut report = probe(&TcpDialer, &expected, args.timeout).await;
    report.origin.in_cluster = crate::p2p::prober::in_cluster();
    print(&report, args.output)?;
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn print(report: &ProbeReport, output: ProbeOutput) -> Result<(), CliError> {
    let text = match output {
        ProbeOutput::Text => report::to_text(report),
        ProbeOutput::Json => {
            serde_json::to_string_pretty(report).map_err(|e| CliError::Failed(e.to_string()))?
                + "\n"
        }
    };
    use std::io::Write;
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| CliError::Failed(format!("cannot write output: {e}")))
}

fn from_argument(args: &SeedProbeArgs) -> Result<Expected, CliError> {
    let address =
        NodeAddress::parse(&args.target).map_err(|e| CliError::BadInput(e.to_string()))?;
    let chain_id = args.chain_id.clone().ok_or_else(|| {
        CliError::BadInput(
            "--chain-id is required with NODEID@HOST:PORT (the seed rejects a peer on another \
             network)"
                .to_owned(),
        )
    })?;
    Ok(Expected {
        node_id: Some(address.node_id),
        node_id_source: "argument".to_owned(),
        address: address.address,
        chain_id,
        no_pod: None,
    })
}

async fn from_seinode(global: &GlobalArgs, args: &SeedProbeArgs) -> Result<Expected, CliError> {
    let conn = super::fetch::connection(global).await?;
    let namespace = global
        .namespace
        .clone()
        .unwrap_or_else(|| conn.default_namespace.clone());
    let name = args.target.as_str();
    let api: Api<SeiNode> = Api::namespaced(conn.client.clone(), &namespace);
    let node = api
        .get_opt(name)
        .await
        .map_err(|e| {
            let server = conn.kube_config.as_ref().map(|c| c.cluster_url.to_string());
            CliError::Failed(format!(
                "reading SeiNode {namespace}/{name}: {}",
                crate::kube::errors::describe_at(&e, server.as_deref())
            ))
        })?
        .ok_or_else(|| CliError::BadInput(format!("SeiNode {namespace}/{name} not found")))?;
    let lookup = {
        let sidecar = crate::sidecar::env::client_from_env(conn.kube_config.clone());
        let sidecar = match &sidecar {
            Ok(sidecar) => Ok(sidecar as &dyn crate::ports::SidecarApi),
            Err(why) => Err(why),
        };
        let cluster = crate::kube::cluster::KubeCluster::new(conn.client.clone());
        crate::ops::seed_probe::seed_node_id(&cluster, sidecar, &node).await
    };
    let mut target =
        probe_target(&node, lookup.as_ref(), args.chain_id.as_deref()).map_err(|e| match e {
            NotProbeable::NotASeed(_) => CliError::BadInput(e.to_string()),
            NotProbeable::NotPublished(_) | NotProbeable::BadAddress { .. } => {
                CliError::Failed(e.to_string())
            }
        })?;
    if target.no_pod.is_some() {
        // Never rendered: its latest StatefulSetRenderFailed, if any, says why.
        let failure = render_failure(&conn, &namespace, name).await;
        target.no_pod = crate::ops::seed_probe::no_pod_reason(&node, failure.as_deref());
    }
    // `probe_target` validated the address.
    Expected::from_target(&target).map_err(|e| CliError::Failed(e.to_string()))
}

/// The message of the node's latest `StatefulSetRenderFailed` event (none when unreadable: the
/// hint then says only that it was never rendered).
async fn render_failure(
    conn: &crate::kube::client::Connection,
    namespace: &str,
    name: &str,
) -> Option<String> {
    use k8s_openapi::api::core::v1::Event;
    let api: Api<Event> = Api::namespaced(conn.client.clone(), namespace);
    let fields = format!(
        "involvedObject.kind=SeiNode,involvedObject.name={name},reason={}",
        crate::fleet::events::RENDER_FAILED_REASON
    );
    let events = api
        .list(&kube::api::ListParams::default().fields(&fields))
        .await
        .ok()?;
    crate::fleet::events::latest_warning_event(events.items.iter())
        .and_then(|event| event.message.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::p2p::DEFAULT_TIMEOUT;

    #[test]
    fn durations() {
        assert_eq!(
            super::super::durations::probe_timeout("500ms"),
            Ok(Duration::from_millis(500))
        );
        assert_eq!(
            super::super::durations::probe_timeout("10s"),
            Ok(Duration::from_secs(10))
        );
        assert_eq!(
            super::super::durations::probe_timeout("3"),
            Ok(Duration::from_secs(3))
        );
        assert_eq!(
            super::super::durations::probe_timeout("2m"),
            Ok(Duration::from_secs(120))
        );
        assert!(super::super::durations::probe_timeout("0s").is_err());
        assert!(super::super::durations::probe_timeout("11m").is_err());
        assert!(super::super::durations::probe_timeout("5h").is_err());
        assert!(super::super::durations::probe_timeout("fast").is_err());
        assert_eq!(DEFAULT_TIMEOUT, Duration::from_secs(10));
    }

    #[test]
    fn an_address_needs_a_chain_id_and_a_node_id() {
        let args = |target: &str, chain: Option<&str>| SeedProbeArgs {
            target: target.to_owned(),
            timeout: DEFAULT_TIMEOUT,
            chain_id: chain.map(str::to_owned),
            output: ProbeOutput::Text,
        };
        let id = "6c8f8607dbe87077a62a2990ce07d94aaf749df7";
        let ok = from_argument(&args(&format!("{id}@seed.example.com:26656"), Some("c")))
            .expect("valid");
        assert_eq!(ok.target(), format!("{id}@seed.example.com:26656"));
        assert!(matches!(
            from_argument(&args(&format!("{id}@seed.example.com:26656"), None)),
            Err(CliError::BadInput(_))
        ));
        assert!(matches!(
            from_argument(&args("nope@seed.example.com:26656", Some("c"))),
            Err(CliError::BadInput(_))
        ));
    }
}
