//! The fleet row: one display-neutral summary per SeiNode, shared by the fleet screen and `get`.
//!
//! Rows hold timestamps, not ages, so a clock tick never rebuilds them; views format ages
//! against the clock they are given.
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Event;

use super::events::{WarningBrief, latest_warning_event};
use super::store::ObjectKey;
use crate::api::{NodeMode, Phase, PlanPhase, SeiNode, TaskPlan, TaskStatus};

/// Image drift, as the controller's running planner sees it (spec/tasks-and-resources.md 7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Drift {
    /// `spec.image != status.currentImage`; an empty or absent `currentImage` counts as drift.
    pub image: bool,
    /// Effective sidecar image differs from a non-empty `currentSidecarImage`.
    pub sidecar: bool,
}

impl Drift {
    pub fn any(self) -> bool {
        self.image || self.sidecar
    }
}

/// Computes drift. `default_sidecar_image` is the platform's `images.sidecar`, used when the
/// spec names no sidecar image; without it a spec with no sidecar image never shows sidecar
/// drift (the effective image is unknown).
pub fn drift(node: &SeiNode, default_sidecar_image: Option<&str>) -> Drift {
    let status = node.status.as_ref();
    let current_image = status
        .and_then(|s| s.current_image.as_deref())
        .unwrap_or("");
    let current_sidecar = status
        .and_then(|s| s.current_sidecar_image.as_deref())
        .unwrap_or("");
    let effective_sidecar = node
        .spec
        .sidecar
        .as_ref()
        .and_then(|s| s.image.as_deref())
        .filter(|image| !image.is_empty())
        .or(default_sidecar_image);
    Drift {
        image: node.spec.image != current_image,
        sidecar: !current_sidecar.is_empty()
            && effective_sidecar.is_some_and(|image| image != current_sidecar),
    }
}

/// The task a plan is working on (or failed at).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskBrief {
    pub kind: String,
    pub status: TaskStatus,
    pub retries: i64,
    pub max_retries: i64,
    pub submitted_at: Option<Timestamp>,
}

/// Progress of `status.plan`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanSummary {
    pub phase: PlanPhase,
    pub done: usize,
    pub total: usize,
    /// The first task that is not Complete; for a Failed plan, the failed task.
    pub current: Option<TaskBrief>,
    /// Type of the first task that is not Complete (what `get -o json` calls `current`).
    pub first_incomplete: Option<String>,
}

impl PlanSummary {
    pub fn of(plan: &TaskPlan) -> PlanSummary {
        let mut summary = PlanSummary {
            phase: plan.phase,
            done: 0,
            total: 0,
            current: None,
            first_incomplete: None,
        };
        summary.refresh(plan);
        summary
    }

    /// Re-reads `plan` into this summary, reusing its strings (a watch delta for a node with a
    /// plan in flight then allocates nothing here).
    pub fn refresh(&mut self, plan: &TaskPlan) {
        let failed_index = match plan.phase {
            PlanPhase::Failed => plan
                .failed_task_index
                .and_then(|i| usize::try_from(i).ok())
                .filter(|i| *i < plan.tasks.len())
                .or_else(|| {
                    plan.tasks
                        .iter()
                        .position(|t| t.status == TaskStatus::Failed)
                }),
            _ => None,
        };
        let first_incomplete = plan.current_task_index().and_then(|i| plan.tasks.get(i));
        let current = failed_index
            .and_then(|i| plan.tasks.get(i))
            .or(first_incomplete);
        self.phase = plan.phase;
        self.done = plan.completed_count();
        self.total = plan.tasks.len();
        match (current, &mut self.current) {
            (None, slot) => *slot = None,
            (Some(task), Some(brief)) => {
                set_string(&mut brief.kind, task.kind.as_str());
                brief.status = task.status;
                brief.retries = task.retry_count;
                brief.max_retries = task.max_retries;
                brief.submitted_at = task.submitted_at.as_ref().map(|t| t.0);
            }
            (Some(task), slot) => {
                *slot = Some(TaskBrief {
                    kind: task.kind.as_str().to_owned(),
                    status: task.status,
                    retries: task.retry_count,
                    max_retries: task.max_retries,
                    submitted_at: task.submitted_at.as_ref().map(|t| t.0),
                });
            }
        }
        set_optional_string(
            &mut self.first_incomplete,
            first_incomplete.map(|t| t.kind.as_str()),
        );
    }
}

/// Overwrites `slot` with `value`, keeping its allocation when it is large enough.
fn set_string(slot: &mut String, value: &str) {
    if slot != value {
        slot.clear();
        slot.push_str(value);
    }
}

fn set_optional_string(slot: &mut Option<String>, value: Option<&str>) {
    match (slot.as_mut(), value) {
        (Some(stored), Some(value)) => set_string(stored, value),
        (_, value) => *slot = value.map(str::to_owned),
    }
}

/// One condition, reduced to what a summary needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionBrief {
    pub kind: String,
    pub status: String,
    pub reason: String,
}

