//! `sei-console logs NODE [-c CONTAINER] [-f] [--previous] [--since D] [--tail N]`: the logs of a
//! node's pod `<node>-0` through the API server (`pods/log`), as `kubectl logs` prints them.
use std::io::Write;

use clap::{Args, ValueEnum};
use futures::TryStreamExt;

use super::{CliError, GlobalArgs, fetch};
use crate::kube::logs::KubeLogs;
use crate::ports::logs::{LogError, LogRequest, PodLogs};

/// The containers of a node's pod worth reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum LogContainer {
    /// The chain daemon.
    #[default]
    Seid,
    /// The seictl sidecar (container `sei-sidecar`).
    #[value(alias = "sei-sidecar")]
    Sidecar,
    /// kube-rbac-proxy in front of the sidecar.
    KubeRbacProxy,
}

impl LogContainer {
    /// The container's name in the rendered pod.
    pub fn container_name(self) -> &'static str {
        match self {
            Self::Seid => "seid",
            Self::Sidecar => "sei-sidecar",
            Self::KubeRbacProxy => "kube-rbac-proxy",
        }
    }
}

/// Arguments of `logs`.
#[derive(Debug, Clone, Args)]
pub struct LogsArgs {
    /// Name of the SeiNode.
    pub node: String,
    /// Container: seid (default), sidecar or kube-rbac-proxy.
    #[arg(short = 'c', long, value_enum, default_value_t = LogContainer::Seid)]
    pub container: LogContainer,
    /// Keep printing new lines as they are written.
    #[arg(short = 'f', long)]
    pub follow: bool,
    /// The previous container's logs (after a restart).
    #[arg(short = 'p', long)]
    pub previous: bool,
    /// Only lines newer than this, e.g. 30s, 5m, 2h.
    #[arg(long, value_name = "DURATION", value_parser = super::durations::since_seconds)]
    pub since: Option<i64>,
    /// Only the last N lines.
    #[arg(long, value_name = "N")]
    pub tail: Option<i64>,
}

/// The request `kubectl logs` would send for these arguments, to pod `pod` of `namespace`.
pub fn log_request(args: &LogsArgs, namespace: &str, pod: &str) -> LogRequest {
    LogRequest {
        namespace: namespace.to_owned(),
        pod: pod.to_owned(),
        container: args.container.container_name().to_owned(),
        follow: args.follow,
        previous: args.previous,
        since_seconds: args.since,
        tail_lines: args.tail,
    }
}

pub async fn run(global: &GlobalArgs, args: &LogsArgs) -> Result<(), CliError> {
    let conn = fetch::connection(global).await?;
    let namespace = fetch::namespace(global, &conn).unwrap_or(conn.default_namespace.clone());
    let pod = format!("{}-0", args.node);
    let container = args.container.container_name();
    let logs = KubeLogs::new(conn.client.clone());
    let request = log_request(args, &namespace, &pod);
    let mut lines = logs.open(&request).await.map_err(|err| match err {
        LogError::PodMissing { .. } => CliError::Failed(format!(
            "node {} has no pod {pod} in namespace {namespace} (not created yet, or deleted)",
            args.node
        )),
        LogError::Forbidden(_) | LogError::Unavailable(_) => {
            CliError::Failed(format!("logs of container {container} of pod {pod}: {err}"))
        }
        other => CliError::Failed(format!("logs of pod {pod}: {other}")),
    })?;
    let mut out = std::io::stdout().lock();
    while let Some(line) = lines
        .try_next()
        .await
        .map_err(|err| CliError::Failed(format!("logs of pod {pod}: {err}")))?
    {
        // A closed pipe (`| head`) ends the command quietly, as kubectl does.
        if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: LogsArgs,
    }

    fn parse(argv: &[&str]) -> LogsArgs {
        Wrapper::try_parse_from(std::iter::once("logs").chain(argv.iter().copied()))
            .expect("parse")
            .args
    }

    #[test]
    fn flags_map_to_the_request_kubectl_would_send() {
        let args = parse(&[
            "full-0",
            "-c",
            "kube-rbac-proxy",
            "-f",
            "--previous",
            "--since",
            "5m",
        ]);
        let request = log_request(&args, "sei", "full-0-0");
        assert_eq!(request.container, "kube-rbac-proxy");
        assert_eq!(request.pod, "full-0-0");
        assert!(request.follow && request.previous);
        assert_eq!(request.since_seconds, Some(300));
        let args = parse(&["full-0"]);
        assert_eq!(log_request(&args, "sei", "p").container, "seid");
        assert!(!log_request(&args, "sei", "p").follow);
        let args = parse(&["full-0", "-c", "sei-sidecar"]);
        assert_eq!(args.container, LogContainer::Sidecar);
    }

    #[test]
    fn since_needs_a_positive_duration() {
        assert_eq!(
            super::super::durations::since_seconds("1h30m").ok(),
            Some(5400)
        );
        assert!(super::super::durations::since_seconds("soon").is_err());
        assert!(super::super::durations::since_seconds("0s").is_err());
    }
}
