//! The skew guard against the fakes (issue 36): a node with fields the port does not know, a
//! CRD with spec fields it does not know, and one that lacks a field an action writes, are
//! refused before any change (journaled, with the paths and the fix); a live controller still
//! carries them out; `--allow-unknown-fields` goes on and says so on the node and in the journal.
use serde_json::{Value, json};

use super::*;
use crate::ops::action::{Previewed, execute, prepare};
use crate::ops::actions::{exec, pause, restart};
use crate::ops::skew::ALLOW_FLAG;

/// The node's stored copy with `spec.maintenance.hold` (a field of a newer CRD).
fn hold(world: &World, name: &str) {
    let mut node = world.h.cluster.node("ns", name).expect("node");
    node.spec
        .unknown
        .insert("maintenance".into(), json!({"hold": true}));
    world.h.cluster.put_node(node);
}

/// The embedded CRD with `spec.maintenance` (newer), or without `spec.externalAddress` (older).
fn crd_with(edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Value {
    let mut crd = crate::api::schema::embedded_crd().expect("crd").clone();
    let properties = crd
        .pointer_mut("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties")
        .and_then(Value::as_object_mut)
        .expect("spec properties");
    edit(properties);
    crd
}

fn newer() -> Value {
    crd_with(|p| {
        p.insert(
            "maintenance".into(),
            json!({"type": "object", "properties": {"hold": {"type": "boolean"}}}),
        );
    })
}

fn older() -> Value {
    crd_with(|p| {
        p.remove("externalAddress");
    })
}

/// Calls that change something (the fake logs every call as `verb kind name`; a preview's
/// `dry-run apply` stores nothing).
fn mutating(world: &World) -> Vec<String> {
    world
        .h
        .cluster
        .calls()
        .into_iter()
        .filter(|c| {
            !["get ", "list ", "dry-run "]
                .iter()
                .any(|p| c.starts_with(p))
        })
        .collect()
}

#[tokio::test]
async fn a_node_with_fields_the_port_does_not_know_is_refused_before_any_change() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    hold(&world, "a");
    world.h.cluster.state.lock().expect("lock").calls.clear();
    let ops = world.ops();
    let refused = prepare(&ops, &rollout_input(&["a"], 1, 1))
        .await
        .expect_err("refused");
    let text = refused.to_string();
    assert!(matches!(refused, OpsError::NotUnderstood(_)), "{refused:?}");
    assert!(
        text.starts_with(
            "refusing to run rollout on a: a carries fields sei-console does not know \
             (spec.maintenance); nothing was changed. Fix: let the controller run it"
        ),
        "{text}"
    );
    assert!(
        text.contains("upgrade sei-console") && text.contains(ALLOW_FLAG),
        "{text}"
    );
    assert!(mutating(&world).is_empty(), "{:?}", mutating(&world));
    assert_eq!(world.log.lines(), ["ns/a refused"]);
    assert_eq!(world.image_of("a").0, V1);
}

#[tokio::test]
async fn every_action_on_such_a_node_is_refused_and_the_restart_names_no_controller_fix() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    hold(&world, "a");
    let ops = world.ops();
    let address = prepare(
        &ops,
        &address::AddressInput {
            node: "a".into(),
            address: ExternalAddress::parse("203.0.113.7:26656").expect("address"),
            wait: true,
            dry_run: false,
            restart: true,
        },
    )
    .await;
    assert!(
        matches!(address, Err(OpsError::NotUnderstood(_))),
        "{address:?}"
    );
    let pause = prepare(
        &ops,
        &pause::PauseInput {
            node: "a".into(),
            paused: true,
            wait: false,
            dry_run: false,
        },
    )
    .await;
    assert!(
        matches!(pause, Err(OpsError::NotUnderstood(_))),
        "{pause:?}"
    );
    let exec = prepare(
        &ops,
        &exec::ExecInput {
            node: "a".into(),
            dry_run: false,
        },
    )
    .await;
    assert!(matches!(exec, Err(OpsError::NotUnderstood(_))), "{exec:?}");
    let restart = prepare(
        &ops,
        &restart::RestartInput {
            node: "a".into(),
            wait: false,
            dry_run: false,
        },
    )
    .await
    .expect_err("refused")
    .to_string();
    assert!(!restart.contains("let the controller run it"), "{restart}");
    assert!(mutating(&world).is_empty(), "{:?}", mutating(&world));
    assert_eq!(world.log.lines().len(), 4);
}

#[tokio::test]
async fn a_live_controller_carries_it_out_and_the_preview_says_its_plan_is_not_shown() {
    let mut world = World::new();
    world.running_fleet(&["a"]).await;
    hold(&world, "a");
    world.settings.executor = ExecutorMode::Controller;
    let ops = world.ops();
    let prepared = prepare(&ops, &rollout_input(&["a"], 1, 1))
        .await
        .expect("handed off");
    let text = Previewed::text(&prepared);
    assert!(
        text.starts_with(
            "note: a: the console cannot show the controller's exact plan for this node"
        ),
        "{text}"
    );
    assert!(Previewed::refusal(&prepared).is_none());
}

