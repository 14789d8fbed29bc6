//! The node detail view model, shared by the node screen and `describe`.
/// What a render-failure event means now (re-exported for the screens).
pub use crate::render::fix::RenderEventNow;
use crate::render::fix::judge_render_event;
use jiff::Timestamp;
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::Pod;

use super::Fleet;
use super::events::{EventBrief, in_time_order};
use super::rows::{Drift, drift};
use super::running::{DriftSince, RunningImage, TaskTook, drift_since, task_durations};
use super::store::ObjectKey;
use crate::api::{NodeMode, Phase, PlanPhase, SeiNode, TaskPlan, TaskStatus};

/// The spec fields an operator checks first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecSummary {
    pub mode: Option<NodeMode>,
    pub chain_id: String,
    pub image: String,
    /// `spec.sidecar.image`, or the platform default when the spec names none.
    pub sidecar_image: Option<String>,
    pub external_address: Option<String>,
    pub peers: Vec<String>,
    pub overrides: Vec<(String, String)>,
    pub paused: bool,
    pub data_volume: String,
}

/// One condition row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionLine {
    pub kind: String,
    pub status: String,
    pub reason: String,
    pub message: String,
    pub since: Option<Timestamp>,
}

/// One task of the plan timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskLine {
    pub status: TaskStatus,
    pub kind: String,
    pub retries: i64,
    pub max_retries: i64,
    pub submitted_at: Option<Timestamp>,
    /// How long it took, as far as the plan records it (`running::task_durations`).
    pub took: TaskTook,
    pub error: String,
    /// The first task that is not Complete.
    pub current: bool,
}

/// `status.plan.failedTaskDetail`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedTask {
    pub index: Option<i64>,
    pub kind: String,
    pub id: String,
    pub error: String,
    pub retries: i64,
    pub max_retries: i64,
}

/// The plan timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanDetail {
    pub id: String,
    pub phase: PlanPhase,
    pub target_phase: Option<Phase>,
    pub failed_phase: Option<Phase>,
    pub tasks: Vec<TaskLine>,
    pub failed: Option<FailedTask>,
}

impl PlanDetail {
    pub fn of(plan: &TaskPlan) -> PlanDetail {
        let current = plan.current_task_index();
        let took = task_durations(plan);
        PlanDetail {
            id: plan.id.clone(),
            phase: plan.phase,
            target_phase: plan.target_phase,
            failed_phase: plan.failed_phase,
            tasks: plan
                .tasks
                .iter()
                .enumerate()
                .map(|(i, task)| TaskLine {
                    status: task.status,
                    kind: task.kind.as_str().to_owned(),
                    retries: task.retry_count,
                    max_retries: task.max_retries,
                    submitted_at: task.submitted_at.as_ref().map(|t| t.0),
                    took: took.get(i).copied().unwrap_or(TaskTook::Unknown),
                    error: task.error.clone(),
                    current: Some(i) == current,
                })
                .collect(),
            failed: plan.failed_task_detail.as_ref().map(|d| FailedTask {
                index: plan.failed_task_index,
                kind: d.kind.as_str().to_owned(),
                id: d.id.clone(),
                error: d.error.clone(),
                retries: d.retry_count,
                max_retries: d.max_retries,
            }),
        }
    }

    pub fn done(&self) -> usize {
        self.tasks
            .iter()
            .filter(|t| t.status == TaskStatus::Complete)
            .count()
    }
}

/// The node's StatefulSet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatefulSetSummary {
    pub name: String,
    pub replicas: i32,
    pub ready: i32,
    pub current_revision: String,
    pub update_revision: String,
}

impl StatefulSetSummary {
    pub fn of(sts: &StatefulSet) -> StatefulSetSummary {
        let status = sts.status.as_ref();
        StatefulSetSummary {
            name: sts.metadata.name.clone().unwrap_or_default(),
            replicas: sts.spec.replicas.unwrap_or(1),
            ready: status.and_then(|s| s.ready_replicas).unwrap_or(0),
            current_revision: status
                .and_then(|s| s.current_revision.clone())
                .unwrap_or_default(),
            update_revision: status
                .and_then(|s| s.update_revision.clone())
                .unwrap_or_default(),
        }
    }
}

/// One container of a pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerLine {
    pub name: String,
    pub image: String,
    pub ready: bool,
    pub restarts: i32,
}

/// One pod of the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodSummary {
    pub name: String,
    pub phase: String,
    pub revision: String,
    pub containers: Vec<ContainerLine>,
}

