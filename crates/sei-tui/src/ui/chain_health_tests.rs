//! Chain health on screen: the fleet's HEIGHT/LAG column with each mark, and the node screen's
//! lines, at 80x24 and wide, with the fixed sample clock.
use jiff::{SignedDuration, Timestamp};

use super::tests::{open, render};
use super::theme::Theme;
use crate::app::model::{Model, Msg};
use crate::app::tests::{demo_key, demo_model};
use crate::app::update::update;
use crate::chain::{LagStatus, NetInfo, Reading, RpcAnswer, RpcFailure, Snapshot, Status};

fn status(height: u64, catching_up: bool, block_time: Timestamp, moniker: &str) -> Status {
    let body = format!(
        r#"{{"node_info":{{"id":"8e0ce6da7bc451e8bea1ceadcb71ca14ce79776c","network":"pacific-1",
        "version":"0.38.0","moniker":"{moniker}"}},"sync_info":{{"latest_block_height":"{height}",
        "latest_block_time":"{block_time}","max_peer_block_height":"{height}",
        "catching_up":{catching_up}}}}}"#
    );
    Status::parse(&RpcAnswer {
        status: 200,
        body: body.into_bytes(),
    })
    .expect("status")
}

fn snapshot(status: Status, lag: u64, lag_http: u16, peers: u32) -> Snapshot {
    let height = status.latest_block_height;
    Snapshot {
        status,
        lag: Ok(LagStatus {
            current_height: height,
            max_peer_height: height + lag,
            lag,
            lagging: lag_http != 200,
            http_status: lag_http,
        }),
        net: Ok(NetInfo { n_peers: peers }),
    }
}

fn read(model: &mut Model, name: &str, at: Timestamp, outcome: Result<Snapshot, RpcFailure>) {
    update(
        model,
        Msg::HealthRead {
            key: demo_key(name),
            reading: Reading { at, outcome },
        },
    );
}

/// rpc-0 in sync, archive-0 catching up with one peer, rpc-1 stalled for 3 minutes,
/// validator-0 lagging by its own /lag_status (HTTP 417), replayer-0 refused; seed-0 has no RPC.
pub(crate) fn read_fleet() -> Model {
    let mut model = demo_model();
    let now = model.now;
    let ago = |s: i64| now - SignedDuration::from_secs(s);
    read(
        &mut model,
        "rpc-0",
        ago(6),
        Ok(snapshot(
            status(1_000_490, false, ago(6), "rpc-0"),
            0,
            200,
            12,
        )),
    );
    read(
        &mut model,
        "rpc-0",
        ago(1),
        Ok(snapshot(
            status(1_000_500, false, ago(1), "rpc-0"),
            0,
            200,
            12,
        )),
    );
    read(
        &mut model,
        "archive-0",
        ago(2),
        Ok(snapshot(
            status(1_000_480, true, ago(4), "archive-0"),
            1,
            200,
            1,
        )),
    );
    read(
        &mut model,
        "rpc-1",
        ago(2),
        Ok(snapshot(
            status(999_100, false, ago(180), "rpc-1"),
            0,
            200,
            8,
        )),
    );
    read(
        &mut model,
        "validator-0",
        ago(3),
        Ok(snapshot(
            status(999_700, false, ago(3), "validator-0"),
            800,
            417,
            9,
        )),
    );
    read(
        &mut model,
        "replayer-0",
        ago(4),
        Err(RpcFailure::Refused(
            "port 26657 of pod replayer-0-0: connection refused".into(),
        )),
    );
    model
}

#[test]
fn fleet_shows_height_lag_and_each_mark_at_80x24_and_wide() {
    let mut model = read_fleet();
    insta::assert_snapshot!(
        "fleet_chain_health_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    insta::assert_snapshot!(
        "fleet_chain_health_wide",
        render(&mut model, 200, 50, &Theme::dark())
    );
}

