//! `sei-console logs -l SELECTOR` / `--mode MODE`: the logs of several SeiNodes at once, as
//! `kubectl logs -l … --prefix` prints them: each line prefixed with its node (`[NODE] line`,
//! `[NAMESPACE/NODE] line` with `-A`), the streams interleaved as lines arrive.
//!
//! The nodes are those `get -l SELECTOR` lists (same read), then of `--mode`; at most
//! [`MAX_NODES`], past that the command is refused before any log is opened. Memory stays
//! bounded: each stream holds at most one line (cut at `limits::LOG_LINE_BYTES`) until it is
//! printed. A node whose log cannot be opened (no pod yet, forbidden) is named on stderr and the
//! others print; the exit code says some failed.
use std::io::Write;

use futures::StreamExt;

use super::logs::{LogsArgs, kept, log_request};
use super::{CliError, GlobalArgs, fetch};
use crate::fleet::store::ObjectKey;
use crate::kube::logs::KubeLogs;
use crate::ports::logs::{LogError, PodLogs};

/// The most nodes one `logs -l`/`--mode` follows (kubectl's `--max-log-requests` is 5; a
/// fleet's RPC tier is wider).
pub const MAX_NODES: usize = 20;

/// `[NODE] line`, or `[NAMESPACE/NODE] line` when several namespaces are read.
fn prefixed(key: &ObjectKey, with_namespace: bool, line: &str) -> String {
    if with_namespace {
        format!("[{}/{}] {line}", key.namespace, key.name)
    } else {
        format!("[{}] {line}", key.name)
    }
}

/// What was asked for, in words (`-l tier=rpc --mode full`).
fn selection_words(args: &LogsArgs) -> String {
    let mut words = Vec::new();
    if let Some(selector) = &args.selector {
        words.push(format!("-l {selector}"));
    }
    if let Some(mode) = args.mode {
        words.push(format!("--mode {mode}"));
    }
    words.join(" ")
}

/// The nodes chosen, in name order; refused past [`MAX_NODES`] or when none matches.
fn chosen(
    keys: Vec<(ObjectKey, Option<crate::api::NodeMode>)>,
    args: &LogsArgs,
    scope: &str,
) -> Result<Vec<ObjectKey>, CliError> {
    let mut keys: Vec<ObjectKey> = keys
        .into_iter()
        .filter(|(_, mode)| args.mode.is_none() || *mode == args.mode)
        .map(|(key, _)| key)
        .collect();
    keys.sort();
    let asked = selection_words(args);
    match keys.len() {
        0 => Err(CliError::Failed(format!(
            "no SeiNode {scope} matches {asked}"
        ))),
        n if n > MAX_NODES => Err(CliError::BadInput(format!(
            "logs {asked} matches {n} SeiNodes {scope}; at most {MAX_NODES} are read at once: narrow it (-l, --mode, -n)"
        ))),
        _ => Ok(keys),
    }
}

pub async fn run(global: &GlobalArgs, args: &LogsArgs) -> Result<(), CliError> {
    let conn = fetch::connection(global).await?;
    let namespace = fetch::namespace(global, &conn);
    let scope = match &namespace {
        Some(namespace) => format!("in namespace {namespace}"),
        None => "in any namespace".to_owned(),
    };
    let fleet = fetch::fleet(&conn, namespace.as_deref(), None, args.selector.as_deref()).await?;
    let rows = fleet
        .rows()
        .map(|row| (row.key.clone(), row.mode))
        .collect();
    let keys = chosen(rows, args, &scope)?;
    let with_namespace = namespace.is_none();
    let logs = KubeLogs::new(conn.client.clone());
    let requests: Vec<_> = keys
        .iter()
        .map(|key| log_request(args, &key.namespace, &format!("{}-0", key.name)))
        .collect();
    let opened = futures::future::join_all(requests.iter().map(|r| logs.open(r))).await;
    let mut failed = Vec::new();
    let mut streams = Vec::new();
    for (key, result) in keys.iter().zip(opened) {
        match result {
            Ok(lines) => {
                let key = key.clone();
                streams.push(lines.map(move |line| (key.clone(), line)).boxed());
            }
            Err(error) => {
                eprintln!("error: {}", prefixed(key, with_namespace, &words(&error)));
                failed.push(key.name.to_string());
            }
        }
    }
    let mut all = futures::stream::select_all(streams);
    let mut out = std::io::stdout().lock();
    while let Some((key, line)) = all.next().await {
        match line {
            Ok(line) if kept(args, &line) => {
                // A closed pipe (`| head`) ends the command quietly, as kubectl does.
                let text = prefixed(&key, with_namespace, &line);
                if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
                    return Ok(());
                }
            }
            Ok(_) => {}
            Err(error) => {
                eprintln!("error: {}", prefixed(&key, with_namespace, &words(&error)));
                failed.push(key.name.to_string());
            }
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(CliError::Failed(format!(
            "the logs of {} of {} nodes could not be read: {}",
            failed.len(),
            keys.len(),
            failed.join(", ")
        )))
    }
}

