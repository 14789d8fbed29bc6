//! planner.go: ResolvePlan, the terminal-plan and state-sync gates, progressions, base plans,
//! overrides and shared predicates (spec/planner.md 2.2–2.5, 2.7, 2.9).
use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::Value;

use super::params::{ConfigIntent, params_for_task};
use super::{PlanContext, PlanError, archive, full, ids, replayer, seed, validator};
use crate::api::{
    ConditionStatus, ConditionType, ConditionUpdate, NodeMode, Phase, PlanPhase, PlannedTask,
    Reason, ResultExportConfig, SeiNode, SnapshotGenerationConfig, SnapshotSource, TaskKind,
    TaskPlan, TaskStatus, UnknownFields, set_condition,
};

const LOGGING_LEVEL_KEY: &str = "logging.level";
const DEFAULT_LOGGING_LEVEL: &str = "error";
const PERSISTENT_PEERS_KEY: &str = "network.p2p.persistent_peers";
const EXTERNAL_ADDRESS_KEY: &str = "network.p2p.external_address";

/// What `resolve_plan` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// An Active plan exists; it is kept and resumed, nothing is built.
    Resumed { plan_id: String },
    /// The state-sync gate holds planning (`StateSyncReady` present and not True).
    StateSyncBlocked,
    /// Nothing to do: a Running node with no drift and no lost readiness.
    SteadyState,
    /// A new plan was installed in `status.plan`.
    Built,
}

/// Result of the sidecar `Healthz` probe (ResolvePlan step 1, done by the caller: it is I/O).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SidecarProbe {
    /// HTTP 200.
    Ready,
    /// HTTP 503.
    NotReady,
    /// Any error (transport, other status code).
    Error(String),
}

/// Records a probe result in the `SidecarReady` condition (upstream `probeSidecarHealth`).
/// The controller probes only Running nodes, even while a plan is active.
pub fn apply_sidecar_probe(node: &mut SeiNode, probe: &SidecarProbe, ctx: &PlanContext) {
    let (status, reason, message) = match probe {
        SidecarProbe::Ready => (
            ConditionStatus::True,
            Reason::Ready,
            "sidecar returned 200".to_owned(),
        ),
        SidecarProbe::NotReady => (
            ConditionStatus::False,
            Reason::NotReady,
            "sidecar returned 503, re-issuing mark-ready".to_owned(),
        ),
        SidecarProbe::Error(err) => (
            ConditionStatus::Unknown,
            Reason::Unreachable,
            format!("sidecar Healthz error: {err}"),
        ),
    };
    set_node_condition(
        node,
        ConditionType::SidecarReady,
        status,
        reason,
        message,
        ctx,
    );
}

/// Upstream `NodeResolver.ResolvePlan` without the sidecar probe (see [`apply_sidecar_probe`]):
/// resume an Active plan, clear a terminal one, honour the state-sync gate, validate, build and
/// install. On a new plan a node with no phase (or `Pending`) becomes `Initializing`.
pub fn resolve_plan(node: &mut SeiNode, ctx: &PlanContext) -> Result<Resolution, PlanError> {
    if let Some(plan) = node.status.as_ref().and_then(|s| s.plan.as_ref())
        && plan.is_active()
    {
        return Ok(Resolution::Resumed {
            plan_id: plan.id.clone(),
        });
    }
    handle_terminal_plan(node, ctx);
    if state_sync_blocks_plan(node) {
        return Ok(Resolution::StateSyncBlocked);
    }
    validate(node)?;
    let Some(plan) = build_plan(node, ctx)? else {
        return Ok(Resolution::SteadyState);
    };
    let status = node.status_mut();
    status.plan = Some(plan);
    if matches!(status.phase, None | Some(Phase::Pending)) {
        status.phase = Some(Phase::Initializing);
        status.phase_transition_time = Some(Time(ctx.now));
    }
    Ok(Resolution::Built)
}

fn dispatch_mode(node: &SeiNode) -> Result<NodeMode, PlanError> {
    node.spec
        .first_mode()
        .ok_or_else(|| PlanError::NoModeSubSpec {
            namespace: node.namespace().to_owned(),
            name: node.name().to_owned(),
        })
}

/// The mode planner's `Validate` (first set sub-spec wins, as in the controller).
pub fn validate(node: &SeiNode) -> Result<(), PlanError> {
    match dispatch_mode(node)? {
        NodeMode::Full => full::validate(node),
        NodeMode::Archive => archive::validate(node),
        NodeMode::Replayer => replayer::validate(node),
        NodeMode::Validator => validator::validate(node),
        NodeMode::Seed => seed::validate(node),
    }
}

