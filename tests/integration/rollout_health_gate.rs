//! A rollout's health gate against real sei-tendermint nodes (tests/tendermint_net): two
//! Running SeiNodes whose pod port 26657 the control plane forwards to real nodes' RPC (the
//! `sei-console.test/rpc` annotation), rolled by `sei-console rollout` as the token operator
//! over the production path (port-forwards through the API server). A canary mapped to a
//! caught-up node passes the gate after a short soak and the next wave starts; once the
//! validator stops (the chain stalls) the next rollout halts at the canary, with the verdict
//! in the journal and the Console Event, and the other node untouched.
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::core::v1::Event;
use kube::api::{ListParams, Patch, PatchParams};
use serde_json::{Value, json};

use crate::common::TestNamespace;
use crate::common::console::{console_in, production_env, running_full_nodes};
use tendermint_net::{Mode, Network, NetworkSpec, Peering};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
const NEWER: &str = "ghcr.io/sei-protocol/sei:v6.5.0";

async fn annotate_rpc(ns: &TestNamespace, node: &str, rpc: std::net::SocketAddr) {
    let patch = json!({"metadata": {"annotations": {"sei-console.test/rpc": rpc.to_string()}}});
    ns.seinodes()
        .patch(node, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("annotate SeiNode");
}

fn journal(state: &Path) -> Vec<Value> {
    std::fs::read_to_string(state.join("sei-console/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The journal's reason of the last `outcome` line of a rollout of `node`.
fn journal_reason(state: &Path, node: &str, outcome: &str, image: &str) -> Option<String> {
    let node = format!("/{node}");
    journal(state)
        .into_iter()
        .rev()
        .find(|e| {
            e["action"] == "rollout"
                && e["outcome"] == outcome
                && e["detail"] == format!("image {image}")
                && e["nodes"].as_array().is_some_and(|n| {
                    n.iter()
                        .any(|n| n.as_str().is_some_and(|n| n.ends_with(&node)))
                })
        })
        .and_then(|e| e["reason"].as_str().map(str::to_owned))
}

async fn event_messages(ns: &TestNamespace, node: &str) -> Vec<String> {
    ns.api::<Event>()
        .list(&ListParams::default().fields(&format!("involvedObject.name={node}")))
        .await
        .expect("events")
        .items
        .into_iter()
        .filter_map(|e| e.message)
        .collect()
}

async fn rollout(
    ns: &TestNamespace,
    image: &str,
    extra: &[&str],
    state: &Path,
) -> crate::common::console::Run {
    let mut args = vec![
        "rollout",
        "gate-a",
        "gate-b",
        "-n",
        &ns.name,
        "--image",
        image,
        "--yes",
        "--executor",
        "embedded",
        "--canary",
        "1",
        "--batch",
        "1",
    ];
    args.extend_from_slice(extra);
    console_in(production_env(), &args, state, &[]).await
}

#[tokio::test]
async fn a_gated_rollout_passes_on_caught_up_nodes_and_halts_at_a_stalled_canary() {
    let mut network = Network::start(NetworkSpec {
        chain_id: "pacific-1".into(),
        full_nodes: 0,
        seed: false,
    })
    .await;
    // Two full nodes peered to the validator and to each other: two block-sync peers each, so
    // both report caught up.
    let full_a = network.add_node("full-a", Mode::Full, Peering::default());
    let full_b =
        network.add_node_with_peers("full-b", Mode::Full, Peering::default(), &[full_a.peer()]);
    for node in [&full_a, &full_b] {
        node.wait_for_height_above(1, Duration::from_secs(90)).await;
    }

    let ns = TestNamespace::new("health-gate").await;
    let state = tempfile::tempdir().expect("state");
    let names = ["gate-a".to_owned(), "gate-b".to_owned()];
    running_full_nodes(&ns, &names, OLD, &BTreeMap::new(), state.path()).await;
    annotate_rpc(&ns, "gate-a", full_b.rpc.expect("full-b RPC")).await;
    annotate_rpc(&ns, "gate-b", full_a.rpc.expect("full-a RPC")).await;

    // Passes: the canary is caught up and advancing through the 5 s soak, then wave 2 starts.
    let run = rollout(
        &ns,
        NEW,
        &["--soak", "5s", "--health-timeout", "90s"],
        state.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");
    let notes = run.notes();
    let preview = run
        .lines
        .iter()
        .find(|l| l["event"] == "healthGate")
        .unwrap_or_else(|| panic!("the gate in the JSON preview: {run:?}"));
    assert_eq!(preview["healthGate"]["soakSeconds"], 5, "{preview}");
    assert_eq!(preview["healthGate"]["timeoutSeconds"], 90, "{preview}");
    let passed = notes
        .iter()
        .position(|n| n.starts_with("gate-a: health gate passed after"))
        .unwrap_or_else(|| panic!("the canary's verdict: {notes:#?}"));
    let wave_two = notes
        .iter()
        .position(|n| *n == "wave 2 of 2: gate-b")
        .unwrap_or_else(|| panic!("wave 2: {notes:#?}"));
    assert!(passed < wave_two, "{notes:#?}");
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("gate-a: health gate: height ") && n.contains("caught up")),
        "a live line: {notes:#?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("gate-b: health gate passed after")),
        "the last wave is gated too: {notes:#?}"
    );
    let reason = journal_reason(state.path(), "gate-a", "succeeded", NEW);
    assert!(
        reason
            .as_deref()
            // The first reading 5 s or more into the soak (read every 2 s).
            .is_some_and(|r| r.starts_with("health gate passed after ")
                && r.contains("s soak (caught up, height ")),
        "{:#?}",
        journal(state.path())
    );
    let events = event_messages(&ns, "gate-a").await;
    assert!(
        events
            .iter()
            .any(|m| m.contains("via sei-console: health gate passed after")),
        "{events:#?}"
    );

    // Halts: the validator stops, the chain stalls; the canary's height stands still.
    network.validator.stop();
    let run = rollout(
        &ns,
        NEWER,
        &["--soak", "5s", "--health-timeout", "20s"],
        state.path(),
    )
    .await;
    assert!(!run.ok, "{run:?}");
    let result = run.result();
    assert_eq!(result["failedNode"], "gate-a", "{result}");
    let message = result["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!(
            "rollout halted at {}/gate-a: health gate halted: height stuck at ",
            ns.name
        )),
        "{message}"
    );
    let gate_b = ns.seinodes().get("gate-b").await.expect("get");
    assert_eq!(
        gate_b.data["spec"]["image"], NEW,
        "the next wave never started"
    );
    let reason = journal_reason(state.path(), "gate-a", "failed", NEWER);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.starts_with("health gate halted: height stuck at ")),
        "{:#?}",
        journal(state.path())
    );
    let events = event_messages(&ns, "gate-a").await;
    assert!(
        events
            .iter()
            .any(|m| m.contains("health gate halted: height stuck at ")),
        "{events:#?}"
    );
}
