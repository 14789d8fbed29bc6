//! A rollout as an operator sees it, judged once for every screen: `rollout status` (CLI), the
//! console's header, its `:rollouts` view and the fleet row of a node in a held rollout all
//! read a [`RolloutView`], so the CLI and the console say the same thing.
//!
//! The judgement: the record's state (running, holding, halted, aborted, done), and for an
//! unfinished one its runner, live or **orphaned** (its heartbeat stale, or its process on this
//! machine gone: `StoredRecord::runner`, the node Leases' rule) with the command that resumes
//! it. [`read`] lists a namespace's records over the `ClusterApi` port and judges them at `now`.
use std::time::Duration;

use jiff::Timestamp;

use super::rollout_control::node_words;
use super::rollout_record::{
    self as rec, RecordKind, RolloutRecord, RolloutState, Runner, StoredRecord,
};
use crate::ports::{ClusterApi, ClusterError, HolderProbe};

/// Rollouts finished longer ago than this are left out of a listing.
pub const RECENT: Duration = Duration::from_secs(24 * 3600);

/// One rollout record, judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RolloutView {
    pub record: RolloutRecord,
    /// The runner while it runs; none once it finished.
    pub holder: Option<String>,
    pub renewed: Option<Timestamp>,
    pub runner: RunnerView,
}

/// Its runner, judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunnerView {
    Finished,
    Live { holder: String },
    Orphaned { holder: String },
}

impl RolloutView {
    /// Judges `stored` at `now` (`holders`: what this machine knows of the runner's process).
    pub fn judge(stored: &StoredRecord, now: Timestamp, holders: &dyn HolderProbe) -> RolloutView {
        let holder = stored.holder.clone().unwrap_or_default();
        let runner = match stored.runner(now, holders.process(&holder)) {
            Runner::Finished => RunnerView::Finished,
            Runner::Live { holder, .. } => RunnerView::Live { holder },
            Runner::Orphaned { holder, .. } => RunnerView::Orphaned { holder },
        };
        RolloutView {
            record: stored.record.clone(),
            holder: stored.holder.clone(),
            renewed: stored.renewed,
            runner,
        }
    }

    pub fn is_orphaned(&self) -> bool {
        matches!(self.runner, RunnerView::Orphaned { .. })
    }

    /// Unfinished: running or holding (orphaned or not).
    pub fn is_open(&self) -> bool {
        !self.record.state.is_finished()
    }

    /// The state in one word: `running`, `held`, `orphaned`, `halted`, `aborted`, `done`; an
    /// abort requested but not yet reached is `aborting`.
    pub fn word(&self) -> &'static str {
        match self.record.state {
            _ if self.is_orphaned() => "orphaned",
            RolloutState::Running | RolloutState::Holding if self.record.abort.is_some() => {
                "aborting"
            }
            RolloutState::Holding => "held",
            state => state.as_str(),
        }
    }

    /// The runner in words: `live (HOLDER)`, `orphaned: ...; resume: COMMAND`, `-`.
    pub fn runner_words(&self) -> String {
        match &self.runner {
            RunnerView::Finished => "-".to_owned(),
            RunnerView::Live { holder } => format!("live ({holder})"),
            RunnerView::Orphaned { holder } => format!(
                "orphaned: its runner {} stopped heartbeating; resume: {}",
                if holder.is_empty() { "?" } else { holder },
                self.record.resume_command()
            ),
        }
    }

    /// The short line of the console's header: `⟳ rollout 20261205-120501-3fa2 2/5 held`.
    pub fn header(&self) -> String {
        let (rolled, total) = self.record.progress();
        format!(
            "⟳ rollout {} {rolled}/{total} {}",
            self.record.id,
            self.word()
        )
    }

    /// What the fleet row of `node` says when this rollout holds, is being aborted or lost
    /// its runner with the node in it (`held`); `None` otherwise.
    pub fn node_mark(&self, node: &str) -> Option<&'static str> {
        if !self.record.nodes.iter().any(|n| n.name == node) {
            return None;
        }
        match self.word() {
            word @ ("held" | "orphaned" | "aborting") => Some(word),
            _ => None,
        }
    }

    /// The rollout as `rollout status` prints it (and the console's `:rollouts` shows it).
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let r = &self.record;
        let (rolled, total) = r.progress();
        let kind = match &r.kind {
            RecordKind::Rollout => String::new(),
            RecordKind::Undo { of } => format!(" (undo of {of})"),
        };
        let mut out = format!(
            "rollout {}{kind}: {} -> {}\n  state: {}{}\n  runner: {}\n  by {} at {}; \
             wave {} of {}; {rolled}/{total} node(s) verified\n",
            r.id,
            r.namespace,
            r.image,
            r.state.as_str(),
            r.reason
                .as_deref()
                .map(|x| format!(" ({x})"))
                .unwrap_or_default(),
            self.runner_words(),
            r.operator,
            r.started,
            (r.wave + 1).min(r.waves.len().max(1)),
            r.waves.len(),
        );
        if let Some(abort) = &r.abort
            && !r.state.is_finished()
        {
            let _ = writeln!(out, "  abort requested by {} at {}", abort.by, abort.at);
        }
        if r.state == RolloutState::Holding && !self.is_orphaned() {
            let _ = writeln!(
                out,
                "  held after wave {}: `sei-console -n {} rollout promote {}` starts the next",
                r.wave + 1,
                r.namespace,
                r.id
            );
        }
        let _ = writeln!(
            out,
            "  gate: {}",
            match &r.gate {
                Some(g) => format!(
                    "soak {} s, timeout {} s; last: {}",
                    g.soak_seconds,
                    g.timeout_seconds,
                    r.last_gate.as_deref().unwrap_or("none yet")
                ),
                None => "none (--no-health-gate)".to_owned(),
            }
        );
        for node in &r.nodes {
            let _ = writeln!(
                out,
                "  {}: {} -> {}: {}",
                node.name,
                node.from,
                node.to,
                node_words(node)
            );
        }
        if r.omitted_nodes > 0 {
            let _ = writeln!(out, "  ... and {} more node(s)", r.omitted_nodes);
        }
        out
    }
}

