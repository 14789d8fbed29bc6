//! A seed's readiness in HEIGHT/LAG, `get -o wide|json` and `describe -o json` (issue 24: a seed
//! serves no RPC, its health is the P2P probe): ready when reachable as its published NodeID and
//! knowing at least one peer through PEX. `seed-0` is a real sei-tendermint seed
//! (`tests/tendermint_net`, dialling a kvstore validator) published at its loopback address with
//! its own node key in its Secret; `seed-dark` is published at a loopback port nothing listens on.
use kube::api::{DynamicObject, PostParams};
use serde_json::{Value, json};

use crate::common::console::cli;
use crate::common::{TestNamespace, seinode_resource};
use tendermint_net::{Network, NetworkSpec};

async fn seed(ns: &TestNamespace, name: &str, node_key_json: &str, address: &str) {
    ns.create_node_key_secret(&format!("{name}-node-key"), node_key_json)
        .await;
    let spec = json!({"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0",
        "externalAddress": address,
        "seed": {"nodeKey": {"secret": {"secretName": format!("{name}-node-key")}}}});
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.data = json!({ "spec": spec });
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create seed");
}

async fn run(args: Vec<String>) -> (bool, String, String) {
    tokio::task::spawn_blocking(move || {
        let state = tempfile::tempdir().expect("tempdir");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = cli(&args, state.path());
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    })
    .await
    .expect("join")
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_seed_is_ready_when_reachable_as_its_node_id_and_knowing_a_peer_and_shows_how_many() {
    let ns = TestNamespace::new("seed-ready").await;
    let network = Network::start(NetworkSpec::validator_and_seed("pacific-1")).await;
    let real = network.seed();
    seed(&ns, "seed-0", &real.node_key_json(), &real.p2p.to_string()).await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port");
    seed(&ns, "seed-dark", &real.node_key_json(), &closed.to_string()).await;

    let (ok, out, err) = run(args(&["get", "-n", &ns.name, "-o", "json"])).await;
    assert!(ok, "{err}");
    let items: Vec<Value> = serde_json::from_str(&out).expect("get -o json");
    let probe_of = |name: &str| {
        items
            .iter()
            .find(|i| i["name"] == name)
            .map(|i| i["seedProbe"].clone())
            .unwrap_or_else(|| panic!("{name} in {out}"))
    };
    let ready = probe_of("seed-0");
    assert_eq!(ready["ready"], true, "{ready:#}");
    assert_eq!(ready["reachable"], true, "{ready:#}");
    let peers = ready["pexPeers"].as_u64().expect("pexPeers");
    assert!(peers >= 1, "it knows the validator at least: {ready:#}");
    let plural = if peers == 1 { "peer" } else { "peers" };
    assert_eq!(ready["summary"], format!("✓ {peers} {plural}"), "{ready:#}");
    let dark = probe_of("seed-dark");
    assert_eq!(dark["ready"], false, "{dark:#}");
    assert_eq!(dark["reachable"], false, "{dark:#}");
    assert!(dark["pexPeers"].is_null(), "{dark:#}");
    assert_eq!(dark["summary"], "✗ unreachable", "{dark:#}");

    // The same cell in `get -o wide`'s HEIGHT/LAG column.
    let (ok, wide, err) = run(args(&["get", "-n", &ns.name, "-o", "wide"])).await;
    assert!(ok, "{err}");
    let line = |node: &str| {
        wide.lines()
            .find(|l| l.starts_with(&format!("{node} ")))
            .unwrap_or_else(|| panic!("{node} in {wide}"))
            .to_owned()
    };
    assert!(
        line("seed-0").contains(&format!("✓ {peers} {plural}")),
        "{wide}"
    );
    assert!(line("seed-dark").contains("✗ unreachable"), "{wide}");

    // describe -o json: the probe it made.
    let (ok, out, err) = run(args(&["describe", "seed-0", "-n", &ns.name, "-o", "json"])).await;
    assert!(ok, "{err}");
    let described: Value = serde_json::from_str(&out).expect("describe -o json");
    assert_eq!(described["seedProbe"]["ready"], true, "{described:#}");
    assert!(described["chainHealth"].is_null(), "seeds serve no RPC");
    assert_eq!(
        described["seedProbe"]["peer"],
        format!("{}@{}", real.node_id, real.p2p),
        "{described:#}"
    );
}
