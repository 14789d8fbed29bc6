use std::time::Duration;

use super::*;
use crate::api::{ConditionType, PlanPhase, TaskKind};
use crate::ports::{FixedClock, ObjectKind};
use crate::render::RenderError;
use crate::tasks::testing::*;

const SIDECAR_IMAGE: &str = "ghcr.io/sei-protocol/seictl:platform";

fn driver<'a>(h: &'a Harness, clock: &'a FixedClock) -> Driver<'a> {
    Driver {
        cluster: &h.cluster,
        sidecar: &h.sidecar,
        renderer: &h.renderer,
        clock,
        config: DriverConfig {
            holder: "test-executor".into(),
            max_wait: Duration::from_millis(1),
            deadline: Duration::from_secs(10),
            max_conflicts_per_step: 10,
            halt_on_render_failure: false,
            controller_namespace: None,
            allow_unknown_fields: false,
        },
    }
}

fn seed_node(ns: &str, name: &str) -> SeiNode {
    let mut node = full_node(ns, name);
    node.spec.full_node = None;
    node.spec.seed = serde_json::from_value(serde_json::json!({
        "nodeKey": {"secret": {"secretName": format!("{name}-node-key")}}
    }))
    .ok();
    node
}

async fn persist_and_drive(
    h: &Harness,
    clock: &FixedClock,
    name: &str,
) -> (DriveReport, Vec<Progress>) {
    let d = driver(h, clock);
    let persisted = d.persist("ns", name, SIDECAR_IMAGE).await.expect("persist");
    assert!(matches!(persisted, Persisted::Built(_)), "{persisted:?}");
    let mut lines = Vec::new();
    let report = d
        .drive("ns", name, &mut |p: &Progress| lines.push(p.clone()))
        .await
        .expect("drive");
    (report, lines)
}

fn stored_plan(h: &Harness, name: &str) -> TaskPlan {
    h.cluster
        .node("ns", name)
        .and_then(|n| n.status)
        .and_then(|s| s.plan)
        .expect("plan in status")
}

#[test]
fn merge_diff_sets_changes_and_nulls_removed_keys() {
    let before = serde_json::json!({"a": 1, "b": {"c": 2, "d": 3}, "e": [1]});
    let after = serde_json::json!({"a": 1, "b": {"c": 5}, "e": [1, 2], "f": "x"});
    assert_eq!(
        merge_diff(&before, &after),
        Some(serde_json::json!({"b": {"c": 5, "d": null}, "e": [1, 2], "f": "x"}))
    );
    assert_eq!(merge_diff(&after, &after), None);
}

#[tokio::test]
async fn full_node_init_plan_runs_to_running_with_one_patch_per_step() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    let (report, lines) = persist_and_drive(&h, &clock, "a").await;
    assert_eq!(report.plan_phase, PlanPhase::Complete);
    assert_eq!(report.node_phase, Some(Phase::Running));
    let plan = stored_plan(&h, "a");
    assert!(plan.tasks.iter().all(|t| t.status == TaskStatus::Complete));
    assert_eq!(report.patches, report.steps, "one status patch per step");
    let transitions = lines
        .iter()
        .filter(|l| matches!(l, Progress::TaskTransition { .. }))
        .count();
    assert_eq!(
        transitions,
        plan.tasks.len(),
        "one line per task transition"
    );
    assert!(
        matches!(lines.last(), Some(Progress::PlanFinished { phase, .. }) if *phase == crate::api::PlanPhase::Complete)
    );
    // Controller loop bookkeeping: the tracked StatefulSet and the created workload.
    let node = h.cluster.node("ns", "a").expect("node");
    assert!(
        node.status
            .as_ref()
            .and_then(|s| s.stateful_set.as_ref())
            .is_some()
    );
    assert!(
        h.cluster
            .object(ObjectKind::PersistentVolumeClaim, "ns", "data-a")
            .is_some()
    );
    assert!(h.cluster.object(ObjectKind::Service, "ns", "a").is_some());
    // The node Lease was released.
    let lease = h
        .cluster
        .state
        .lock()
        .expect("lock")
        .leases
        .values()
        .next()
        .cloned()
        .expect("lease");
    assert_eq!(lease.spec.and_then(|s| s.holder_identity), None);
}

