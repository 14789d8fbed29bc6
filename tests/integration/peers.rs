//! Peers in previews and persisted plans: resolved as the controller's reconcile does before it
//! plans (static sorted and de-duplicated, an empty `spec.peers` empties the set, an EC2 source
//! keeps `status.resolvedPeers`, a label source lists the matching SeiNodes and reads each
//! peer's node ID from its sidecar), so the config-patch's `persistent-peers` a preview shows
//! is the one the controller would store and the one the console persists.
use std::collections::BTreeMap;

use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common::console::{
    cli_as, console_with, node_reported_running, running_full_nodes, sidecar_home,
};
use crate::common::{TestNamespace, control_plane, seinode_resource};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

async fn node_with_peers(ns: &TestNamespace, name: &str, peers: Value, prior: Value) {
    node_reported_running(ns, name, OLD).await;
    let spec = json!({"spec": {"peers": peers}});
    ns.seinodes()
        .patch(name, &PatchParams::default(), &Patch::Merge(&spec))
        .await
        .expect("spec.peers");
    let status = json!({"status": {"resolvedPeers": prior}});
    ns.seinodes()
        .patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("status.resolvedPeers");
}

fn persistent_peers(config_patch: &Value) -> Option<String> {
    config_patch["config.toml"]["p2p"]["persistent-peers"]
        .as_str()
        .map(str::to_owned)
}

/// The previewed `persistent-peers` of `rollout NODE --dry-run -o json`, and the notes.
fn previewed(ns: &TestNamespace, node: &str, state: &std::path::Path) -> (Option<String>, String) {
    let out = cli_as(
        &[
            "rollout",
            "--no-health-gate",
            node,
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--dry-run",
            "-o",
            "json",
        ],
        &control_plane().kubeconfig,
        state,
    );
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let preview: Value = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["event"] == "preview")
        .expect("preview line");
    (persistent_peers(&preview["preview"]["configPatch"]), stdout)
}

