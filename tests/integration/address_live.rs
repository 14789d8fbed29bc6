//! Issue 33, "actions end on what is true": `sei-console address` on the real control plane with
//! the node's real seictl ends with seid restarted (its pod deleted and created again: the
//! StatefulSet does not change, so the plan's `replace-pod` restarts nothing) and the new
//! address read back through the P2P handshake of a real sei-tendermint node.
//!
//! The node's seid is a real sei-tendermint full node on 127.0.0.1 (tests/tendermint_net), run
//! by a test stand-in for the kubelet, named honestly: each time pod `full-0-0` is created again
//! (a new UID) it restarts that node with the `[p2p] external-address` of the config.toml the
//! real seictl wrote in the node's home (`sidecars/<ns>/full-0/config/config.toml`), as seid
//! reads config.toml at start. The node's key is in that home too, so the sidecar's
//! `/v0/node-id` is the NodeID the node authenticates as.
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::ListParams;

use super::address_e2e::pod_uid;
use crate::common::TestNamespace;
use crate::common::console::{console, running_full_nodes, sidecar_home};
use tendermint_net::{Mode, Network, NetworkSpec, Node, Peering, START_TIMEOUT};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

/// `[p2p] external-address` of a config.toml (empty when unset).
fn external_address(config: &std::path::Path) -> String {
    let text = std::fs::read_to_string(config).unwrap_or_default();
    let doc: toml_edit::DocumentMut = text.parse().unwrap_or_default();
    doc.get("p2p")
        .and_then(|p2p| p2p.get("external-address"))
        .and_then(|a| a.as_str())
        .unwrap_or_default()
        .to_owned()
}

/// Writes `address` as the node's own `p2p.external-address`.
fn set_external_address(node: &Node, address: &str) {
    let config = node.home.join("config/config.toml");
    let text = std::fs::read_to_string(&config).expect("config.toml");
    let mut doc: toml_edit::DocumentMut = text.parse().expect("config.toml is TOML");
    doc["p2p"]["external-address"] = toml_edit::value(address);
    std::fs::write(&config, doc.to_string()).expect("write config.toml");
}

/// The kubelet stand-in: restarts `seid` with the sidecar home's external address each time
/// pod `full-0-0` gets a new UID. Runs until aborted.
fn play_kubelet(ns: &TestNamespace, seid: Arc<Mutex<Node>>) -> tokio::task::JoinHandle<()> {
    let pods = ns.api::<Pod>();
    let config = sidecar_home(&ns.name, "full-0").join("config/config.toml");
    tokio::spawn(async move {
        let mut running = String::new();
        loop {
            if let Ok(pod) = pods.get("full-0-0").await {
                let uid = pod.metadata.uid.unwrap_or_default();
                if !running.is_empty() && uid != running {
                    let address = external_address(&config);
                    let mut seid = seid.lock().expect("lock");
                    seid.stop();
                    set_external_address(&seid, &address);
                    seid.start();
                }
                running = uid;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
}

#[tokio::test]
async fn the_address_is_live_after_seid_restarted_as_its_p2p_handshake_shows() {
    let ns = TestNamespace::new("address-live").await;
    let state = tempfile::tempdir().expect("tempdir");
    running_full_nodes(
        &ns,
        &["full-0".to_owned()],
        IMAGE,
        &BTreeMap::new(),
        state.path(),
    )
    .await;
    let network = Network::start(NetworkSpec {
        chain_id: "pacific-1".to_owned(),
        full_nodes: 0,
        seed: false,
    })
    .await;
    let mut seid = network.init_node(
        "seid-full-0",
        Mode::Full,
        Peering {
            to_validator: true,
            advertise_self: false,
            pex: true,
        },
    );
    // seid's key lives in the node's home, where the sidecar reads /v0/node-id.
    let home = sidecar_home(&ns.name, "full-0");
    std::fs::write(home.join("config/node_key.json"), seid.node_key_json()).expect("key");
    seid.start();
    seid.wait_for_p2p(START_TIMEOUT).await;
    let address = seid.p2p.to_string();
    let seid = Arc::new(Mutex::new(seid));
    let kubelet = play_kubelet(&ns, seid.clone());
    let before = pod_uid(&ns).await;

    let run = console(
        &[
            "address",
            "full-0",
            "-n",
            &ns.name,
            "--external-address",
            &address,
            "--yes",
            "--executor",
            "embedded",
        ],
        state.path(),
    )
    .await;
    kubelet.abort();
    assert!(run.ok, "{run:?}");
    let message = run.result()["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        message.starts_with(&format!("external address {address} live: seid restarted")),
        "{message}"
    );
    assert!(
        message.contains(&format!("it advertises {address} in its P2P handshake")),
        "{message}"
    );
    assert_ne!(pod_uid(&ns).await, before, "the pod was restarted");
    let checks = run.result()["probe"]["checks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let verdict = |name: &str| {
        checks
            .iter()
            .find(|c| c["check"] == name)
            .map(|c| c["verdict"].clone())
    };
    assert_eq!(verdict("self-address"), Some("pass".into()), "{checks:?}");
    assert_eq!(verdict("node-id"), Some("pass".into()), "{checks:?}");

    // The verdict on the node (Event) and in the journal.
    let events = ns
        .api::<Event>()
        .list(&ListParams::default())
        .await
        .expect("events");
    assert!(
        events.items.iter().any(|e| {
            e.reason.as_deref() == Some("ConsoleExternalAddress")
                && e.message.as_deref().is_some_and(|m| m.contains(&message))
        }),
        "no Event with the verdict: {:?}",
        events.items.iter().map(|e| &e.message).collect::<Vec<_>>()
    );
    let journal =
        std::fs::read_to_string(state.path().join("sei-console/journal.jsonl")).unwrap_or_default();
    let last: serde_json::Value = journal
        .lines()
        .rev()
        .filter_map(|l| serde_json::from_str(l).ok())
        .find(|l: &serde_json::Value| l["action"] == "address")
        .expect("journal line");
    assert_eq!(last["outcome"], "succeeded", "{last}");
    assert_eq!(last["reason"], message.as_str());
}
