//! The executor's rules (spec/planner.md 3.2–3.5).
use std::time::Duration;

use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::api::{
    FailedTaskInfo, Phase, PlanPhase, PlannedTask, SeiNode, SeiNodeStatus, TaskPlan, TaskStatus,
    UnknownFields,
};
use crate::tasks::{ExecutionStatus, TaskOutcome};

/// How often an in-flight task is polled (`TaskPollInterval`); also the transient-error delay.
pub const TASK_POLL_INTERVAL: Duration = Duration::from_secs(5);
/// The longest retry backoff.
pub const MAX_RETRY_BACKOFF: Duration = Duration::from_secs(30);
/// `ResultRequeueImmediate`: requeue after 1 ms.
pub const REQUEUE_IMMEDIATE: Duration = Duration::from_millis(1);

/// When the caller should run the next pass (controller-runtime's `Result`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requeue {
    /// The empty result: no timed requeue (the plan is terminal or just failed).
    Never,
    /// Run again after this long.
    After(Duration),
}

/// `retryBackoff(n)` = `min(5 s × 2^min(n, 5), 30 s)`. The executor increments `retryCount`
/// before calling it, so the first retry waits 10 s.
pub fn retry_backoff(attempt: i64) -> Duration {
    let exponent = attempt.clamp(0, 5) as u32;
    (TASK_POLL_INTERVAL * 2u32.pow(exponent)).min(MAX_RETRY_BACKOFF)
}

/// What the caller must do next with a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// The plan is Complete or Failed: nothing runs; return [`Requeue::Never`].
    Idle,
    /// No task is left that is not Complete: the plan has been marked Complete. Apply
    /// `target_phase` with [`apply_phase_change`] and requeue after [`REQUEUE_IMMEDIATE`].
    PlanComplete { target_phase: Option<Phase> },
    /// Drive the task at `index`: call `Execute` first when `submit` is true (the task is
    /// `Pending`, which it stays while in flight), then `Status`. Report with
    /// [`record_outcome`].
    RunTask { index: usize, submit: bool },
}

/// Picks the first task that is not Complete (upstream `CurrentTask`), or completes the plan.
pub fn next_step(plan: &mut TaskPlan) -> NextStep {
    if plan.phase != PlanPhase::Active {
        return NextStep::Idle;
    }
    match plan.current_task_index() {
        Some(index) => NextStep::RunTask {
            index,
            submit: plan.tasks[index].status == TaskStatus::Pending,
        },
        None => {
            plan.phase = PlanPhase::Complete;
            NextStep::PlanComplete {
                target_phase: plan.target_phase,
            }
        }
    }
}

/// The effect of one [`record_outcome`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepResult {
    /// When to run the next pass, if the pass stops here.
    pub requeue: Requeue,
    /// The task completed: continue with [`next_step`] in the same pass, so synchronous tasks
    /// chain in one reconcile.
    pub continue_plan: bool,
    /// A node phase to set now (the plan's `failedPhase` on failure); apply it with
    /// [`apply_phase_change`].
    pub phase_change: Option<Phase>,
}

impl StepResult {
    fn stop(requeue: Requeue) -> Self {
        StepResult {
            requeue,
            continue_plan: false,
            phase_change: None,
        }
    }
}

