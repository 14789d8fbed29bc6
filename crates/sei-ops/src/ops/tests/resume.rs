//! Run again after a crash, an action finishes what the stopped console started, whatever the
//! node's images say (issue 39): an Active plan killed after `observe-image` (the images
//! already match) runs to its end, and a node left on the image with its Lease never released
//! gets its gate again; the Lease is free at the end.
use super::*;

/// Rolls `a` to V2, then stores it as a console killed after `observe-image` left it: the
/// update plan Active with only `mark-ready` still Pending, `currentImage` already V2.
async fn killed_before_mark_ready(world: &World) -> String {
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    let mut node = world.h.cluster.node("ns", "a").expect("node");
    let status = node.status.as_mut().expect("status");
    let mut plan = prepared.nodes[0]
        .preview
        .plan
        .plan
        .clone()
        .expect("update plan");
    for task in &mut plan.tasks {
        task.status = if task.kind == crate::api::TaskKind::MarkReady {
            crate::api::TaskStatus::Pending
        } else {
            crate::api::TaskStatus::Complete
        };
    }
    plan.phase = crate::api::PlanPhase::Active;
    let id = plan.id.clone();
    status.plan = Some(plan);
    world.h.cluster.put_node(node);
    world.h.cluster.state.lock().expect("lock").calls.clear();
    id
}

/// The node's Lease as a console of this machine that is gone left it.
fn lease_of_a_gone_console(world: &World, node: &str) {
    use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
    let now = world.clock.now();
    let lease = Lease {
        metadata: ObjectMeta {
            name: Some(crate::executor::lease::node_lease_name(node)),
            namespace: Some("ns".into()),
            resource_version: Some("1".into()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some("sei-console-here-4242".into()),
            lease_duration_seconds: Some(30),
            acquire_time: Some(MicroTime(now)),
            renew_time: Some(MicroTime(now)),
            ..LeaseSpec::default()
        }),
    };
    world.h.cluster.state.lock().expect("lock").leases.insert(
        ("ns".into(), crate::executor::lease::node_lease_name(node)),
        lease,
    );
    world
        .holders
        .0
        .lock()
        .expect("lock")
        .push("sei-console-here-4242".into());
}

fn lease_holder(world: &World, node: &str) -> Option<String> {
    world
        .h
        .cluster
        .state
        .lock()
        .expect("lock")
        .leases
        .get(&("ns".into(), crate::executor::lease::node_lease_name(node)))
        .and_then(|l| l.spec.clone())
        .and_then(|s| s.holder_identity)
}

#[tokio::test]
async fn an_active_plan_killed_after_observe_image_is_finished_by_the_rerun() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let plan = killed_before_mark_ready(&world).await;
    lease_of_a_gone_console(&world, "a");
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    assert!(prepared.blocked.is_empty(), "{:?}", prepared.blocked);
    assert!(prepared.refusal().is_none(), "{:?}", prepared.refusal());
    assert_eq!(prepared.names(), ["a"]);
    assert!(
        prepared.resumed.iter().any(|n| n.contains(&format!(
            "a: sei-console-here-4242 stopped before the end of plan {plan} (6 of 7 tasks done"
        ))),
        "{:?}",
        prepared.resumed
    );
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    let node = world.h.cluster.node("ns", "a").expect("node");
    let left = node.status.as_ref().and_then(|s| s.plan.as_ref());
    assert!(left.is_none_or(|p| !p.is_active()), "{left:?}");
    // Only mark-ready ran: no other task was submitted again, no second plan persisted.
    let lines = report.0.lock().expect("lock").clone();
    assert!(
        !lines.iter().any(|l| l.contains("persisted")),
        "no new plan: {lines:?}"
    );
    assert_eq!(world.image_of("a"), (V2.into(), V2.into()));
    assert_eq!(lease_holder(&world, "a"), None, "the Lease is released");
}

#[tokio::test]
async fn a_node_on_the_image_whose_lease_a_stopped_console_left_is_gated_again() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    // Not interrupted: nothing to do.
    let again = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    assert!(again.nodes.is_empty() && again.already_rolled.len() == 1);
    // Killed in its gate: the Lease was never released.
    lease_of_a_gone_console(&world, "a");
    let resumed = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    assert_eq!(resumed.names(), ["a"], "{:?}", resumed.already_rolled);
    assert!(resumed.refusal().is_none(), "{:?}", resumed.refusal());
    let end = crate::ops::action::execute(&ops, &resumed, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    assert_eq!(
        world.log.lines().last().map(String::as_str),
        Some("ns/a succeeded")
    );
    assert_eq!(lease_holder(&world, "a"), None, "the Lease is released");
}