impl ConditionBrief {
    /// Whether this condition reports trouble. Most SeiNode conditions are good when True;
    /// `NodeUpdateInProgress`, `Paused` and `WorkflowInProgress` are states, not health.
    pub fn is_bad(&self) -> bool {
        match self.kind.as_str() {
            "NodeUpdateInProgress" | "Paused" | "WorkflowInProgress" => false,
            "StateSyncReady" => self.status != "True" && self.reason != "NotApplicable",
            _ => self.status != "True",
        }
    }
}

/// Everything the fleet screen and `get` show about one SeiNode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetRow {
    pub key: ObjectKey,
    /// `None` when the spec sets zero or several mode sub-specs.
    pub mode: Option<NodeMode>,
    pub chain_id: String,
    /// `None` for a node the controller has not touched yet (phase `""`).
    pub phase: Option<Phase>,
    pub image: String,
    pub current_image: Option<String>,
    /// The image its pod runs (`fleet::running`; `None`: no pod, or it reports none yet).
    pub running: Option<super::running::RunningImage>,
    /// Image drift against what runs when that is known (`running::image_drift`).
    pub drift: Drift,
    pub plan: Option<PlanSummary>,
    /// Its Active plan has no live executor (`fleet::runners`), and how to resume it.
    pub orphan: Option<super::runners::Orphan>,
    pub conditions: Vec<ConditionBrief>,
    /// The SeiNode's own latest Warning event.
    pub last_warning: Option<WarningBrief>,
    /// The latest Warning event of the node's pod `<node>-0` that the pod's present state has
    /// not outlived (`fleet::pod_warnings`).
    pub pod_warning: Option<WarningBrief>,
    pub created: Option<Timestamp>,
    /// A seed's last outside probe as a mark (`✓`, `✗`, `…`), shown after its name.
    pub probe_mark: Option<&'static str>,
    /// A seed's HEIGHT/LAG cell from its last probe: reachable and how many peers it knows.
    pub seed_cell: Option<super::probe::SeedCell>,
    /// The chain-health verdict of the node's RPC (`None`: not read; seeds serve none).
    pub health: Option<super::health::HealthBrief>,
    /// The node's health verdict over everything above (`verdict::judge`), judged again when
    /// any of it changes.
    pub verdict: super::verdict::NodeVerdict,
    /// Paths of the node's fields outside the embedded CRD schema (a newer CRD's): the port
    /// does not understand the node, so actions on it are refused (`ops::skew`).
    pub unknown_fields: Vec<String>,
    /// How many of `conditions` report trouble, counted once per change for sorting.
    bad_condition_count: usize,
    /// The lowercased fields the filter's free-text terms search, built once per change so
    /// typing a filter lowercases nothing per row.
    search: String,
}

