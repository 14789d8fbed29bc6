//! One test per executor rule (spec/planner.md section 3, upstream executor_test.go and the
//! controller's plan-execution tests).
use jiff::{SignedDuration, Timestamp};

use super::*;
use crate::api::{Phase, PlanPhase, SeiNode, TaskKind, TaskStatus};
use crate::planner::test_support::{ctx, full_node, running};
use crate::planner::{build_plan, resolve_plan};

fn now() -> Timestamp {
    ctx().now + SignedDuration::from_secs(60)
}

/// A fresh full node with its 8-task init plan installed (phase Initializing).
fn initializing_node() -> SeiNode {
    let mut node = full_node("f");
    resolve_plan(&mut node, &ctx()).expect("init plan");
    node
}

fn plan(node: &SeiNode) -> &crate::api::TaskPlan {
    node.status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .expect("plan")
}

fn phase(node: &SeiNode) -> Option<Phase> {
    node.status.as_ref().and_then(|s| s.phase)
}

#[test]
fn terminal_plans_are_idle_and_submit_nothing() {
    for terminal in [PlanPhase::Complete, PlanPhase::Failed] {
        let mut node = initializing_node();
        node.status_mut().plan.as_mut().expect("plan").phase = terminal;
        let requeue =
            execute_pass(&mut node, now(), |_, _, _| panic!("nothing may run")).expect("pass");
        assert_eq!(requeue, Requeue::Never);
    }
}

#[test]
fn nil_plan_is_an_error() {
    let mut node = full_node("f");
    let err = execute_pass(&mut node, now(), |_, _, _| unreachable!()).expect_err("nil plan");
    assert_eq!(err.to_string(), "ExecutePlan called with nil plan for ns/f");
}

#[test]
fn synchronous_tasks_chain_in_one_pass_and_the_plan_completes_with_target_phase() {
    let mut node = initializing_node();
    let mut runs = Vec::new();
    let requeue = execute_pass(&mut node, now(), |_, task, submit| {
        runs.push((task.kind.clone(), submit));
        TaskOutcome::Status(ExecutionStatus::Complete)
    })
    .expect("pass");
    assert_eq!(runs.len(), 8);
    assert!(runs.iter().all(|(_, submit)| *submit));
    assert_eq!(requeue, Requeue::After(REQUEUE_IMMEDIATE));
    assert_eq!(plan(&node).phase, PlanPhase::Complete);
    assert_eq!(phase(&node), Some(Phase::Running));
    let status = node.status.as_ref().expect("status");
    assert_eq!(
        status.phase_transition_time.as_ref().map(|t| t.0),
        Some(now())
    );
    assert!(
        plan(&node)
            .tasks
            .iter()
            .all(|t| t.submitted_at.as_ref().map(|s| s.0) == Some(now()))
    );
}

#[test]
fn quirk_in_flight_task_stays_pending_and_is_resubmitted() {
    let mut node = initializing_node();
    let first = now();
    let requeue = execute_pass(&mut node, first, |_, task, _| match task.kind {
        TaskKind::ConfigureGenesis => TaskOutcome::Status(ExecutionStatus::Running),
        _ => TaskOutcome::Status(ExecutionStatus::Complete),
    })
    .expect("pass");
    assert_eq!(requeue, Requeue::After(TASK_POLL_INTERVAL));
    let genesis = &plan(&node).tasks[4];
    assert_eq!(
        (genesis.kind.clone(), genesis.status),
        (TaskKind::ConfigureGenesis, TaskStatus::Pending)
    );
    assert_eq!(genesis.submitted_at.as_ref().map(|t| t.0), Some(first));
    // Next pass: Execute is called again (submit = true) and submittedAt is not overwritten.
    let later = first + SignedDuration::from_secs(5);
    let mut resubmitted = None;
    execute_pass(&mut node, later, |_, task, submit| {
        resubmitted.get_or_insert((task.kind.clone(), submit));
        TaskOutcome::Status(ExecutionStatus::Running)
    })
    .expect("pass");
    assert_eq!(resubmitted, Some((TaskKind::ConfigureGenesis, true)));
    assert_eq!(
        plan(&node).tasks[4].submitted_at.as_ref().map(|t| t.0),
        Some(first)
    );
    assert!(
        plan(&node)
            .tasks
            .iter()
            .all(|t| t.status != TaskStatus::Running)
    );
}

