//! `sei-console address` to the end with the embedded executor and the stand-in sidecars: the
//! new external address reaches the node's `config.toml` (the stand-in applies config-patch to a
//! real TOML file under the control plane's `sidecars/<namespace>/<node>/config/`).

use std::collections::HashMap;
use std::process::Stdio;

use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{DynamicObject, PostParams};
use serde_json::{Value, json};

use crate::common::{TestNamespace, control_plane, seinode_resource};

const ADDRESS: &str = "203.0.113.7:26656";

fn console_env() -> HashMap<String, String> {
    std::fs::read_to_string(control_plane().dir.join("console.env"))
        .expect("start writes DIR/console.env")
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect()
}

async fn console(args: &[&str], state: &std::path::Path) -> (bool, Vec<Value>, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(console_env())
        .env("XDG_STATE_HOME", state)
        .env("XDG_CONFIG_HOME", state)
        .args(args)
        .args(["--max-wait-ms", "300", "--timeout", "90", "-o", "json"])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run sei-console");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_new_external_address_reaches_the_nodes_config_toml() {
    let ns = TestNamespace::new("address-e2e").await;
    let sa: ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": "seid-node"}})).expect("sa");
    ns.api::<ServiceAccount>()
        .create(&PostParams::default(), &sa)
        .await
        .expect("service account");
    let state = tempfile::tempdir().expect("tempdir");
    let mut node = DynamicObject::new("full-0", &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1",
        "image": "ghcr.io/sei-protocol/sei:v6.3.0", "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
    let (ok, lines, stderr) = console(
        &[
            "exec",
            "full-0",
            "-n",
            &ns.name,
            "--executor",
            "embedded",
            "--yes",
        ],
        state.path(),
    )
    .await;
    assert!(ok, "init: {lines:?} {stderr}");
    let (ok, lines, stderr) = console(
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
        ],
        state.path(),
    )
    .await;
    assert!(ok, "{lines:?} {stderr}");
    let finished = lines
        .iter()
        .find(|l| l["event"] == "plan-finished")
        .unwrap_or_else(|| panic!("no plan-finished: {lines:?}"));
    assert_eq!(finished["phase"], "Complete");
    let config = control_plane()
        .dir
        .join("sidecars")
        .join(&ns.name)
        .join("full-0")
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
