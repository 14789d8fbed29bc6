//! Following a persisted plan to its end: the console's embedded executor drives it, or a live
//! controller does and the console watches (DESIGN.md section 5).
use std::fmt;
use std::time::Duration;

use super::{Note, Ops, OpsError, Report};
use crate::actions::render_fix::render_failure_fix;
use crate::api::{PlanPhase, TaskStatus};
use crate::config::ExecutorMode;
use crate::executor::driver::{DriverError, Progress};
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

/// How a followed plan ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FollowEnd {
    Completed,
    /// The plan failed; the failed task and its error when a transition named them.
    Failed {
        plan_id: String,
        task: Option<String>,
        error: Option<String>,
    },
}

impl fmt::Display for FollowEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FollowEnd::Completed => f.write_str("plan complete"),
            FollowEnd::Failed {
                task: Some(task),
                error,
                ..
            } => write!(
                f,
                "task {task} failed: {}",
                error.as_deref().unwrap_or("no detail")
            ),
            FollowEnd::Failed { plan_id, .. } => write!(f, "plan {plan_id} failed"),
        }
    }
}

impl Ops<'_> {
    /// The executor for this action, `auto` resolved by the controller's Lease.
    pub async fn executor_choice(&self) -> Result<ExecutorChoice, OpsError> {
        choose_executor(
            self.settings.executor,
            self.ports.cluster,
            &self.settings.controller_namespace,
            self.ports.clock.now(),
        )
        .await
        .map_err(OpsError::cluster("reading the controller's Lease"))
    }

    /// Follows `node`'s Active plan to its end with the chosen executor, reporting every
    /// progress event. An error names the node (and the fix of a render failure).
    pub async fn follow(&self, node: &str, report: &dyn Report) -> Result<FollowEnd, OpsError> {
        let choice = self.executor_choice().await?;
        if let Some(note) = choice.note {
            report.note(&Note::Executor(note));
        }
        let namespace = self.namespace();
        // The plan was persisted before following: its task count numbers the progress lines.
        let mut total = match self.ports.cluster.get_seinode(namespace, node).await {
            Ok(Some(stored)) => stored
                .status
                .as_ref()
                .and_then(|s| s.plan.as_ref())
                .map_or(0, |plan| plan.tasks.len()),
            _ => 0,
        };
        let mut failed_task = None;
        let mut observe = |p: &Progress| {
            match p {
                Progress::PlanResumed { total: t, .. } => total = *t,
                Progress::PlanPersisted { tasks, .. } => total = tasks.len(),
                Progress::TaskTransition {
                    task, to, error, ..
                } if *to == TaskStatus::Failed => {
                    failed_task = Some((task.clone(), error.clone()));
                }
                _ => {}
            }
            report.progress(node, p, total);
        };
        let driver = self.driver();
        let outcome = if choice.embedded {
            driver.drive(namespace, node, &mut observe).await
        } else {
            driver
                .follow(namespace, node, FOLLOW_INTERVAL, &mut observe)
                .await
        };
        let drive = outcome.map_err(|e| {
            let fix = match &e {
                DriverError::RenderFailed(failure) => failure
                    .render_error()
                    .and_then(|error| render_failure_fix(error, &self.settings.platform_source)),
                _ => None,
            };
            let fix = fix.map(|f| format!("; fix: {f}")).unwrap_or_default();
            OpsError::Step(format!("{namespace}/{node}: {e}{fix}"))
        })?;
        Ok(match drive.plan_phase {
            PlanPhase::Failed => {
                let (task, error) = failed_task.unzip();
                FollowEnd::Failed {
                    plan_id: drive.plan_id,
                    task,
                    error: error.flatten(),
                }
            }
            _ => FollowEnd::Completed,
        })
    }
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
            node_phase.map_or("(none)", |p| p.as_str()),
            if *conflicts > 0 {
                format!(" ({conflicts} conflicting status writes retried)")
            } else {
                String::new()
            }
        ),
    }
}
