//! An identity whose sidecar calls cannot be authenticated (a client certificate behind
//! kube-rbac-proxy's bearer-token-only port-forward) is refused before any change when the
//! action needs the sidecar's task API, and left alone when it does not (issue 28).
use super::*;
use crate::ports::SidecarCredential;

fn certificate_only(mut world: World) -> World {
    world.settings.sidecar_credential = SidecarCredential::NoBearerToken;
    world
}

/// Only reads (and the preview's server-side dry run) reached the cluster and nothing more
/// reached the sidecar than the `submitted` tasks of the fleet's setup.
fn nothing_changed(world: &World, submitted: usize) {
    let calls = world.h.cluster.calls();
    assert!(
        calls.iter().all(|c| ["get ", "list ", "dry-run "]
            .iter()
            .any(|p| c.starts_with(p))),
        "only reads: {calls:?}"
    );
    assert_eq!(world.h.sidecar.submits().len(), submitted);
}

#[tokio::test]
async fn an_embedded_rollout_without_a_bearer_token_is_refused_before_any_change() {
    let world = certificate_only(World::new());
    world.running_fleet(&["a"]).await;
    let submitted = world.h.sidecar.submits().len();
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let refusal = prepared.refusal().expect("refused").to_string();
    assert!(refusal.contains("bearer token"), "{refusal}");
    assert!(refusal.contains("kubectl create token"), "{refusal}");
    assert!(refusal.contains("nothing was changed"), "{refusal}");
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(
        matches!(refused, Err(OpsError::NoSidecarCredential(_))),
        "{refused:?}"
    );
    nothing_changed(&world, submitted);
    assert_eq!(world.image_of("a").0, V1);
    assert_eq!(world.log.lines(), ["ns/a refused"]);
}

#[tokio::test]
async fn a_no_wait_rollout_makes_no_sidecar_call_and_is_not_refused() {
    let world = certificate_only(World::new());
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let mut input = rollout_input(&["a"], 1, 3);
    input.wait = false;
    let prepared = rollout::prepare(&ops, input).await.expect("prepare");
    assert_eq!(prepared.refusal(), None);
}

#[tokio::test]
async fn a_rollout_a_controller_executes_is_not_refused() {
    let mut world = certificate_only(World::new());
    world.settings.executor = ExecutorMode::Controller;
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    assert_eq!(prepared.refusal(), None);
}

#[tokio::test]
async fn a_seed_bring_up_without_a_bearer_token_creates_nothing() {
    let mut world = certificate_only(World::new());
    // Even with a controller executing, the bring-up reads the NodeID from the sidecar.
    world.settings.executor = ExecutorMode::Controller;
    let ops = world.ops();
    let prepared = seed::prepare(&ops, seed_input("seed-0", None))
        .await
        .expect("prepare");
    let refusal = prepared.refusal().expect("refused").to_string();
    assert!(refusal.contains("/v0/node-id"), "{refusal}");
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(
        matches!(refused, Err(OpsError::NoSidecarCredential(_))),
        "{refused:?}"
    );
    nothing_changed(&world, 0);
    assert!(world.h.cluster.node("ns", "seed-0").is_none());
}

#[tokio::test]
async fn an_address_change_without_a_bearer_token_is_refused_before_any_change() {
    let world = certificate_only(World::new());
    world.running_fleet(&["a"]).await;
    let submitted = world.h.sidecar.submits().len();
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
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(
        matches!(refused, Err(OpsError::NoSidecarCredential(_))),
        "{refused:?}"
    );
    nothing_changed(&world, submitted);
}
