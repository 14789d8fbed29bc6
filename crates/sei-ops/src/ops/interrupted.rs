//! Closing the journal lines of actions whose console died (issue 33: the journal lines of the
//! interrupted rollouts stayed `started` for ever).
//!
//! A `started` line is **unended** when no later line of the same run (same holder, action and
//! nodes) says how it ended. Its console **died** when
//! - its holder is a console of this machine whose process is gone or a zombie
//!   (`ports::HolderProbe`: `sei-console-<host>-<pid>`), or
//! - a node's Lease `sei-console-exec-<node>` still names that holder and has expired
//!   unrenewed (a console of another machine: a live one renews every 10 s).
//!
//! An unended line whose console died is closed by appending an `interrupted` line for the same
//! run, saying who died and what the cluster shows now (each node's plan: ID, phase, tasks
//! done, the task it stands at). It is done the next time any console reads the journal
//! (`sei-console journal`, the console's `:journal`) or records an action on one of its nodes
//! (`ops::action::execute`). A console that is alive (this process included) is never judged.
use jiff::Timestamp;

use crate::executor::lease::{lease_is_live, node_lease_name};
use crate::journal::{JournalEntry, Outcome};
use crate::ports::{ClusterApi, HolderProbe};

/// Whether `later` ends the run that `started` began.
fn ends(started: &JournalEntry, later: &JournalEntry) -> bool {
    later.holder == started.holder
        && later.action == started.action
        && later.nodes == started.nodes
        && later.context_name() == started.context_name()
        && !matches!(later.outcome, Outcome::Started | Outcome::DryRun)
}

/// The `started` lines (with a holder) that no later line of their run ended, oldest first.
pub fn unended(entries: &[JournalEntry]) -> Vec<&JournalEntry> {
    entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.outcome == Outcome::Started && e.holder.is_some())
        .filter(|(i, started)| !entries[i + 1..].iter().any(|later| ends(started, later)))
        .map(|(_, e)| e)
        .collect()
}

/// The line that closes `started`: same run, outcome `interrupted`, why and what the cluster
/// shows in its reason.
pub fn interrupted_line(
    started: &JournalEntry,
    died: &str,
    cluster_shows: &str,
    now: Timestamp,
) -> JournalEntry {
    JournalEntry {
        time: now,
        outcome: Outcome::Interrupted,
        reason: Some(format!("{died}; the cluster shows: {cluster_shows}")),
        ..started.clone()
    }
}

/// The clusters at hand to read what they show, by kubeconfig context.
pub type Clusters<'a> = [(&'a str, &'a dyn ClusterApi)];

fn cluster_of<'a>(
    clusters: &'a Clusters<'a>,
    started: &JournalEntry,
) -> Option<&'a dyn ClusterApi> {
    let context = started.context_name()?;
    clusters
        .iter()
        .find(|(c, _)| *c == context)
        .map(|(_, cluster)| *cluster)
}

/// Why the console of `started` is dead, or `None` while it may live.
async fn died(
    started: &JournalEntry,
    holders: &dyn HolderProbe,
    own_holder: &str,
    cluster: Option<&dyn ClusterApi>,
    now: Timestamp,
) -> Option<String> {
    let holder = started.holder.as_deref()?;
    if holder == own_holder {
        return None;
    }
    if holders.is_gone(holder) {
        return Some(format!(
            "its console ({holder}) is no longer running on this machine"
        ));
    }
    let cluster = cluster?;
    for node in &started.nodes {
        let (namespace, name) = node.split_once('/')?;
        let lease_name = node_lease_name(name);
        let Ok(Some(lease)) = cluster.get_lease(namespace, &lease_name).await else {
            continue;
        };
        let holds = lease
            .spec
            .as_ref()
            .and_then(|s| s.holder_identity.as_deref())
            == Some(holder);
        if holds && lease_is_live(&lease, now).is_none() {
            return Some(format!(
                "its console ({holder}) stopped renewing Lease {namespace}/{lease_name}, which expired"
            ));
        }
    }
    None
}

/// What the cluster shows of the nodes of `started`: each node's plan now.
async fn cluster_shows(started: &JournalEntry, cluster: Option<&dyn ClusterApi>) -> String {
    let Some(cluster) = cluster else {
        return format!(
            "not read (no connection to context {})",
            started.context_name().unwrap_or("?")
        );
    };
    let mut shown = Vec::new();
    for node in &started.nodes {
        let Some((namespace, name)) = node.split_once('/') else {
            continue;
        };
        let text = match cluster.get_seinode(namespace, name).await {
            Ok(Some(seinode)) => match seinode.status.as_ref().and_then(|s| s.plan.as_ref()) {
                Some(plan) => {
                    let at = plan
                        .current_task_index()
                        .and_then(|i| plan.tasks.get(i))
                        .map(|t| format!(" at {}", t.kind.as_str()))
                        .unwrap_or_default();
                    format!(
                        "{node} plan {} {} {}/{}{at}",
                        plan.id.get(..8).unwrap_or(&plan.id),
                        plan.phase,
                        plan.completed_count(),
                        plan.tasks.len()
                    )
                }
                None => format!("{node} no plan (steady state)"),
            },
            Ok(None) => format!("{node} not found"),
            Err(error) => format!("{node} unreadable ({error})"),
        };
        shown.push(text);
    }
    shown.join("; ")
}

/// What [`close`] looks at.
pub struct CloseWith<'a> {
    pub holders: &'a dyn HolderProbe,
    /// This process's own executor identity (never judged dead).
    pub own_holder: &'a str,
    pub clusters: &'a Clusters<'a>,
    pub now: Timestamp,
}

/// The `interrupted` lines closing the unended lines of `entries` that `only` keeps and whose
/// console died. The caller appends them.
pub async fn close(
    entries: &[JournalEntry],
    only: impl Fn(&JournalEntry) -> bool,
    with: &CloseWith<'_>,
) -> Vec<JournalEntry> {
    let mut lines = Vec::new();
    for started in unended(entries).into_iter().filter(|e| only(e)) {
        let cluster = cluster_of(with.clusters, started);
        let Some(why) = died(started, with.holders, with.own_holder, cluster, with.now).await
        else {
            continue;
        };
        let shows = cluster_shows(started, cluster).await;
        lines.push(interrupted_line(started, &why, &shows, with.now));
    }
    lines
}
