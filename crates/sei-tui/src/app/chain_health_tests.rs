//! The chain-health schedule: nodes on screen every few seconds, the rest in a bounded sweep,
//! never more than `MAX_IN_FLIGHT` reads at once, seeds never; with a fixed clock.
use jiff::SignedDuration;

use super::chain_health::{HOT_EVERY, MAX_IN_FLIGHT, SWEEP_EVERY};
use super::model::{Cmd, Model, Msg};
use super::tests::{demo_key, demo_model};
use super::update::update;
use crate::api::NodeMode;
use crate::chain::{Reading, RpcFailure};
use crate::fleet::FleetDelta;
use crate::fleet::sample;
use crate::fleet::store::{Delta, ObjectKey};

fn asked(cmds: &[Cmd]) -> Vec<ObjectKey> {
    cmds.iter()
        .flat_map(|cmd| match cmd {
            Cmd::ReadHealth { keys } => keys.clone(),
            _ => Vec::new(),
        })
        .collect()
}

/// Answers the reads of `keys`; returns any reads asked for meanwhile (none: only ticks ask).
fn answer_all(model: &mut Model, keys: &[ObjectKey]) -> Vec<ObjectKey> {
    let mut refills = Vec::new();
    for key in keys {
        let reading = Reading {
            at: model.now,
            outcome: Err(RpcFailure::Refused("test".into())),
        };
        let cmds = update(
            model,
            Msg::HealthRead {
                key: key.clone(),
                reading,
            },
        );
        refills.extend(asked(&cmds));
    }
    refills
}

/// The demo fleet plus `extra` full nodes, polling on, 3 rows on screen.
fn polling_model(extra: usize) -> Model {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    for i in 0..extra {
        let node = sample::node("sei", &format!("zz-full-{i:02}"), NodeMode::Full, 600);
        update(
            &mut model,
            Msg::Delta {
                epoch,
                delta: FleetDelta::Node(Delta::Applied(Box::new(node))),
            },
        );
    }
    model.settings.chain_health = true;
    model.size = (120, 9);
    model
}

#[test]
fn nothing_is_read_unless_chain_health_is_on() {
    let mut model = demo_model();
    let now = model.now;
    assert!(asked(&update(&mut model, Msg::Tick(now))).is_empty());
    assert!(!model.fleet.has_health());
}

#[test]
fn seeds_are_never_read_and_every_other_node_is() {
    let mut model = polling_model(0);
    let now = model.now;
    let keys = asked(&update(&mut model, Msg::Tick(now)));
    assert!(!keys.contains(&demo_key("seed-0")), "{keys:?}");
    assert_eq!(keys.len(), model.fleet.rows().count() - 1);
    // All in flight: the next tick asks for nothing.
    assert!(asked(&update(&mut model, Msg::Tick(now))).is_empty());
}

#[test]
fn reads_in_flight_never_exceed_the_cap_and_rows_on_screen_go_first() {
    let mut model = polling_model(MAX_IN_FLIGHT + 20);
    let now = model.now;
    let first = asked(&update(&mut model, Msg::Tick(now)));
    assert_eq!(first.len(), MAX_IN_FLIGHT);
    let on_screen: Vec<ObjectKey> = model.listing.keys.iter().take(3).cloned().collect();
    for key in on_screen.iter().filter(|k| k.name.as_ref() != "seed-0") {
        assert!(first.contains(key), "{key} on screen is read first");
    }
    assert!(
        asked(&update(&mut model, Msg::Tick(now))).is_empty(),
        "the cap is full"
    );
    assert!(
        answer_all(&mut model, &first[..3]).is_empty(),
        "answers ask for nothing"
    );
    let more = asked(&update(&mut model, Msg::Tick(now)));
    assert_eq!(more.len(), 3, "the next tick fills the freed slots");
    assert!(more.iter().all(|key| !first.contains(key)));
}

#[test]
fn rows_on_screen_are_read_every_few_seconds_the_rest_every_sweep() {
    let mut model = polling_model(0);
    let start = model.now;
    let first = asked(&update(&mut model, Msg::Tick(start)));
    assert!(
        answer_all(&mut model, &first).is_empty(),
        "nothing is due again"
    );
    let on_screen: Vec<ObjectKey> = model.listing.keys.iter().take(3).cloned().collect();
    let again = asked(&update(&mut model, Msg::Tick(start + HOT_EVERY)));
    assert!(!again.is_empty());
    for key in &again {
        assert!(on_screen.contains(key), "{key} is not on screen");
    }
    assert!(answer_all(&mut model, &again).is_empty());
    let swept = asked(&update(
        &mut model,
        Msg::Tick(start + SWEEP_EVERY + SignedDuration::from_secs(1)),
    ));
    assert_eq!(swept.len(), first.len(), "everything is due after a sweep");
}

#[test]
fn the_nodes_of_a_running_action_are_read_every_few_seconds_until_it_ends() {
    use super::action::{ActionFlow, ActionRequest, Stage};
    let mut model = polling_model(0);
    let start = model.now;
    let node = demo_key("validator-0");
    let on_screen: Vec<ObjectKey> = model.listing.keys.iter().take(3).cloned().collect();
    assert!(!on_screen.contains(&node), "off screen: {on_screen:?}");
    model.action = Some(ActionFlow {
        id: 1,
        kind: crate::ops::actions::restart::KIND,
        stage: Stage::Running {
            request: ActionRequest::one(
                "kind-sei",
                "sei",
                crate::ops::action::SomeOperation::new(
                    crate::ops::actions::restart::RestartInput {
                        node: "validator-0".into(),
                        wait: true,
                        dry_run: false,
                    },
                ),
            ),
            started: start,
            lines: Vec::new(),
            finished: None,
            scroll_from_end: 0,
        },
        hidden: true,
        preparing_since: None,
    });
    let first = asked(&update(&mut model, Msg::Tick(start)));
    assert!(answer_all(&mut model, &first).is_empty());
    let again = asked(&update(&mut model, Msg::Tick(start + HOT_EVERY)));
    assert!(again.contains(&node), "{again:?}");
    assert!(answer_all(&mut model, &again).is_empty());
    if let Some(flow) = model.action.as_mut()
        && let Stage::Running { finished, .. } = &mut flow.stage
    {
        *finished = Some(super::action::Finished {
            ok: true,
            message: "done".into(),
        });
    }
    let after = asked(&update(
        &mut model,
        Msg::Tick(start + HOT_EVERY + HOT_EVERY),
    ));
    assert!(!after.contains(&node), "back to the sweep: {after:?}");
}

/// Only what changes the screen draws: the same failure read again changes no cell and asks
/// for no frame; a new verdict does.
#[test]
fn a_reading_that_changes_no_cell_draws_nothing() {
    let mut model = polling_model(2);
    let now = model.now;
    let keys = asked(&update(&mut model, Msg::Tick(now)));
    let key = keys
        .iter()
        .find(|k| &*k.name == "zz-full-01")
        .cloned()
        .expect("read in the sweep");
    answer_all(&mut model, &keys);
    model.dirty = false;
    let revision = model.fleet.revision();
    answer_all(&mut model, std::slice::from_ref(&key));
    assert!(!model.dirty, "the same failure again: no frame");
    assert_eq!(model.fleet.revision(), revision);
    let reading = Reading {
        at: now,
        outcome: Err(RpcFailure::NoPod("gone".into())),
    };
    update(&mut model, Msg::HealthRead { key, reading });
    assert!(model.dirty, "a new verdict (no pod) draws");
}
