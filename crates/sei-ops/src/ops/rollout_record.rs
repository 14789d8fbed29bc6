//! A rollout as a thing in the cluster: one Lease per rollout in the nodes' namespace, named
//! `sei-console-rollout-<id>`, that every console and plain `kubectl` can read, and that outlives
//! the console that started it.
//!
//! - **Where**: `coordination.k8s.io/v1` Lease `sei-console-rollout-<id>`, labelled
//!   `app.kubernetes.io/managed-by=sei-console`, `sei.io/rollout=<id>` and
//!   `sei.io/rollout-state=<state>` (`kubectl get leases -l sei.io/rollout-state=running`).
//! - **Heartbeat**: the Lease's own `holderIdentity` (the running console, as its node Leases
//!   name it) and `renewTime`, renewed every [`HEARTBEAT_RENEW`] of a [`HEARTBEAT_DURATION`]
//!   Lease; a running or holding rollout whose holder stopped renewing (or, on this machine, whose
//!   process is gone) is **orphaned** (`executor::lease::judge_holder`, the node Leases' rule).
//! - **What**: the annotation `sei.io/rollout` holds the record as JSON ([`RolloutRecord`]): ID,
//!   kind (rollout or undo of another), operator and context, image, per-node from/to images and
//!   state, waves and the wave it is at, gate settings, hold setting, state and its reason, the
//!   gate's last reading, and the abort/promote requests another terminal wrote. Bounded: at most
//!   [`MAX_RECORD_NODES`] nodes (the rest counted), texts cut at [`MAX_TEXT`] characters, so the
//!   annotation stays far under the API server's 256 KiB.
//! - **One runner**: every write is a `PUT` under the Lease's resourceVersion. The runner merges
//!   a conflicting write (an abort or promote request) and goes on; a runner that finds another
//!   holder named stops (`RecordError::Lost`), so two consoles never run one rollout.
//! - **Abort and promote from anywhere**: another process sets `abort`/`promote` in the record
//!   (the same guarded `PUT`); the runner reads its record every [`POLL_EVERY`] and acts at its
//!   next safe point. A rollout whose runner is gone is aborted by the aborting process itself.
//! - **Pruning**: when a rollout starts, finished records (done, halted, aborted) last written more
//!   than [`PRUNE_AFTER`] ago are deleted.
//! - **Permissions**: list, get, create, update and delete of Leases in the namespace, in every
//!   rollout preview's checks ([`record_checks`]).
use std::time::Duration;

use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use serde::{Deserialize, Serialize};

use crate::executor::lease::{HolderVerdict, judge_holder};
use crate::ports::HolderProcess;
use crate::ports::access::PermissionCheck;

/// Prefix of a record's Lease name.
pub const RECORD_PREFIX: &str = "sei-console-rollout-";
/// Label and annotation naming the rollout (its ID; the annotation holds the JSON).
pub const ROLLOUT_KEY: &str = "sei.io/rollout";
/// Label carrying the state, for `kubectl get leases -l`.
pub const STATE_LABEL: &str = "sei.io/rollout-state";
/// The selector that lists every record.
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY_VALUE: &str = "sei-console";
/// How long the heartbeat stays valid without renewal.
pub const HEARTBEAT_DURATION: Duration = Duration::from_secs(30);
/// How often the runner renews it.
pub const HEARTBEAT_RENEW: Duration = Duration::from_secs(10);
/// How often the runner reads its record for an abort or a promote.
pub const POLL_EVERY: Duration = Duration::from_secs(2);
/// Finished records older than this are deleted when a rollout starts.
pub const PRUNE_AFTER: Duration = Duration::from_secs(7 * 24 * 3600);
/// Nodes kept in one record; more are counted in `omitted_nodes`.
pub const MAX_RECORD_NODES: usize = 300;
/// Longest text kept (a reason, an image, a gate reading).
pub const MAX_TEXT: usize = 400;

/// Where a rollout stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RolloutState {
    Running,
    /// Held after a wave passed its gate, until promoted or aborted.
    Holding,
    /// A node failed (or the runner lost the record): the rest never started.
    Halted,
    Aborted,
    Done,
}

impl RolloutState {
    pub fn as_str(self) -> &'static str {
        match self {
            RolloutState::Running => "running",
            RolloutState::Holding => "holding",
            RolloutState::Halted => "halted",
            RolloutState::Aborted => "aborted",
            RolloutState::Done => "done",
        }
    }

    /// Nothing runs it any more.
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            RolloutState::Halted | RolloutState::Aborted | RolloutState::Done
        )
    }
}

/// Where one node of the rollout stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeState {
    /// Not started: unchanged by this rollout.
    Pending,
    /// Its update plan persisted and `spec.image` pinned; not through its gates yet.
    Rolling,
    /// Through its plan, wave gate and health gate.
    Rolled,
    Failed,
}