impl PodSummary {
    pub fn of(pod: &Pod) -> PodSummary {
        let status = pod.status.as_ref();
        // Native sidecars (init containers with restartPolicy Always) run beside the main
        // containers and count in READY as kubectl counts them.
        let statuses: Vec<_> = status
            .and_then(|s| s.init_container_statuses.clone())
            .unwrap_or_default()
            .into_iter()
            .chain(
                status
                    .and_then(|s| s.container_statuses.clone())
                    .unwrap_or_default(),
            )
            .collect();
        let spec_containers: Vec<_> = pod
            .spec
            .as_ref()
            .map(|s| {
                let sidecars = s
                    .init_containers
                    .iter()
                    .flatten()
                    .filter(|c| c.restart_policy.as_deref() == Some("Always"));
                sidecars.chain(&s.containers).cloned().collect()
            })
            .unwrap_or_default();
        let containers = spec_containers
            .iter()
            .map(|c| {
                let live = statuses.iter().find(|s| s.name == c.name);
                ContainerLine {
                    name: c.name.clone(),
                    image: live
                        .map(|s| s.image.clone())
                        .or_else(|| c.image.clone())
                        .unwrap_or_default(),
                    ready: live.is_some_and(|s| s.ready),
                    restarts: live.map(|s| s.restart_count).unwrap_or(0),
                }
            })
            .collect();
        PodSummary {
            name: pod.metadata.name.clone().unwrap_or_default(),
            phase: status.and_then(|s| s.phase.clone()).unwrap_or_default(),
            revision: pod
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("controller-revision-hash").cloned())
                .unwrap_or_default(),
            containers,
        }
    }

    pub fn ready_count(&self) -> (usize, usize) {
        let ready = self.containers.iter().filter(|c| c.ready).count();
        (ready, self.containers.len())
    }
}

/// The peer string of a seed, or why it cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeedPeer {
    Known { peer: String, source: String },
    Unknown(String),
}

/// A seed's NodeID as the console learned it (node-key Secret or sidecar), or why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeIdLookup {
    Found {
        node_id: String,
        source: NodeIdSource,
    },
    /// Every source tried, with why it gave nothing (`Secret x: forbidden`, `sidecar: ...`).
    NotFound { reasons: Vec<String> },
}

/// Where a NodeID came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeIdSource {
    /// The node-key Secret of that name.
    Secret(String),
    /// The sidecar's `/v0/node-id`.
    Sidecar,
}

impl std::fmt::Display for NodeIdSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Secret(name) => write!(f, "node-key Secret {name}"),
            Self::Sidecar => f.write_str("sidecar /v0/node-id"),
        }
    }
}

/// Everything the node screen shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeDetail {
    pub key: ObjectKey,
    pub spec: SpecSummary,
    pub phase: Option<Phase>,
    pub current_image: Option<String>,
    pub current_sidecar_image: Option<String>,
    /// The image its pod runs (`None`: no pod, or it reports none yet).
    pub running: Option<RunningImage>,
    /// Image drift against what runs when that is known (`running::image_drift`).
    pub drift: Drift,
    /// Since when the node has drifted: the update's condition or plan (`None` without drift,
    /// or when neither says).
    pub drift_since: Option<DriftSince>,
    pub conditions: Vec<ConditionLine>,
    pub plan: Option<PlanDetail>,
    /// Its Active plan has no live executor, and the command that resumes it
    /// (`fleet::runners`).
    pub orphan: Option<super::runners::Orphan>,
    pub events: Vec<EventBrief>,
    pub statefulset: Option<StatefulSetSummary>,
    pub pods: Vec<PodSummary>,
    pub seed_peer: Option<SeedPeer>,
    /// A seed's outside probes (`None` for other modes, or none ran yet).
    pub probe: Option<super::probe::SeedProbe>,
    pub created: Option<Timestamp>,
    /// The node's `sei.io/console-actions` record (`None`: the node has none).
    pub console_actions: Option<super::console_actions::Recorded>,
    /// What its latest `StatefulSetRenderFailed` event means with the platform config in use
    /// (`None`: no such event).
    pub render_now: Option<RenderEventNow>,
    /// Paths of its fields outside the embedded CRD schema (`rows::unknown_fields`).
    pub unknown_fields: Vec<String>,
}

fn spec_summary(node: &SeiNode, default_sidecar_image: Option<&str>) -> SpecSummary {
    let spec = &node.spec;
    let peers = spec
        .peers
        .iter()
        .flatten()
        .map(|p| serde_json::to_string(p).unwrap_or_default())
        .collect();
    SpecSummary {
        mode: spec.mode().ok(),
        chain_id: spec.chain_id.clone(),
        image: spec.image.clone(),
        sidecar_image: spec
            .sidecar
            .as_ref()
            .and_then(|s| s.image.clone())
            .filter(|i| !i.is_empty())
            .or_else(|| default_sidecar_image.map(str::to_owned)),
        external_address: spec.external_address.clone().filter(|a| !a.is_empty()),
        peers,
        overrides: spec
            .overrides
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        paused: spec.paused.unwrap_or(false),
        data_volume: spec
            .data_volume
            .as_ref()
            .and_then(|d| d.import.as_ref())
            .map(|i| format!("import PVC {}", i.pvc_name))
            .unwrap_or_else(|| "controller-managed PVC".to_owned()),
    }
}