/// A refused or broken stream in the words `logs NODE` uses.
fn words(error: &LogError) -> String {
    match error {
        LogError::PodMissing { pod, .. } => format!("no pod {pod} (not created yet, or deleted)"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::NodeMode;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Wrapper {
        #[command(flatten)]
        args: LogsArgs,
    }

    fn args(argv: &[&str]) -> LogsArgs {
        Wrapper::try_parse_from(std::iter::once("logs").chain(argv.iter().copied()))
            .expect("parse")
            .args
    }

    fn key(namespace: &str, name: &str) -> ObjectKey {
        ObjectKey::new(namespace, name)
    }

    #[test]
    fn each_line_is_prefixed_with_its_node_and_namespace_when_several_are_read() {
        let node = key("sei", "rpc-0");
        assert_eq!(prefixed(&node, false, "INF hi"), "[rpc-0] INF hi");
        assert_eq!(prefixed(&node, true, "INF hi"), "[sei/rpc-0] INF hi");
        assert_eq!(prefixed(&node, false, ""), "[rpc-0] ");
    }

    #[test]
    fn the_mode_chooses_in_name_order_and_past_the_bound_is_refused_in_one_line() {
        let rows = vec![
            (key("sei", "b"), Some(NodeMode::Full)),
            (key("sei", "s"), Some(NodeMode::Seed)),
            (key("sei", "a"), Some(NodeMode::Full)),
        ];
        let names = |keys: Vec<ObjectKey>| -> Vec<String> {
            keys.iter().map(|k| k.name.to_string()).collect()
        };
        let full = chosen(rows.clone(), &args(&["--mode", "full"]), "in namespace sei");
        assert_eq!(names(full.expect("chosen")), ["a", "b"]);
        let all = chosen(rows.clone(), &args(&["-l", "x=y"]), "in namespace sei");
        assert_eq!(names(all.expect("chosen")), ["a", "b", "s"]);
        let none = chosen(rows, &args(&["--mode", "archive"]), "in namespace sei");
        match none {
            Err(CliError::Failed(text)) => {
                assert_eq!(text, "no SeiNode in namespace sei matches --mode archive")
            }
            other => panic!("{other:?}"),
        }
        let many = (0..=MAX_NODES)
            .map(|i| (key("sei", &format!("n{i:02}")), Some(NodeMode::Full)))
            .collect();
        match chosen(many, &args(&["-l", "tier=rpc"]), "in namespace sei") {
            Err(CliError::BadInput(text)) => {
                assert!(!text.contains('\n'), "{text}");
                assert!(
                    text.starts_with(
                        "logs -l tier=rpc matches 21 SeiNodes in namespace sei; at most 20"
                    ),
                    "{text}"
                );
            }
            other => panic!("{other:?}"),
        }
        let exactly = (0..MAX_NODES)
            .map(|i| (key("sei", &format!("n{i:02}")), None))
            .collect();
        assert_eq!(
            chosen(exactly, &args(&["-l", "tier=rpc"]), "x")
                .map(|k| k.len())
                .ok(),
            Some(MAX_NODES)
        );
    }
}
