//! The real seictl as the nodes' sidecar (issue 22): the control-plane add-on runs one
//! `seictl serve` (v0.0.68, built by `tests/control-plane/build seictl`) per SeiNode. These tests
//! show that the console's plans were executed by it, not by the stand-in: the tasks are in the
//! real sidecar's task list and its SQLite store (`sidecar.db`) in the node's home, the stand-in's
//! files are absent, and what the tasks wrote is what only the real one writes (the embedded
//! pacific-1 genesis).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use k8s_openapi::api::core::v1::Secret;
use sei_console::actions::node_key::NodeKey;
use sei_console::api::sidecar::{SidecarTaskType, TaskResult, TaskStatus};
use sei_console::ports::{SidecarApi, SidecarTarget};
use sei_console::sidecar::env::transport_from_env;
use sei_console::sidecar::http::HttpSidecar;

use crate::common::console::{
    console, console_env, create_node_service_account, running_full_nodes, sidecar_home,
};
use crate::common::real_seed::{KeyFrom, real_seed_for_new_seed};
use crate::common::{TestNamespace, wait_for};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

/// The console's direct sidecar client (console-direct.env), as the tests' console uses it.
fn sidecar() -> HttpSidecar {
    let env = console_env();
    let transport = transport_from_env(|name| env.get(name).cloned(), None).expect("transport");
    HttpSidecar::new(transport)
}

/// The node's home is the real seictl's: its SQLite store and its own log are there, the
/// stand-in's task file is not.
fn assert_real_home(home: &Path) {
    assert!(
        home.join("sidecar.db").is_file(),
        "{}: no sidecar.db",
        home.display()
    );
    assert!(
        home.join("logs/seictl-serve.log").is_file(),
        "{}: no seictl log",
        home.display()
    );
    assert!(
        !home.join("sidecar-standin-tasks.json").exists(),
        "{}: the stand-in served this node",
        home.display()
    );
}

/// The types of the completed tasks of the real sidecar's list.
fn completed(tasks: &[TaskResult]) -> Vec<SidecarTaskType> {
    tasks
        .iter()
        .filter(|task| task.status == TaskStatus::Completed)
        .map(|task| task.task_type.clone())
        .collect()
}