/// One node: the image it had and the one it is rolled to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordNode {
    pub name: String,
    pub from: String,
    pub to: String,
    pub state: NodeState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
}

/// An abort or promote written by a terminal (maybe another one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    pub by: String,
    pub at: Timestamp,
}

/// The health gate's settings (`None` in the record: `--no-health-gate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateRecord {
    pub soak_seconds: u64,
    pub timeout_seconds: u64,
}

/// When a rollout holds (`--hold-after`), until `rollout promote` or an abort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HoldAfter {
    /// After the canary wave passed its gates.
    Canary,
    /// After every wave but the last.
    EachWave,
}

impl HoldAfter {
    pub fn as_str(self) -> &'static str {
        match self {
            HoldAfter::Canary => "canary",
            HoldAfter::EachWave => "each-wave",
        }
    }

    /// Whether the rollout holds after wave `index` (0-based) of `waves`; `canary`: the first
    /// wave is a canary wave.
    pub fn holds_after(self, index: usize, waves: usize, canary: bool) -> bool {
        if index + 1 >= waves {
            return false;
        }
        match self {
            HoldAfter::Canary => canary && index == 0,
            HoldAfter::EachWave => true,
        }
    }
}

/// How long a rollout may hold before it halts (a hold nobody promotes does not last forever).
pub const MAX_HOLD: Duration = Duration::from_secs(24 * 3600);

/// What the record is of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordKind {
    Rollout,
    /// An undo of the rollout named.
    Undo {
        of: String,
    },
}

/// The record, as the annotation holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutRecord {
    pub id: String,
    pub kind: RecordKind,
    pub operator: String,
    pub context: String,
    pub namespace: String,
    pub image: String,
    pub started: Timestamp,
    pub updated: Timestamp,
    pub state: RolloutState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub waves: Vec<Vec<String>>,
    /// The wave it is at (0-based).
    pub wave: usize,
    pub gate: Option<GateRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_gate: Option<String>,
    pub nodes: Vec<RecordNode>,
    #[serde(default)]
    pub omitted_nodes: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort: Option<Request>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_after: Option<HoldAfter>,
    /// The promote that ends the current hold (cleared when the rollout goes on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promote: Option<Request>,
}

/// Why the record could not be written or read.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RecordError {
    #[error("rollout record {name}: {source}")]
    Api {
        name: String,
        source: crate::ports::ClusterError,
    },
    #[error("rollout record {name} is now held by {holder}: another console runs this rollout")]
    Lost { name: String, holder: String },
    #[error("rollout record {name} has no readable record ({why})")]
    Unreadable { name: String, why: String },
}

/// A new rollout's ID: the start time and a random suffix (`20261205-120501-3fa2`).
pub fn new_id(now: Timestamp, uuid: uuid::Uuid) -> String {
    let time = now.strftime("%Y%m%d-%H%M%S").to_string();
    let suffix: String = uuid.simple().to_string().chars().take(4).collect();
    format!("{time}-{suffix}")
}

/// The record's Lease name.
pub fn lease_name(id: &str) -> String {
    format!("{RECORD_PREFIX}{id}")
}