#[tokio::test]
async fn seed_init_plan_validates_the_node_key_and_reaches_running() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(seed_node("ns", "s"));
    h.cluster.put_secret(
        "ns",
        "s-node-key",
        &[(
            "node_key.json",
            r#"{"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"AAAA"}}"#,
        )],
    );
    let (report, _) = persist_and_drive(&h, &clock, "s").await;
    assert_eq!(report.node_phase, Some(Phase::Running));
    let plan = stored_plan(&h, "s");
    assert_eq!(plan.tasks[1].kind, TaskKind::ValidateNodeKey);
    let node = h.cluster.node("ns", "s").expect("node");
    assert_condition(
        &node,
        ConditionType::NodeKeyReady,
        "True",
        "NodeKeyValidated",
    );
}

#[tokio::test]
async fn image_change_on_running_node_completes_update_plan_and_stamps_current_image() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    persist_and_drive(&h, &clock, "a").await;
    // First Running reconcile backfills currentImage (the init plan has no observe-image).
    persist_and_drive(&h, &clock, "a").await;
    h.cluster.mutate_node("ns", "a", |n| {
        n.spec.image = "ghcr.io/sei-protocol/seid:v2".into()
    });
    let (report, _) = persist_and_drive(&h, &clock, "a").await;
    assert_eq!(report.plan_phase, PlanPhase::Complete);
    let status = h
        .cluster
        .node("ns", "a")
        .and_then(|n| n.status)
        .expect("status");
    assert_eq!(status.current_image(), "ghcr.io/sei-protocol/seid:v2");
    assert_eq!(status.phase, Some(Phase::Running));
    let kinds: Vec<_> = status
        .plan
        .expect("plan")
        .tasks
        .iter()
        .map(|t| t.kind.clone())
        .collect();
    assert!(kinds.contains(&TaskKind::ReplacePod) && kinds.contains(&TaskKind::ObserveImage));
}

#[tokio::test]
async fn a_completed_plan_is_followed_by_the_next_reconciles_sidecar_probe() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    persist_and_drive(&h, &clock, "a").await;
    // First Running reconcile backfills currentImage (the init plan has no observe-image).
    persist_and_drive(&h, &clock, "a").await;
    // The sidecar restarted: 503 until mark-ready. The probe before resolving records it and
    // builds the single-task mark-ready plan (R6).
    *h.sidecar.ready.lock().expect("lock") = false;
    let (report, _) = persist_and_drive(&h, &clock, "a").await;
    assert_eq!(report.plan_phase, PlanPhase::Complete);
    let plan = stored_plan(&h, "a");
    assert_eq!(
        plan.tasks
            .iter()
            .map(|t| t.kind.clone())
            .collect::<Vec<_>>(),
        [TaskKind::MarkReady]
    );
    // The plan's mark-ready made the sidecar ready; the probe after the plan shows it, as the
    // controller's next reconcile would.
    let node = h.cluster.node("ns", "a").expect("node");
    assert_condition(&node, ConditionType::SidecarReady, "True", "Ready");
}

#[tokio::test]
async fn persist_never_replaces_an_active_plan() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    let d = driver(&h, &clock);
    let Persisted::Built(first) = d.persist("ns", "a", SIDECAR_IMAGE).await.expect("persist")
    else {
        panic!("expected a built plan");
    };
    let Persisted::Resumed(again) = d.persist("ns", "a", SIDECAR_IMAGE).await.expect("persist")
    else {
        panic!("expected the active plan");
    };
    assert_eq!(first.id, again.id);
    assert_eq!(h.cluster.count_calls("patch seinodes/status"), 1);
}

#[tokio::test]
async fn persist_retries_on_conflict_from_a_fresh_read() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    h.cluster.interfere_with_next_patches(2);
    let d = driver(&h, &clock);
    assert!(matches!(
        d.persist("ns", "a", SIDECAR_IMAGE).await,
        Ok(Persisted::Built(_))
    ));
    let status = h
        .cluster
        .node("ns", "a")
        .and_then(|n| n.status)
        .expect("status");
    assert_eq!(status.resolved_peers(), ["writer-0", "writer-1"]);
    assert!(status.plan.is_some());
}

#[tokio::test]
async fn concurrent_status_writer_conflicts_are_retried_and_neither_write_is_lost() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    let d = driver(&h, &clock);
    d.persist("ns", "a", SIDECAR_IMAGE).await.expect("persist");
    h.cluster.interfere_with_next_patches(5);
    let report = d
        .drive("ns", "a", &mut |_: &Progress| {})
        .await
        .expect("drive");
    assert_eq!(report.conflicts, 5);
    assert_eq!(report.plan_phase, PlanPhase::Complete);
    let status = h
        .cluster
        .node("ns", "a")
        .and_then(|n| n.status)
        .expect("status");
    assert_eq!(
        status.resolved_peers().len(),
        5,
        "the other writer's changes survive"
    );
    assert_eq!(status.phase, Some(Phase::Running), "and so do ours");
}

