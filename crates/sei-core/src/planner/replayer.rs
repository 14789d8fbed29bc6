//! replay.go: the replayer planner (sei-config mode `full`).
use std::collections::BTreeMap;

use super::bootstrap::build_bootstrap_plan;
use super::node_update::{UpdateGates, build_running_plan};
use super::planner::{build_base_plan, init_intent, is_running, validate_result_export};
use super::{PlanContext, PlanError, needs_bootstrap};
use crate::api::{SeiNode, TaskPlan};

fn invalid(message: &str) -> PlanError {
    PlanError::Invalid(message.to_owned())
}

/// Upstream `replayerPlanner.Validate`. A stateSync replayer passes CRD admission but is
/// rejected here.
pub(super) fn validate(node: &SeiNode) -> Result<(), PlanError> {
    let Some(replayer) = &node.spec.replayer else {
        return Err(invalid("replayer sub-spec is nil"));
    };
    let Some(target_height) = replayer.snapshot.s3_target_height() else {
        return Err(invalid("replayer requires an S3 snapshot source"));
    };
    if target_height <= 0 {
        return Err(invalid("replayer: s3.targetHeight must be > 0"));
    }
    if node.spec.peers().is_empty() {
        return Err(invalid(
            "replayer requires at least one peer source for block sync",
        ));
    }
    validate_result_export(replayer.result_export.as_ref())
        .map_err(|err| PlanError::Invalid(format!("replayer: {err}")))
}

/// Upstream `replayerPlanner.BuildPlan`.
pub(super) fn build_plan(
    node: &mut SeiNode,
    ctx: &PlanContext,
) -> Result<Option<TaskPlan>, PlanError> {
    if is_running(node) {
        return Ok(build_running_plan(node, UpdateGates::None, ctx));
    }
    let Some(replayer) = &node.spec.replayer else {
        return Err(invalid("replayer sub-spec is nil"));
    };
    let intent = init_intent(node, "full", Some(controller_overrides()));
    let snap = Some(&replayer.snapshot);
    let plan = if needs_bootstrap(node) {
        build_bootstrap_plan(node, snap, &intent, ctx)?
    } else {
        build_base_plan(node, snap, &intent, ctx)?
    };
    Ok(Some(plan))
}

fn controller_overrides() -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "storage.state_commit.async_commit_buffer".to_owned(),
            "100".to_owned(),
        ),
        (
            "storage.state_commit.memiavl.snapshot_keep_recent".to_owned(),
            "2".to_owned(),
        ),
        (
            "storage.state_commit.memiavl.snapshot_min_time_interval".to_owned(),
            "3600".to_owned(),
        ),
    ])
}
