//! The seeds' outside probes on screen: the fleet row's mark and the node screen's probe lines,
//! at 80x24 and wide, with the fixed sample clock.
use super::tests::{open, render};
use super::theme::Theme;
use crate::api::NodeMode;
use crate::app::model::{Model, Msg};
use crate::app::tests::demo_model;
use crate::app::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample;
use crate::fleet::store::Delta;
use crate::ports::probe::fake::FakeProber;
use crate::ports::probe::{CheckName, ProbeTarget};

const ID: &str = "8e0ce6da7bc451e8bea1ceadcb71ca14ce79776c";

/// seed-0 probed two minutes ago and reachable; seed-1 (published on a closed loopback port)
/// probed a minute ago and unreachable; seed-2 being probed for the first time.
pub(super) fn probed_fleet() -> Model {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    for (name, address) in [("seed-1", "127.0.0.1:9"), ("seed-2", "127.0.0.1:26656")] {
        let mut node = sample::node("sei", name, NodeMode::Seed, 900);
        node.spec.external_address = Some(address.into());
        update(
            &mut model,
            Msg::Delta {
                epoch,
                delta: FleetDelta::Node(Delta::Applied(Box::new(node))),
            },
        );
    }
    let target = |address: &str| ProbeTarget {
        node_id: Some(ID.into()),
        node_id_source: "node-key Secret seed-0-node-key".into(),
        address: address.into(),
        chain_id: "pacific-1".into(),
        no_pod: None,
    };
    let now = model.now;
    // The resolved IP of the published name, as the TCP dialler reports it.
    let mut reachable = FakeProber::default().outcome(&target("seed-0.sei.example:26656"));
    reachable.origin.remote_address = Some("10.0.0.7:26656".into());
    let ago = |s: i64| {
        now.checked_sub(jiff::SignedDuration::from_secs(s))
            .expect("time")
    };
    update(
        &mut model,
        Msg::SeedProbed {
            key: crate::app::tests::demo_key("seed-0"),
            at: ago(120),
            outcome: Ok(reachable),
        },
    );
    let mut refused = FakeProber::failing(
        CheckName::Reachable,
        "connecting to 127.0.0.1:9: Connection refused (os error 111); a seed listening on \
         127.0.0.1 only looks like this",
    )
    .outcome(&target("127.0.0.1:9"));
    refused.origin.local_address = None;
    update(
        &mut model,
        Msg::SeedProbed {
            key: crate::app::tests::demo_key("seed-1"),
            at: ago(60),
            outcome: Ok(refused),
        },
    );
    // seed-2: the tick starts its first probe (seed-0 and seed-1 are fresh).
    update(&mut model, Msg::Tick(now));
    model
}

#[test]
fn fleet_marks_probed_seeds_at_80x24_and_wide() {
    let mut model = probed_fleet();
    insta::assert_snapshot!(
        "fleet_probes_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "fleet_probes_wide",
        render(&mut model, 200, 16, &Theme::dark())
    );
}

#[test]
fn node_screen_shows_the_last_probe_at_80x24_and_wide() {
    let mut model = probed_fleet();
    open(&mut model, "seed-0");
    insta::assert_snapshot!(
        "node_probe_ok_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "node_probe_ok_wide",
        render(&mut model, 200, 30, &Theme::dark())
    );
    let mut model = probed_fleet();
    open(&mut model, "seed-1");
    insta::assert_snapshot!(
        "node_probe_failed_wide",
        render(&mut model, 200, 30, &Theme::dark())
    );
}