/// `text` cut to [`MAX_TEXT`] characters.
pub fn bounded(text: &str) -> String {
    if text.chars().count() <= MAX_TEXT {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(MAX_TEXT - 1).collect();
    cut.push('…');
    cut
}

impl RolloutRecord {
    /// The nodes, at most [`MAX_RECORD_NODES`] kept (the rest counted).
    pub fn set_nodes(&mut self, nodes: Vec<RecordNode>) {
        self.omitted_nodes = nodes.len().saturating_sub(MAX_RECORD_NODES);
        self.nodes = nodes
            .into_iter()
            .take(MAX_RECORD_NODES)
            .map(|mut n| {
                n.from = bounded(&n.from);
                n.to = bounded(&n.to);
                n
            })
            .collect();
    }

    pub fn node_mut(&mut self, name: &str) -> Option<&mut RecordNode> {
        self.nodes.iter_mut().find(|n| n.name == name)
    }

    /// Nodes this rollout changed (their image pinned), and those it left unchanged.
    pub fn changed_and_unchanged(&self) -> (Vec<&RecordNode>, Vec<&RecordNode>) {
        self.nodes
            .iter()
            .partition(|n| n.state != NodeState::Pending)
    }

    /// The command that resumes it (the same nodes and image): what an orphan shows.
    pub fn resume_command(&self) -> String {
        let names: Vec<&str> = self.nodes.iter().map(|n| n.name.as_str()).collect();
        format!(
            "sei-console -n {} rollout {} --image {}",
            self.namespace,
            names.join(" "),
            self.image
        )
    }

    /// `done 3/5` style progress: nodes through their gates over all.
    pub fn progress(&self) -> (usize, usize) {
        let rolled = self
            .nodes
            .iter()
            .filter(|n| n.state == NodeState::Rolled)
            .count();
        (rolled, self.nodes.len() + self.omitted_nodes)
    }
}

/// The Lease holding `record`, held by `holder` (renewed `now`), guarded by `resource_version`.
pub fn to_lease(
    record: &RolloutRecord,
    holder: Option<&str>,
    renewed: Timestamp,
    resource_version: Option<String>,
) -> Lease {
    let labels = [
        (MANAGED_BY, MANAGED_BY_VALUE),
        (ROLLOUT_KEY, record.id.as_str()),
        (STATE_LABEL, record.state.as_str()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let json = serde_json::to_string(record).unwrap_or_default();
    Lease {
        metadata: ObjectMeta {
            name: Some(lease_name(&record.id)),
            namespace: Some(record.namespace.clone()),
            labels: Some(labels),
            annotations: Some([(ROLLOUT_KEY.to_owned(), json)].into_iter().collect()),
            resource_version,
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: holder.map(str::to_owned),
            lease_duration_seconds: Some(HEARTBEAT_DURATION.as_secs() as i32),
            acquire_time: Some(MicroTime(record.started)),
            renew_time: Some(MicroTime(renewed)),
            ..LeaseSpec::default()
        }),
    }
}

/// A record as read, with its heartbeat.
#[derive(Debug, Clone)]
pub struct StoredRecord {
    pub record: RolloutRecord,
    /// The runner while it runs; none once it finished.
    pub holder: Option<String>,
    pub renewed: Option<Timestamp>,
    pub lease: Lease,
}

/// Reads the record out of its Lease.
pub fn from_lease(lease: &Lease) -> Result<StoredRecord, RecordError> {
    let name = lease.metadata.name.clone().unwrap_or_default();
    let json = lease
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(ROLLOUT_KEY))
        .ok_or_else(|| RecordError::Unreadable {
            name: name.clone(),
            why: format!("no annotation {ROLLOUT_KEY}"),
        })?;
    let record: RolloutRecord =
        serde_json::from_str(json).map_err(|e| RecordError::Unreadable {
            name,
            why: e.to_string(),
        })?;
    let spec = lease.spec.as_ref();
    Ok(StoredRecord {
        record,
        holder: spec
            .and_then(|s| s.holder_identity.clone())
            .filter(|h| !h.is_empty()),
        renewed: spec.and_then(|s| s.renew_time.as_ref()).map(|t| t.0),
        lease: lease.clone(),
    })
}

/// Whether a record's runner still runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runner {
    /// Finished: nothing runs it.
    Finished,
    /// Its runner renewed within its interval (on this machine: its process runs).
    Live { holder: String, renewed_ago: u64 },
    /// Running or holding, but its runner stopped heartbeating or its process is gone.
    Orphaned {
        holder: String,
        renewed_ago: Option<u64>,
    },
}

impl StoredRecord {
    /// Judged like a node Lease's holder (`executor::lease::judge_holder`).
    pub fn runner(&self, now: Timestamp, process: HolderProcess) -> Runner {
        if self.record.state.is_finished() {
            return Runner::Finished;
        }
        let holder = self.holder.clone().unwrap_or_default();
        let ago = self
            .renewed
            .map(|at| u64::try_from(now.as_second() - at.as_second()).unwrap_or(0));
        if holder.is_empty() {
            return Runner::Orphaned {
                holder,
                renewed_ago: ago,
            };
        }
        match judge_holder(&self.lease, now, process) {
            HolderVerdict::Live { renewed_ago, .. } => Runner::Live {
                holder,
                renewed_ago,
            },
            HolderVerdict::Gone(_) | HolderVerdict::Silent { .. } => Runner::Orphaned {
                holder,
                renewed_ago: ago,
            },
        }
    }
}

/// The calls a rollout makes on its record, checked in its preview.
pub fn record_checks(namespace: &str, id: &str) -> Vec<PermissionCheck> {
    let check = PermissionCheck::new;
    let name = lease_name(id);
    let group = "coordination.k8s.io";
    vec![
        check("create", group, "leases", namespace, ""),
        check("update", group, "leases", namespace, &name),
        check("get", group, "leases", namespace, &name),
        check("list", group, "leases", namespace, ""),
        check("delete", group, "leases", namespace, ""),
    ]
}

/// Finished records last written before `now - PRUNE_AFTER`: deleted when a rollout starts.
pub fn prunable(records: &[StoredRecord], now: Timestamp) -> Vec<String> {
    let limit = now.as_second() - PRUNE_AFTER.as_secs() as i64;
    records
        .iter()
        .filter(|r| r.record.state.is_finished() && r.record.updated.as_second() < limit)
        .map(|r| lease_name(&r.record.id))
        .collect()
}

#[cfg(test)]
mod tests;
