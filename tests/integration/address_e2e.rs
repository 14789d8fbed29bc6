//! `sei-console address` to the end with the embedded executor and the nodes' real seictl: the
//! new external address reaches the node's `config.toml` (config-patch applied to the real TOML
//! file under the control plane's `sidecars/<namespace>/<node>/config/`); with `--no-restart`
//! it is written but not live, and the end line says so; without it seid is restarted and the
//! address it advertises is read back from a real sei-tendermint node's P2P handshake
//! (`address_live.rs`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;

use crate::common::TestNamespace;
use crate::common::console::{console, running_full_nodes, sidecar_home};

const ADDRESS: &str = "203.0.113.7:26656";

#[tokio::test]
async fn the_new_external_address_reaches_the_nodes_config_toml() {
    let ns = TestNamespace::new("address-e2e").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["full-0".to_owned()];
    running_full_nodes(
        &ns,
        &names,
        "ghcr.io/sei-protocol/sei:v6.3.0",
        &BTreeMap::new(),
        state.path(),
    )
    .await;
    let pod_before = pod_uid(&ns).await;
    let run = console(
        &[
            "address",
            "full-0",
            "-n",
            &ns.name,
            "--external-address",
            ADDRESS,
            "--yes",
            "--executor",
            "embedded",
            "--no-restart",
        ],
        state.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");
    let message = run.result()["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("not live") && message.contains("seid reads config.toml only at start"),
        "{message}"
    );
    assert_eq!(
        pod_uid(&ns).await,
        pod_before,
        "--no-restart: the pod was not restarted"
    );
    let finished = run
        .lines
        .iter()
        .find(|l| l["event"] == "plan-finished")
        .unwrap_or_else(|| panic!("no plan-finished: {run:?}"));
    assert_eq!(finished["phase"], "Complete");
    let config = sidecar_home(&ns.name, "full-0")
        .join("config")
        .join("config.toml");
    let text = std::fs::read_to_string(&config)
        .unwrap_or_else(|e| panic!("read {}: {e}", config.display()));
    let doc: toml_edit::DocumentMut = text.parse().expect("config.toml is TOML");
    assert_eq!(
        doc["p2p"]["external-address"].as_str(),
        Some(ADDRESS),
        "{text}"
    );
}

/// The UID of pod `full-0-0`.
pub async fn pod_uid(ns: &TestNamespace) -> String {
    let pod = ns.api::<Pod>().get("full-0-0").await.expect("pod");
    pod.metadata.uid.unwrap_or_default()
}