#[tokio::test]
async fn previews_and_persisted_plans_carry_the_peers_the_controller_would_resolve() {
    let ns = TestNamespace::new("peers").await;
    let state = tempfile::tempdir().expect("tempdir");
    node_with_peers(
        &ns,
        "static-0",
        json!([{"static": {"addresses": ["b@10.0.0.2:26656", "a@10.0.0.1:26656", "a@10.0.0.1:26656"]}}]),
        json!(["stale@10.0.0.9:26656"]),
    )
    .await;
    node_with_peers(&ns, "empty-0", json!([]), json!(["stale@10.0.0.9:26656"])).await;
    node_with_peers(
        &ns,
        "ec2-0",
        json!([{"ec2Tags": {"region": "eu-west-1", "tags": {"role": "seed"}}}]),
        json!(["e@10.0.0.5:26656"]),
    )
    .await;

    let (fixed, _) = previewed(&ns, "static-0", state.path());
    assert_eq!(
        fixed.as_deref(),
        Some("a@10.0.0.1:26656,b@10.0.0.2:26656"),
        "sorted, deduplicated, the stale prior set dropped"
    );
    let (empty, _) = previewed(&ns, "empty-0", state.path());
    assert_eq!(
        empty.as_deref(),
        Some(""),
        "an empty spec.peers empties the set"
    );
    let (ec2, stdout) = previewed(&ns, "ec2-0", state.path());
    assert_eq!(
        ec2.as_deref(),
        Some("e@10.0.0.5:26656"),
        "EC2 keeps the prior set"
    );
    assert!(
        stdout.contains("an EC2 source keeps status.resolvedPeers"),
        "{stdout}"
    );

    // Persisted: the same peers in the stored plan's config-patch, and in status.resolvedPeers.
    let out = cli_as(
        &[
            "rollout",
            "--no-health-gate",
            "static-0",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--yes",
            "--no-wait",
            "-o",
            "json",
        ],
        &control_plane().kubeconfig,
        state.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let node = ns.seinodes().get("static-0").await.expect("get");
    let tasks = node.data["status"]["plan"]["tasks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let patch = tasks
        .iter()
        .find(|t| t["type"] == "config-patch")
        .expect("config-patch task");
    assert_eq!(persistent_peers(&patch["params"]["files"]), fixed);
    assert_eq!(
        node.data["status"]["resolvedPeers"],
        json!(["a@10.0.0.1:26656", "b@10.0.0.2:26656"])
    );
}

fn write_node_key(home: &std::path::Path, seed: u8) {
    use base64::Engine as _;
    let key = ed25519_dalek::SigningKey::from_bytes(&[seed; 32]).to_keypair_bytes();
    let file = json!({"priv_key": {
        "type": "tendermint/PrivKeyEd25519",
        "value": base64::engine::general_purpose::STANDARD.encode(key),
    }});
    std::fs::create_dir_all(home.join("config")).expect("config dir");
    std::fs::write(home.join("config/node_key.json"), file.to_string()).expect("node_key.json");
}

fn stored_plan_peers(node: &DynamicObject) -> Option<String> {
    node.data["status"]["plan"]["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["type"] == "config-patch")
        .and_then(|t| persistent_peers(&t["params"]["files"]))
}

/// A label source (upstream `resolveLabel`): the SeiNodes of the namespace matching the
/// selector, the node itself left out, each composed as `<node ID from its sidecar>@<its
/// spec.externalAddress, else the headless Service DNS at 26656>`; in the preview, the
/// persisted plan and `status.resolvedPeers`.
#[tokio::test]
async fn a_label_source_lists_the_matching_seinodes_and_reads_each_peers_node_id_from_its_sidecar()
{
    let ns = TestNamespace::new("peers-label").await;
    let state = tempfile::tempdir().expect("tempdir");
    let rpc = BTreeMap::from([("tier".to_owned(), "rpc".to_owned())]);
    let names = ["peer-a", "peer-b", "me"].map(str::to_owned);
    running_full_nodes(&ns, &names, OLD, &rpc, state.path()).await;
    // Not matched: another tier (never asked for its node ID, it has no sidecar).
    let mut archive = DynamicObject::new("archive-0", &seinode_resource());
    archive.metadata.labels = Some(BTreeMap::from([("tier".to_owned(), "archive".to_owned())]));
    archive.data = json!({"spec": {"chainId": "pacific-1", "image": OLD, "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &archive)
        .await
        .expect("create archive-0");
    let merge = |v: Value| Patch::Merge(v);
    ns.seinodes()
        .patch(
            "peer-b",
            &PatchParams::default(),
            &merge(json!({"spec": {"externalAddress": "127.0.0.2:26656"}})),
        )
        .await
        .expect("externalAddress");
    ns.seinodes()
        .patch(
            "me",
            &PatchParams::default(),
            &merge(json!({"spec": {"peers": [{"label": {"selector": {"tier": "rpc"}}}]}})),
        )
        .await
        .expect("spec.peers");
    // seid writes its node key at first start (tendermint `LoadOrGenNodeKey`); the stand-in
    // runs no seid, so the test writes it where the sidecar reads it.
    // Keys for the node itself and the unmatched one too: were either listed, its ID would show.
    for (seed, name) in [
        (7u8, "peer-a"),
        (9, "peer-b"),
        (11, "me"),
        (13, "archive-0"),
    ] {
        write_node_key(&sidecar_home(&ns.name, name), seed);
    }
    let node_id = |name: &str| {
        sidecar_standin::tasks::node_id(&sidecar_home(&ns.name, name)).expect("peer's node ID")
    };
    let mut expected = vec![
        format!(
            "{}@peer-a-0.peer-a.{}.svc.cluster.local:26656",
            node_id("peer-a"),
            ns.name
        ),
        format!("{}@127.0.0.2:26656", node_id("peer-b")),
    ];
    expected.sort();

    let args = [
        "rollout",
        "--no-health-gate",
        "me",
        "-n",
        &ns.name,
        "--image",
        NEW,
    ];
    let dry = console_with(&[&args[..], &["--dry-run"]].concat(), state.path(), &[]).await;
    assert!(dry.ok, "{dry:?}");
    let preview = dry
        .lines
        .iter()
        .find(|l| l["event"] == "preview")
        .expect("preview line");
    let previewed = persistent_peers(&preview["preview"]["configPatch"]);
    assert_eq!(previewed, Some(expected.join(",")), "{preview}");

    let run = console_with(
        &[&args[..], &["--yes", "--no-wait"]].concat(),
        state.path(),
        &[],
    )
    .await;
    assert!(run.ok, "{run:?}");
    let node = ns.seinodes().get("me").await.expect("get");
    assert_eq!(stored_plan_peers(&node), previewed);
    assert_eq!(node.data["status"]["resolvedPeers"], json!(expected));
    eprintln!("label peers: {}", expected.join(","));
}