#[tokio::test]
async fn allow_unknown_fields_goes_on_and_says_so_in_the_journal_and_on_the_node() {
    let mut world = World::new();
    world.running_fleet(&["a"]).await;
    hold(&world, "a");
    world.settings.allow_unknown_fields = true;
    let ops = world.ops();
    let prepared = prepare(&ops, &rollout_input(&["a"], 1, 1))
        .await
        .expect("allowed");
    assert!(
        Previewed::text(&prepared).contains(&format!("going on as {ALLOW_FLAG} asks")),
        "{}",
        Previewed::text(&prepared)
    );
    let end = execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    assert_eq!(world.image_of("a"), (V2.into(), V2.into()));
    let journal = world.log.0.lock().expect("lock").clone();
    assert!(
        journal
            .iter()
            .all(|e| e.detail == format!("image {V2} ({ALLOW_FLAG})")),
        "{journal:?}"
    );
    let node = world.h.cluster.node("ns", "a").expect("node");
    let record = node
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(crate::fleet::console_actions::ANNOTATION))
        .expect("record");
    assert!(record.contains(ALLOW_FLAG), "{record}");
    // The field the port does not know is kept, as the API server keeps it.
    assert_eq!(
        node.spec.unknown.get("maintenance"),
        Some(&json!({"hold": true}))
    );
}

#[tokio::test]
async fn a_crd_with_spec_fields_the_port_does_not_know_refuses_every_node_with_the_embedded_executor()
 {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    world.h.cluster.set_crd(newer());
    let ops = world.ops();
    let refused = prepare(&ops, &rollout_input(&["a"], 1, 1))
        .await
        .expect_err("refused")
        .to_string();
    assert!(
        refused.contains(
            "the cluster's SeiNode CRD has spec fields sei-console does not know, which could \
             change the plan (spec.maintenance)"
        ),
        "{refused}"
    );
    assert!(mutating(&world).is_empty(), "{:?}", mutating(&world));
}

#[tokio::test]
async fn an_older_crd_refuses_the_action_that_writes_its_missing_field_only() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    world.h.cluster.set_crd(older());
    let ops = world.ops();
    let address = prepare(
        &ops,
        &address::AddressInput {
            node: "a".into(),
            address: ExternalAddress::parse("203.0.113.7:26656").expect("address"),
            wait: true,
            dry_run: false,
            restart: true,
        },
    )
    .await
    .expect_err("refused")
    .to_string();
    assert!(
        address.contains(
            "the cluster's SeiNode CRD lacks fields this action writes, which the API server \
             would drop (spec.externalAddress)"
        ),
        "{address}"
    );
    assert!(
        address.contains("install the SeiNode CRD sei-console ports"),
        "{address}"
    );
    // A rollout writes nothing the older CRD lacks.
    prepare(&ops, &rollout_input(&["a"], 1, 1))
        .await
        .expect("a rollout goes on");
}

#[tokio::test]
async fn a_crd_the_operator_may_not_read_is_said_and_the_nodes_are_still_checked() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    world.h.cluster.fail_next(
        "get customresourcedefinitions",
        crate::ports::ClusterErrorKind::Forbidden,
        "customresourcedefinitions.apiextensions.k8s.io \"seinodes.sei.io\" is forbidden",
    );
    let ops = world.ops();
    let prepared = prepare(&ops, &rollout_input(&["a"], 1, 1))
        .await
        .expect("clean node");
    assert!(
        Previewed::text(&prepared)
            .starts_with("note: CRD not compared: reading customresourcedefinitions"),
        "{}",
        Previewed::text(&prepared)
    );
    hold(&world, "a");
    world.h.cluster.fail_next(
        "get customresourcedefinitions",
        crate::ports::ClusterErrorKind::Forbidden,
        "forbidden",
    );
    let refused = prepare(&ops, &rollout_input(&["a"], 1, 1)).await;
    assert!(
        matches!(refused, Err(OpsError::NotUnderstood(_))),
        "{refused:?}"
    );
}

#[tokio::test]
async fn the_embedded_executor_runs_no_step_of_a_node_it_does_not_understand() {
    let world = World::new();
    world.h.cluster.put_node(full_node("ns", "a"));
    let driver = world.ops().driver();
    driver
        .persist("ns", "a", SIDECAR_IMAGE)
        .await
        .expect("persist");
    hold(&world, "a");
    world.h.cluster.state.lock().expect("lock").calls.clear();
    let refused = driver.drive("ns", "a", &mut |_| {}).await;
    assert!(
        matches!(
            &refused,
            Err(crate::executor::driver::DriverError::UnknownFields { paths, .. })
                if paths == &["spec.maintenance"]
        ),
        "{refused:?}"
    );
    assert_eq!(world.h.cluster.count_calls("patch"), 0);
}
