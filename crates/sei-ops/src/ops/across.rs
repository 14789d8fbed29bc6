//! An action across clusters (a rollout of nodes of several clusters): prepared in every cluster
//! first (each with its own ports: identity, permission checks, controller Lease, platform
//! config, sidecar transport; nothing changed), one confirmation naming every cluster, then the
//! clusters one after the other through the shared preamble; the first that fails halts the rest.
//! The commands (`rollout --across-clusters`) and the console (marked nodes of several clusters)
//! both run it.
use super::action::{Previewed, execute};
use super::{Ops, OpsError, Report, RunEnd};

/// One cluster's part: its kubeconfig context, its use cases, its prepared action and where its
/// notes and progress go.
pub struct ClusterPart<'a> {
    pub context: &'a str,
    pub ops: Ops<'a>,
    pub prepared: &'a dyn Previewed,
    pub report: &'a dyn Report,
}

/// Told as the clusters go by (the command prints a heading and a result line per cluster).
pub trait InTurn: Send + Sync {
    fn starting(&self, context: &str);
    /// `halt` names the clusters left untouched when this one did not end well.
    fn ended(&self, context: &str, end: &Result<RunEnd, OpsError>, halt: Option<&str>);
}

/// How the clusters went: the last cluster's end, or the first that failed, naming its cluster.
#[derive(Debug)]
pub enum AcrossEnd {
    Done(RunEnd),
    Failed { context: String, end: RunEnd },
    Stopped { context: String, error: OpsError },
}

impl AcrossEnd {
    /// As one end: the failure names its cluster.
    pub fn into_run_end(self) -> RunEnd {
        match self {
            AcrossEnd::Done(end) => end,
            AcrossEnd::Failed { context, mut end } => {
                end.message = format!("cluster {context}: {}", end.message);
                end
            }
            AcrossEnd::Stopped { context, error } => RunEnd {
                ok: false,
                message: format!("cluster {context}: {error}"),
                ..RunEnd::done("")
            },
        }
    }
}

/// Runs the prepared parts cluster after cluster; the first that fails (or stops) halts the
/// rest, which are left untouched.
pub async fn execute_in_turn(parts: &[ClusterPart<'_>], told: &dyn InTurn) -> AcrossEnd {
    let contexts: Vec<String> = parts.iter().map(|p| p.context.to_owned()).collect();
    let mut last = RunEnd::done("nothing to do");
    for (index, part) in parts.iter().enumerate() {
        told.starting(part.context);
        let end = execute(&part.ops, part.prepared, part.report).await;
        let halt = halt_note(part.context, &contexts[index + 1..]);
        let failed = !matches!(&end, Ok(end) if end.ok);
        told.ended(part.context, &end, halt.as_deref().filter(|_| failed));
        match end {
            Ok(end) if end.ok => last = end,
            Ok(end) => {
                return AcrossEnd::Failed {
                    context: part.context.to_owned(),
                    end,
                };
            }
            Err(error) => {
                return AcrossEnd::Stopped {
                    context: part.context.to_owned(),
                    error,
                };
            }
        }
    }
    if parts.len() > 1 {
        last.message = format!(
            "{} in {} clusters ({})",
            last.message,
            contexts.len(),
            contexts.join(", ")
        );
    }
    AcrossEnd::Done(last)
}

/// `Roll out IMAGE to 5 nodes in 2 clusters (alpha: 2 nodes, beta: 3 nodes)?`: `what` is the
/// action's own words ([`Previewed::across`]).
pub fn question(what: &str, counts: &[(&str, usize)]) -> String {
    let nodes = |n: usize| {
        if n == 1 {
            "1 node".to_owned()
        } else {
            format!("{n} nodes")
        }
    };
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    let each: Vec<String> = counts
        .iter()
        .map(|(name, n)| format!("{name}: {}", nodes(*n)))
        .collect();
    format!(
        "{what} to {} in {} clusters ({})?",
        nodes(total),
        counts.len(),
        each.join(", ")
    )
}

/// The validators and seeds of every cluster (`(context, names)`), as `CONTEXT/NAME`: typed
/// to confirm.
pub fn typed_names(clusters: &[(&str, &[String])]) -> Vec<String> {
    clusters
        .iter()
        .flat_map(|(name, nodes)| nodes.iter().map(move |node| format!("{name}/{node}")))
        .collect()
}

/// What a cluster's failure leaves: the clusters after it, untouched.
pub fn halt_note(name: &str, rest: &[String]) -> Option<String> {
    (!rest.is_empty()).then(|| {
        format!(
            "rollout halted at cluster {name}: {} left untouched",
            rest.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_question_names_every_cluster_and_its_node_count() {
        let what = "Roll out ghcr.io/sei/seid:v2";
        assert_eq!(
            question(what, &[("alpha", 2), ("beta", 3)]),
            "Roll out ghcr.io/sei/seid:v2 to 5 nodes in 2 clusters (alpha: 2 nodes, beta: 3 nodes)?"
        );
        assert_eq!(
            question(what, &[("alpha", 1), ("beta", 0)]),
            "Roll out ghcr.io/sei/seid:v2 to 1 node in 2 clusters (alpha: 1 node, beta: 0 nodes)?"
        );
    }

    #[test]
    fn validators_and_seeds_of_every_cluster_are_typed_with_their_cluster() {
        let alpha = ["val-0".to_owned()];
        let beta = ["seed-0".to_owned(), "val-0".to_owned()];
        assert_eq!(
            typed_names(&[("alpha", &alpha), ("gamma", &[]), ("beta", &beta)]),
            ["alpha/val-0", "beta/seed-0", "beta/val-0"]
        );
    }

    #[test]
    fn a_halt_names_the_clusters_left_untouched() {
        let rest = ["beta".to_owned(), "gamma".to_owned()];
        assert_eq!(
            halt_note("alpha", &rest).as_deref(),
            Some("rollout halted at cluster alpha: beta, gamma left untouched")
        );
        assert_eq!(halt_note("gamma", &[]), None);
    }
}
