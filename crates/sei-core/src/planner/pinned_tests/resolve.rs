//! `resolve_plan` and `handle_terminal_plan` pinned: the update condition set, a terminal plan
//! cleared or rebuilt, an Active plan resumed unchanged.
use super::*;

#[test]
fn resolve_plan_sets_update_condition_with_generation() {
    let mut node = running(full_node("f"), "old", "");
    node.metadata.generation = Some(7);
    assert_eq!(
        resolve_plan(&mut node, &ctx()).expect("resolve"),
        Resolution::Built
    );
    let cond = condition(&node, ConditionType::NodeUpdateInProgress).expect("cond");
    assert_eq!(
        (cond.status.as_str(), cond.reason.as_str()),
        ("True", "UpdateStarted")
    );
    assert!(cond.message.contains("image drift detected"));
    assert_eq!(cond.observed_generation, Some(7));
    assert_eq!(
        node.status.as_ref().and_then(|s| s.phase),
        Some(Phase::Running),
        "phase unchanged"
    );
}

fn with_terminal_plan(node: SeiNode, phase: PlanPhase, detail: Option<(&str, &str)>) -> SeiNode {
    let mut node = node;
    // Any plan will do as the terminal one; a fresh node always gets an init plan.
    let mut plan = build_plan(&mut full_node("template"), &ctx())
        .expect("b")
        .expect("p");
    plan.id = "plan-1".into();
    plan.phase = phase;
    plan.failed_task_detail = detail.map(|(kind, error)| FailedTaskInfo {
        kind: TaskKind::parse(kind),
        id: "t".into(),
        error: error.into(),
        retry_count: 0,
        max_retries: 0,
        unknown: UnknownFields::new(),
    });
    node.status_mut().plan = Some(plan);
    node
}

#[test]
fn resolve_plan_completed_plan_clears_condition() {
    let image = full_node("f").spec.image;
    let node = with_condition(
        running(full_node("f"), &image, ""),
        ConditionType::NodeUpdateInProgress,
        ConditionStatus::True,
        Reason::UpdateStarted,
    );
    let mut node = with_terminal_plan(node, PlanPhase::Complete, None);
    assert_eq!(
        resolve_plan(&mut node, &ctx()).expect("resolve"),
        Resolution::SteadyState
    );
    let cond = condition(&node, ConditionType::NodeUpdateInProgress).expect("cond");
    assert_eq!(
        (cond.status.as_str(), cond.reason.as_str()),
        ("False", "UpdateComplete")
    );
    assert_eq!(cond.message, "plan plan-1 completed");
    assert!(node.status.as_ref().expect("s").plan.is_none());
}

#[test]
fn resolve_plan_failed_plan_with_persisting_drift_rebuilds_in_same_call() {
    let node = with_condition(
        running(full_node("f"), "old", ""),
        ConditionType::NodeUpdateInProgress,
        ConditionStatus::True,
        Reason::UpdateStarted,
    );
    let mut node = with_terminal_plan(
        node,
        PlanPhase::Failed,
        Some(("observe-image", "StatefulSet not ready")),
    );
    let mut ctx = random_ctx();
    ctx.now += jiff::SignedDuration::from_secs(30);
    assert_eq!(
        resolve_plan(&mut node, &ctx).expect("resolve"),
        Resolution::Built
    );
    let plan = node
        .status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .expect("new plan");
    assert_ne!(plan.id, "plan-1");
    assert!(plan.is_active());
    let cond = condition(&node, ConditionType::NodeUpdateInProgress).expect("cond");
    assert_eq!(
        (cond.status.as_str(), cond.reason.as_str()),
        ("True", "UpdateStarted")
    );
}

#[test]
fn handle_terminal_failed_plan_sets_update_failed_message() {
    let node = with_condition(
        running(full_node("f"), "old", ""),
        ConditionType::NodeUpdateInProgress,
        ConditionStatus::True,
        Reason::UpdateStarted,
    );
    let mut node = with_terminal_plan(
        node,
        PlanPhase::Failed,
        Some(("observe-image", "StatefulSet not ready")),
    );
    handle_terminal_plan(&mut node, &ctx());
    let cond = condition(&node, ConditionType::NodeUpdateInProgress).expect("cond");
    assert_eq!(
        (cond.status.as_str(), cond.reason.as_str()),
        ("False", "UpdateFailed")
    );
    assert_eq!(
        cond.message,
        "plan plan-1 failed: task observe-image: StatefulSet not ready"
    );
    assert!(node.status.as_ref().expect("s").plan.is_none());
}

#[test]
fn plan_failure_message_with_and_without_detail() {
    let with = with_terminal_plan(
        full_node("f"),
        PlanPhase::Failed,
        Some(("observe-image", "StatefulSet not ready")),
    );
    let plan = with
        .status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .expect("plan");
    assert_eq!(
        plan_failure_message(plan),
        "task observe-image: StatefulSet not ready"
    );
    let without = with_terminal_plan(full_node("f"), PlanPhase::Failed, None);
    let plan = without
        .status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .expect("plan");
    assert_eq!(plan_failure_message(plan), "unknown");
}

#[test]
fn resolve_plan_resumes_active_plan_unchanged() {
    let mut node = with_terminal_plan(running(full_node("f"), "old", ""), PlanPhase::Active, None);
    node.status_mut().plan.as_mut().expect("plan").id = "existing-plan-123".into();
    let before = node.clone();
    let outcome = resolve_plan(&mut node, &ctx()).expect("resolve");
    assert_eq!(
        outcome,
        Resolution::Resumed {
            plan_id: "existing-plan-123".into()
        }
    );
    assert_eq!(node, before);
}

#[test]
fn completing_a_non_update_plan_leaves_a_false_condition_untouched() {
    let image = full_node("f").spec.image;
    let node = with_condition(
        running(full_node("f"), &image, ""),
        ConditionType::NodeUpdateInProgress,
        ConditionStatus::False,
        Reason::UpdateComplete,
    );
    let mut node = with_terminal_plan(node, PlanPhase::Complete, None);
    let before = condition(&node, ConditionType::NodeUpdateInProgress).cloned();
    handle_terminal_plan(&mut node, &ctx());
    assert_eq!(
        condition(&node, ConditionType::NodeUpdateInProgress).cloned(),
        before
    );
    assert!(node.status.as_ref().expect("s").plan.is_none());
}

#[test]
fn handle_terminal_plan_ignores_nil_and_active_plans() {
    let mut empty = full_node("f");
    handle_terminal_plan(&mut empty, &ctx());
    assert_eq!(empty, full_node("f"));
    let mut active = with_terminal_plan(full_node("f"), PlanPhase::Active, None);
    let before = active.clone();
    handle_terminal_plan(&mut active, &ctx());
    assert_eq!(active, before);
}
