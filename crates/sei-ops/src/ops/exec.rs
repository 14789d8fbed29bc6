//! Executing a node's plan now: the plan the planner would build (persisted only when no Active
//! plan exists, resourceVersion lock), then followed to its end by the embedded executor or a
//! live controller.
use super::follow::{ExecutorChoice, FollowEnd};
use super::{Ops, OpsError, PermissionVerdict, Report};
use crate::actions::permissions::plan_checks;
use crate::api::TaskPlan;
use crate::config::ExecutorMode;
use crate::executor::driver::{Persisted, Progress};
use crate::planner::{self, PlanContext, Resolution};
use crate::ports::access::PermissionCheck;

/// Everything known before the plan is persisted.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecPrepared {
    pub node: String,
    /// The ID of the plan shown; a new plan is persisted with it.
    pub plan_id: uuid::Uuid,
    pub executor: ExecutorChoice,
    /// The plan `persist` would build or resume now; `None` when there is nothing to do.
    pub plan: Option<TaskPlan>,
    pub permissions: PermissionVerdict,
}

impl ExecPrepared {
    /// `plan for NS/NODE: N tasks: a, b` (asked before acting), when there is a plan.
    pub fn summary(&self, namespace: &str) -> Option<String> {
        let plan = self.plan.as_ref()?;
        let tasks: Vec<String> = plan.tasks.iter().map(|t| t.kind.to_string()).collect();
        Some(format!(
            "plan for {namespace}/{}: {} tasks: {}",
            self.node,
            tasks.len(),
            tasks.join(", ")
        ))
    }
}

/// Refuses in read-only mode, resolves the executor, and previews and checks the plan.
pub async fn prepare(ops: &Ops<'_>, node: &str) -> Result<ExecPrepared, OpsError> {
    if let Some(refused) = super::action::read_only_refusal(
        ops.settings.read_only,
        format!("execute the plan of {node}"),
    ) {
        return Err(refused);
    }
    let executor = ops.executor_choice().await?;
    let mut stored = ops.read_node(node).await?;
    ops.resolve_peers(&mut stored).await?;
    let plan_id = uuid::Uuid::new_v4();
    let ctx = PlanContext::new(&ops.settings.platform.images.sidecar, ops.ports.clock.now())
        .with_plan_id(plan_id);
    let plan = match planner::resolve_plan(&mut stored, &ctx) {
        Ok(Resolution::Built) | Ok(Resolution::Resumed { .. }) => {
            stored.status.as_ref().and_then(|s| s.plan.clone())
        }
        Ok(_) => None,
        Err(err) => return Err(OpsError::Step(format!("cannot build a plan: {err}"))),
    };
    let mut scope = ops.scope();
    scope.executor = if executor.embedded {
        ExecutorMode::Embedded
    } else {
        ExecutorMode::Controller
    };
    let namespace = ops.namespace();
    let checks = match &plan {
        Some(plan) => {
            let tasks: Vec<_> = plan.tasks.iter().map(|t| t.kind.clone()).collect();
            plan_checks(&scope, namespace, node, &tasks)
        }
        // Only reading and the status write when there is nothing to execute.
        None => vec![
            PermissionCheck::new("get", "sei.io", "seinodes", namespace, node),
            PermissionCheck::new("patch", "sei.io", "seinodes", namespace, node)
                .subresource("status"),
        ],
    };
    let permissions = ops.check(checks, true).await;
    Ok(ExecPrepared {
        node: node.to_owned(),
        plan_id,
        executor,
        plan,
        permissions,
    })
}

/// Takes the node's Lease, persists the plan (or finds the Active one) and follows it; `None`
/// when there was nothing to do, else how the plan ended.
pub async fn run(
    ops: &Ops<'_>,
    prepared: &ExecPrepared,
    report: &dyn Report,
) -> Result<Option<FollowEnd>, OpsError> {
    if let Some(err) = prepared.permissions.error() {
        return Err(OpsError::Access(err.clone()));
    }
    let lease = ops.take_node_lease(&prepared.node, report).await?;
    ops.under_lease(lease, persist_and_follow(ops, prepared, report))
        .await
}

async fn persist_and_follow(
    ops: &Ops<'_>,
    prepared: &ExecPrepared,
    report: &dyn Report,
) -> Result<Option<FollowEnd>, OpsError> {
    let namespace = ops.namespace();
    let node = prepared.node.as_str();
    let persisted = ops
        .driver()
        .persist_as(
            namespace,
            node,
            &ops.settings.platform.images.sidecar,
            Some(prepared.plan_id),
        )
        .await
        .map_err(|e| OpsError::Step(e.to_string()))?;
    let (first, total, plan_id) = match &persisted {
        Persisted::Built(plan) => (
            Progress::PlanPersisted {
                plan_id: plan.id.clone(),
                tasks: plan.tasks.iter().map(|t| t.kind.to_string()).collect(),
                phase: None,
            },
            plan.tasks.len(),
            plan.id.clone(),
        ),
        Persisted::Resumed(plan) => (
            Progress::PlanResumed {
                plan_id: plan.id.clone(),
                complete: plan.completed_count(),
                total: plan.tasks.len(),
            },
            plan.tasks.len(),
            plan.id.clone(),
        ),
        Persisted::None(reason) => {
            let line = Progress::NoPlan {
                reason: reason.clone(),
            };
            report.progress(node, &line, 0);
            return Ok(None);
        }
    };
    report.progress(node, &first, total);
    ops.follow_as(prepared.executor.embedded, node, &plan_id, report)
        .await
        .map(Some)
}