#[tokio::test]
async fn killed_between_steps_resumes_without_rerunning_complete_tasks() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    *h.sidecar.behaviour.lock().expect("lock") = SidecarBehaviour::StayRunning;
    h.cluster.put_node(full_node("ns", "a"));
    let d = driver(&h, &clock);
    d.persist("ns", "a", SIDECAR_IMAGE).await.expect("persist");
    // The first sidecar task never finishes: kill the driver while it polls.
    let killed = tokio::time::timeout(
        Duration::from_millis(100),
        d.drive("ns", "a", &mut |_: &Progress| {}),
    )
    .await;
    assert!(killed.is_err(), "driver was still running");
    let half_done = stored_plan(&h, "a");
    let complete: Vec<_> = half_done
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Complete)
        .map(|t| t.id.clone())
        .collect();
    assert!(!complete.is_empty() && complete.len() < half_done.tasks.len());
    let services_applied = h.cluster.count_calls("apply services");
    let pvcs_created = h.cluster.count_calls("create persistentvolumeclaims");
    *h.sidecar.behaviour.lock().expect("lock") = SidecarBehaviour::CompleteAtOnce;
    for task in h.sidecar.tasks.lock().expect("lock").values_mut() {
        task.status = crate::api::sidecar::TaskStatus::Completed;
    }
    // A new executor (same identity, its Lease never released) picks up from status.
    let report = d
        .drive("ns", "a", &mut |_: &Progress| {})
        .await
        .expect("resume");
    assert_eq!(report.plan_phase, PlanPhase::Complete);
    assert_eq!(
        h.cluster.count_calls("apply services"),
        services_applied,
        "apply-service not re-run"
    );
    assert_eq!(
        h.cluster.count_calls("create persistentvolumeclaims"),
        pvcs_created
    );
    let submitted: Vec<String> = h
        .sidecar
        .submits()
        .iter()
        .filter_map(|r| r.id.map(|u| u.to_string()))
        .collect();
    assert!(
        complete.iter().all(|id| !submitted.contains(id)),
        "no Complete sidecar task resubmitted"
    );
}

#[tokio::test]
async fn another_live_executor_holds_the_node() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    let d = driver(&h, &clock);
    d.persist("ns", "a", SIDECAR_IMAGE).await.expect("persist");
    super::super::lease::NodeLease::acquire(&h.cluster, "ns", "a", "someone-else", h.now)
        .await
        .expect("other holds");
    let err = d
        .drive("ns", "a", &mut |_: &Progress| {})
        .await
        .expect_err("held");
    assert!(
        err.to_string()
            .contains("is being executed by someone-else"),
        "{err}"
    );
}

#[tokio::test]
async fn render_failure_emits_statefulset_render_failed_while_the_plan_keeps_retrying() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(seed_node("ns", "s"));
    *h.renderer.statefulset_error.lock().expect("lock") = Some(RenderError::SeedNodepoolMissing);
    let d = driver(&h, &clock);
    d.persist("ns", "s", SIDECAR_IMAGE).await.expect("persist");
    let mut lines = Vec::new();
    let run = tokio::time::timeout(
        Duration::from_millis(50),
        d.drive("ns", "s", &mut |p: &Progress| lines.push(p.clone())),
    )
    .await;
    assert!(run.is_err(), "still retrying");
    let events = h.cluster.events();
    assert!(events.len() >= 2, "emitted on every failing attempt");
    assert!(events.iter().all(|e| e.reason == "StatefulSetRenderFailed"
        && e.event_type == crate::ports::EventType::Warning
        && e.message == "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file"));
    assert_eq!(
        lines
            .iter()
            .filter(|l| matches!(l, Progress::RenderFailed { .. }))
            .count(),
        1
    );
    assert!(stored_plan(&h, "s").is_active());
    assert!(
        h.cluster
            .object(ObjectKind::StatefulSet, "ns", "s")
            .is_none()
    );
}