/// Applies a task outcome to `plan.tasks[index]` with the controller's rules (`advanceTask`):
/// `submittedAt` is stamped on the first successful submit; Running keeps the task `Pending`
/// (it is resubmitted next pass); Complete marks it Complete; Failed retries within
/// `maxRetries` (same ID, backoff) or fails the plan. An `index` out of range is ignored.
pub fn record_outcome(
    plan: &mut TaskPlan,
    index: usize,
    outcome: TaskOutcome,
    now: Timestamp,
) -> StepResult {
    let Some(task) = plan.tasks.get_mut(index) else {
        return StepResult::stop(Requeue::Never);
    };
    let submitted = task.status == TaskStatus::Pending;
    let status = match outcome {
        TaskOutcome::Undeserializable(message) | TaskOutcome::TerminalError(message) => {
            return fail_task(plan, index, message);
        }
        TaskOutcome::TransientError(_) => {
            return StepResult::stop(Requeue::After(TASK_POLL_INTERVAL));
        }
        TaskOutcome::Status(status) => status,
    };
    if submitted && task.submitted_at.is_none() {
        task.submitted_at = Some(Time(now));
    }
    match status {
        ExecutionStatus::Running => StepResult::stop(Requeue::After(TASK_POLL_INTERVAL)),
        ExecutionStatus::Complete => {
            task.status = TaskStatus::Complete;
            StepResult {
                requeue: Requeue::After(REQUEUE_IMMEDIATE),
                continue_plan: true,
                phase_change: None,
            }
        }
        ExecutionStatus::Failed(message) => {
            let message = message.unwrap_or_else(|| "unknown error".to_owned());
            if task.max_retries > 0 && task.retry_count < task.max_retries {
                task.retry_count += 1;
                task.status = TaskStatus::Pending;
                task.error.clear();
                task.submitted_at = None;
                return StepResult::stop(Requeue::After(retry_backoff(task.retry_count)));
            }
            fail_task(plan, index, message)
        }
    }
}

/// Upstream `failTask`: the task and the plan fail, with the index and details recorded.
fn fail_task(plan: &mut TaskPlan, index: usize, message: String) -> StepResult {
    let task = &mut plan.tasks[index];
    task.status = TaskStatus::Failed;
    task.error = message.clone();
    let detail = failed_detail(task, message);
    plan.phase = PlanPhase::Failed;
    let failed_index = plan
        .tasks
        .iter()
        .position(|t| t.id == detail.id)
        .unwrap_or(index);
    plan.failed_task_index = Some(failed_index as i64);
    plan.failed_task_detail = Some(detail);
    StepResult {
        requeue: Requeue::Never,
        continue_plan: false,
        phase_change: plan.failed_phase,
    }
}

fn failed_detail(task: &PlannedTask, error: String) -> FailedTaskInfo {
    FailedTaskInfo {
        kind: task.kind.clone(),
        id: task.id.clone(),
        error,
        retry_count: task.retry_count,
        max_retries: task.max_retries,
        unknown: UnknownFields::new(),
    }
}

/// Upstream `setTargetPhase` for a SeiNode: sets the phase **and** restamps
/// `phaseTransitionTime`, even when the phase does not change. `None` does nothing.
pub fn apply_phase_change(status: &mut SeiNodeStatus, phase: Option<Phase>, now: Timestamp) {
    if let Some(phase) = phase {
        status.phase = Some(phase);
        status.phase_transition_time = Some(Time(now));
    }
}

/// `ExecutePlan` was called on a node without a plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ExecutePlan called with nil plan for {namespace}/{name}")]
pub struct NilPlanError {
    pub namespace: String,
    pub name: String,
}

/// One synchronous reconcile pass over `node.status.plan` (upstream `ExecutePlan`). `run` is
/// called with the node, the task, and whether to submit it; it performs the task and reports
/// the outcome. The plan is taken out of the status while `run` executes, so tasks may mutate
/// the node's status (conditions, images) freely; it is put back afterwards.
pub fn execute_pass(
    node: &mut SeiNode,
    now: Timestamp,
    mut run: impl FnMut(&mut SeiNode, &PlannedTask, bool) -> TaskOutcome,
) -> Result<Requeue, NilPlanError> {
    let Some(mut plan) = node.status.as_mut().and_then(|s| s.plan.take()) else {
        return Err(NilPlanError {
            namespace: node.namespace().to_owned(),
            name: node.name().to_owned(),
        });
    };
    let requeue = loop {
        match next_step(&mut plan) {
            NextStep::Idle => break Requeue::Never,
            NextStep::PlanComplete { target_phase } => {
                apply_phase_change(node.status_mut(), target_phase, now);
                break Requeue::After(REQUEUE_IMMEDIATE);
            }
            NextStep::RunTask { index, submit } => {
                let outcome = run(node, &plan.tasks[index], submit);
                let step = record_outcome(&mut plan, index, outcome, now);
                apply_phase_change(node.status_mut(), step.phase_change, now);
                if !step.continue_plan {
                    break step.requeue;
                }
            }
        }
    };
    node.status_mut().plan = Some(plan);
    Ok(requeue)
}

#[cfg(test)]
mod tests;