/// Every rollout record of `namespace`, newest first (unreadable ones skipped).
pub async fn list(
    cluster: &dyn ClusterApi,
    namespace: &str,
) -> Result<Vec<StoredRecord>, ClusterError> {
    let selector = format!("{}={}", rec::MANAGED_BY, rec::MANAGED_BY_VALUE);
    let leases = cluster.list_leases(namespace, &selector).await?;
    let mut records: Vec<StoredRecord> = leases
        .iter()
        .filter(|l| {
            l.metadata
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with(rec::RECORD_PREFIX))
        })
        .filter_map(|l| rec::from_lease(l).ok())
        .collect();
    records.sort_by_key(|r| std::cmp::Reverse(r.record.started));
    Ok(records)
}

/// The rollouts of `namespace` an operator is shown without naming one: the unfinished ones
/// and those finished within [`RECENT`], judged at `now`, newest first.
pub async fn read(
    cluster: &dyn ClusterApi,
    namespace: &str,
    holders: &dyn HolderProbe,
    now: Timestamp,
) -> Result<Vec<RolloutView>, ClusterError> {
    Ok(recent(&list(cluster, namespace).await?, now)
        .into_iter()
        .map(|stored| RolloutView::judge(stored, now, holders))
        .collect())
}

/// The unfinished records and those finished within [`RECENT`] of `now`.
pub fn recent(records: &[StoredRecord], now: Timestamp) -> Vec<&StoredRecord> {
    records
        .iter()
        .filter(|r| {
            !r.record.state.is_finished()
                || now.as_second() - r.record.updated.as_second() < RECENT.as_secs() as i64
        })
        .collect()
}

/// A sample rollout of `nodes` nodes (`seid-0`…) from `seid:v1` to `seid:v2` started at `at`,
/// in `state`, its first node verified: for the screens' tests.
#[cfg(any(test, feature = "testing"))]
pub fn sample(state: RolloutState, nodes: usize, at: Timestamp) -> RolloutView {
    use super::rollout_record::{GateRecord, HoldAfter, NodeState, RecordNode};
    let names: Vec<String> = (0..nodes).map(|i| format!("seid-{i}")).collect();
    let mut record = RolloutRecord {
        id: rec::new_id(at, uuid::Uuid::nil()),
        kind: RecordKind::Rollout,
        operator: "ops@example (context kind)".into(),
        context: "kind".into(),
        namespace: "sei".into(),
        image: "ghcr.io/sei/seid:v2".into(),
        started: at,
        updated: at,
        state,
        reason: None,
        waves: std::iter::once(names[..1.min(nodes)].to_vec())
            .chain((nodes > 1).then(|| names[1..].to_vec()))
            .collect(),
        wave: 0,
        gate: Some(GateRecord {
            soak_seconds: 60,
            timeout_seconds: 600,
        }),
        last_gate: Some("seid-0: healthy: height 1207 (+38 in 60 s), 0 s behind".into()),
        nodes: Vec::new(),
        omitted_nodes: 0,
        abort: None,
        hold_after: Some(HoldAfter::Canary),
        promote: None,
    };
    record.set_nodes(
        names
            .iter()
            .enumerate()
            .map(|(i, name)| RecordNode {
                name: name.clone(),
                from: "ghcr.io/sei/seid:v1".into(),
                to: "ghcr.io/sei/seid:v2".into(),
                state: if i == 0 {
                    NodeState::Rolled
                } else {
                    NodeState::Pending
                },
                plan: None,
            })
            .collect(),
    );
    let finished = state.is_finished();
    RolloutView {
        record,
        holder: (!finished).then(|| "sei-console-host-4242".to_owned()),
        renewed: (!finished).then_some(at),
        runner: if finished {
            RunnerView::Finished
        } else {
            RunnerView::Live {
                holder: "sei-console-host-4242".into(),
            }
        },
    }
}

#[cfg(test)]
mod tests;
