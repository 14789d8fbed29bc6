//! Lag against a chain's reference RPC (`[chains."pacific-1"] reference_rpc` in the console's
//! config file), with real sei-tendermint nodes: the reference is the validator of one network
//! making a block every 20 ms; the fleet's node `hr-behind` (behind its pod's port-forward) is
//! the validator of another network of the same chain ID making one every 500 ms, so it falls
//! ever further behind the reference. `get -o json`, `describe -o json|text` and the console
//! say the lag is measured against the reference; once the reference stops, they say it is
//! unreachable and measure against the fleet top instead.
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::chain_health::{annotate_rpc, console, console_as_operator, health_by_name};
use crate::common::TestNamespace;
use crate::common::console::running_full_nodes;
use tendermint_net::{Network, NetworkSpec};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
/// More than `chain::health::LAG_BLOCKS` (300).
const FAR_BEHIND: u64 = 400;

fn write_config(state: &Path, url: &str) {
    let dir = state.join("sei-console");
    std::fs::create_dir_all(&dir).expect("config dir");
    std::fs::write(
        dir.join("config.toml"),
        format!("[chains.\"pacific-1\"]\nreference_rpc = \"{url}\"\n"),
    )
    .expect("write config.toml");
}

/// Polls `get -o json` until `done` holds for `node`'s chain health; returns it.
async fn wait_for(
    ns: &TestNamespace,
    state: &Path,
    node: &str,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let started = Instant::now();
    let mut last = Value::Null;
    while started.elapsed() < Duration::from_secs(60) {
        last = health_by_name(ns, state)
            .await
            .remove(node)
            .unwrap_or_default();
        if done(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    panic!("{node}: {what} within 60 s; last: {last:#}");
}

#[tokio::test]
async fn a_node_behind_the_chains_reference_rpc_lags_against_it_and_an_unreachable_reference_falls_back_to_the_fleet_top()
 {
    let mut reference = Network::start_with_block_interval(
        NetworkSpec {
            chain_id: "pacific-1".into(),
            full_nodes: 0,
            seed: false,
        },
        Some(Duration::from_millis(20)),
    )
    .await;
    let fleet_chain = Network::start(NetworkSpec {
        chain_id: "pacific-1".into(),
        full_nodes: 0,
        seed: false,
    })
    .await;
    let reference_rpc = reference.validator.rpc.expect("reference RPC");
    let url = format!("http://{reference_rpc}");

    let ns = TestNamespace::new("chain-ref").await;
    let state = tempfile::tempdir().expect("state");
    write_config(state.path(), &url);
    running_full_nodes(
        &ns,
        &["hr-behind".to_owned()],
        IMAGE,
        &BTreeMap::new(),
        state.path(),
    )
    .await;
    annotate_rpc(
        &ns,
        "hr-behind",
        fleet_chain.validator.rpc.expect("fleet node RPC"),
    )
    .await;

    // The reference runs ahead: wait until the fleet's node is far behind it.
    let started = Instant::now();
    loop {
        let (ahead, behind) = (
            reference.validator.height().await.unwrap_or(0),
            fleet_chain.validator.height().await.unwrap_or(0),
        );
        if ahead > behind + FAR_BEHIND + 100 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "the reference ({ahead}) did not get {FAR_BEHIND} blocks ahead of the fleet's node \
             ({behind}) within 180 s"
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    }

    let health = wait_for(&ns, state.path(), "hr-behind", "lagging", |h| {
        h["state"] == "lagging"
    })
    .await;
    assert_eq!(health["verdict"]["source"], "reference", "{health:#}");
    let against = &health["lagAgainst"];
    assert_eq!(against["source"], "reference", "{health:#}");
    assert_eq!(against["referenceUrl"], url.as_str(), "{health:#}");
    assert!(against["referenceError"].is_null(), "{health:#}");
    let behind = against["behind"].as_u64().expect("behind");
    assert!(behind > 300, "{health:#}");
    assert_eq!(
        against["topHeight"].as_u64(),
        against["referenceHeight"].as_u64(),
        "{health:#}"
    );
    assert_eq!(
        against["topHeight"].as_u64().map(|top| top - behind),
        health["height"].as_u64(),
        "{health:#}"
    );

    // describe: JSON and the words.
    let (ok, out, err) = console(
        &["describe", "hr-behind", "-n", &ns.name, "-o", "json"],
        state.path(),
    )
    .await;
    assert!(ok, "{err}");
    let described: Value = serde_json::from_str(&out).expect("describe -o json");
    assert_eq!(
        described["chainHealth"]["lagAgainst"]["source"], "reference",
        "{described:#}"
    );
    let (ok, text, err) = console(&["describe", "hr-behind", "-n", &ns.name], state.path()).await;
    assert!(ok, "{err}");
    assert!(text.contains(&format!("behind reference {url}")), "{text}");
    assert!(
        text.contains(&format!("reference        {url} at ")),
        "{text}"
    );

    // The console reads the reference itself, off the render path, and says so in the row.
    let mut tui = console_as_operator(&ns).await;
    tui.model.settings.reference_rpc = [(
        "pacific-1".to_owned(),
        sei_console::chain::ReferenceUrl::parse(&url).expect("url"),
    )]
    .into();
    tui.model
        .fleet
        .set_references(sei_console::chain::reference::references_of(
            &tui.model.settings.reference_rpc,
        ));
    tui.until_within(
        "hr-behind lagging behind the reference",
        Duration::from_secs(60),
        |_, screen| {
            screen
                .lines()
                .any(|l| l.contains("hr-behind") && l.contains("↓ ") && l.contains(" ref"))
        },
    )
    .await;

    // The reference stops: unreachable, said so, and the lag falls back to the fleet top.
    reference.validator.stop();
    let health = wait_for(
        &ns,
        state.path(),
        "hr-behind",
        "the reference unreachable",
        |h| h["lagAgainst"]["source"] == "fleet-reference-unreachable",
    )
    .await;
    assert_eq!(health["state"], "in-sync", "{health:#}");
    let against = &health["lagAgainst"];
    assert_eq!(against["referenceError"]["kind"], "refused", "{health:#}");
    assert_eq!(
        against["behind"], 0,
        "its own height is the fleet top: {health:#}"
    );
    let (ok, text, err) = console(&["describe", "hr-behind", "-n", &ns.name], state.path()).await;
    assert!(ok, "{err}");
    assert!(
        text.contains(&format!("{url} unreachable: refused"))
            && text.contains("lag measured against the fleet top"),
        "{text}"
    );
    tui.until_within(
        "the node screen naming the unreachable reference",
        Duration::from_secs(30),
        |model, _| {
            model
                .fleet
                .reference("pacific-1")
                .is_some_and(|r| r.failure().is_some())
        },
    )
    .await;
}
