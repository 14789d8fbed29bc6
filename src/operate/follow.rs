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
        ExecutorMode::Auto => match controller_liveness(cluster, controller_namespace, now).await? {
            ControllerLiveness::Live { holder } => ExecutorChoice {
                embedded: false,
                note: Some(format!("executor: controller ({holder})")),
            },
            ControllerLiveness::NotLive { reason } => ExecutorChoice {
                embedded: true,
                note: Some(format!("executor: embedded ({reason})")),
            },
        },
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