#[tokio::test]
async fn render_failure_halts_the_drive_when_asked_and_still_records_the_event() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(seed_node("ns", "s"));
    *h.renderer.statefulset_error.lock().expect("lock") = Some(RenderError::SeedNodepoolMissing);
    let mut d = driver(&h, &clock);
    d.config.halt_on_render_failure = true;
    d.persist("ns", "s", SIDECAR_IMAGE).await.expect("persist");
    let mut lines = Vec::new();
    let err = d
        .drive("ns", "s", &mut |p: &Progress| lines.push(p.clone()))
        .await
        .expect_err("halts");
    let DriverError::RenderFailed(failure) = &err else {
        panic!("render failure expected: {err}");
    };
    assert_eq!(
        failure.render_error(),
        Some(&RenderError::SeedNodepoolMissing)
    );
    let message = "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file";
    assert_eq!(
        err.to_string(),
        format!("StatefulSetRenderFailed: {message}")
    );
    assert_eq!(h.cluster.events().len(), 1);
    assert!(matches!(lines.as_slice(), [Progress::RenderFailed { .. }]));
    assert_eq!(
        serde_json::to_value(&lines[0]).expect("progress line"),
        serde_json::json!({"event": "render-failed", "message": message})
    );
    assert!(
        stored_plan(&h, "s").is_active(),
        "the plan stays for a later run"
    );
}

#[tokio::test]
async fn follow_reports_the_transitions_another_executor_makes() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    let d = driver(&h, &clock);
    d.persist("ns", "a", SIDECAR_IMAGE).await.expect("persist");
    let before = stored_plan(&h, "a");
    d.drive("ns", "a", &mut |_: &Progress| {})
        .await
        .expect("drive");
    let after = stored_plan(&h, "a");
    let lines = plan_transitions(&before, &after);
    let completes = lines
        .iter()
        .filter(|l| matches!(l, Progress::TaskTransition { to, .. } if *to == crate::api::TaskStatus::Complete))
        .count();
    assert_eq!(completes, after.tasks.len());
    let mut seen = Vec::new();
    let followed = d
        .follow(
            "ns",
            "a",
            &after.id,
            Duration::from_millis(1),
            &mut |p: &Progress| seen.push(p.clone()),
        )
        .await
        .expect("follow");
    let FollowOutcome::Finished(report) = followed else {
        panic!("finished expected: {followed:?}");
    };
    assert_eq!(report.plan_phase, PlanPhase::Complete);
    assert!(matches!(seen.last(), Some(Progress::PlanFinished { .. })));
}

/// A submission the controller retries (here a 401 from kube-rbac-proxy) is said at once, with
/// its error, instead of the task sitting Pending with nothing in `status.plan` to say why.
#[tokio::test]
async fn a_retried_sidecar_submission_is_reported_with_its_error_at_the_first_failure() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    *h.sidecar.submit_failure.lock().expect("lock") =
        Some(crate::ports::SidecarError::Unauthorized {
            target: crate::ports::SidecarTarget::new("ns", "a"),
            status: 401,
            body: "Unauthorized".into(),
        });
    let (report, lines) = persist_and_drive(&h, &clock, "a").await;
    assert_eq!(report.plan_phase, PlanPhase::Complete);
    let retries: Vec<&Progress> = lines
        .iter()
        .filter(|l| matches!(l, Progress::TaskRetrying { .. }))
        .collect();
    let [Progress::TaskRetrying { error, .. }] = retries.as_slice() else {
        panic!("one retry line expected: {lines:?}");
    };
    assert!(error.contains("HTTP 401"), "{error}");
    assert!(
        stored_plan(&h, "a")
            .tasks
            .iter()
            .all(|t| t.error.is_empty())
    );
}

/// Quirk pinned: the console's own executor once stepped the tasks of a paused node's Active
/// plan. Upstream's reconcile syncs the StatefulSet (to zero replicas) and returns while
/// `spec.paused` is true, so the plan stays Active and nothing advances.
#[tokio::test]
async fn a_paused_nodes_active_plan_is_frozen_not_advanced_by_the_console_executor() {
    let h = Harness::new();
    let clock = FixedClock(h.now);
    h.cluster.put_node(full_node("ns", "a"));
    let d = driver(&h, &clock);
    d.persist("ns", "a", SIDECAR_IMAGE).await.expect("persist");
    h.cluster
        .mutate_node("ns", "a", |node| node.spec.paused = Some(true));
    let frozen = d.drive("ns", "a", &mut |_: &Progress| {}).await;
    assert!(matches!(frozen, Err(DriverError::Paused)), "{frozen:?}");
    let plan = stored_plan(&h, "a");
    assert!(plan.is_active());
    assert!(
        plan.tasks.iter().all(|t| t.status == TaskStatus::Pending),
        "no task advanced: {:?}",
        plan.tasks
    );
    assert!(
        h.sidecar.submits().is_empty(),
        "nothing sent to the sidecar"
    );
    let replicas = match h.cluster.object(ObjectKind::StatefulSet, "ns", "a") {
        Some(crate::ports::ClusterObject::StatefulSet(sts)) => sts.spec.replicas,
        other => panic!("no StatefulSet: {other:?}"),
    };
    assert_eq!(replicas, Some(0), "scaled to zero");
}