#[test]
fn quirk_transient_execute_error_never_consumes_a_retry() {
    let mut node = initializing_node();
    for _ in 0..3 {
        let requeue = execute_pass(&mut node, now(), |_, _, _| {
            TaskOutcome::TransientError("submitting: refused".into())
        })
        .expect("pass");
        assert_eq!(requeue, Requeue::After(TASK_POLL_INTERVAL));
    }
    let task = &plan(&node).tasks[0];
    assert_eq!(task.status, TaskStatus::Pending);
    assert_eq!((task.retry_count, task.error.as_str()), (0, ""));
    assert!(task.submitted_at.is_none());
    assert_eq!(plan(&node).phase, PlanPhase::Active);
}

#[test]
fn quirk_terminal_execute_error_fails_the_plan_despite_retries() {
    let mut node = initializing_node();
    let outcome = |task: &crate::api::PlannedTask| match task.kind {
        TaskKind::ConfigureGenesis => TaskOutcome::TerminalError("secret malformed".into()),
        _ => TaskOutcome::Status(ExecutionStatus::Complete),
    };
    let requeue = execute_pass(&mut node, now(), |_, task, _| outcome(task)).expect("pass");
    assert_eq!(requeue, Requeue::Never);
    let plan = plan(&node);
    assert_eq!(plan.phase, PlanPhase::Failed);
    assert_eq!(plan.tasks[4].status, TaskStatus::Failed);
    assert_eq!(plan.tasks[4].max_retries, 180, "budget ignored");
    assert_eq!(plan.failed_task_index, Some(4));
    let detail = plan.failed_task_detail.as_ref().expect("detail");
    assert_eq!(
        (
            detail.error.as_str(),
            detail.retry_count,
            detail.max_retries
        ),
        ("secret malformed", 0, 180)
    );
    assert_eq!(
        phase(&node),
        Some(Phase::Failed),
        "init plans fail the node"
    );
}

#[test]
fn failed_status_with_budget_retries_with_the_same_id_and_backoff() {
    let mut node = initializing_node();
    let id = plan(&node).tasks[4].id.clone();
    let requeue = execute_pass(&mut node, now(), |_, task, _| match task.kind {
        TaskKind::ConfigureGenesis => {
            TaskOutcome::Status(ExecutionStatus::Failed(Some("genesis not found".into())))
        }
        _ => TaskOutcome::Status(ExecutionStatus::Complete),
    })
    .expect("pass");
    assert_eq!(
        requeue,
        Requeue::After(Duration::from_secs(10)),
        "first retry waits 10 s"
    );
    let task = &plan(&node).tasks[4];
    assert_eq!(
        (task.status, task.retry_count, task.id.as_str()),
        (TaskStatus::Pending, 1, id.as_str())
    );
    assert!(task.submitted_at.is_none() && task.error.is_empty());
    assert_eq!(plan(&node).phase, PlanPhase::Active);
}

