//! Following a persisted plan to its end: the console's embedded executor drives it, or a live
//! controller does and the console watches (DESIGN.md section 5).
use std::fmt;
use std::time::Duration;

use super::waiting::naming_warnings;
use super::{Note, Ops, OpsError, Report};
use crate::actions::render_fix::render_failure_fix;
use crate::api::{PlanPhase, TaskStatus};
use crate::config::ExecutorMode;
use crate::executor::driver::{DriverError, FollowOutcome, Progress};
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
    /// Another plan took the followed plan's place and nothing shows the followed one ended.
    Replaced {
        plan_id: String,
        by: String,
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
            FollowEnd::Failed {
                plan_id,
                error: Some(error),
                ..
            } => write!(f, "plan {plan_id} failed: {error}"),
            FollowEnd::Failed { plan_id, .. } => write!(f, "plan {plan_id} failed"),
            FollowEnd::Replaced { plan_id, by } => write!(
                f,
                "plan {plan_id} was replaced by plan {by} before it ended"
            ),
        }
    }
}

/// Hand-offs to a controller and back that one follow tolerates (a flapping Lease must not
/// loop forever).
const MAX_HAND_OFFS: usize = 4;

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

    /// Whether a controller holds its Lease now (its holder).
    async fn live_controller(&self) -> Result<Option<String>, OpsError> {
        let liveness = controller_liveness(
            self.ports.cluster,
            &self.settings.controller_namespace,
            self.ports.clock.now(),
        )
        .await
        .map_err(OpsError::cluster("reading the controller's Lease"))?;
        Ok(match liveness {
            ControllerLiveness::Live { holder } => Some(holder),
            ControllerLiveness::NotLive { .. } => None,
        })
    }

    /// Follows plan `plan_id` of `node` to its end, reporting every progress event. One
    /// executor at a time: the console executes only while no controller holds its Lease (the
    /// embedded executor re-checks before every step and hands off, saying so), else it follows
    /// the controller by the plan's ID to a verdict that matches what happened. The caller holds
    /// the node's Lease. An error names the node (and the fix of a render failure).
    pub async fn follow(
        &self,
        node: &str,
        plan_id: &str,
        report: &dyn Report,
    ) -> Result<FollowEnd, OpsError> {
        let choice = self.executor_choice().await?;
        if let Some(note) = &choice.note {
            report.note(&Note::Executor(note.clone()));
        }
        self.follow_as(choice.embedded, node, plan_id, report).await
    }

    /// As [`Self::follow`] with the executor already chosen (and said).
    pub async fn follow_as(
        &self,
        embedded: bool,
        node: &str,
        plan_id: &str,
        report: &dyn Report,
    ) -> Result<FollowEnd, OpsError> {
        let namespace = self.namespace();
        // The plan was persisted before following: its task count numbers the progress lines.
        let total = match self.ports.cluster.get_seinode(namespace, node).await {
            Ok(Some(stored)) => stored
                .status
                .as_ref()
                .and_then(|s| s.plan.as_ref())
                .map_or(0, |plan| plan.tasks.len()),
            _ => 0,
        };
        let total = std::sync::atomic::AtomicUsize::new(total);
        let failed_task = std::sync::Mutex::new(None);
        let mut observe = |p: &Progress| {
            let ordering = std::sync::atomic::Ordering::Relaxed;
            match p {
                Progress::PlanResumed { total: t, .. } => total.store(*t, ordering),
                Progress::PlanPersisted { tasks, .. } => total.store(tasks.len(), ordering),
                Progress::TaskTransition {
                    task, to, error, ..
                } if *to == TaskStatus::Failed => {
                    if let Ok(mut failed) = failed_task.lock() {
                        *failed = Some((task.clone(), error.clone()));
                    }
                }
                _ => {}
            }
            report.progress(node, p, total.load(ordering));
        };
        let driver = self.driver();
        let mut embedded = embedded;
        for _ in 0..MAX_HAND_OFFS {
            if embedded && let Some(holder) = self.live_controller().await? {
                // Never execute beside a live controller, whatever the configured mode.
                report.note(&Note::HandedOff {
                    node: node.to_owned(),
                    holder,
                });
                embedded = false;
            }
            if embedded {
                let drive = naming_warnings(
                    self,
                    node,
                    self.stall_period(),
                    report,
                    // Boxed: the driver's future is large, and a debug build's stack is not.
                    Box::pin(driver.drive_leased(namespace, node, &mut observe)),
                )
                .await;
                let drive = match drive {
                    Ok(drive) => drive,
                    Err(e) => return Err(self.driver_failure_explained(node, e).await),
                };
                if let Some(holder) = drive.handed_off_to {
                    report.note(&Note::HandedOff {
                        node: node.to_owned(),
                        holder,
                    });
                    embedded = false;
                    continue;
                }
                if drive.plan_phase == PlanPhase::Complete {
                    // What the controller's next reconcile would do to the node.
                    driver
                        .clear_completed_plan(namespace, node, &drive.plan_id)
                        .await;
                }
                return Ok(self.end_of(drive.plan_id, drive.plan_phase, None, &failed_task));
            }
            let followed = naming_warnings(
                self,
                node,
                self.stall_period(),
                report,
                Box::pin(driver.follow(namespace, node, plan_id, FOLLOW_INTERVAL, &mut observe)),
            )
            .await;
            let followed = match followed {
                Ok(followed) => followed,
                Err(e) => return Err(self.driver_failure_explained(node, e).await),
            };
            return Ok(match followed {
                FollowOutcome::Finished(drive) => {
                    self.end_of(drive.plan_id, drive.plan_phase, None, &failed_task)
                }
                FollowOutcome::Cleared {
                    plan_id,
                    phase,
                    evidence,
                } => {
                    report.note(&Note::PlanCleared {
                        node: node.to_owned(),
                        plan_id: plan_id.clone(),
                        evidence: evidence.clone(),
                    });
                    self.end_of(plan_id, phase, Some(evidence), &failed_task)
                }
                FollowOutcome::Replaced { plan_id, by } => FollowEnd::Replaced { plan_id, by },
            });
        }
        Err(OpsError::Step(format!(
            "{namespace}/{node}: the controller's Lease kept changing hands; following stopped"
        )))
    }

    fn end_of(
        &self,
        plan_id: String,
        phase: PlanPhase,
        evidence: Option<String>,
        failed_task: &std::sync::Mutex<Option<(String, Option<String>)>>,
    ) -> FollowEnd {
        match phase {
            PlanPhase::Failed => {
                let seen = failed_task.lock().ok().and_then(|mut f| f.take());
                let (task, error) = seen.unzip();
                FollowEnd::Failed {
                    plan_id,
                    task,
                    error: error.flatten().or(evidence),
                }
            }
            _ => FollowEnd::Completed,
        }
    }

    /// How often a followed plan names new Warning events of its StatefulSet and pod: the
    /// driver's longest wait (30 s; a few ms in tests).
    fn stall_period(&self) -> std::time::Duration {
        self.settings
            .driver
            .max_wait
            .max(std::time::Duration::from_millis(10))
    }

    /// As `driver_failure`; a plan that ran out of time also names the Warning events of the
    /// node's StatefulSet and pod (a pod that was never created, never scheduled).
    async fn driver_failure_explained(&self, node: &str, e: DriverError) -> OpsError {
        let deadline = matches!(e, DriverError::Deadline(_));
        let error = self.driver_failure(node, e);
        match error {
            OpsError::Step(text) if deadline => {
                let warnings = super::waiting::warnings(self, node, None).await;
                OpsError::Step(format!("{text}{}", super::waiting::because(&warnings)))
            }
            other => other,
        }
    }

    fn driver_failure(&self, node: &str, e: DriverError) -> OpsError {
        let fix = match &e {
            DriverError::RenderFailed(failure) => failure
                .render_error()
                .and_then(|error| render_failure_fix(error, &self.settings.platform_source)),
            _ => None,
        };
        let fix = fix.map(|f| format!("; fix: {f}")).unwrap_or_default();
        OpsError::Step(format!("{}/{node}: {e}{fix}", self.namespace()))
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
        Progress::TaskRetrying {
            index, task, error, ..
        } => format!(
            "[{}/{total}] {task}: not progressing, retrying: {error}",
            index + 1
        ),
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
