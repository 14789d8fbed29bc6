//! Waits that say why (against the fakes): the Warning events of the node's StatefulSet and pod
//! in the seed's and the rollout's final message, and named while a plan does not progress.
use k8s_openapi::api::core::v1::Event;

use super::*;

const NO_SERVICE_ACCOUNT: &str = "create Pod seed-0-0 in StatefulSet seed-0 failed error: pods \
    \"seed-0-0\" is forbidden: error looking up service account ns/seid-node: serviceaccount \
    \"seid-node\" not found";

/// A Warning Event on `kind`/`name`, last seen `seconds` after the harness's clock.
fn warning(world: &World, kind: &str, name: &str, reason: &str, message: &str, seconds: i64) {
    let at = world.h.now + jiff::SignedDuration::from_secs(seconds);
    let event: Event = serde_json::from_value(serde_json::json!({
        "metadata": {"name": format!("{name}.{reason}.{seconds}"), "namespace": "ns"},
        "involvedObject": {"kind": kind, "name": name, "namespace": "ns"},
        "type": "Warning", "reason": reason, "message": message, "count": 4,
        "lastTimestamp": at.to_string(),
    }))
    .expect("event");
    world
        .h
        .cluster
        .state
        .lock()
        .expect("lock")
        .recorded_events
        .push(event);
}

#[tokio::test]
async fn a_seed_whose_statefulset_cannot_create_its_pod_names_the_failed_create() {
    let mut world = World::new();
    world.settings.driver.deadline = Duration::from_millis(600);
    world.put_seed_key("seed-key");
    warning(
        &world,
        "StatefulSet",
        "seed-0",
        "FailedCreate",
        NO_SERVICE_ACCOUNT,
        5,
    );
    // A Normal event and another object's Warning are not named.
    warning(
        &world,
        "StatefulSet",
        "other",
        "FailedCreate",
        "not this one",
        6,
    );
    let ops = world.ops();
    let prepared = seed::prepare(&ops, seed_input("seed-0", Some("seed-key")))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(!end.ok, "{end:?}");
    let message = &end.message;
    assert!(
        message.contains("Warning events: StatefulSet seed-0: FailedCreate ×4: create Pod")
            && message.contains("serviceaccount \"seid-node\" not found"),
        "{message}"
    );
    assert!(!message.contains("not this one"), "{message}");
}

#[tokio::test]
async fn a_rollout_whose_pod_is_not_scheduled_names_failed_scheduling_at_the_deadline() {
    let mut world = World::new();
    world.settings.driver.deadline = Duration::from_millis(400);
    world.running_fleet(&["a"]).await;
    // The pod the gate waits for is Pending, not scheduled.
    let pending: Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "a-0", "namespace": "ns", "labels": {"sei.io/node": "a"}},
        "status": {"phase": "Pending"}
    }))
    .expect("pod");
    world.h.cluster.put(ClusterObject::Pod(pending));
    warning(
        &world,
        "Pod",
        "a-0",
        "FailedScheduling",
        "0/4 nodes are available: 4 Insufficient memory.",
        3,
    );
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 1))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(!end.ok, "{end:?}");
    assert!(
        end.message
            .contains("Warning events: Pod a-0: FailedScheduling ×4: 0/4 nodes are available"),
        "{}",
        end.message
    );
}

#[tokio::test]
async fn a_wait_names_new_warning_events_while_it_waits_and_each_once() {
    let world = World::new();
    warning(&world, "StatefulSet", "n", "FailedCreate", "old news", -60);
    warning(
        &world,
        "Pod",
        "n-0",
        "BackOff",
        "Back-off restarting failed container seid",
        2,
    );
    let ops = world.ops();
    let report = Recording::default();
    waiting::naming_warnings(
        &ops,
        "n",
        Duration::from_millis(5),
        &report,
        Box::pin(tokio::time::sleep(Duration::from_millis(60))),
    )
    .await;
    let lines = report.0.lock().expect("lock").clone();
    assert_eq!(
        lines,
        [
            "warning: n: not progressing? Warning events: Pod n-0: BackOff ×4: Back-off restarting failed container seid"
        ],
        "only what happened since the wait started, once"
    );
}
