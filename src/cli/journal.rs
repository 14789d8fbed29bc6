//! `sei-console [--context A ...] journal [--since D] [--node NODE] [--action A] [--operator TEXT]
//! [--all]`: lists the local record of operator actions, oldest first; dry runs only with
//! `--all`; with `--context`, only the actions in those contexts.
use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::CliError;
use crate::actions::event::ActionKind;
use crate::journal::{Journal, JournalEntry, JournalFilter, parse_since};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum JournalFormat {
    /// Aligned columns, oldest first.
    #[default]
    Text,
    /// A JSON array of the entries.
    Json,
}

#[derive(Debug, Args)]
pub struct JournalArgs {
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = JournalFormat::Text)]
    pub output: JournalFormat,
    /// Journal file (default: $XDG_STATE_HOME/sei-console/journal.jsonl).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Only actions since a duration ago (300 seconds, 90m, 1h30m, 2d) or an RFC 3339 time.
    #[arg(long, value_name = "SINCE")]
    pub since: Option<String>,
    /// Only actions that touched this node (NAME or NAMESPACE/NAME).
    #[arg(long, value_name = "NODE")]
    pub node: Option<String>,
    /// Only this action: rollout, address, seed-create.
    #[arg(long, value_name = "ACTION", value_parser = crate::ops::action_kind)]
    pub action: Option<ActionKind>,
    /// Only actions of operators whose name contains this text (any case).
    #[arg(long, value_name = "TEXT")]
    pub operator: Option<String>,
    /// Dry runs too (hidden by default).
    #[arg(long)]
    pub all: bool,
}

impl JournalArgs {
    /// The filter of these flags and the global `--context`s.
    fn filter(&self, contexts: &[String], now: jiff::Timestamp) -> Result<JournalFilter, CliError> {
        let since = match &self.since {
            Some(text) => {
                Some(parse_since(text, now).map_err(|e| CliError::BadInput(e.to_string()))?)
            }
            None => None,
        };
        Ok(JournalFilter {
            since,
            node: self.node.clone(),
            action: self.action,
            operator: self.operator.clone(),
            contexts: contexts.to_vec(),
            dry_runs: self.all,
        })
    }
}

/// How long closing an interrupted run may wait for its cluster's answer.
const CLUSTER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Closes as `interrupted` the runs of consoles that died (`ops::interrupted`), reading what
/// each one's cluster shows through `kubeconfig` (a cluster that cannot be reached is named);
/// the lines written are added to `contents`.
async fn close_interrupted(
    journal: &Journal,
    kubeconfig: Option<&std::path::Path>,
    contents: &mut crate::journal::JournalContents,
) {
    use crate::ops::interrupted;
    let holders = crate::ops::runners::local_holders();
    let mut contexts: Vec<String> = interrupted::unended(&contents.entries)
        .iter()
        .filter_map(|e| e.context_name().map(str::to_owned))
        .collect();
    if contexts.is_empty() {
        return;
    }
    contexts.sort();
    contexts.dedup();
    let mut clusters = Vec::new();
    for context in contexts {
        let connected = tokio::time::timeout(
            CLUSTER_TIMEOUT,
            crate::kube::client::connect(kubeconfig, Some(&context)),
        )
        .await;
        if let Ok(Ok(conn)) = connected {
            clusters.push((context, crate::kube::cluster::KubeCluster::new(conn.client)));
        }
    }
    let clusters: Vec<(&str, &dyn crate::ports::ClusterApi)> = clusters
        .iter()
        .map(|(c, k)| (c.as_str(), k as &dyn crate::ports::ClusterApi))
        .collect();
    let with = interrupted::CloseWith {
        holders: &holders,
        own_holder: &crate::executor::driver::default_holder(),
        clusters: &clusters,
        now: jiff::Timestamp::now(),
    };
    let closing = interrupted::close(&contents.entries, |_| true, &with);
    let Ok(lines) = tokio::time::timeout(CLUSTER_TIMEOUT * 3, closing).await else {
        eprintln!("warning: the clusters did not answer in time; interrupted runs left open");
        return;
    };
    for line in lines {
        match journal.append(&line) {
            Ok(()) => contents.entries.push(line),
            Err(error) => eprintln!("warning: {error}"),
        }
    }
}

