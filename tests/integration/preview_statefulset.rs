//! The StatefulSet diff of `rollout --dry-run` and `address --dry-run` against the real API
//! server: the StatefulSet the node would get is applied with server-side apply `dryRun=All`
//! over the live object (nothing stored), and only meaningful fields show as changes.

use std::process::Output;

use k8s_openapi::api::apps::v1::StatefulSet;
use sei_console::api::SeiNode;
use sei_console::kube::cluster::KubeCluster;
use sei_console::platform::PlatformConfig;
use sei_console::ports::{ClusterApi, ClusterObject};
use sei_console::tasks::apply_statefulset::desired_statefulset;
use sei_console::tasks::platform_renderer::PlatformRenderer;
use serde_json::{Value, json};

use crate::common::console::{cli, node_reported_running};
use crate::common::{TestNamespace, repo_path};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

/// The StatefulSet the controller would have applied for the node as it is now.
async fn apply_live_statefulset(ns: &TestNamespace, name: &str) -> StatefulSet {
    let node: SeiNode = ns.api::<SeiNode>().get(name).await.expect("node");
    let platform = PlatformConfig::read_file(&repo_path("assets/demo/platform-config.yaml"))
        .expect("platform config");
    let desired = desired_statefulset(&PlatformRenderer::new(platform), &node).expect("render");
    match KubeCluster::new(ns.client.clone())
        .apply(&ClusterObject::StatefulSet(desired))
        .await
        .expect("apply")
    {
        ClusterObject::StatefulSet(live) => live,
        other => panic!("applied {other:?}"),
    }
}

fn preview_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|l| l["event"] == "preview")
        .expect("a preview line")
}

#[tokio::test]
async fn rollout_dry_run_diffs_the_dry_run_apply_against_the_live_statefulset() {
    let ns = TestNamespace::new("preview-sts").await;
    node_reported_running(&ns, "rpc-0", OLD).await;
    let live = apply_live_statefulset(&ns, "rpc-0").await;
    let state = tempfile::tempdir().expect("tempdir");
    let args = [
        "rollout",
        "rpc-0",
        "-n",
        &ns.name,
        "--image",
        NEW,
        "--dry-run",
    ];
    let mut json_args = args.to_vec();
    json_args.extend(["-o", "json"]);
    let preview = preview_json(&cli(&json_args, state.path()));
    let sts = &preview["preview"]["statefulset"];
    assert_eq!(sts["state"], "changes", "{sts}");
    let changes = sts["changes"].as_array().expect("changes");
    let paths: Vec<&str> = changes.iter().filter_map(|c| c["path"].as_str()).collect();
    assert_eq!(
        paths,
        [
            "spec.template.spec.initContainers[seid-init].image",
            "spec.template.spec.containers[seid].image"
        ],
        "only the image changes; server metadata churn never shows: {sts}"
    );
    assert!(
        changes
            .iter()
            .all(|c| c["before"] == OLD && c["after"] == NEW)
    );

    let text = cli(&args, state.path());
    let stdout = String::from_utf8_lossy(&text.stdout);
    assert!(
        stdout.contains(
            "StatefulSet rpc-0 (server-side dry run against the live object), 2 changes:"
        ) && stdout.contains(&format!(
            "~ spec.template.spec.containers[seid].image: \"{OLD}\" -> \"{NEW}\""
        )),
        "{stdout}"
    );

    // A dry run stores nothing (the StatefulSet controller may still write its status).
    let after = ns.api::<StatefulSet>().get("rpc-0").await.expect("sts");
    assert_eq!(
        after.spec, live.spec,
        "the live StatefulSet's spec is untouched"
    );
    assert_eq!(after.metadata.generation, live.metadata.generation);
}

#[tokio::test]
async fn address_dry_run_shows_an_unchanged_statefulset_and_a_missing_one_is_named() {
    let ns = TestNamespace::new("preview-sts-addr").await;
    node_reported_running(&ns, "rpc-1", OLD).await;
    let state = tempfile::tempdir().expect("tempdir");
    let args = [
        "address",
        "rpc-1",
        "-n",
        &ns.name,
        "--external-address",
        "203.0.113.9:26656",
        "--dry-run",
        "-o",
        "json",
    ];
    let preview = preview_json(&cli(&args, state.path()));
    assert_eq!(
        preview["preview"]["statefulset"],
        json!({"state": "no-live", "name": "rpc-1"})
    );

    apply_live_statefulset(&ns, "rpc-1").await;
    let preview = preview_json(&cli(&args, state.path()));
    assert_eq!(
        preview["preview"]["statefulset"],
        json!({"state": "unchanged", "name": "rpc-1"}),
        "the external address lives in config.toml, not in the StatefulSet"
    );
}
