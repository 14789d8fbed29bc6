//! `sei-console logs NODE [-c CONTAINER] [-f] [--previous] [--since D] [--tail N]
//! [--timestamps] [--grep RE]`: the logs of a node's pod `<node>-0` through the API server
//! (`pods/log`), as `kubectl logs` prints them; `--grep` keeps the lines matching a regex
//! (`grep::LineFilter`, the console's `&`). `logs -l SELECTOR` / `--mode MODE`: several nodes'
//! at once, each line prefixed with its node (`logs_many`).
use std::io::Write;

use clap::{Args, ValueEnum};
use futures::TryStreamExt;

use super::{CliError, GlobalArgs, fetch};
use crate::api::NodeMode;
use crate::grep::{FilterError, LineFilter};
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
    /// Name of the SeiNode (or -l / --mode for several).
    #[arg(required_unless_present_any = ["selector", "mode"], conflicts_with_all = ["selector", "mode"])]
    pub node: Option<String>,
    /// The logs of every SeiNode matching this label selector (as `get -l` lists them), each
    /// line prefixed with [NODE]; at most 20 nodes.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// The logs of every SeiNode of this mode (full, archive, replayer, validator, seed), each
    /// line prefixed with [NODE]; with -l, those matching both; at most 20 nodes.
    #[arg(long, value_name = "MODE", value_parser = super::actions::rollout::parse_mode)]
    pub mode: Option<NodeMode>,
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
    /// Begin each line with its timestamp (RFC 3339, from the API server), as kubectl logs
    /// --timestamps.
    #[arg(long)]
    pub timestamps: bool,
    /// Only the lines matching this regex (any case unless it has a capital letter), e.g.
    /// 'ERR|panic'.
    #[arg(long, value_name = "REGEX", value_parser = grep_filter)]
    pub grep: Option<LineFilter>,
}

fn grep_filter(text: &str) -> Result<LineFilter, FilterError> {
    LineFilter::new(text)
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
        timestamps: args.timestamps,
    }
}

/// Whether `--grep` keeps `line` (every line without it).
pub fn kept(args: &LogsArgs, line: &str) -> bool {
    args.grep.as_ref().is_none_or(|filter| filter.keeps(line))
}

pub async fn run(global: &GlobalArgs, args: &LogsArgs) -> Result<(), CliError> {
    let Some(node) = &args.node else {
        return super::logs_many::run(global, args).await;
    };
    let conn = fetch::connection(global).await?;
    let namespace = fetch::namespace(global, &conn).unwrap_or(conn.default_namespace.clone());
    let pod = format!("{node}-0");
    let container = args.container.container_name();
    let logs = KubeLogs::new(conn.client.clone());
    let request = log_request(args, &namespace, &pod);
    let mut lines = logs.open(&request).await.map_err(|err| match err {
        LogError::PodMissing { .. } => CliError::Failed(format!(
            "node {node} has no pod {pod} in namespace {namespace} (not created yet, or deleted)"
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
        if !kept(args, &line) {
            continue;
        }
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
        let args = parse(&["full-0", "--timestamps"]);
        assert!(log_request(&args, "sei", "p").timestamps);
    }

    #[test]
    fn a_node_or_a_selection_and_grep_keeps_matching_lines() {
        let args = parse(&["-l", "tier=rpc", "--mode", "full", "--grep", "err|panic"]);
        assert_eq!(args.node, None);
        assert_eq!(args.selector.as_deref(), Some("tier=rpc"));
        assert_eq!(args.mode, Some(NodeMode::Full));
        assert!(kept(&args, "ERR disk") && kept(&args, "panic: x") && !kept(&args, "fine"));
        assert!(kept(&parse(&["n"]), "anything"));
        let wrap = |argv: &[&str]| {
            Wrapper::try_parse_from(std::iter::once("logs").chain(argv.iter().copied()))
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        assert!(wrap(&[]).is_err(), "a node, -l or --mode");
        assert!(wrap(&["n", "-l", "a=b"]).is_err(), "a node or a selection");
        let bad = wrap(&["n", "--grep", "("]).expect_err("refused");
        assert!(bad.contains("bad filter \"(\""), "{bad}");
        assert!(wrap(&["--mode", "fast"]).is_err());
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
