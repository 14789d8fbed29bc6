//! `exec` against the fakes, as an action under the contract: the preview is the plan the run
//! persists (same ID), the run records its Console Event and journal lines, and read-only mode
//! refuses it in the shared preamble before any call, journaled.
use super::*;
use crate::ops::action::{Previewed, execute, prepare};
use crate::ops::actions::exec::ExecInput;

fn exec(node: &str) -> ExecInput {
    ExecInput {
        node: node.to_owned(),
        dry_run: false,
    }
}

#[tokio::test]
async fn the_previewed_plan_is_persisted_and_followed_with_its_console_event_and_journal_lines() {
    let world = World::new();
    world.h.cluster.put_node(full_node("ns", "a"));
    let ops = world.ops();
    let prepared = prepare(&ops, &exec("a")).await.expect("prepare");
    let plan = prepared.plan.clone().expect("an init plan");
    assert!(!prepared.resumed);
    assert_eq!(plan.id, prepared.plan_id.to_string());
    let text = Previewed::text(&prepared);
    assert!(
        text.starts_with(&format!("plan for ns/a: {} tasks: ", plan.tasks.len())),
        "{text}"
    );
    assert!(text.contains("embedded executor"), "{text}");
    assert_eq!(Previewed::refusal(&prepared), None);
    assert!(
        prepared
            .permissions
            .checks
            .iter()
            .any(|c| c.verb == "create" && c.resource == "events"),
        "{:?}",
        prepared.permissions.checks
    );
    let report = Recording::default();
    let end = execute(&ops, &prepared, &report).await.expect("run");
    assert!(end.ok, "{end:?}");
    assert_eq!(end.message, format!("ns/a: plan {} complete", plan.id));
    assert_eq!(world.log.lines(), ["ns/a started", "ns/a succeeded"]);
    let events = world
        .h
        .cluster
        .state
        .lock()
        .expect("lock")
        .recorded_events
        .clone();
    let reasons: Vec<_> = events.iter().filter_map(|e| e.reason.clone()).collect();
    assert_eq!(reasons, ["ConsolePlanExec"], "{events:#?}");
    let message = events[0].message.clone().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "alice (context test) via sei-console: plan {} persisted: {} tasks: ",
            plan.id,
            plan.tasks.len()
        )),
        "{message}"
    );
}

#[tokio::test]
async fn a_node_with_nothing_to_do_is_refreshed_journaled_and_gets_no_event() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = prepare(&ops, &exec("a")).await.expect("prepare");
    assert_eq!(prepared.plan, None);
    assert!(
        Previewed::text(&prepared).starts_with("no plan for ns/a: steady state"),
        "{}",
        Previewed::text(&prepared)
    );
    let end = execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    assert_eq!(world.log.lines(), ["ns/a succeeded"]);
    assert!(
        world
            .h
            .cluster
            .state
            .lock()
            .expect("lock")
            .recorded_events
            .is_empty()
    );
}

#[tokio::test]
async fn read_only_refuses_exec_before_any_call_and_journals_the_refusal() {
    let mut world = World::new();
    world.settings.read_only = Some("started with --read-only");
    world.h.cluster.put_node(full_node("ns", "a"));
    let ops = world.ops();
    let refused = prepare(&ops, &exec("a")).await;
    assert_eq!(
        refused.map(|_| ()).map_err(|e| e.to_string()),
        Err(
            "read-only mode: refusing to run exec on a; nothing was sent to the cluster \
             (started with --read-only)"
                .to_owned()
        )
    );
    assert!(
        world.h.cluster.calls().is_empty(),
        "{:?}",
        world.h.cluster.calls()
    );
    assert_eq!(world.log.lines(), ["ns/a refused"]);
}
