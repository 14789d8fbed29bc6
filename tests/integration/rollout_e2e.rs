//! `sei-console rollout` to the end with the embedded executor, against the real control plane
//! and the stand-in sidecars: two Running full nodes rolled in two waves (canary, then a batch),
//! each plan Complete and each node's currentImage the new image.

use std::collections::HashMap;
use std::process::Stdio;

use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{DynamicObject, PostParams};
use serde_json::{Value, json};

use crate::common::{TestNamespace, control_plane, seinode_resource};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

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
async fn two_nodes_roll_in_a_canary_and_a_batch_to_the_new_image() {
    let ns = TestNamespace::new("rollout-e2e").await;
    let sa: ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": "seid-node"}})).expect("sa");
    ns.api::<ServiceAccount>()
        .create(&PostParams::default(), &sa)
        .await
        .expect("service account");
    let state = tempfile::tempdir().expect("tempdir");
    for name in ["full-0", "full-1"] {
        let mut node = DynamicObject::new(name, &seinode_resource());
        node.data = json!({"spec": {"chainId": "pacific-1", "image": OLD, "fullNode": {}}});
        ns.seinodes()
            .create(&PostParams::default(), &node)
            .await
            .expect("create SeiNode");
        let (ok, lines, stderr) = console(
            &[
                "exec",
                name,
                "-n",
                &ns.name,
                "--executor",
                "embedded",
                "--yes",
            ],
            state.path(),
        )
        .await;
        assert!(ok, "init of {name}: {lines:?} {stderr}");
    }
    let (ok, lines, stderr) = console(
        &[
            "rollout",
            "full-0",
            "full-1",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--yes",
            "--executor",
            "embedded",
            "--canary",
            "1",
            "--batch",
            "1",
        ],
        state.path(),
    )
    .await;
    assert!(ok, "{lines:?} {stderr}");
    let result = lines.last().expect("result line");
    assert_eq!(result["event"], "result");
    assert_eq!(result["ok"], true);
    let notes: Vec<&str> = lines
        .iter()
        .filter(|l| l["event"] == "note")
        .filter_map(|l| l["message"].as_str())
        .collect();
    assert!(notes.contains(&"wave 1 of 2: full-0"), "{notes:?}");
    assert!(notes.contains(&"wave 2 of 2: full-1"), "{notes:?}");
    for name in ["full-0", "full-1"] {
        let finished = lines
            .iter()
            .find(|l| l["event"] == "plan-finished" && l["node"] == name)
            .unwrap_or_else(|| panic!("no plan-finished for {name}: {lines:?}"));
        assert_eq!(finished["phase"], "Complete");
        let node = ns.seinodes().get(name).await.expect("get");
        assert_eq!(node.data["status"]["currentImage"], NEW, "{name}");
        assert_eq!(node.data["status"]["phase"], "Running");
    }
}