#[tokio::test]
async fn a_seed_bring_up_is_executed_by_the_real_seictl_whose_node_id_is_the_keys() {
    let ns = TestNamespace::new("real-seed").await;
    create_node_service_account(&ns).await;
    let p2p = real_seed_for_new_seed(&ns, "seed-0", KeyFrom::Secret).await;
    let address = p2p.external_address();
    let state = tempfile::tempdir().expect("tempdir");
    let run = console(
        &[
            "seed",
            "create",
            "seed-0",
            "-n",
            &ns.name,
            "--chain-id",
            "pacific-1",
            "--image",
            IMAGE,
            "--external-address",
            &address,
            "--executor",
            "embedded",
            "--yes",
        ],
        state.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");
    assert_eq!(run.result()["ok"], true, "{run:?}");

    let home = sidecar_home(&ns.name, "seed-0");
    assert_real_home(&home);
    let target = SidecarTarget::new(&ns.name, "seed-0");
    let sidecar = sidecar();
    let tasks = sidecar.list_tasks(&target).await.expect("real task list");
    let done = completed(&tasks);
    for kind in [
        SidecarTaskType::ConfigureGenesis,
        SidecarTaskType::ConfigApply,
        SidecarTaskType::ConfigValidate,
        SidecarTaskType::MarkReady,
    ] {
        assert!(done.contains(&kind), "{kind:?} not completed: {tasks:#?}");
    }
    // configure-genesis of the real seictl writes its embedded pacific-1 genesis (the stand-in
    // writes a minimal one of a few hundred bytes) and its marker.
    let genesis = std::fs::read_to_string(home.join("config/genesis.json")).expect("genesis");
    assert!(genesis.contains("\"pacific-1\""), "not pacific-1's genesis");
    assert!(
        genesis.len() > 10_000,
        "{} bytes: not the embedded genesis",
        genesis.len()
    );
    assert!(
        sidecar.healthz(&target).await.expect("healthz"),
        "mark-ready ran"
    );

    // /v0/node-id of the real sidecar is the Secret's key (mounted as kubelet would).
    let secret = ns
        .api::<Secret>()
        .get("seed-0-node-key")
        .await
        .expect("Secret");
    let json = &secret.data.as_ref().expect("data")["node_key.json"].0;
    let key = NodeKey::from_node_key_json(&String::from_utf8_lossy(json)).expect("key");
    let node_id = sidecar.node_id(&target).await.expect("node-id");
    assert_eq!(node_id, key.node_id().as_str());
    assert_eq!(run.result()["nodeId"], node_id.as_str());
}

#[tokio::test]
async fn a_rollouts_config_patch_is_executed_by_the_real_seictl() {
    let ns = TestNamespace::new("real-rollout").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["full-0".to_owned()];
    running_full_nodes(&ns, &names, IMAGE, &BTreeMap::new(), state.path()).await;
    let target = SidecarTarget::new(&ns.name, "full-0");
    let sidecar = sidecar();
    let before: Vec<String> = sidecar
        .list_tasks(&target)
        .await
        .expect("tasks")
        .into_iter()
        .map(|t| t.id)
        .collect();

    let run = console(
        &[
            "rollout",
            "--no-health-gate",
            "full-0",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--yes",
            "--executor",
            "embedded",
        ],
        state.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");

    let home = sidecar_home(&ns.name, "full-0");
    assert_real_home(&home);
    let tasks = sidecar.list_tasks(&target).await.expect("tasks");
    let patch = tasks
        .iter()
        .find(|t| t.task_type == SidecarTaskType::ConfigPatch && !before.contains(&t.id))
        .unwrap_or_else(|| panic!("no new config-patch on the real sidecar: {tasks:#?}"));
    assert_eq!(patch.status, TaskStatus::Completed, "{patch:?}");
    // The patch's [p2p] keys are in the real sidecar's config.toml.
    let config = std::fs::read_to_string(home.join("config/config.toml")).expect("config");
    assert!(config.contains("persistent-peers"), "{config}");
}

/// A restart of the real sidecar loses readiness (the stand-in's restart only simulated it):
/// the next embedded reconcile sees `/v0/healthz` 503, the node's `SidecarReady` goes
/// False/NotReady and a mark-ready plan makes it ready again, on the real sidecar.
#[tokio::test]
async fn a_restarted_real_sidecar_is_not_ready_until_the_console_marks_it_ready_again() {
    let ns = TestNamespace::new("real-restart").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["full-0".to_owned()];
    running_full_nodes(&ns, &names, IMAGE, &BTreeMap::new(), state.path()).await;
    let target = SidecarTarget::new(&ns.name, "full-0");
    let sidecar = sidecar();
    assert!(sidecar.healthz(&target).await.expect("healthz"));
    let init = completed(&sidecar.list_tasks(&target).await.expect("tasks"));
    assert!(
        init.contains(&SidecarTaskType::ConfigureGenesis),
        "{init:?}"
    );

    let env = console_env();
    let base = env["SEI_CONSOLE_SIDECAR_URL"]
        .replace("{namespace}", &ns.name)
        .replace("{node}", "full-0");
    let restarted = tokio::process::Command::new("curl")
        .args(["-fsS", "--max-time", "30", "-X", "POST"])
        .arg(format!("{base}/standin/restart"))
        .status()
        .await
        .expect("curl");
    assert!(restarted.success(), "restart of the real seictl");
    assert!(
        !sidecar.healthz(&target).await.expect("healthz"),
        "a restarted seictl is not ready"
    );
    // Its tasks survived (SQLite store in the home).
    let after = completed(&sidecar.list_tasks(&target).await.expect("tasks"));
    assert!(
        after.contains(&SidecarTaskType::ConfigureGenesis),
        "{after:?}"
    );

    let run = console(
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
    assert!(run.ok, "{run:?}");
    wait_for(
        "the real sidecar ready again",
        Duration::from_secs(30),
        || {
            let sidecar = &sidecar;
            let target = &target;
            async move { Ok(sidecar.healthz(target).await.unwrap_or(false).then_some(())) }
        },
    )
    .await;
    let node = ns.seinodes().get("full-0").await.expect("node");
    let conditions = node.data["status"]["conditions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ready = conditions
        .iter()
        .find(|c| c["type"] == "SidecarReady")
        .unwrap_or_else(|| panic!("no SidecarReady: {conditions:?}"));
    assert_eq!(ready["status"], "True", "{ready}");
}
