//! The seeds' outside probes in `update`: what `P` and the tick ask for, how many run at once,
//! and what an outcome leaves in the fleet. No dialling: the effects are not run.
use jiff::SignedDuration;

use super::model::{Cmd, Msg, Screen};
use super::probes::{MAX_RUNNING, PROBE_INTERVAL};
use super::tests::{demo_model, press};
use super::update::update;
use crate::api::NodeMode;
use crate::fleet::FleetDelta;
use crate::fleet::columns::{Form, cell};
use crate::fleet::sample;
use crate::fleet::sort::Column;
use crate::fleet::store::{Delta, ObjectKey};
use crate::ports::probe::fake::FakeProber;
use crate::ports::probe::{CheckName, ProbeTarget};

fn probes(cmds: &[Cmd]) -> Vec<(ObjectKey, ProbeTarget)> {
    cmds.iter()
        .filter_map(|cmd| match cmd {
            Cmd::ProbeSeed { key, target } => Some((key.clone(), target.clone())),
            _ => None,
        })
        .collect()
}

fn add_seed(model: &mut super::model::Model, name: &str, address: Option<&str>) {
    let mut node = sample::node("sei", name, NodeMode::Seed, 600);
    node.spec.external_address = address.map(str::to_owned);
    let epoch = model.scope_epoch;
    update(
        model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::Applied(Box::new(node))),
        },
    );
}

fn tick(model: &mut super::model::Model, after: SignedDuration) -> Vec<Cmd> {
    let now = model.now.checked_add(after).expect("time");
    update(model, Msg::Tick(now))
}

#[test]
fn the_tick_probes_published_seeds_two_at_a_time_and_again_after_five_minutes() {
    let mut model = demo_model();
    add_seed(&mut model, "seed-1", Some("127.0.0.1:26656"));
    add_seed(&mut model, "seed-2", Some("127.0.0.1:26657"));
    add_seed(&mut model, "seed-unpublished", None);
    let first = probes(&tick(&mut model, SignedDuration::from_secs(1)));
    assert_eq!(first.len(), MAX_RUNNING, "{first:?}");
    let names: Vec<&str> = first.iter().map(|(k, _)| k.name.as_ref()).collect();
    assert_eq!(names, ["seed-0", "seed-1"]);
    assert_eq!(first[1].1.address, "127.0.0.1:26656");
    assert_eq!(first[1].1.chain_id, "pacific-1");
    // Both still run: nothing more starts.
    assert!(probes(&tick(&mut model, SignedDuration::from_secs(2))).is_empty());
    let fake = FakeProber::default();
    let at = model.now;
    for (key, target) in &first {
        update(
            &mut model,
            Msg::SeedProbed {
                key: key.clone(),
                at,
                outcome: Ok(fake.outcome(target)),
            },
        );
    }
    let next = probes(&tick(&mut model, SignedDuration::from_secs(1)));
    let names: Vec<&str> = next.iter().map(|(k, _)| k.name.as_ref()).collect();
    assert_eq!(names, ["seed-2"], "the unpublished seed is never dialled");
    let (key, target) = &next[0];
    let at = model.now;
    update(
        &mut model,
        Msg::SeedProbed {
            key: key.clone(),
            at,
            outcome: Ok(fake.outcome(target)),
        },
    );
    assert!(probes(&tick(&mut model, SignedDuration::from_mins(4))).is_empty());
    let again = probes(&tick(&mut model, PROBE_INTERVAL));
    assert_eq!(again.len(), MAX_RUNNING);
}

#[test]
fn p_probes_the_selected_seed_now_and_says_why_not_for_others() {
    let mut model = demo_model();
    let seed = model
        .listing
        .keys
        .iter()
        .position(|k| k.name.as_ref() == "seed-0")
        .expect("seed row");
    model.selected = seed;
    let cmds = probes(&press(&mut model, "P"));
    assert_eq!(cmds.len(), 1);
    assert_eq!(cmds[0].1.address, "seed-0.sei.example:26656");
    assert!(
        model.flash.as_ref().is_some_and(|f| !f.error),
        "{:?}",
        model.flash
    );
    let key = cmds[0].0.clone();
    let row = model.fleet.row(&key).expect("row");
    assert_eq!(
        cell(Column::Name, Form::Compact, row, model.now),
        "seed-0 …"
    );
    // A second P while it runs dials nothing more.
    assert!(probes(&press(&mut model, "P")).is_empty());

    let failing = FakeProber::failing(CheckName::Reachable, "connecting to 127.0.0.1:9: refused");
    let at = model.now;
    update(
        &mut model,
        Msg::SeedProbed {
            key: key.clone(),
            at,
            outcome: Ok(failing.outcome(&cmds[0].1)),
        },
    );
    let row = model.fleet.row(&key).expect("row");
    assert_eq!(cell(Column::Name, Form::Full, row, model.now), "seed-0 ✗");
    let probe = model.fleet.seed_probe(&key).expect("probe");
    assert_eq!(
        probe.line(model.now, false),
        "✗ reachable: connecting to 127.0.0.1:9: refused · 0s ago"
    );

    model.selected = 0;
    let rpc = model.selected_key().cloned().expect("a row");
    assert_ne!(rpc.name.as_ref(), "seed-0");
    assert!(probes(&press(&mut model, "P")).is_empty());
    let flash = model.flash.clone().expect("flash");
    assert!(
        flash.error && flash.text.contains("is not a seed"),
        "{flash:?}"
    );
    assert_eq!(model.screen, Screen::Fleet);
}
