//! Waits that say why (against the fakes): the Warning events of the node's StatefulSet and pod
//! in the seed's and the rollout's final message, and named while a plan does not progress.
use k8s_openapi::api::core::v1::Event;

use crate::ports::ObjectKind;

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

fn pod_json(json: serde_json::Value) -> Pod {
    serde_json::from_value(json).expect("pod")
}

fn event_json(json: serde_json::Value) -> Event {
    serde_json::from_value(json).expect("event")
}

/// The pod of issue 28: scheduled, Running, Ready since 12:00:30, created at 12:00:00.
fn running_pod() -> Pod {
    pod_json(serde_json::json!({
        "metadata": {"name": "hs2-0", "namespace": "ns", "uid": "pod-2",
                     "creationTimestamp": "2026-12-01T12:00:00Z",
                     "labels": {"sei.io/node": "hs2"}},
        "spec": {"nodeName": "kwok-node-0", "containers": []},
        "status": {"phase": "Running", "conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": "2026-12-01T12:00:20Z"},
            {"type": "Ready", "status": "True", "lastTransitionTime": "2026-12-01T12:00:30Z"}
        ]}
    }))
}

fn pod_warning(reason: &str, uid: Option<&str>, last: &str) -> Event {
    let mut involved = serde_json::json!({"kind": "Pod", "name": "hs2-0", "namespace": "ns"});
    if let Some(uid) = uid {
        involved["uid"] = uid.into();
    }
    event_json(serde_json::json!({
        "metadata": {"name": format!("hs2-0.{reason}"), "namespace": "ns"},
        "involvedObject": involved, "type": "Warning", "reason": reason,
        "message": "0/8 nodes are available: pod has unbound immediate PersistentVolumeClaims",
        "count": 2, "lastTimestamp": last,
    }))
}

#[test]
fn a_failed_scheduling_of_a_pod_scheduled_since_is_not_offered_as_the_reason() {
    let pod = running_pod();
    // Seen after the pod became Ready (a late event) and about this very pod: still stale,
    // because the scheduler has placed the pod.
    let event = pod_warning("FailedScheduling", Some("pod-2"), "2026-12-01T12:00:40Z");
    assert!(waiting::superseded(ObjectKind::Pod, &event, Some(&pod)));
    // A pod that is still unscheduled keeps it.
    let pending = pod_json(serde_json::json!({
        "metadata": {"name": "hs2-0", "uid": "pod-2"},
        "status": {"phase": "Pending", "conditions": [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}
    }));
    assert!(!waiting::superseded(
        ObjectKind::Pod,
        &event,
        Some(&pending)
    ));
    // No pod to compare with: nothing is judged stale.
    assert!(!waiting::superseded(ObjectKind::Pod, &event, None));
}

#[test]
fn a_pod_warning_from_before_the_pod_became_ready_is_not_offered_as_the_reason() {
    let pod = running_pod();
    let before = pod_warning("BackOff", None, "2026-12-01T12:00:25Z");
    let after = pod_warning("BackOff", None, "2026-12-01T12:00:45Z");
    assert!(waiting::superseded(ObjectKind::Pod, &before, Some(&pod)));
    assert!(!waiting::superseded(ObjectKind::Pod, &after, Some(&pod)));
}

#[test]
fn an_event_of_an_earlier_pod_of_the_same_name_is_not_offered_as_the_reason() {
    let pod = running_pod();
    let earlier = pod_warning("BackOff", Some("pod-1"), "2026-12-01T12:00:45Z");
    assert!(waiting::superseded(ObjectKind::Pod, &earlier, Some(&pod)));
}

#[test]
fn a_statefulset_failed_create_from_before_its_pod_was_created_is_not_offered_as_the_reason() {
    let pod = running_pod();
    let failed_create = |last: &str| {
        event_json(serde_json::json!({
            "metadata": {"name": "hs2.FailedCreate", "namespace": "ns"},
            "involvedObject": {"kind": "StatefulSet", "name": "hs2", "namespace": "ns"},
            "type": "Warning", "reason": "FailedCreate", "message": NO_SERVICE_ACCOUNT,
            "lastTimestamp": last,
        }))
    };
    let before = failed_create("2026-12-01T11:59:50Z");
    let after = failed_create("2026-12-01T12:00:05Z");
    assert!(waiting::superseded(
        ObjectKind::StatefulSet,
        &before,
        Some(&pod)
    ));
    assert!(!waiting::superseded(
        ObjectKind::StatefulSet,
        &after,
        Some(&pod)
    ));
}

#[tokio::test]
async fn a_wait_on_a_running_pod_names_no_stale_failed_scheduling() {
    let world = World::new();
    let mut pod = running_pod();
    pod.metadata.name = Some("n-0".into());
    pod.metadata.labels = Some([("sei.io/node".to_owned(), "n".to_owned())].into());
    world.h.cluster.put(ClusterObject::Pod(pod));
    warning(
        &world,
        "Pod",
        "n-0",
        "FailedScheduling",
        "0/8 nodes are available: pod has unbound immediate PersistentVolumeClaims",
        2,
    );
    let ops = world.ops();
    assert_eq!(
        waiting::warnings(&ops, "n", None).await,
        Vec::<String>::new(),
        "the pod is scheduled: the FailedScheduling is history"
    );
}