/// The mode planner's `BuildPlan`: the running path when the phase is Running (may set the
/// `NodeUpdateInProgress` condition), otherwise the init plan. `None` = steady state.
pub fn build_plan(node: &mut SeiNode, ctx: &PlanContext) -> Result<Option<TaskPlan>, PlanError> {
    match dispatch_mode(node)? {
        NodeMode::Full => full::build_plan(node, ctx),
        NodeMode::Archive => archive::build_plan(node, ctx),
        NodeMode::Replayer => replayer::build_plan(node, ctx),
        NodeMode::Validator => validator::build_plan(node, ctx),
        NodeMode::Seed => seed::build_plan(node, ctx),
    }
}

/// Upstream `StateSyncBlocksPlan`: not Running, has a snapshot source, and a `StateSyncReady`
/// condition exists whose status is not True. A missing condition does not block.
pub fn state_sync_blocks_plan(node: &SeiNode) -> bool {
    let status = node.status.as_ref();
    if status.and_then(|s| s.phase) == Some(Phase::Running) || node.spec.snapshot_source().is_none()
    {
        return false;
    }
    status
        .and_then(|s| s.condition(ConditionType::StateSyncReady))
        .is_some_and(|c| c.status != ConditionStatus::True.as_str())
}

/// Upstream `handleTerminalPlan`: a Complete or Failed plan is cleared, and
/// `NodeUpdateInProgress` goes False (`UpdateComplete`/`UpdateFailed`) only if it is True.
pub fn handle_terminal_plan(node: &mut SeiNode, ctx: &PlanContext) {
    let Some(plan) = node.status.as_ref().and_then(|s| s.plan.as_ref()) else {
        return;
    };
    let (reason, message) = match plan.phase {
        PlanPhase::Active => return,
        PlanPhase::Complete => (
            Reason::UpdateComplete,
            format!("plan {} completed", plan.id),
        ),
        PlanPhase::Failed => (
            Reason::UpdateFailed,
            format!("plan {} failed: {}", plan.id, plan_failure_message(plan)),
        ),
    };
    let update_in_progress = node
        .status
        .as_ref()
        .and_then(|s| s.condition(ConditionType::NodeUpdateInProgress))
        .is_some_and(|c| c.status == ConditionStatus::True.as_str());
    if update_in_progress {
        let kind = ConditionType::NodeUpdateInProgress;
        set_node_condition(node, kind, ConditionStatus::False, reason, message, ctx);
    }
    node.status_mut().plan = None;
}

/// `task ‹type›: ‹error›` from the failed-task detail, or `unknown`.
pub fn plan_failure_message(plan: &TaskPlan) -> String {
    match &plan.failed_task_detail {
        Some(detail) => format!("task {}: {}", detail.kind, detail.error),
        None => "unknown".to_owned(),
    }
}

/// The metrics label of a plan (upstream `classifyPlan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanClass {
    NodeUpdate,
    Init,
    MarkReadyReapply,
    Unknown,
}

impl PlanClass {
    /// The metric label.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanClass::NodeUpdate => "node-update",
            PlanClass::Init => "init",
            PlanClass::MarkReadyReapply => "mark-ready-reapply",
            PlanClass::Unknown => "unknown",
        }
    }
}

/// Upstream `classifyPlan`: the first observe-image or ensure-data-pvc decides; a lone
/// mark-ready is a re-approval.
pub fn classify_plan(plan: &TaskPlan) -> PlanClass {
    for task in &plan.tasks {
        match task.kind {
            TaskKind::ObserveImage => return PlanClass::NodeUpdate,
            TaskKind::EnsureDataPvc => return PlanClass::Init,
            _ => {}
        }
    }
    match plan.tasks.as_slice() {
        [only] if only.kind == TaskKind::MarkReady => PlanClass::MarkReadyReapply,
        _ => PlanClass::Unknown,
    }
}

/// Upsert a condition stamped with the node's generation.
pub(super) fn set_node_condition(
    node: &mut SeiNode,
    kind: ConditionType,
    status: ConditionStatus,
    reason: Reason,
    message: String,
    ctx: &PlanContext,
) {
    let observed_generation = node.generation();
    let conditions = node.status_mut().conditions.get_or_insert_with(Vec::new);
    let update = ConditionUpdate {
        kind,
        status,
        reason,
        message,
        observed_generation,
    };
    set_condition(conditions, update, ctx.now);
}

