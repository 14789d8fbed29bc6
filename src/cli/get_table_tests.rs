//! `get`'s table fits 120 columns by default on a realistic fleet (issue 33: it was 232), and
//! `-o wide` stays complete.
use serde_json::json;

use super::get::{TABLE_WIDTH, TableScope, table_in};
use crate::api::NodeMode;
use crate::fleet::sample::{self, UPDATE_TASKS, condition, event, patched, plan, running};
use crate::fleet::store::Delta;
use crate::fleet::{Fleet, FleetDelta};

const LONG_TAG: &str = "ghcr.io/sei-protocol/sei:v6.3.0-rc.2-hotfix-pebbledb-a1b2c3d4";

/// The demo's names and states, with long image tags: one in sync, one updating, one failed
/// with a failing condition and a Warning event, one initializing, one seed that cannot render.
fn realistic() -> Fleet {
    let ns = "sei-demo";
    let image = json!({"spec": {"image": LONG_TAG}});
    let full = patched(
        running(sample::node(
            ns,
            "pacific-1-full-0",
            NodeMode::Full,
            9 * 86_400,
        )),
        image.clone(),
    );
    let archive = patched(
        running(sample::node(
            ns,
            "pacific-1-archive-0",
            NodeMode::Archive,
            20 * 86_400,
        )),
        json!({"spec": {"image": LONG_TAG}, "status": {"plan": plan(&UPDATE_TASKS, 4, None),
            "conditions": [condition("NodeUpdateInProgress", "True", "UpdateStarted",
                "image drift", 400)]}}),
    );
    let replayer = patched(
        sample::node(ns, "pacific-1-replayer-0", NodeMode::Replayer, 900),
        json!({"spec": {"image": LONG_TAG}, "status": {"phase": "Initializing",
            "plan": plan(&UPDATE_TASKS, 2, None), "conditions": [
            condition("StateSyncReady", "False", "NoSyncersConfigured", "none", 800),
            condition("SidecarReady", "False", "Unreachable", "no answer", 800)]}}),
    );
    let failed = patched(
        sample::node(ns, "pacific-1-validator-0", NodeMode::Validator, 2 * 3600),
        json!({"spec": {"image": LONG_TAG}, "status": {"phase": "Failed",
            "plan": plan(&UPDATE_TASKS, 5, Some("config-validate: p2p.laddr is empty"))}}),
    );
    let seed = sample::node(ns, "pacific-1-seed-0", NodeMode::Seed, 300);
    let events = vec![
        event(
            &seed,
            true,
            "StatefulSetRenderFailed",
            "Cannot render",
            4,
            40,
        ),
        event(
            &failed,
            true,
            "NodeFailed",
            "SeiNode is in Failed state.",
            12,
            20,
        ),
    ];
    let mut fleet = Fleet::new(None);
    fleet.apply(FleetDelta::Node(Delta::RelistStarted));
    for node in [full, archive, replayer, failed, seed] {
        fleet.apply(FleetDelta::Node(Delta::relist_item(node)));
    }
    fleet.apply(FleetDelta::Node(Delta::RelistDone));
    for event in events {
        fleet.apply(FleetDelta::NodeEvent(Delta::applied(event)));
    }
    fleet
}

fn widest(table: &str) -> usize {
    table
        .lines()
        .map(unicode_width::UnicodeWidthStr::width)
        .max()
        .unwrap_or(0)
}

#[test]
fn the_default_table_fits_120_columns_and_wide_keeps_every_column_whole() {
    let fleet = realistic();
    let rows: Vec<_> = fleet.rows().collect();
    let scoped = TableScope::default();
    let table = table_in(&rows, false, scoped, sample::now());
    assert!(
        widest(&table) <= TABLE_WIDTH,
        "{}:\n{table}",
        widest(&table)
    );
    for name in [
        "pacific-1-archive-0",
        "pacific-1-replayer-0",
        "pacific-1-seed-0",
    ] {
        assert!(table.contains(name), "{name} whole:\n{table}");
    }
    let header = table.lines().next().unwrap_or_default();
    for column in ["NAME", "MODE", "PHASE", "HEALTH", "IMAGE", "PLAN", "AGE"] {
        assert!(header.contains(column), "{column}: {header}");
    }
    // With all namespaces it still fits.
    let all = TableScope {
        context: false,
        namespace: true,
    };
    let table_all = table_in(&rows, false, all, sample::now());
    assert!(widest(&table_all) <= TABLE_WIDTH, "{table_all}");

    let wide = table_in(&rows, true, scoped, sample::now());
    let header = wide.lines().next().unwrap_or_default();
    for column in [
        "CHAIN",
        "CONDITIONS",
        "LAST-WARNING",
        "HEIGHT/LAG",
        "CURRENT-IMAGE",
        "WARNING-MESSAGE",
    ] {
        assert!(header.contains(column), "{column}: {header}");
    }
    assert!(wide.contains(LONG_TAG), "the whole image in wide:\n{wide}");
    assert!(!wide.contains('…'), "nothing shortened in wide:\n{wide}");
    assert!(wide.contains("SidecarReady/Unreachable"), "{wide}");
}
