//! The running-node path shared by every mode planner (`buildRunningPlan`, imageDrifted,
//! sidecarImageDrifted, imageDriftMessage, p2pConfigPatch, assembleUpdatePlan,
//! buildMarkReadyPlan; spec/planner.md 2.8). Pinned by upstream node_update_test.go.
use std::collections::BTreeMap;

use serde_json::json;

use super::params::{ConfigPatchParams, params_for_task, params_for_update_task};
use super::planner::{active_plan, planned_task, set_node_condition};
use super::{
    PlanContext, needs_validate_node_key, needs_validate_operator_keyring,
    needs_validate_signing_key,
};
use crate::api::{ConditionStatus, ConditionType, Phase, Reason, SeiNode, TaskKind, TaskPlan};

/// The update progression every mode ends with (the whole update plan of a Running node whose
/// image drifted).
pub const UPDATE_PROGRESSION: [TaskKind; 7] = [
    TaskKind::ApplyStatefulSet,
    TaskKind::ApplyService,
    TaskKind::ConfigPatch,
    TaskKind::ConfigValidate,
    TaskKind::ReplacePod,
    TaskKind::ObserveImage,
    TaskKind::MarkReady,
];

/// Which validate tasks gate a mode's update plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum UpdateGates {
    /// full, archive, replayer.
    None,
    /// validate-signing-key?, validate-node-key?, validate-operator-keyring?
    Validator,
    /// validate-node-key?
    Seed,
}

/// `task.EffectiveSidecarImage`: `spec.sidecar.image` when set and non-empty, else the
/// platform default.
pub fn effective_sidecar_image<'a>(node: &'a SeiNode, ctx: &'a PlanContext) -> &'a str {
    node.spec
        .sidecar_image()
        .unwrap_or(&ctx.platform_sidecar_image)
}

/// `spec.image != status.currentImage`. An empty `currentImage` counts as drift.
pub fn image_drifted(node: &SeiNode) -> bool {
    node.spec.image != node.status.as_ref().map_or("", |s| s.current_image())
}

/// The effective sidecar image differs from a non-empty `currentSidecarImage`. Empty means
/// "not yet observed" and is no drift.
pub fn sidecar_image_drifted(node: &SeiNode, ctx: &PlanContext) -> bool {
    let current = node
        .status
        .as_ref()
        .map_or("", |s| s.current_sidecar_image());
    !current.is_empty() && effective_sidecar_image(node, ctx) != current
}

/// The `NodeUpdateInProgress` message naming which image(s) drifted.
pub fn image_drift_message(node: &SeiNode, ctx: &PlanContext) -> String {
    let status = node.status.as_ref();
    let current = status.map_or("", |s| s.current_image());
    let current_sidecar = status.map_or("", |s| s.current_sidecar_image());
    let sidecar = effective_sidecar_image(node, ctx);
    match (image_drifted(node), sidecar_image_drifted(node, ctx)) {
        (true, true) => format!(
            "image drift detected: seid spec={} current={current}; sidecar spec={sidecar} current={current_sidecar}",
            node.spec.image
        ),
        (false, true) => {
            format!("sidecar image drift detected: spec={sidecar} current={current_sidecar}")
        }
        _ => format!(
            "image drift detected: spec={} current={current}",
            node.spec.image
        ),
    }
}

/// `SidecarReady` is False with reason `NotReady` (only that triggers re-approval).
pub fn sidecar_needs_reapproval(node: &SeiNode) -> bool {
    node.status
        .as_ref()
        .and_then(|s| s.condition(ConditionType::SidecarReady))
        .is_some_and(|c| {
            c.status == ConditionStatus::False.as_str() && c.reason == Reason::NotReady.as_str()
        })
}

/// The config.toml `[p2p]` patch of update plans. Both keys are always present (hyphenated,
/// unlike the dotted keys of the init path).
pub fn p2p_config_patch(node: &SeiNode) -> ConfigPatchParams {
    let peers = node
        .status
        .as_ref()
        .map_or(&[][..], |s| s.resolved_peers())
        .join(",");
    let p2p = json!({"p2p": {"external-address": node.spec.external_address(), "persistent-peers": peers}});
    ConfigPatchParams {
        files: BTreeMap::from([("config.toml".to_owned(), p2p)]),
    }
}

/// A mode's `buildRunningPlan`: on image or sidecar drift, set `NodeUpdateInProgress`
/// True/`UpdateStarted` and build the gated update plan; else a mark-ready plan if the sidecar
/// lost readiness; else `None`.
pub(super) fn build_running_plan(
    node: &mut SeiNode,
    gates: UpdateGates,
    ctx: &PlanContext,
) -> Option<TaskPlan> {
    if image_drifted(node) || sidecar_image_drifted(node, ctx) {
        let message = image_drift_message(node, ctx);
        let kind = ConditionType::NodeUpdateInProgress;
        set_node_condition(
            node,
            kind,
            ConditionStatus::True,
            Reason::UpdateStarted,
            message,
            ctx,
        );
        let mut progression = Vec::with_capacity(10);
        match gates {
            UpdateGates::None => {}
            UpdateGates::Validator => {
                if needs_validate_signing_key(node) {
                    progression.push(TaskKind::ValidateSigningKey);
                }
                if needs_validate_node_key(node) {
                    progression.push(TaskKind::ValidateNodeKey);
                }
                if needs_validate_operator_keyring(node) {
                    progression.push(TaskKind::ValidateOperatorKeyring);
                }
            }
            UpdateGates::Seed => {
                if needs_validate_node_key(node) {
                    progression.push(TaskKind::ValidateNodeKey);
                }
            }
        }
        progression.extend(UPDATE_PROGRESSION);
        return Some(assemble_update_plan(
            node,
            progression,
            &p2p_config_patch(node),
            ctx,
        ));
    }
    if sidecar_needs_reapproval(node) {
        return Some(build_mark_ready_plan(node, ctx));
    }
    None
}

/// Upstream `assembleUpdatePlan`: target Running, **no failed phase** (a failure leaves the
/// node Running and drift rebuilds the plan later).
fn assemble_update_plan(
    node: &SeiNode,
    progression: Vec<TaskKind>,
    patch: &ConfigPatchParams,
    ctx: &PlanContext,
) -> TaskPlan {
    let plan_id = ctx.plan_ids.next_plan_id();
    let tasks = progression
        .into_iter()
        .enumerate()
        .map(|(index, kind)| {
            let params = params_for_update_task(node, &kind, patch);
            planned_task(&plan_id, kind, index, params)
        })
        .collect();
    active_plan(plan_id, tasks, Some(Phase::Running), None)
}

/// Upstream `buildMarkReadyPlan`: one mark-ready task, target Running, no failed phase.
pub(super) fn build_mark_ready_plan(node: &SeiNode, ctx: &PlanContext) -> TaskPlan {
    let plan_id = ctx.plan_ids.next_plan_id();
    let params = params_for_task(node, &TaskKind::MarkReady, None, None);
    let task = planned_task(&plan_id, TaskKind::MarkReady, 0, params);
    active_plan(plan_id, vec![task], Some(Phase::Running), None)
}