fn insert_before(
    progression: &mut Vec<TaskKind>,
    target: TaskKind,
    kind: TaskKind,
) -> Result<(), PlanError> {
    if progression.contains(&kind) {
        return Ok(());
    }
    match progression.iter().position(|t| *t == target) {
        Some(at) => {
            progression.insert(at, kind);
            Ok(())
        }
        None => Err(PlanError::InsertBefore {
            target: target.as_str().to_owned(),
            progression: progression
                .iter()
                .map(TaskKind::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        }),
    }
}

/// Upstream `buildSidecarProgression`: the base progression of the bootstrap mode (snapshot,
/// state-sync or genesis), `configure-genesis` before `config-apply` always, and
/// `configure-state-sync` before `config-validate` for any snapshot source (s3 included).
pub fn build_sidecar_progression(
    snap: Option<&SnapshotSource>,
) -> Result<Vec<TaskKind>, PlanError> {
    let mut progression = if snap.is_some_and(|s| s.s3.is_some()) {
        vec![
            TaskKind::SnapshotRestore,
            TaskKind::ConfigApply,
            TaskKind::ConfigValidate,
            TaskKind::MarkReady,
        ]
    } else {
        // state-sync and genesis share the same base progression.
        vec![
            TaskKind::ConfigApply,
            TaskKind::ConfigValidate,
            TaskKind::MarkReady,
        ]
    };
    insert_before(
        &mut progression,
        TaskKind::ConfigApply,
        TaskKind::ConfigureGenesis,
    )?;
    if snap.is_some() {
        insert_before(
            &mut progression,
            TaskKind::ConfigValidate,
            TaskKind::ConfigureStateSync,
        )?;
    }
    Ok(progression)
}

/// Upstream `NeedsBootstrap`: a snapshot source with a bootstrap image and s3 targetHeight > 0.
pub fn needs_bootstrap(node: &SeiNode) -> bool {
    node.spec.snapshot_source().is_some_and(|snap| {
        !snap.bootstrap_image().is_empty() && snap.s3_target_height().is_some_and(|h| h > 0)
    })
}

/// A validator with a non-empty `signingKey.secret.secretName`.
pub fn needs_validate_signing_key(node: &SeiNode) -> bool {
    node.spec
        .validator
        .as_ref()
        .is_some_and(|v| !v.signing_key_secret_name().is_empty())
}

/// `NodeKeySecret()` has a non-empty name (validator or seed; mode-blind).
pub fn needs_validate_node_key(node: &SeiNode) -> bool {
    !node.spec.node_key_secret_name().is_empty()
}

/// A validator with a non-empty `operatorKeyring.secret.secretName`.
pub fn needs_validate_operator_keyring(node: &SeiNode) -> bool {
    node.spec
        .validator
        .as_ref()
        .and_then(|v| v.operator_keyring_secret())
        .is_some_and(|secret| !secret.secret_name.is_empty())
}

/// A spec section that is set but cannot be used (upstream's words; the caller adds its mode
/// prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(super) enum SectionError {
    #[error(
        "snapshotGeneration is set but has no sub-struct (e.g., tendermint); omit it to disable snapshot generation"
    )]
    SnapshotGenerationEmpty,
    #[error(
        "snapshotGeneration.tendermint.keepRecent must be >= 2 when publish is set (upload algorithm requires the second-to-latest snapshot)"
    )]
    KeepRecentTooLow,
    #[error(
        "resultExport is set but has no sub-struct (e.g., shadowResult); omit it to disable result export"
    )]
    ResultExportEmpty,
}

/// The shared snapshotGeneration check.
pub(super) fn validate_snapshot_generation(
    generation: Option<&SnapshotGenerationConfig>,
) -> Result<(), SectionError> {
    let Some(generation) = generation else {
        return Ok(());
    };
    let Some(tendermint) = &generation.tendermint else {
        return Err(SectionError::SnapshotGenerationEmpty);
    };
    if tendermint.publish.is_some() && tendermint.keep_recent < 2 {
        return Err(SectionError::KeepRecentTooLow);
    }
    Ok(())
}

/// The shared resultExport check.
pub(super) fn validate_result_export(
    export: Option<&ResultExportConfig>,
) -> Result<(), SectionError> {
    match export {
        Some(export) if export.shadow_result.is_none() => Err(SectionError::ResultExportEmpty),
        _ => Ok(()),
    }
}

/// The `bootstrapImage requires s3 with targetHeight > 0` check shared by full and validator.
pub(super) fn bootstrap_image_needs_s3(snap: Option<&SnapshotSource>) -> bool {
    snap.is_some_and(|snap| {
        !snap.bootstrap_image().is_empty() && snap.s3_target_height().is_none_or(|h| h <= 0)
    })
}