impl FleetRow {
    /// Builds the row of `node`; `events` are the events whose involved object is this node.
    pub fn build<'a>(
        key: ObjectKey,
        node: &SeiNode,
        events: impl IntoIterator<Item = &'a Event>,
        default_sidecar_image: Option<&str>,
    ) -> FleetRow {
        let mut row = FleetRow {
            key,
            mode: None,
            chain_id: String::new(),
            phase: None,
            image: String::new(),
            current_image: None,
            running: None,
            drift: Drift::default(),
            plan: None,
            orphan: None,
            conditions: Vec::new(),
            last_warning: None,
            pod_warning: None,
            created: None,
            probe_mark: None,
            seed_cell: None,
            health: None,
            verdict: super::verdict::NodeVerdict::default(),
            unknown_fields: Vec::new(),
            bad_condition_count: 0,
            search: String::new(),
        };
        row.refresh(node, events, default_sidecar_image);
        row
    }

    /// Re-reads `node` (same key) and its `events` into this row. Strings and vectors keep
    /// their allocations, so the flood of status deltas a rollout causes costs few allocations.
    pub fn refresh<'a>(
        &mut self,
        node: &SeiNode,
        events: impl IntoIterator<Item = &'a Event>,
        default_sidecar_image: Option<&str>,
    ) {
        let status = node.status.as_ref();
        self.mode = node.spec.mode().ok();
        set_string(&mut self.chain_id, &node.spec.chain_id);
        self.phase = status.and_then(|s| s.phase);
        set_string(&mut self.image, &node.spec.image);
        set_optional_string(
            &mut self.current_image,
            status
                .and_then(|s| s.current_image.as_deref())
                .filter(|i| !i.is_empty()),
        );
        self.drift = drift(node, default_sidecar_image);
        self.judge_image_drift();
        self.unknown_fields = unknown_fields(node);
        match (status.and_then(|s| s.plan.as_ref()), &mut self.plan) {
            (None, slot) => *slot = None,
            (Some(plan), Some(summary)) => summary.refresh(plan),
            (Some(plan), slot) => *slot = Some(PlanSummary::of(plan)),
        }
        let conditions = status.map(|s| s.conditions()).unwrap_or_default();
        self.conditions.truncate(conditions.len());
        for (i, condition) in conditions.iter().enumerate() {
            match self.conditions.get_mut(i) {
                Some(brief) => {
                    set_string(&mut brief.kind, &condition.type_);
                    set_string(&mut brief.status, &condition.status);
                    set_string(&mut brief.reason, &condition.reason);
                }
                None => self.conditions.push(ConditionBrief {
                    kind: condition.type_.clone(),
                    status: condition.status.clone(),
                    reason: condition.reason.clone(),
                }),
            }
        }
        match (latest_warning_event(events), &mut self.last_warning) {
            (None, slot) => *slot = None,
            (Some(event), Some(brief)) => brief.refresh(event),
            (Some(event), slot) => *slot = Some(WarningBrief::of(event)),
        }
        self.created = node.metadata.creation_timestamp.as_ref().map(|t| t.0);
        self.bad_condition_count = self.bad_conditions().count();
        self.judge_and_index();
    }

    fn judge_and_index(&mut self) {
        self.rejudge();
        let mut search = std::mem::take(&mut self.search);
        self.write_search_text(&mut search);
        self.search = search;
    }

    /// Sets the live Warning of the node's pod (`None`: none, or outlived); says whether that
    /// changed the row (then judged again).
    pub fn set_pod_warning(&mut self, event: Option<&Event>) -> bool {
        let brief = event.map(WarningBrief::of_pod);
        if brief == self.pod_warning {
            return false;
        }
        self.pod_warning = brief;
        self.judge_and_index();
        true
    }

    /// Sets whether its Active plan is orphaned; says whether that changed the row.
    pub fn set_orphan(&mut self, orphan: Option<super::runners::Orphan>) -> bool {
        if orphan == self.orphan {
            return false;
        }
        self.orphan = orphan;
        self.judge_and_index();
        true
    }

    /// Sets the image the node's pod runs; says whether that changed the row (its drift is
    /// judged again).
    pub fn set_running(&mut self, running: Option<super::running::RunningImage>) -> bool {
        if running == self.running {
            return false;
        }
        self.running = running;
        self.judge_image_drift();
        self.judge_and_index();
        true
    }

    fn judge_image_drift(&mut self) {
        self.drift.image = super::running::image_drift(
            &self.image,
            self.current_image.as_deref(),
            self.running.as_ref(),
        );
    }

    /// The Warning the WARNING column shows: the newer of the node's own and its pod's (the
    /// node's own on a tie).
    pub fn warning(&self) -> Option<&WarningBrief> {
        match (&self.last_warning, &self.pod_warning) {
            (Some(own), Some(pod)) if pod.last_seen > own.last_seen => Some(pod),
            (Some(own), _) => Some(own),
            (None, pod) => pod.as_ref(),
        }
    }

    /// Namespace, name, chain, image, phase, mode, current task and the reasons of the last
    /// warnings (the node's and its pod's), lowercased, one per line, into `text` (cleared
    /// first). Filter terms hold no whitespace, so a term found here is found within one field.
    fn write_search_text(&self, text: &mut String) {
        let fields = [
            Some(&*self.key.namespace),
            Some(&*self.key.name),
            Some(self.chain_id.as_str()),
            Some(self.image.as_str()),
            self.phase.map(|p| p.as_str()),
            self.mode.map(|m| m.as_str()),
            self.plan
                .as_ref()
                .and_then(|p| p.current.as_ref())
                .map(|t| t.kind.as_str()),
            self.last_warning.as_ref().map(|w| w.reason.as_str()),
            self.pod_warning.as_ref().map(|w| w.reason.as_str()),
        ];
        text.clear();
        for field in fields.into_iter().flatten() {
            if field.is_ascii() {
                text.extend(field.chars().map(|c| c.to_ascii_lowercase()));
            } else {
                text.push_str(&field.to_lowercase());
            }
            text.push('\n');
        }
    }

    /// Whether `needle` (lowercase, without whitespace) occurs in one of the searched fields.
    pub fn text_matches(&self, needle: &str) -> bool {
        self.search.contains(needle)
    }

    /// Whether `pattern` finds a match in the searched fields (one per line).
    pub fn search_matches(&self, pattern: &regex::Regex) -> bool {
        pattern.is_match(&self.search)
    }

    /// Judges the verdict again (after the chain health or a seed's probe mark changed).
    pub fn rejudge(&mut self) {
        self.verdict = super::verdict::judge(self);
    }

    /// Not healthy while its phase does not say so (a Failed node is counted as Failed): the
    /// header counts it as sick, apart from its phase.
    pub fn is_sick(&self) -> bool {
        !self.verdict.is_healthy() && self.phase != Some(Phase::Failed)
    }

    /// The conditions reporting trouble.
    pub fn bad_conditions(&self) -> impl Iterator<Item = &ConditionBrief> {
        self.conditions.iter().filter(|c| c.is_bad())
    }

    /// How many conditions report trouble (the CONDITIONS column sorts by it).
    pub fn bad_condition_count(&self) -> usize {
        self.bad_condition_count
    }
}

/// The paths of `node`'s fields outside the embedded schema (none when the schema is
/// unreadable: the embedded asset is checked by the core's own tests).
pub fn unknown_fields(node: &SeiNode) -> Vec<String> {
    crate::api::schema::node_unknown_field_paths(node).unwrap_or_default()
}
