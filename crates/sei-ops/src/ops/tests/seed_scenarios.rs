//! Seed bring-up scenarios against the fakes: a taken name refused before any change, a pod
//! that never comes, the NodeID checked against the sidecar, the outside probe.
use super::*;

#[tokio::test]
async fn a_seed_whose_name_is_taken_is_refused_before_any_change() {
    let world = World::new();
    world.h.cluster.put_node(full_node("ns", "seed-0"));
    world.h.cluster.state.lock().expect("lock").calls.clear();
    let ops = world.ops();
    let prepared = seed::prepare(&ops, seed_input("seed-0", None))
        .await
        .expect("prepare");
    assert_eq!(
        prepared.blocked.as_deref(),
        Some("SeiNode ns/seed-0 already exists")
    );
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(matches!(refused, Err(OpsError::Step(_))), "{refused:?}");
    let calls = world.h.cluster.calls();
    assert!(
        calls.iter().all(|c| c.starts_with("get ")),
        "only reads: {calls:?}"
    );
}

#[tokio::test]
async fn a_seed_whose_pod_never_comes_is_not_reported_running_and_says_why() {
    let mut world = World::new();
    // The pod wait is bounded by the run's deadline.
    world.settings.driver.deadline = Duration::from_millis(600);
    let key = world.put_seed_key("seed-key");
    *world.h.sidecar.node_id.lock().expect("lock") = key.node_id();
    let ops = world.ops();
    let prepared = seed::prepare(&ops, seed_input("seed-0", Some("seed-key")))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(!end.ok && !verified(&end), "{end:?}");
    assert!(
        end.message.contains("pod ns/seed-0-0 not Ready") && end.message.contains("ServiceAccount"),
        "{}",
        end.message
    );
}

#[tokio::test]
async fn a_seed_comes_up_and_its_node_id_is_checked_against_the_sidecar() {
    let world = World::new();
    let key = world.put_seed_key("seed-key");
    *world.h.sidecar.node_id.lock().expect("lock") = key.node_id();
    for name in ["seed-0", "seed-1"] {
        world
            .h
            .cluster
            .put(crate::ports::ClusterObject::Pod(ready_pod(name)));
    }
    let ops = world.ops();
    let prepared = seed::prepare(&ops, seed_input("seed-0", Some("seed-key")))
        .await
        .expect("prepare");
    assert!(!prepared.generated);
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(verified(&end) && end.ok, "{end:?}");
    assert_eq!(
        end.message,
        format!(
            "seed running; peer {}@seed-0.example.net:26656; reachable from outside (dialled \
             seed-0.example.net:26656 from 127.0.0.1:50000)",
            key.node_id()
        )
    );
    // The probe checks the seed against the key's NodeID, the one the sidecar reported.
    let probed = world.prober.targets.lock().expect("lock").clone();
    assert_eq!(probed.len(), 1);
    assert_eq!(probed[0].node_id.as_deref(), Some(key.node_id().as_str()));
    assert_eq!(probed[0].address, "seed-0.example.net:26656");
    assert_eq!(probed[0].chain_id, "pacific-1");
    assert_eq!(
        probed[0].node_id_source,
        "node-key Secret seed-key, = sidecar /v0/node-id"
    );

    // A sidecar reporting another NodeID fails the bring-up, naming both.
    *world.h.sidecar.node_id.lock().expect("lock") = "f".repeat(40);
    let other = seed::prepare(&ops, seed_input("seed-1", Some("seed-key")))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &other, &Recording::default())
        .await
        .expect("run");
    assert!(!verified(&end) && !end.ok);
    assert!(end.message.contains(&key.node_id()), "{}", end.message);
}

#[tokio::test]
async fn a_running_seed_that_fails_the_outside_probe_ends_unreachable() {
    use crate::ports::probe::CheckName;
    let mut world = World::new();
    world.prober = crate::ports::probe::fake::FakeProber::failing(
        CheckName::NodeId,
        "authenticates as ffff, published 7777",
    );
    let key = world.put_seed_key("seed-key");
    *world.h.sidecar.node_id.lock().expect("lock") = key.node_id();
    world
        .h
        .cluster
        .put(crate::ports::ClusterObject::Pod(ready_pod("seed-0")));
    let ops = world.ops();
    let prepared = seed::prepare(&ops, seed_input("seed-0", Some("seed-key")))
        .await
        .expect("prepare");
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(unreachable(&end), "{end:?}");
    assert!(
        end.message.starts_with(
            "seed running, but the outside probe failed: node ID: authenticates as ffff, \
             published 7777; dialled seed-0.example.net:26656 from 127.0.0.1:50000"
        ),
        "{}",
        end.message
    );
    let lines = report.0.lock().expect("lock").clone();
    assert!(lines.iter().any(|l| l.contains("✗ node ID")), "{lines:?}");
    let journal = world.log.0.lock().expect("lock").clone();
    assert_eq!(journal.last().map(|e| e.outcome), Some(Outcome::Failed));

    // A PEX-only failure is normal for a seed just brought up: not a failed bring-up.
    world.prober = crate::ports::probe::fake::FakeProber::failing(
        CheckName::PexAddresses,
        "hands out no peer besides itself",
    );
    let ops = world.ops();
    world
        .h
        .cluster
        .put(crate::ports::ClusterObject::Pod(ready_pod("seed-1")));
    let prepared = seed::prepare(&ops, seed_input("seed-1", Some("seed-key")))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok && !unreachable(&end), "{end:?}");
}

#[tokio::test]
async fn a_seed_without_an_external_address_is_not_probed() {
    let world = World::new();
    let key = world.put_seed_key("seed-key");
    *world.h.sidecar.node_id.lock().expect("lock") = key.node_id();
    world
        .h
        .cluster
        .put(crate::ports::ClusterObject::Pod(ready_pod("seed-0")));
    let ops = world.ops();
    let mut input = seed_input("seed-0", Some("seed-key"));
    input.external_address = None;
    let prepared = seed::prepare(&ops, input).await.expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok && end.result["probe"].is_null(), "{end:?}");
    assert!(world.prober.targets.lock().expect("lock").is_empty());
}

/// The sidecar reported the key's NodeID (the result line's `verified`).
fn verified(end: &RunEnd) -> bool {
    end.result.get("verified") == Some(&serde_json::Value::Bool(true))
}

/// The seed runs with the key's NodeID but the outside probe failed (exit code 3).
fn unreachable(end: &RunEnd) -> bool {
    end.exit_code == Some(seed::EXIT_UNREACHABLE)
}