#[test]
fn exhausted_retries_fail_the_plan_with_index_and_detail() {
    let mut node = initializing_node();
    {
        let plan = node.status_mut().plan.as_mut().expect("plan");
        plan.tasks.retain(|t| t.kind == TaskKind::ConfigureGenesis);
        plan.tasks[0].max_retries = 2;
        plan.tasks[0].retry_count = 2;
    }
    execute_pass(&mut node, now(), |_, _, _| {
        TaskOutcome::Status(ExecutionStatus::Failed(None))
    })
    .expect("pass");
    let plan = plan(&node);
    assert_eq!(
        (plan.phase, plan.tasks[0].status),
        (PlanPhase::Failed, TaskStatus::Failed)
    );
    assert_eq!(plan.failed_task_index, Some(0));
    let json = serde_json::to_value(plan).expect("ser");
    assert_eq!(json["failedTaskIndex"], 0, "index 0 is emitted");
    let detail = plan.failed_task_detail.as_ref().expect("detail");
    assert_eq!(detail.kind, TaskKind::ConfigureGenesis);
    assert_eq!(
        (
            detail.error.as_str(),
            detail.retry_count,
            detail.max_retries
        ),
        ("unknown error", 2, 2)
    );
    assert_eq!(plan.tasks[0].error, "unknown error");
}

#[test]
fn undeserializable_task_fails_the_plan() {
    let mut node = initializing_node();
    let requeue = execute_pass(&mut node, now(), |_, _, _| {
        TaskOutcome::Undeserializable("unknown task type \"frobnicate\"".into())
    })
    .expect("pass");
    assert_eq!(requeue, Requeue::Never);
    assert_eq!(
        plan(&node).failed_task_detail.as_ref().expect("d").error,
        "unknown task type \"frobnicate\""
    );
}

#[test]
fn quirk_update_plan_failure_keeps_the_node_running() {
    let mut node = running(full_node("f"), "old", "");
    let before = node
        .status
        .as_ref()
        .and_then(|s| s.phase_transition_time.clone());
    let update = build_plan(&mut node, &ctx())
        .expect("b")
        .expect("update plan");
    node.status_mut().plan = Some(update);
    execute_pass(&mut node, now(), |_, _, _| {
        TaskOutcome::TerminalError("boom".into())
    })
    .expect("pass");
    assert_eq!(plan(&node).phase, PlanPhase::Failed);
    assert_eq!(phase(&node), Some(Phase::Running));
    assert_eq!(
        node.status
            .as_ref()
            .and_then(|s| s.phase_transition_time.clone()),
        before
    );
}

#[test]
fn quirk_target_phase_restamps_transition_time_even_when_unchanged() {
    let mut node = running(full_node("f"), "old", "");
    let update = build_plan(&mut node, &ctx())
        .expect("b")
        .expect("update plan");
    node.status_mut().plan = Some(update);
    execute_pass(&mut node, now(), |_, _, _| {
        TaskOutcome::Status(ExecutionStatus::Complete)
    })
    .expect("pass");
    assert_eq!(phase(&node), Some(Phase::Running));
    let stamped = node
        .status
        .as_ref()
        .and_then(|s| s.phase_transition_time.as_ref())
        .map(|t| t.0);
    assert_eq!(stamped, Some(now()));
}

#[test]
fn next_step_reports_submit_only_for_pending_tasks() {
    let mut node = initializing_node();
    let plan = node.status_mut().plan.as_mut().expect("plan");
    assert_eq!(
        next_step(plan),
        NextStep::RunTask {
            index: 0,
            submit: true
        }
    );
    plan.tasks[0].status = TaskStatus::Complete;
    plan.tasks[1].status = TaskStatus::Running; // written by someone else: poll without Execute
    assert_eq!(
        next_step(plan),
        NextStep::RunTask {
            index: 1,
            submit: false
        }
    );
    let step = record_outcome(
        plan,
        1,
        TaskOutcome::Status(ExecutionStatus::Running),
        now(),
    );
    assert!(plan.tasks[1].submitted_at.is_none(), "no submit, no stamp");
    assert_eq!(step.requeue, Requeue::After(TASK_POLL_INTERVAL));
}

#[test]
fn retry_backoff_doubles_up_to_thirty_seconds() {
    let secs: Vec<u64> = (0..=6).map(|n| retry_backoff(n).as_secs()).collect();
    assert_eq!(secs, [5, 10, 20, 30, 30, 30, 30]);
    assert_eq!(retry_backoff(-1), TASK_POLL_INTERVAL);
}