#[test]
fn node_screen_shows_the_chain_health_lines_at_80x24_and_wide() {
    let mut model = read_fleet();
    open(&mut model, "archive-0");
    insta::assert_snapshot!(
        "node_chain_health_catching_up_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
    let mut model = read_fleet();
    open(&mut model, "rpc-1");
    insta::assert_snapshot!(
        "node_chain_health_stalled_wide",
        render(&mut model, 200, 50, &Theme::dark())
    );
}

#[test]
fn filters_pick_stalled_lagging_and_catching_up_nodes() {
    use crate::fleet::filter::Filter;
    let model = read_fleet();
    let names = |text: &str| {
        let filter = Filter::parse(text).expect("filter");
        model
            .fleet
            .rows()
            .filter(|row| filter.matches(row))
            .map(|row| row.key.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names("stalled"), ["rpc-1"]);
    assert_eq!(names("lagging"), ["validator-0"]);
    assert_eq!(names("catching-up"), ["archive-0"]);
    assert_eq!(names("unreachable"), ["replayer-0"]);
    assert_eq!(names("in-sync"), ["rpc-0"]);
}

/// [`read_fleet`] with pacific-1's reference RPC (config file) at 1,001,000 — rpc-0 is 500
/// blocks behind it — and seed-0 probed: reachable as its NodeID, handing out 3 peers.
fn read_fleet_with_reference_and_probed_seed() -> Model {
    use crate::chain::{ReferenceRead, ReferenceUrl, reference::references_of};
    let mut model = read_fleet();
    let url = ReferenceUrl::parse("https://rpc.pacific-1.example").expect("url");
    model.settings.reference_rpc = [("pacific-1".to_owned(), url)].into();
    model
        .fleet
        .set_references(references_of(&model.settings.reference_rpc));
    let at = model.now - SignedDuration::from_secs(2);
    update(
        &mut model,
        Msg::ReferenceRead {
            chain: "pacific-1".into(),
            read: ReferenceRead {
                at,
                outcome: Ok(1_001_000),
            },
        },
    );
    let seed = demo_key("seed-0");
    let target = crate::ports::probe::ProbeTarget {
        node_id: Some("8e0ce6da7bc451e8bea1ceadcb71ca14ce79776c".into()),
        node_id_source: "node-key Secret seed-0-node-key".into(),
        address: "seed-0.sei.example:26656".into(),
        chain_id: "pacific-1".into(),
        no_pod: None,
    };
    let outcome = crate::ports::probe::fake::FakeProber::default().outcome(&target);
    assert_eq!(outcome.pex_peers, Some(3));
    update(
        &mut model,
        Msg::SeedProbed {
            key: seed,
            at,
            outcome: Ok(outcome),
        },
    );
    model
}

#[test]
fn lag_against_the_reference_and_a_seeds_peers_show_in_the_column_at_80x24_and_wide() {
    let mut model = read_fleet_with_reference_and_probed_seed();
    let wide = render(&mut model, 200, 50, &Theme::dark());
    assert!(wide.contains("↓ 1000500 -500 ref"), "{wide}");
    assert!(wide.contains("✓ 3 peers"), "{wide}");
    insta::assert_snapshot!("fleet_reference_and_seed_wide", wide);
    insta::assert_snapshot!(
        "fleet_reference_and_seed_80x24",
        render(&mut model, 80, 24, &Theme::dark())
    );
}

#[test]
fn the_node_screen_says_what_the_lag_is_measured_against_and_an_unreachable_reference() {
    let mut model = read_fleet_with_reference_and_probed_seed();
    open(&mut model, "rpc-0");
    let wide = render(&mut model, 200, 50, &Theme::dark());
    assert!(
        wide.contains("500 blocks behind reference https://rpc.pacific-1.example"),
        "{wide}"
    );
    insta::assert_snapshot!("node_reference_lagging_wide", wide);
    let now = model.now;
    update(
        &mut model,
        Msg::ReferenceRead {
            chain: "pacific-1".into(),
            read: crate::chain::ReferenceRead {
                at: now,
                outcome: Err(RpcFailure::Refused(
                    "https://rpc.pacific-1.example: connection refused".into(),
                )),
            },
        },
    );
    let narrow = render(&mut model, 80, 24, &Theme::dark());
    assert!(narrow.contains("unreachable"), "{narrow}");
    insta::assert_snapshot!("node_reference_unreachable_80x24", narrow);
    let wide = render(&mut model, 200, 50, &Theme::dark());
    assert!(
        wide.contains("│ ref✗ pacific-1 (reference unreachable) │"),
        "the header names the chain: {wide}"
    );
    assert!(narrow.contains("│ ref✗ 1 │"), "{narrow}");
    // Measured against the fleet top again: rpc-0 is its chain's highest node.
    let row = model
        .fleet
        .rows()
        .find(|r| *r.key.name == *"rpc-0")
        .expect("row");
    assert_eq!(
        row.health.map(|h| (h.state, h.against)),
        Some((
            crate::chain::State::InSync,
            Some(crate::chain::LagSource::FleetReferenceUnreachable)
        ))
    );
}
