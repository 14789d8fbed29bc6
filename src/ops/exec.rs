//! Executing a node's plan now: the plan the planner would build (persisted only when no Active
//! plan exists, resourceVersion lock), then followed to its end by the embedded executor or a
//! live controller.
use std::time::Duration;

use super::follow::ExecutorChoice;
use super::{Ops, OpsError, PermissionVerdict, Report};
use crate::actions::permissions::plan_checks;
use crate::api::{PlanPhase, TaskPlan};
use crate::config::ExecutorMode;
use crate::executor::driver::{Persisted, Progress};
use crate::planner::{self, PlanContext, Resolution};
use crate::ports::access::PermissionCheck;

/// Everything known before the plan is persisted.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecPrepared {
    pub node: String,
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
    if let Some(hint) = ops.settings.read_only {
        return Err(OpsError::ReadOnly {
            action: format!("execute the plan of {node}"),
            hint,
        });
    }
    let executor = ops.executor_choice().await?;
    let mut stored = ops.read_node(node).await?;
    let ctx = PlanContext::new(&ops.settings.platform.images.sidecar, ops.ports.clock.now());
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
        executor,
        plan,
        permissions,
    })
}

/// Persists the plan (or finds the Active one) and follows it; `None` when there was nothing
/// to do, else how the plan ended.
pub async fn run(
    ops: &Ops<'_>,
    prepared: &ExecPrepared,
    report: &dyn Report,
) -> Result<Option<PlanPhase>, OpsError> {
    if let Some(err) = prepared.permissions.error() {
        return Err(OpsError::Access(err.clone()));
    }
    let namespace = ops.namespace();
    let node = prepared.node.as_str();
    let driver = ops.driver();
    let persisted = driver
        .persist(namespace, node, &ops.settings.platform.images.sidecar)
        .await
        .map_err(|e| OpsError::Step(e.to_string()))?;
    let total = match &persisted {
        Persisted::Built(plan) | Persisted::Resumed(plan) => plan.tasks.len(),
        Persisted::None(_) => 0,
    };
    let first = match &persisted {
        Persisted::Built(plan) => Progress::PlanPersisted {
            plan_id: plan.id.clone(),
            tasks: plan.tasks.iter().map(|t| t.kind.to_string()).collect(),
            phase: None,
        },
        Persisted::Resumed(plan) => Progress::PlanResumed {
            plan_id: plan.id.clone(),
            complete: plan.completed_count(),
            total: plan.tasks.len(),
        },
        Persisted::None(reason) => {
            report.progress(
                node,
                &Progress::NoPlan {
                    reason: reason.clone(),
                },
                0,
            );
            return Ok(None);
        }
    };
    report.progress(node, &first, total);
    let mut emit = |p: &Progress| report.progress(node, p, total);
    let drive = if prepared.executor.embedded {
        driver.drive(namespace, node, &mut emit).await
    } else {
        driver
            .follow(namespace, node, Duration::from_secs(2), &mut emit)
            .await
    }
    .map_err(|e| OpsError::Step(e.to_string()))?;
    Ok(Some(drive.plan_phase))
}
