//! seed.go: the seed planner. A seed never bootstraps and has no snapshot source.
use super::node_update::{UpdateGates, build_running_plan};
use super::planner::{build_base_plan, init_intent, is_running};
use super::{PlanContext, PlanError};
use crate::api::{SeiNode, TaskPlan};

/// Upstream `seedPlanner.Validate`. The dash in the message is U+2014.
pub(super) fn validate(node: &SeiNode) -> Result<(), PlanError> {
    if node.spec.seed.is_none() {
        return Err(PlanError::Invalid("seed sub-spec is nil".into()));
    }
    if node.spec.node_key_secret_name().is_empty() {
        return Err(PlanError::Invalid(
            "seed: nodeKey.secret.secretName is required \u{2014} a seed's NodeID is published and must not be regenerated".into(),
        ));
    }
    Ok(())
}

/// Upstream `seedPlanner.BuildPlan`: the base plan with no snapshot, mode `seed`.
pub(super) fn build_plan(
    node: &mut SeiNode,
    ctx: &PlanContext,
) -> Result<Option<TaskPlan>, PlanError> {
    if is_running(node) {
        return Ok(build_running_plan(node, UpdateGates::Seed, ctx));
    }
    let intent = init_intent(node, "seed", None);
    Ok(Some(build_base_plan(node, None, &intent, ctx)?))
}
