//! bootstrap.go: the bootstrap-Job plan (spec/planner.md 2.6) and `IsBootstrapComplete`.
use serde_json::Value;

use super::params::{
    BootstrapJobParams, ConfigIntent, DeployBootstrapServiceParams, TeardownBootstrapParams,
    params_for_task,
};
use super::planner::{active_plan, build_sidecar_progression, planned_task};
use super::{
    PlanContext, PlanError, needs_validate_node_key, needs_validate_operator_keyring,
    needs_validate_signing_key,
};
use crate::api::{Phase, PlannedTask, SeiNode, SnapshotSource, TaskKind, TaskPlan, TaskStatus};

/// `task.BootstrapJobName`: `‹node›-bootstrap`.
pub fn bootstrap_job_name(node: &SeiNode) -> String {
    format!("{}-bootstrap", node.name())
}

fn to_value<T: serde::Serialize>(params: &T) -> Value {
    serde_json::to_value(params).unwrap_or(Value::Null)
}

/// Upstream `buildBootstrapPlan`. Note the order differs from the base plan: RBAC comes
/// **before** the validate tasks, and the bootstrap progression keeps its `mark-ready`.
pub(super) fn build_bootstrap_plan(
    node: &SeiNode,
    snap: Option<&SnapshotSource>,
    intent: &ConfigIntent,
    ctx: &PlanContext,
) -> Result<TaskPlan, PlanError> {
    let plan_id = ctx.plan_ids.next_plan_id();
    let job_name = bootstrap_job_name(node);
    let service_name = node.name().to_owned();
    let namespace = node.namespace().to_owned();
    let bootstrap_progression = build_sidecar_progression(snap)?;
    let mut tasks: Vec<PlannedTask> = Vec::with_capacity(22);
    let mut push = |kind: TaskKind, params: Value| {
        let index = tasks.len();
        tasks.push(planned_task(&plan_id, kind, index, params));
    };
    let node_params = |kind: &TaskKind| params_for_task(node, kind, None, None);

    push(
        TaskKind::EnsureDataPvc,
        node_params(&TaskKind::EnsureDataPvc),
    );
    push(
        TaskKind::ApplyRbacProxyConfig,
        node_params(&TaskKind::ApplyRbacProxyConfig),
    );
    if needs_validate_signing_key(node) {
        push(
            TaskKind::ValidateSigningKey,
            node_params(&TaskKind::ValidateSigningKey),
        );
    }
    if needs_validate_node_key(node) {
        push(
            TaskKind::ValidateNodeKey,
            node_params(&TaskKind::ValidateNodeKey),
        );
    }
    if needs_validate_operator_keyring(node) {
        push(
            TaskKind::ValidateOperatorKeyring,
            node_params(&TaskKind::ValidateOperatorKeyring),
        );
    }
    let service = DeployBootstrapServiceParams {
        service_name: service_name.clone(),
        namespace: namespace.clone(),
    };
    push(TaskKind::DeployBootstrapService, to_value(&service));
    let job = BootstrapJobParams {
        job_name: job_name.clone(),
        namespace: namespace.clone(),
    };
    push(TaskKind::DeployBootstrapJob, to_value(&job));
    for kind in bootstrap_progression {
        let params = params_for_task(node, &kind, snap, Some(intent));
        push(kind, params);
    }
    push(TaskKind::AwaitBootstrapComplete, to_value(&job));
    let teardown = TeardownBootstrapParams {
        job_name,
        service_name,
        namespace,
    };
    push(TaskKind::TeardownBootstrap, to_value(&teardown));
    push(
        TaskKind::ApplyStatefulSet,
        node_params(&TaskKind::ApplyStatefulSet),
    );
    push(TaskKind::ApplyService, node_params(&TaskKind::ApplyService));
    for kind in [
        TaskKind::ConfigureGenesis,
        TaskKind::ConfigApply,
        TaskKind::ConfigValidate,
        TaskKind::MarkReady,
    ] {
        let params = params_for_task(node, &kind, None, Some(intent));
        push(kind, params);
    }
    Ok(active_plan(
        plan_id,
        tasks,
        Some(Phase::Running),
        Some(Phase::Failed),
    ))
}

/// Upstream `IsBootstrapComplete`: false without a plan; otherwise whether the first
/// teardown-bootstrap task is Complete (true when there is none).
pub fn is_bootstrap_complete(plan: Option<&TaskPlan>) -> bool {
    let Some(plan) = plan else { return false };
    plan.tasks
        .iter()
        .find(|task| task.kind == TaskKind::TeardownBootstrap)
        .is_none_or(|task| task.status == TaskStatus::Complete)
}
