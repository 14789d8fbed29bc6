//! `sei-console seed probe NODE` on the real control plane: the published identity comes from the
//! SeiNode (`spec.externalAddress`, `spec.chainId`) and its node-key Secret; the seed itself is
//! a real sei-tendermint seed (`tests/tendermint_net`, peered to a kvstore validator) on a
//! loopback address published as the seed's external address, its Secret holding the seed's own
//! `node_key.json` as sei-tendermint wrote it.

use kube::api::{DynamicObject, PostParams};
use sei_console::actions::node_key::NodeKey;
use serde_json::{Value, json};

use tendermint_net::{Network, NetworkSpec};

use crate::common::console::cli;
use crate::common::{TestNamespace, seinode_resource};

/// A seed SeiNode `name` whose Secret holds `node_key_json`, published at `address`.
async fn seed(ns: &TestNamespace, name: &str, node_key_json: &str, address: Option<&str>) {
    ns.create_node_key_secret(&format!("{name}-node-key"), node_key_json)
        .await;
    let mut spec = json!({"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0",
        "seed": {"nodeKey": {"secret": {"secretName": format!("{name}-node-key")}}}});
    if let Some(address) = address {
        spec["externalAddress"] = address.into();
    }
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.data = json!({ "spec": spec });
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create seed");
}

async fn probe(ns: &str, node: &str, extra: &[&str]) -> std::process::Output {
    let mut args: Vec<String> = ["seed", "probe", node, "-n", ns, "--timeout", "5s"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    tokio::task::spawn_blocking(move || {
        let state = tempfile::tempdir().expect("tempdir");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cli(&args, state.path())
    })
    .await
    .expect("join")
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == name)
        .expect("check")
}

#[tokio::test(flavor = "multi_thread")]
async fn seed_probe_node_checks_the_published_identity_against_the_seed() {
    let ns = TestNamespace::new("seed-probe").await;
    let network = Network::start(NetworkSpec::validator_and_seed("pacific-1")).await;
    let real = network.seed();
    let address = real.p2p.to_string();
    seed(&ns, "seed-0", &real.node_key_json(), Some(&address)).await;

    let out = probe(&ns.name, "seed-0", &[]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!(
            "✓ node ID         {} = published (node-key Secret seed-0-node-key)",
            real.node_id
        )),
        "{text}"
    );
    assert!(text.contains("result: OK"), "{text}");
    assert!(
        text.contains(&network.validator.node_id),
        "the seed hands out its validator: {text}"
    );

    // The Secret holds one key, the seed authenticates with another.
    let other = NodeKey::from_seed(&[0x5e; 32]);
    seed(
        &ns,
        "seed-1",
        other.to_node_key_json().expose(),
        Some(&address),
    )
    .await;
    let out = probe(&ns.name, "seed-1", &["-o", "json"]).await;
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(check(&report, "node-id")["verdict"], "fail");
    assert_eq!(check(&report, "network")["verdict"], "pass");
    assert_eq!(
        report["expected"]["nodeIdSource"],
        "node-key Secret seed-1-node-key"
    );

    // --chain-id overrides spec.chainId: the same healthy seed is then on the wrong network.
    let out = probe(
        &ns.name,
        "seed-0",
        &["-o", "json", "--chain-id", "atlantic-2"],
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(check(&report, "network")["verdict"], "fail");
    assert_eq!(report["expected"]["chainId"], "atlantic-2");

    // Unpublished: nothing to dial.
    let unpublished = NodeKey::from_seed(&[9; 32]);
    seed(&ns, "seed-2", unpublished.to_node_key_json().expose(), None).await;
    let out = probe(&ns.name, "seed-2", &[]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has no spec.externalAddress"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = probe(&ns.name, "no-such-seed", &[]).await;
    assert_eq!(out.status.code(), Some(2));
}
