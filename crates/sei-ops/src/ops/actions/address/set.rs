//! The address change itself: `spec.externalAddress` patched and the update plan whose
//! config-patch carries it persisted under the node's resourceVersion.
use crate::actions::address::ExternalAddress;
use crate::actions::preview::address_preview;
use crate::api::{SeiNode, TaskPlan};
use crate::fleet::console_actions;
use crate::ops::{Ops, OpsError};
use crate::ports::StatusPatch;

/// Patches `spec.externalAddress` (the console-action `record` in the same patch) and persists
/// the update plan whose config-patch carries it.
/// The plan is built from the stored node and written under its resourceVersion, so a
/// concurrent writer (the controller persisting its own plan) makes this fail, not clobber.
pub(super) async fn set_address(
    ops: &Ops<'_>,
    node: &str,
    address: &ExternalAddress,
    plan_id: uuid::Uuid,
    record: &str,
) -> Result<(SeiNode, TaskPlan), OpsError> {
    let namespace = ops.namespace();
    let mut patch = serde_json::json!({"spec": {"externalAddress": address.to_string()}});
    console_actions::add_to_patch(&mut patch, record);
    let patched = ops
        .ports
        .cluster
        .patch_seinode(namespace, node, &patch)
        .await
        .map_err(OpsError::cluster(format!(
            "patching spec.externalAddress of {node}"
        )))?;
    let mut planned = patched.clone();
    ops.resolve_peers(&mut planned).await?;
    let ctx = ops.plan_context().with_plan_id(plan_id);
    let plan = address_preview(&planned, address, &ctx)
        .map_err(|e| OpsError::Step(e.to_string()))?
        .plan
        .plan
        .ok_or_else(|| OpsError::Step(format!("{node}: the update plan vanished")))?;
    let status_patch = StatusPatch {
        resource_version: patched
            .metadata
            .resource_version
            .clone()
            .unwrap_or_default(),
        status: serde_json::json!({
            "plan": plan,
            "resolvedPeers": planned.status.as_ref().and_then(|s| s.resolved_peers.clone()),
            "conditions": update_in_progress(&planned, &plan, address, &ctx),
        }),
    };
    ops.ports
        .cluster
        .patch_seinode_status(namespace, node, &status_patch)
        .await
        .map_err(|e| {
            OpsError::Step(format!(
                "spec.externalAddress is set but the update plan could not be persisted: {e}"
            ))
        })?;
    Ok((patched, plan))
}

/// The node's conditions with `NodeUpdateInProgress` True/`UpdateStarted`, as for every update
/// plan: the controller's terminal-plan handling then records how the plan ended on it
/// (`plan <id> completed`), which is how a follower tells a cleared plan's verdict.
fn update_in_progress(
    node: &SeiNode,
    plan: &TaskPlan,
    address: &ExternalAddress,
    ctx: &crate::planner::PlanContext,
) -> Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition> {
    use crate::api::{ConditionStatus, ConditionType, ConditionUpdate, Reason, set_condition};
    let mut conditions = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.clone())
        .unwrap_or_default();
    set_condition(
        &mut conditions,
        ConditionUpdate {
            kind: ConditionType::NodeUpdateInProgress,
            status: ConditionStatus::True,
            reason: Reason::UpdateStarted,
            message: format!("external address set to {address}: update plan {}", plan.id),
            observed_generation: node.generation(),
        },
        ctx.now,
    );
    conditions
}
