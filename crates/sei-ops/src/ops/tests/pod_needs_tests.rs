//! Previews that flag a ServiceAccount the rendered pod needs and the namespace lacks: the
//! action is blocked with the fix and changes nothing.
use super::*;

fn without_service_account(world: &World) {
    *world.h.renderer.service_account.lock().expect("lock") = Some("seid-node".into());
    world
        .h
        .cluster
        .state
        .lock()
        .expect("lock")
        .missing_service_accounts
        .push(("ns".into(), "seid-node".into()));
}

const FIX: &str = "fix: kubectl -n ns create serviceaccount seid-node";

#[tokio::test]
async fn a_seed_whose_pod_service_account_is_missing_is_refused_before_any_change() {
    let world = World::new();
    without_service_account(&world);
    world.put_seed_key("seed-key");
    let ops = world.ops();
    let prepared = seed::prepare(&ops, seed_input("seed-0", Some("seed-key")))
        .await
        .expect("prepare");
    let blocked = prepared.blocked.clone().expect("blocked");
    assert!(
        blocked.starts_with("ServiceAccount seid-node does not exist in namespace ns")
            && blocked.ends_with(FIX),
        "{blocked}"
    );
    world.h.cluster.state.lock().expect("lock").calls.clear();
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(matches!(refused, Err(OpsError::Step(_))), "{refused:?}");
    let calls = world.h.cluster.calls();
    assert!(
        calls.iter().all(|c| c.starts_with("get ")),
        "only reads: {calls:?}"
    );
    assert!(world.h.cluster.node("ns", "seed-0").is_none());
}

#[tokio::test]
async fn a_rollout_whose_pod_service_account_is_missing_is_refused_and_patches_nothing() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    without_service_account(&world);
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 1))
        .await
        .expect("prepare");
    assert!(prepared.nodes.is_empty());
    let reason = &prepared.blocked.first().expect("blocked").reason;
    assert!(reason.ends_with(FIX), "{reason}");
    assert!(prepared.text().contains(FIX), "{}", prepared.text());
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(world.patches_of("a"), 0);
    assert_eq!(world.image_of("a").0, V1);
}

#[tokio::test]
async fn a_present_service_account_blocks_nothing() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    *world.h.renderer.service_account.lock().expect("lock") = Some("seid-node".into());
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 1))
        .await
        .expect("prepare");
    assert!(prepared.blocked.is_empty(), "{:?}", prepared.blocked);
    assert!(
        world
            .h
            .cluster
            .calls()
            .iter()
            .any(|c| c == "get serviceaccounts seid-node")
    );
}
