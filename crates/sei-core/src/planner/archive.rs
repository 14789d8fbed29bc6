//! archive.go: the archive planner. An archive has no snapshot source and never bootstraps.
use std::collections::BTreeMap;

use super::full::DEFAULT_SNAPSHOT_INTERVAL;
use super::node_update::{UpdateGates, build_running_plan};
use super::planner::{build_base_plan, init_intent, is_running, validate_snapshot_generation};
use super::{PlanContext, PlanError};
use crate::api::{SeiNode, TaskPlan};

/// Upstream `archiveNodePlanner.Validate`.
pub(super) fn validate(node: &SeiNode) -> Result<(), PlanError> {
    let Some(archive) = &node.spec.archive else {
        return Err(PlanError::Invalid("archive sub-spec is nil".into()));
    };
    validate_snapshot_generation(archive.snapshot_generation.as_ref())
        .map_err(|err| PlanError::Invalid(format!("archive: {err}")))
}

/// Upstream `archiveNodePlanner.BuildPlan`: the base plan with no snapshot.
pub(super) fn build_plan(
    node: &mut SeiNode,
    ctx: &PlanContext,
) -> Result<Option<TaskPlan>, PlanError> {
    if is_running(node) {
        return Ok(build_running_plan(node, UpdateGates::None, ctx));
    }
    let intent = init_intent(node, "archive", controller_overrides(node));
    Ok(Some(build_base_plan(node, None, &intent, ctx)?))
}

/// Exactly `storage.snapshot_interval` and `storage.snapshot_keep_recent` when
/// `snapshotGeneration.tendermint` is set; nothing otherwise.
pub(super) fn controller_overrides(node: &SeiNode) -> Option<BTreeMap<String, String>> {
    let tendermint = node
        .spec
        .archive
        .as_ref()?
        .snapshot_generation
        .as_ref()?
        .tendermint
        .as_ref()?;
    Some(BTreeMap::from([
        (
            "storage.snapshot_interval".to_owned(),
            DEFAULT_SNAPSHOT_INTERVAL.to_string(),
        ),
        (
            "storage.snapshot_keep_recent".to_owned(),
            tendermint.keep_recent.to_string(),
        ),
    ]))
}
