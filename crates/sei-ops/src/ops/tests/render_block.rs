//! A node whose StatefulSet cannot be rendered is blocked in the preview, with the fix, and the
//! run changes nothing: a seed is not created (no Secret, no SeiNode left at Active 0/9), a
//! rollout leaves the node's spec alone, an address change is refused.
use super::*;
use crate::render::RenderError;

fn failing_render(world: &World) {
    *world.h.renderer.statefulset_error.lock().expect("lock") =
        Some(RenderError::SeedNodepoolMissing);
}

const FIX: &str = "fix: set scheduling.nodepoolSeed in the platform config file platform.yaml";

fn mutations(world: &World) -> Vec<String> {
    world
        .h
        .cluster
        .calls()
        .into_iter()
        .filter(|c| !c.starts_with("get ") && !c.starts_with("list "))
        .collect()
}

#[tokio::test]
async fn a_seed_that_cannot_render_is_blocked_with_its_fix_and_nothing_is_created() {
    let world = World::new();
    failing_render(&world);
    let ops = world.ops();
    let prepared = seed::prepare(&ops, seed_input("seed-0", None))
        .await
        .expect("prepare");
    let reason = prepared.blocked.clone().expect("blocked");
    assert!(reason.contains("cannot be rendered"), "{reason}");
    assert!(reason.contains(FIX), "{reason}");
    assert!(
        prepared.text().contains("✗ cannot run: its StatefulSet"),
        "{}",
        prepared.text()
    );
    assert_eq!(prepared.json()["blocked"], serde_json::json!(reason));
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(matches!(refused, Err(OpsError::Step(_))), "{refused:?}");
    assert!(mutations(&world).is_empty(), "{:?}", mutations(&world));
}

#[tokio::test]
async fn a_rollout_node_that_cannot_render_is_skipped_and_its_spec_left_alone() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    failing_render(&world);
    world.h.cluster.state.lock().expect("lock").calls.clear();
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 1))
        .await
        .expect("prepare");
    assert!(prepared.names().is_empty());
    assert_eq!(prepared.blocked.len(), 1);
    assert!(
        prepared.blocked[0].reason.contains(FIX),
        "{:?}",
        prepared.blocked
    );
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(
        matches!(&refused, Err(OpsError::Step(m)) if m.contains("nothing was changed")),
        "{refused:?}"
    );
    assert!(mutations(&world).is_empty(), "{:?}", mutations(&world));
}

#[tokio::test]
async fn an_address_change_that_cannot_render_is_refused_before_any_change() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    failing_render(&world);
    world.h.cluster.state.lock().expect("lock").calls.clear();
    let ops = world.ops();
    let prepared = address::prepare(
        &ops,
        address::AddressInput {
            node: "a".into(),
            address: ExternalAddress::parse("203.0.113.7:26656").expect("address"),
            wait: true,
            dry_run: false,
            restart: false,
        },
    )
    .await
    .expect("prepare");
    assert!(prepared.blocked.as_deref().is_some_and(|r| r.contains(FIX)));
    assert!(
        prepared.text().contains("✗ cannot run:"),
        "{}",
        prepared.text()
    );
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(refused.is_err(), "{refused:?}");
    assert!(mutations(&world).is_empty(), "{:?}", mutations(&world));
}
