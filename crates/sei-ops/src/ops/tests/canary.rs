//! The canary chosen by name (the console's canary field): it goes alone first, whatever the
//! operator's order; one already on the image makes no wave; one that cannot be planned refuses
//! the rollout before any change.
use super::*;

fn with_canaries(names: &[&str], canaries: &[&str], batch: u32) -> rollout::RolloutInput {
    rollout::RolloutInput {
        canary_nodes: canaries.iter().map(|n| (*n).to_owned()).collect(),
        ..rollout_input(names, 1, batch)
    }
}

#[tokio::test]
async fn the_chosen_canary_goes_alone_first_and_the_rest_keep_their_order() {
    let world = World::new();
    let names = ["a", "b", "c", "d"];
    world.running_fleet(&names).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, with_canaries(&names, &["c"], 2))
        .await
        .expect("prepare");
    assert_eq!(prepared.waves, [vec!["c"], vec!["a", "b"], vec!["d"]]);
    assert!(
        prepared
            .head_text()
            .contains("  1. canary c\n  2. batch  a, b\n"),
        "{}",
        prepared.head_text()
    );
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    assert_eq!(
        report.waves(),
        ["wave 1 of 3: c", "wave 2 of 3: a, b", "wave 3 of 3: d"]
    );
}

#[tokio::test]
async fn a_canary_already_on_the_image_makes_no_wave_and_no_other_node_takes_its_place() {
    let world = World::new();
    let names = ["a", "b", "c"];
    world.running_fleet(&names).await;
    world.h.cluster.mutate_node("ns", "a", |n| {
        n.spec.image = V2.into();
        if let Some(status) = n.status.as_mut() {
            status.current_image = Some(V2.into());
        }
    });
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, with_canaries(&names, &["a"], 3))
        .await
        .expect("prepare");
    assert_eq!(prepared.waves, [vec!["b", "c"]]);
    assert_eq!(prepared.sizes.canary, 0);
    let head = prepared.head_text();
    assert!(head.contains("Waves (no canary, batch 3"), "{head}");
    assert!(head.contains("a: already on"), "{head}");
    assert!(
        head.contains("(chosen as canary: no canary wave for it)"),
        "{head}"
    );
}

#[tokio::test]
async fn a_canary_no_plan_can_take_refuses_the_rollout_before_any_change() {
    let world = World::new();
    world.running_fleet(&["a", "failed"]).await;
    world.h.cluster.mutate_node("ns", "failed", |n| {
        if let Some(status) = n.status.as_mut() {
            status.phase = Some(Phase::Failed);
        }
    });
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, with_canaries(&["a", "failed"], &["failed"], 3))
        .await
        .expect("prepare");
    let refusal = prepared
        .refusal()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        refusal.contains("canary failed cannot be rolled") && refusal.contains("choose another"),
        "{refusal}"
    );
    let run = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    assert!(matches!(run, Err(OpsError::Step(_))), "{run:?}");
    assert_eq!(world.patches_of("a"), 0);
    assert_eq!(world.patches_of("failed"), 0);
}

#[tokio::test]
async fn a_canary_outside_the_selection_is_bad_input() {
    let world = World::new();
    world.running_fleet(&["a", "b"]).await;
    let ops = world.ops();
    let result = rollout::prepare(&ops, with_canaries(&["a", "b"], &["z"], 3)).await;
    assert!(
        matches!(&result, Err(OpsError::BadInput(m)) if m == "canary z is not one of the nodes to roll"),
        "{result:?}"
    );
}

/// Issue 27: the automatic canary is never a node already unhealthy by the fleet's verdict; the
/// preview says which node it passed over and why.
#[tokio::test]
async fn the_automatic_canary_passes_over_a_node_with_a_failing_condition() {
    let world = World::new();
    let names = ["a", "b", "c"];
    world.running_fleet(&names).await;
    world.h.cluster.mutate_node("ns", "a", |n| {
        if let Some(status) = n.status.as_mut() {
            status.conditions = Some(vec![
                k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
                    type_: "SidecarReady".into(),
                    status: "Unknown".into(),
                    reason: "Unreachable".into(),
                    message: "connection refused".into(),
                    observed_generation: None,
                    last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                        jiff::Timestamp::UNIX_EPOCH,
                    ),
                },
            ]);
        }
    });
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&names, 1, 2))
        .await
        .expect("prepare");
    assert_eq!(prepared.waves, [vec!["b"], vec!["a", "c"]]);
    let head = prepared.head_text();
    assert!(
        head.contains(
            "canary: a passed over: not healthy (SidecarReady/Unreachable); name it as the \
             canary to roll it first"
        ),
        "{head}"
    );
    // Chosen by name, it is the canary.
    let prepared = rollout::prepare(&ops, with_canaries(&names, &["a"], 2))
        .await
        .expect("prepare");
    assert_eq!(prepared.waves[0], ["a"]);
    assert!(prepared.canary_notes.is_empty());
}
