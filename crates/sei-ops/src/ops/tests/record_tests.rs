//! The console-action record on the node (`sei.io/console-actions`): each action writes it in
//! the same patch as its change, appends to what is there, replaces someone else's garbage
//! saying so, and a dry run or a refused action writes nothing.
use super::*;
use crate::fleet::console_actions::{ANNOTATION, ConsoleAction, Recorded, parse};

fn recorded(world: &World, name: &str) -> Option<Vec<ConsoleAction>> {
    let node = world.h.cluster.node("ns", name)?;
    match parse(node.metadata.annotations?.get(ANNOTATION)?) {
        Recorded::Actions { actions, .. } => Some(actions),
        Recorded::Unreadable(why) => panic!("unreadable: {why}"),
    }
}

fn notes(report: &Recording) -> Vec<String> {
    report.0.lock().expect("lock").clone()
}

#[tokio::test]
async fn a_rollout_records_who_what_and_the_plan_in_the_image_patch() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 1))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    let actions = recorded(&world, "a").expect("recorded");
    assert_eq!(actions.len(), 1);
    let action = &actions[0];
    assert_eq!(action.by, "alice (context test)");
    assert_eq!(action.action, "rollout");
    assert_eq!(action.detail, format!("image {V1} -> {V2}"));
    assert_eq!(action.at, world.clock.now());
    assert_eq!(
        action.plan.as_deref(),
        Some(prepared.nodes[0].plan_id.to_string().as_str())
    );
    // The record came with the pin: the only patch of the node's object.
    assert_eq!(world.patches_of("a"), 1);
}

#[tokio::test]
async fn a_sixth_action_keeps_the_last_five() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    for n in 0..6 {
        let prepared = address::prepare(
            &ops,
            address::AddressInput {
                node: "a".into(),
                address: ExternalAddress::parse(&format!("203.0.113.{n}:26656")).expect("a"),
                wait: true,
                dry_run: false,
                restart: false,
            },
        )
        .await
        .expect("prepare");
        let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
            .await
            .expect("run");
        assert!(end.ok, "{end:?}");
    }
    let actions = recorded(&world, "a").expect("recorded");
    let details: Vec<&str> = actions.iter().map(|a| a.detail.as_str()).collect();
    assert_eq!(
        details,
        [
            "external address 203.0.113.0:26656 -> 203.0.113.1:26656",
            "external address 203.0.113.1:26656 -> 203.0.113.2:26656",
            "external address 203.0.113.2:26656 -> 203.0.113.3:26656",
            "external address 203.0.113.3:26656 -> 203.0.113.4:26656",
            "external address 203.0.113.4:26656 -> 203.0.113.5:26656",
        ]
    );
}

#[tokio::test]
async fn someone_elses_garbage_is_replaced_said_once_and_the_action_goes_on() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    world.h.cluster.mutate_node("ns", "a", |n| {
        n.metadata.annotations = Some(std::collections::BTreeMap::from([
            (ANNOTATION.to_owned(), "{not a list".to_owned()),
            ("team".to_owned(), "kept".to_owned()),
        ]));
    });
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 1))
        .await
        .expect("prepare");
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    assert_eq!(world.image_of("a").0, V2);
    assert_eq!(recorded(&world, "a").expect("recorded").len(), 1);
    let node = world.h.cluster.node("ns", "a").expect("node");
    assert_eq!(
        node.metadata.annotations.expect("annotations").get("team"),
        Some(&"kept".to_owned()),
        "other annotations untouched"
    );
    let warnings: Vec<String> = notes(&report)
        .into_iter()
        .filter(|n| n.contains(ANNOTATION))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(
            "a: annotation sei.io/console-actions was replaced: not a console action list"
        ) && warnings[0].contains("nothing but that value was lost"),
        "{warnings:?}"
    );
}

#[tokio::test]
async fn a_dry_run_and_a_refused_action_write_no_record() {
    let mut world = World::new();
    world.running_fleet(&["a"]).await;
    let mut input = rollout_input(&["a"], 1, 1);
    input.dry_run = true;
    rollout::prepare(&world.ops(), input)
        .await
        .expect("dry run");
    world.access.denied = vec![("patch", "seinodes")];
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 1))
        .await
        .expect("prepare");
    assert!(
        crate::ops::action::execute(&ops, &prepared, &Recording::default())
            .await
            .is_err()
    );
    assert_eq!(recorded(&world, "a"), None);
    assert_eq!(world.patches_of("a"), 0);
}

#[tokio::test]
async fn a_created_seed_carries_its_record_from_the_start() {
    let world = World::new();
    let key = NodeKey::from_seed(&[7; 32]);
    *world.h.sidecar.node_id.lock().expect("lock") = key.node_id();
    world.h.cluster.put(ClusterObject::Pod(ready_pod("seed-0")));
    let ops = world.ops();
    let mut input = seed_input("seed-0", None);
    input.wait = false;
    let prepared = seed::prepare(&ops, input).await.expect("prepare");
    crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    let actions = recorded(&world, "seed-0").expect("recorded");
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].action, "seed-create");
    assert_eq!(
        actions[0].detail,
        format!(
            "seed created with NodeID {} (Secret seed-0-node-key)",
            prepared.node_id()
        )
    );
    assert_eq!(actions[0].plan, None, "--no-wait: the controller plans");
    assert_eq!(world.patches_of("seed-0"), 0, "no second write");
}
