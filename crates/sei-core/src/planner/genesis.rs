//! buildGenesisPlan (bootstrap.go upstream): the genesis-ceremony validator's fixed 12 tasks.
use super::PlanContext;
use super::params::params_for_task;
use super::planner::{active_plan, init_intent, planned_task};
use crate::api::{Phase, SeiNode, TaskKind, TaskPlan};

const GENESIS_PROGRESSION: [TaskKind; 12] = [
    TaskKind::EnsureDataPvc,
    TaskKind::ApplyRbacProxyConfig,
    TaskKind::ApplyStatefulSet,
    TaskKind::ApplyService,
    TaskKind::GenerateIdentity,
    TaskKind::GenerateGentx,
    TaskKind::UploadGenesisArtifacts,
    TaskKind::ConfigureGenesis,
    TaskKind::ConfigApply,
    TaskKind::SetGenesisPeers,
    TaskKind::ConfigValidate,
    TaskKind::MarkReady,
];

/// Upstream `buildGenesisPlan`: no validate tasks, no state-sync task; intent mode
/// `validator` with common and user overrides.
pub(super) fn build_genesis_plan(node: &SeiNode, ctx: &PlanContext) -> TaskPlan {
    let intent = init_intent(node, "validator", None);
    let plan_id = ctx.plan_ids.next_plan_id();
    let tasks = GENESIS_PROGRESSION
        .into_iter()
        .enumerate()
        .map(|(index, kind)| {
            let params = params_for_task(node, &kind, None, Some(&intent));
            planned_task(&plan_id, kind, index, params)
        })
        .collect();
    active_plan(plan_id, tasks, Some(Phase::Running), Some(Phase::Failed))
}
