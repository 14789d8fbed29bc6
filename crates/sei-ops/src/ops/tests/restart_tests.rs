//! The restart action against the fakes: the preview shows the pod and asks every call, a node
//! without a pod is refused with nothing deleted, read-only refuses before any call, and the run
//! deletes the pod under the node's Lease and waits for a new one (another UID) to be Ready.
use super::*;
use crate::ops::action::{Previewed, execute, prepare};
use crate::ops::actions::restart::RestartInput;
use crate::ports::ObjectKind;

fn restart(node: &str, wait: bool) -> RestartInput {
    RestartInput {
        node: node.to_owned(),
        wait,
        dry_run: false,
    }
}

#[tokio::test]
async fn the_preview_shows_the_pod_and_a_validator_has_its_name_typed() {
    let world = World::new();
    world.h.cluster.put_node(validator_node("ns", "val-0"));
    world.h.cluster.put(ClusterObject::Pod(ready_pod("val-0")));
    let ops = world.ops();
    let prepared = prepare(&ops, &restart("val-0", true))
        .await
        .expect("prepare");
    let text = Previewed::text(&prepared);
    assert!(
        text.starts_with(
            "restart ns/val-0: delete pod val-0-0; StatefulSet val-0 creates it again"
        ),
        "{text}"
    );
    assert!(
        text.contains("pod now: Running, Ready, 0 restarts"),
        "{text}"
    );
    assert_eq!(prepared.confirm_names, ["val-0"]);
    assert!(prepared.permissions.allowed());
    assert!(
        prepared
            .permissions
            .checks
            .iter()
            .any(|c| c.verb == "delete" && c.resource == "pods" && c.name == "val-0-0"),
        "{:?}",
        prepared.permissions.checks
    );
    assert_eq!(Previewed::refusal(&prepared), None);
}

#[tokio::test]
async fn a_node_without_a_pod_is_refused_and_nothing_is_deleted() {
    let world = World::new();
    world.h.cluster.put_node(full_node("ns", "a"));
    let ops = world.ops();
    let prepared = prepare(&ops, &restart("a", true)).await.expect("prepare");
    assert!(Previewed::text(&prepared).contains("✗ cannot run: pod ns/a-0 does not exist"));
    let refused = execute(&ops, &prepared, &Recording::default()).await;
    assert!(matches!(refused, Err(OpsError::Step(_))), "{refused:?}");
    assert_eq!(world.h.cluster.count_calls("delete"), 0);
    assert_eq!(world.log.lines(), ["ns/a refused"]);
}

#[tokio::test]
async fn read_only_refuses_the_restart_before_any_call() {
    let mut world = World::new();
    world.settings.read_only = Some("started with --read-only");
    world.h.cluster.put_node(full_node("ns", "a"));
    let ops = world.ops();
    let refused = prepare(&ops, &restart("a", true)).await;
    assert!(
        matches!(refused, Err(OpsError::ReadOnly { .. })),
        "{refused:?}"
    );
    assert!(
        world.h.cluster.calls().is_empty(),
        "{:?}",
        world.h.cluster.calls()
    );
    assert_eq!(world.log.lines(), ["ns/a refused"]);
}

#[tokio::test]
async fn the_restart_deletes_the_pod_and_waits_for_the_new_one() {
    let world = World::new();
    world.h.cluster.put_node(full_node("ns", "a"));
    world.h.cluster.put(ClusterObject::Pod(ready_pod("a")));
    let ops = world.ops();
    let prepared = prepare(&ops, &restart("a", true)).await.expect("prepare");
    let old = prepared.pod.clone().expect("pod").uid;
    let report = Recording::default();
    // The StatefulSet controller's part: a new pod once the old one is gone.
    let recreate = async {
        for _ in 0..200 {
            tokio::time::sleep(Duration::from_millis(10)).await;
            if world
                .h
                .cluster
                .object(ObjectKind::Pod, "ns", "a-0")
                .is_none()
            {
                world.h.cluster.put(ClusterObject::Pod(ready_pod("a")));
                return;
            }
        }
    };
    let (end, ()) = tokio::join!(execute(&ops, &prepared, &report), recreate);
    let end = end.expect("run");
    assert!(end.ok, "{end:?}");
    assert!(
        end.message
            .starts_with("pod ns/a-0 created again: Running and Ready"),
        "{end:?}"
    );
    let new = world
        .h
        .cluster
        .object(ObjectKind::Pod, "ns", "a-0")
        .and_then(|o| o.metadata().uid.clone())
        .expect("new pod");
    assert_ne!(new, old);
    assert_eq!(world.h.cluster.count_calls("delete pods a-0"), 1);
    assert_eq!(world.log.lines(), ["ns/a started", "ns/a succeeded"]);
    let recorded = world
        .h
        .cluster
        .state
        .lock()
        .expect("lock")
        .recorded_events
        .clone();
    assert!(
        recorded
            .iter()
            .any(|e| e.reason.as_deref() == Some("ConsolePodRestart")),
        "{recorded:?}"
    );
    assert!(
        world.h.cluster.calls().iter().any(|c| c.contains("leases")),
        "under the node's Lease: {:?}",
        world.h.cluster.calls()
    );
}