/// NodeID of a seed from its node-key Secret or sidecar (looked up by the detail effects), else
/// from other nodes' `status.resolvedPeers` (`<id>@<host:port>`) listing the seed's
/// `externalAddress`; otherwise why it is unknown.
fn seed_peer(fleet: &Fleet, key: &ObjectKey, node: &SeiNode) -> SeedPeer {
    let lookup = fleet.node_ids.get(key);
    let Some(address) = node
        .spec
        .external_address
        .as_deref()
        .filter(|a| !a.is_empty())
    else {
        return SeedPeer::Unknown(match lookup {
            Some(NodeIdLookup::Found { node_id, source }) => format!(
                "NodeID {node_id} (from {source}); no peer string: spec.externalAddress is not set"
            ),
            _ => "spec.externalAddress is not set".to_owned(),
        });
    };
    if let Some(NodeIdLookup::Found { node_id, source }) = lookup {
        return SeedPeer::Known {
            peer: format!("{node_id}@{address}"),
            source: source.to_string(),
        };
    }
    let from_peers = fleet.nodes.values().find_map(|other| {
        other
            .status
            .as_ref()?
            .resolved_peers()
            .iter()
            .find_map(|peer| match peer.split_once('@') {
                Some((id, host)) if host == address && !id.is_empty() => Some(id.to_owned()),
                _ => None,
            })
    });
    match from_peers {
        Some(id) => SeedPeer::Known {
            peer: format!("{id}@{address}"),
            source: "status.resolvedPeers of a peer".to_owned(),
        },
        None => SeedPeer::Unknown(match lookup {
            Some(NodeIdLookup::NotFound { reasons }) => format!(
                "NodeID unknown: {}; no node lists {address} in status.resolvedPeers",
                reasons.join("; ")
            ),
            _ => format!(
                "NodeID unknown yet: node-key Secret and sidecar not read; no node lists \
                 {address} in status.resolvedPeers"
            ),
        }),
    }
}

impl NodeDetail {
    /// Builds the detail of the node `key` from the fleet, or `None` when it is gone.
    pub fn build(
        fleet: &Fleet,
        key: &ObjectKey,
        default_sidecar_image: Option<&str>,
    ) -> Option<NodeDetail> {
        let node = fleet.nodes.get(key)?;
        let status = node.status.as_ref();
        let non_empty = |s: Option<&String>| s.filter(|s| !s.is_empty()).cloned();
        let conditions = status
            .map(|s| s.conditions())
            .unwrap_or_default()
            .iter()
            .map(|c| ConditionLine {
                kind: c.type_.clone(),
                status: c.status.clone(),
                reason: c.reason.clone(),
                message: c.message.clone(),
                since: Some(c.last_transition_time.0),
            })
            .collect();
        let events = in_time_order(
            fleet
                .events_of_node(key)
                .chain(fleet.detail_events.values())
                .chain(fleet.statefulset_events.values()),
        );
        let statefulset = fleet
            .statefulsets
            .values()
            .find(|s| s.metadata.name.as_deref() == Some(key.name.as_ref()))
            .map(StatefulSetSummary::of);
        let pods = fleet.pods.values().map(PodSummary::of).collect();
        let mode = node.spec.mode().ok();
        // The node screen's own pod watch, else the fleet's slim pods.
        let pod_name = super::pod_warnings::pod_of_node(&key.name);
        let running = fleet
            .pods
            .values()
            .find(|p| p.metadata.name.as_deref() == Some(pod_name.as_str()))
            .and_then(RunningImage::of)
            .or_else(|| fleet.row(key).and_then(|row| row.running.clone()));
        let current_image = non_empty(status.and_then(|s| s.current_image.as_ref()));
        let mut drift = drift(node, default_sidecar_image);
        drift.image = super::running::image_drift(
            &node.spec.image,
            current_image.as_deref(),
            running.as_ref(),
        );
        Some(NodeDetail {
            key: key.clone(),
            spec: spec_summary(node, default_sidecar_image),
            phase: status.and_then(|s| s.phase),
            current_image,
            current_sidecar_image: non_empty(status.and_then(|s| s.current_sidecar_image.as_ref())),
            running,
            drift_since: drift.any().then(|| drift_since(node)).flatten(),
            drift,
            conditions,
            plan: status.and_then(|s| s.plan.as_ref()).map(PlanDetail::of),
            orphan: fleet.row(key).and_then(|row| row.orphan.clone()),
            statefulset,
            pods,
            seed_peer: (mode == Some(NodeMode::Seed)).then(|| seed_peer(fleet, key, node)),
            probe: fleet.seed_probe(key).cloned(),
            created: node.metadata.creation_timestamp.as_ref().map(|t| t.0),
            console_actions: super::console_actions::read(node.metadata.annotations.as_ref()),
            render_now: events
                .iter()
                .filter(|e| e.is_render_failure())
                .max_by_key(|e| e.last_seen)
                .map(|e| judge_render_event(node, &e.message, fleet.platform_in_use())),
            unknown_fields: super::rows::unknown_fields(node),
            events,
        })
    }
}