/// Lists the entries of `contexts` (every one when empty) that the flags keep, after closing
/// the runs of consoles that died.
pub async fn run(
    args: &JournalArgs,
    kubeconfig: Option<&std::path::Path>,
    contexts: &[String],
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let filter = args.filter(contexts, jiff::Timestamp::now())?;
    let journal = match &args.file {
        // A file the operator names must be there: an empty answer would read as "nothing was
        // done" when the path is wrong.
        Some(path) if !path.exists() => {
            return Err(CliError::Failed(format!(
                "journal file {} does not exist",
                path.display()
            )));
        }
        Some(path) => Journal::at(path),
        None => Journal::default_location().map_err(|e| CliError::Failed(e.to_string()))?,
    };
    let mut contents = journal
        .read()
        .map_err(|e| CliError::Failed(e.to_string()))?;
    close_interrupted(&journal, kubeconfig, &mut contents).await;
    for problem in &contents.problems {
        eprintln!("warning: {problem}");
    }
    // Rows carry their context, old lines' read from the operator.
    let entries: Vec<JournalEntry> = filter
        .select(&contents.entries)
        .into_iter()
        .map(JournalEntry::with_context)
        .collect();
    let written = match args.output {
        JournalFormat::Json => serde_json::to_string_pretty(&entries)
            .map_err(std::io::Error::other)
            .and_then(|json| writeln!(out, "{json}")),
        JournalFormat::Text if contents.entries.is_empty() => {
            writeln!(out, "no actions recorded in {}", journal.path().display())
        }
        JournalFormat::Text if entries.is_empty() => writeln!(
            out,
            "no action in {} matches ({}; --all shows dry runs)",
            journal.path().display(),
            filter.words()
        ),
        JournalFormat::Text => out.write_all(text_table(&entries).as_bytes()),
    };
    written.map_err(|e| CliError::Failed(format!("cannot write output: {e}")))
}

/// Aligned columns: TIME, OPERATOR, ACTION, OUTCOME, NODES, DETAIL (with the reason).
pub fn text_table(entries: &[JournalEntry]) -> String {
    let header = ["TIME", "OPERATOR", "ACTION", "OUTCOME", "NODES", "DETAIL"].map(String::from);
    let rows: Vec<[String; 6]> = entries
        .iter()
        .map(|e| {
            let detail = match &e.reason {
                Some(reason) => format!("{} ({reason})", e.detail),
                None => e.detail.clone(),
            };
            [
                e.time.to_string(),
                e.operator.clone(),
                e.action.name().to_owned(),
                e.outcome.name().to_owned(),
                e.nodes.join(","),
                detail,
            ]
        })
        .collect();
    let mut widths = header.clone().map(|h| h.chars().count());
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = row
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(i, (cell, width))| {
                if i + 1 == row.len() {
                    cell.clone()
                } else {
                    format!("{cell:<width$}")
                }
            })
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Outcome;

    #[test]
    fn text_table_aligns_columns_and_shows_reasons() {
        let entries = vec![
            JournalEntry {
                time: "2026-11-30T04:00:00Z".parse().expect("time"),
                operator: "alice (context prod)".into(),
                context: Some("prod".into()),
                action: crate::ops::actions::rollout::KIND.into(),
                nodes: vec!["sei/rpc-0".into()],
                detail: "image seid:v2".into(),
                outcome: Outcome::Refused,
                reason: Some("read-only mode".into()),
                holder: None,
            },
            JournalEntry {
                time: "2026-11-30T04:05:00Z".parse().expect("time"),
                operator: "bob (context dev)".into(),
                context: None,
                action: crate::ops::actions::seed::KIND.into(),
                nodes: vec!["sei/seed-a".into()],
                detail: "seed for pacific-1".into(),
                outcome: Outcome::Succeeded,
                reason: None,
                holder: None,
            },
        ];
        insta::assert_snapshot!(text_table(&entries), @r"
        TIME                  OPERATOR              ACTION       OUTCOME    NODES       DETAIL
        2026-11-30T04:00:00Z  alice (context prod)  rollout      refused    sei/rpc-0   image seid:v2 (read-only mode)
        2026-11-30T04:05:00Z  bob (context dev)     seed-create  succeeded  sei/seed-a  seed for pacific-1
        ");
    }
}
