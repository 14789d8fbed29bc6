//! Peers in previews and persisted plans: resolved as the controller's reconcile does before it
//! plans (static sorted and de-duplicated, an empty `spec.peers` empties the set, an EC2 source
//! keeps `status.resolvedPeers`), so the config-patch's `persistent-peers` a preview shows is
//! the one the controller would store and the one the console persists.

use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};

use crate::common::console::{cli_as, node_reported_running};
use crate::common::{TestNamespace, control_plane};

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
