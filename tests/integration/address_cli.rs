//! `sei-console address` against the real API server: the preview names the config-patch change
//! and why the action exists; `--yes --no-wait` sets the address and persists the update plan
//! whose config-patch carries it.

use k8s_openapi::api::core::v1::Event;
use kube::api::ListParams;

use crate::common::TestNamespace;
use crate::common::console::{cli, node_reported_running};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const ADDRESS: &str = "203.0.113.7:26656";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn dry_run_shows_the_config_patch_change_and_the_propagation_note() {
    let ns = TestNamespace::new("address-dry").await;
    node_reported_running(&ns, "rpc-0", IMAGE).await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = cli(
        &[
            "address",
            "rpc-0",
            "-n",
            &ns.name,
            "--external-address",
            ADDRESS,
            "--dry-run",
        ],
        state.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "config.toml [p2p] external-address: (unset) -> {ADDRESS}"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("external-address = \"{ADDRESS}\"")),
        "{stdout}"
    );
    assert!(
        stdout.contains("would not propagate this address change until the next image roll"),
        "{stdout}"
    );
    let node = ns.seinodes().get("rpc-0").await.expect("get");
    assert!(node.data["spec"]["externalAddress"].is_null());
}

#[tokio::test]
async fn bad_address_is_bad_input() {
    let state = tempfile::tempdir().expect("tempdir");
    let out = cli(
        &[
            "address",
            "rpc-0",
            "-n",
            "x",
            "--external-address",
            "tcp://1.2.3.4:26656",
        ],
        state.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("has a scheme"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn yes_no_wait_sets_the_address_and_persists_the_plan_that_carries_it() {
    let ns = TestNamespace::new("address-apply").await;
    node_reported_running(&ns, "rpc-0", IMAGE).await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = cli(
        &[
            "address",
            "rpc-0",
            "-n",
            &ns.name,
            "--external-address",
            ADDRESS,
            "--yes",
            "--no-wait",
            "-o",
            "json",
        ],
        state.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let last = text(&out.stdout).lines().last().unwrap_or("").to_owned();
    assert!(
        last.contains("\"event\":\"result\"") && last.contains("\"ok\":true"),
        "{last}"
    );
    let node = ns.seinodes().get("rpc-0").await.expect("get");
    assert_eq!(node.data["spec"]["externalAddress"], ADDRESS);
    let plan = &node.data["status"]["plan"];
    assert_eq!(plan["phase"], "Active");
    let patch = plan["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .find(|t| t["type"] == "config-patch")
        .expect("config-patch task");
    assert_eq!(
        patch["params"]["files"]["config.toml"]["p2p"]["external-address"],
        ADDRESS
    );
    let events = ns
        .api::<Event>()
        .list(&ListParams::default())
        .await
        .expect("events");
    assert!(
        events
            .items
            .iter()
            .any(|e| e.reason.as_deref() == Some("ConsoleExternalAddress"))
    );
    // A second run finds the Active plan and changes nothing.
    let again = cli(
        &[
            "address",
            "rpc-0",
            "-n",
            &ns.name,
            "--external-address",
            "198.51.100.1:26656",
            "--yes",
        ],
        state.path(),
    );
    // It would follow that plan first (a rerun finishes an Active plan); the admin identity's
    // client certificate cannot drive the sidecar, so it is refused before any change.
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("nothing was changed"),
        "{}",
        text(&again.stderr)
    );
    let node = ns.seinodes().get("rpc-0").await.expect("get");
    assert_eq!(node.data["spec"]["externalAddress"], ADDRESS);
}