/// Upstream `buildPlannedTask`: deterministic ID, params, the type's retry budget, Pending.
pub(super) fn planned_task(
    plan_id: &str,
    kind: TaskKind,
    index: usize,
    params: Value,
) -> PlannedTask {
    PlannedTask {
        id: ids::task_id(plan_id, &kind, index),
        max_retries: ids::task_max_retries(&kind),
        kind,
        status: TaskStatus::Pending,
        params: Some(Box::new(params)),
        submitted_at: None,
        error: String::new(),
        retry_count: 0,
        unknown: UnknownFields::new(),
    }
}

/// An Active plan of `tasks` with the given target and failed phases.
pub(super) fn active_plan(
    id: String,
    tasks: Vec<PlannedTask>,
    target_phase: Option<Phase>,
    failed_phase: Option<Phase>,
) -> TaskPlan {
    TaskPlan {
        id,
        phase: PlanPhase::Active,
        tasks,
        target_phase,
        failed_phase,
        failed_task_index: None,
        failed_task_detail: None,
        unknown: UnknownFields::new(),
    }
}

/// Upstream `buildBasePlan`: PVC, the validate tasks that apply, RBAC, STS, SVC, then the
/// sidecar progression of `snap`. Target Running, failed Failed.
pub(super) fn build_base_plan(
    node: &SeiNode,
    snap: Option<&SnapshotSource>,
    intent: &ConfigIntent,
    ctx: &PlanContext,
) -> Result<TaskPlan, PlanError> {
    let sidecar = build_sidecar_progression(snap)?;
    let mut progression = Vec::with_capacity(7 + sidecar.len());
    progression.push(TaskKind::EnsureDataPvc);
    if needs_validate_signing_key(node) {
        progression.push(TaskKind::ValidateSigningKey);
    }
    if needs_validate_node_key(node) {
        progression.push(TaskKind::ValidateNodeKey);
    }
    if needs_validate_operator_keyring(node) {
        progression.push(TaskKind::ValidateOperatorKeyring);
    }
    progression.extend([
        TaskKind::ApplyRbacProxyConfig,
        TaskKind::ApplyStatefulSet,
        TaskKind::ApplyService,
    ]);
    progression.extend(sidecar);
    let plan_id = ctx.plan_ids.next_plan_id();
    let tasks = progression
        .into_iter()
        .enumerate()
        .map(|(index, kind)| {
            let params = params_for_task(node, &kind, snap, Some(intent));
            planned_task(&plan_id, kind, index, params)
        })
        .collect();
    Ok(active_plan(
        plan_id,
        tasks,
        Some(Phase::Running),
        Some(Phase::Failed),
    ))
}

/// Upstream `commonOverrides`: `logging.level=error`, `network.p2p.persistent_peers` (always,
/// `""` without peers), and `network.p2p.external_address` only when set.
pub fn common_overrides(node: &SeiNode) -> BTreeMap<String, String> {
    let peers = node
        .status
        .as_ref()
        .map_or(&[][..], |s| s.resolved_peers())
        .join(",");
    let mut out = BTreeMap::from([
        (
            LOGGING_LEVEL_KEY.to_owned(),
            DEFAULT_LOGGING_LEVEL.to_owned(),
        ),
        (PERSISTENT_PEERS_KEY.to_owned(), peers),
    ]);
    let external = node.spec.external_address();
    if !external.is_empty() {
        out.insert(EXTERNAL_ADDRESS_KEY.to_owned(), external.to_owned());
    }
    out
}

/// Upstream `mergeOverrides`: a copy of `base` with every key of `top` written over it.
pub fn merge_overrides(
    base: &BTreeMap<String, String>,
    top: Option<&BTreeMap<String, String>>,
) -> BTreeMap<String, String> {
    let mut merged = base.clone();
    if let Some(top) = top {
        merged.extend(top.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    merged
}

/// The init intent: `merge(merge(common, controller), spec.overrides)` — user keys win.
pub(super) fn init_intent(
    node: &SeiNode,
    mode: &str,
    controller: Option<BTreeMap<String, String>>,
) -> ConfigIntent {
    let common = common_overrides(node);
    let with_controller = merge_overrides(&common, controller.as_ref());
    ConfigIntent {
        mode: mode.to_owned(),
        overrides: merge_overrides(&with_controller, node.spec.overrides.as_ref()),
        ..ConfigIntent::default()
    }
}

/// Whether the node's phase is Running (selects the running path of BuildPlan).
pub(super) fn is_running(node: &SeiNode) -> bool {
    node.status.as_ref().and_then(|s| s.phase) == Some(Phase::Running)
}
