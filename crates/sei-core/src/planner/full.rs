//! full.go: the full-node planner (sei-config mode `full`).
use std::collections::BTreeMap;

use super::bootstrap::build_bootstrap_plan;
use super::node_update::{UpdateGates, build_running_plan};
use super::planner::{
    bootstrap_image_needs_s3, build_base_plan, init_intent, is_running,
    validate_snapshot_generation,
};
use super::{PlanContext, PlanError, needs_bootstrap};
use crate::api::{SeiNode, TaskPlan};

/// sei-config `DefaultSnapshotInterval`.
pub(super) const DEFAULT_SNAPSHOT_INTERVAL: i64 = 2000;

/// Upstream `fullNodePlanner.Validate`.
pub(super) fn validate(node: &SeiNode) -> Result<(), PlanError> {
    let Some(full) = &node.spec.full_node else {
        return Err(PlanError::Invalid("fullNode sub-spec is nil".into()));
    };
    if bootstrap_image_needs_s3(full.snapshot.as_ref()) {
        return Err(PlanError::Invalid(
            "fullNode: bootstrapImage requires s3 with targetHeight > 0".into(),
        ));
    }
    validate_snapshot_generation(full.snapshot_generation.as_ref())
        .map_err(|err| PlanError::Invalid(format!("fullNode: {err}")))
}

/// Upstream `fullNodePlanner.BuildPlan`.
pub(super) fn build_plan(
    node: &mut SeiNode,
    ctx: &PlanContext,
) -> Result<Option<TaskPlan>, PlanError> {
    if is_running(node) {
        return Ok(build_running_plan(node, UpdateGates::None, ctx));
    }
    let Some(full) = &node.spec.full_node else {
        return Err(PlanError::Invalid("fullNode sub-spec is nil".into()));
    };
    let intent = init_intent(node, "full", controller_overrides(node));
    let snap = full.snapshot.as_ref();
    let plan = if needs_bootstrap(node) {
        build_bootstrap_plan(node, snap, &intent, ctx)?
    } else {
        build_base_plan(node, snap, &intent, ctx)?
    };
    Ok(Some(plan))
}

/// sei-config `SnapshotGenerationOverrides(keepRecent)` when `snapshotGeneration.tendermint`
/// is set (values read at sei-config v0.0.20; spec/planner.md 2.9).
fn controller_overrides(node: &SeiNode) -> Option<BTreeMap<String, String>> {
    let tendermint = node
        .spec
        .full_node
        .as_ref()?
        .snapshot_generation
        .as_ref()?
        .tendermint
        .as_ref()?;
    let pairs = [
        (
            "storage.snapshot_interval",
            DEFAULT_SNAPSHOT_INTERVAL.to_string(),
        ),
        (
            "storage.snapshot_keep_recent",
            tendermint.keep_recent.to_string(),
        ),
        ("storage.pruning_keep_recent", "50000".to_owned()),
        ("storage.pruning_keep_every", "0".to_owned()),
        ("chain.min_retain_blocks", "50000".to_owned()),
        ("network.p2p.max_connections", "500".to_owned()),
        ("network.p2p.send_rate", "20971520".to_owned()),
        ("network.p2p.recv_rate", "20971520".to_owned()),
    ];
    Some(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}
