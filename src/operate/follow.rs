//! Following a persisted plan to its end: the console's embedded executor drives it, or a live
//! controller does and the console watches (DESIGN.md section 5).
use std::time::Duration;

use crate::api::PlanPhase;
use crate::config::ExecutorMode;
use crate::executor::driver::{Driver, DriverError, Progress};
use crate::executor::lease::{ControllerLiveness, controller_liveness};
use crate::ports::{ClusterApi, ClusterError};

/// How often a hand-off follow re-reads the node.
pub const FOLLOW_INTERVAL: Duration = Duration::from_secs(2);

/// Who executes, and for `auto`, why (shown to the operator).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutorChoice {
    pub embedded: bool,
    /// `executor: controller (holder)` or `executor: embedded (reason)`, only for `auto`.
    pub note: Option<String>,
}

/// Resolves `auto` by the controller's leader-election Lease.
pub async fn choose_executor(
    mode: ExecutorMode,
    cluster: &dyn ClusterApi,
    controller_namespace: &str,
    now: jiff::Timestamp,
) -> Result<ExecutorChoice, ClusterError> {
    Ok(match mode {
        ExecutorMode::Embedded => ExecutorChoice {
            embedded: true,
            note: None,
        },
        ExecutorMode::Controller => ExecutorChoice {
            embedded: false,
            note: None,
        },
        ExecutorMode::Auto => {
            match controller_liveness(cluster, controller_namespace, now).await? {
                ControllerLiveness::Live { holder } => ExecutorChoice {
                    embedded: false,
                    note: Some(format!("executor: controller ({holder})")),
                },
                ControllerLiveness::NotLive { reason } => ExecutorChoice {
                    embedded: true,
                    note: Some(format!("executor: embedded ({reason})")),
                },
            }
        }
    })
}

/// Follows the node's Active plan to its end, passing every progress line to `emit`.
/// `Ok(None)` when the plan completed, `Ok(Some(reason))` when it failed (naming the task).
pub async fn follow_plan(
    driver: &Driver<'_>,
    embedded: bool,
    namespace: &str,
    node: &str,
    emit: &mut (dyn FnMut(&Progress) + Send),
) -> Result<Option<String>, DriverError> {
    let mut failure: Option<String> = None;
    let mut observe = |p: &Progress| {
        if let Progress::TaskTransition {
            task, to, error, ..
        } = p
            && to == "Failed"
        {
            failure = Some(format!(
                "task {task} failed: {}",
                error.as_deref().unwrap_or("no detail")
            ));
        }
        emit(p);
    };
    let report = if embedded {
        driver.drive(namespace, node, &mut observe).await
    } else {
        driver
            .follow(namespace, node, FOLLOW_INTERVAL, &mut observe)
            .await
    }?;
    Ok(match report.plan_phase {
        PlanPhase::Failed => {
            Some(failure.unwrap_or_else(|| format!("plan {} failed", report.plan_id)))
        }
        _ => None,
    })
}

/// One human line per progress event.
pub fn progress_text(progress: &Progress, total: usize) -> String {
    match progress {
        Progress::PlanPersisted { plan_id, tasks, .. } => {
            format!(
                "plan {plan_id} persisted: {} tasks: {}",
                tasks.len(),
                tasks.join(", ")
            )
        }
        Progress::PlanResumed {
            plan_id,
            complete,
            total,
        } => {
            format!(
                "plan {plan_id} already active: {complete}/{total} tasks complete; following it"
            )
        }
        Progress::NoPlan { reason } => format!("no plan: {reason}"),
        Progress::TaskStarted { index, task, .. } => {
            format!("[{}/{total}] {task}: submitted", index + 1)
        }
        Progress::TaskTransition {
            index,
            task,
            from,
            to,
            error,
            retry_count,
            ..
        } => {
            let mut line = format!("[{}/{total}] {task}: {from} -> {to}", index + 1);
            if *retry_count > 0 && from == to {
                line.push_str(&format!(" (retry {retry_count})"));
            }
            if let Some(error) = error {
                line.push_str(&format!(": {error}"));
            }
            line
        }
        Progress::RenderFailed { failure } => {
            format!("warning: StatefulSetRenderFailed: {failure}")
        }
        Progress::PlanFinished {
            plan_id,
            phase,
            node_phase,
            conflicts,
        } => format!(
            "plan {plan_id} {phase}; node phase {}{}",
            node_phase.as_deref().unwrap_or("(none)"),
            if *conflicts > 0 {
                format!(" ({conflicts} conflicting status writes retried)")
            } else {
                String::new()
            }
        ),
    }
}
