//! `sei-console seed create` to the end with the embedded executor and the stand-in sidecars:
//! the control-plane add-on puts the node-key Secret where the pod would see it (the node's
//! `config/node_key.json`), so the sidecar's `/v0/node-id` is checked against the key; a sidecar
//! holding another key fails naming both NodeIDs; a platform config without `nodepoolSeed` is
//! refused before any change with its fix (the dry run says so too). Every seed is published
//! on a loopback address: a real sei-tendermint seed that starts with the generated key from the
//! Secret (the outside probe `seed create` ends with), or with its own key, or a closed port where
//! the run fails before the probe.

use std::process::Stdio;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::PostParams;
use sei_console::actions::node_key::NodeKey;
use serde_json::{Value, json};

use crate::common::console::{console_env, create_node_service_account};
use crate::common::real_seed::{KeyFrom, real_seed_for_new_seed};
use crate::common::{TestNamespace, control_plane, repo_path};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

struct Run {
    ok: bool,
    code: Option<i32>,
    lines: Vec<Value>,
    stdout: String,
    stderr: String,
}

impl Run {
    fn result(&self) -> &Value {
        let last = self.lines.last().expect("a result line");
        assert_eq!(last["event"], "result", "{last}");
        last
    }
}

async fn seed_create(ns: &str, name: &str, address: &str, extra: &[&str]) -> Run {
    seed_create_as(ns, name, address, extra, "json").await
}

/// `127.0.0.1:PORT` where nothing listens, for runs that end before the probe.
async fn closed_loopback_address() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("addr").to_string();
    drop(listener);
    address
}

async fn seed_create_as(ns: &str, name: &str, address: &str, extra: &[&str], output: &str) -> Run {
    let state = tempfile::tempdir().expect("tempdir");
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(console_env())
        .env("XDG_STATE_HOME", state.path())
        .env("XDG_CONFIG_HOME", state.path())
        .args(["seed", "create", name, "-n", ns, "--chain-id", "pacific-1"])
        .args(["--image", IMAGE, "--external-address", address])
        .args(["--executor", "embedded", "--yes", "-o", output])
        .args(["--max-wait-ms", "300"])
        .args([
            "--timeout",
            // Quick: room for the init plan on the real seictl (configure-genesis writes the
            // chain's whole genesis) on a loaded machine, then a short pod wait.
            if extra.contains(&"--quick") {
                "20"
            } else {
                "90"
            },
        ])
        .args(extra.iter().filter(|a| **a != "--quick"))
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run sei-console");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    Run {
        ok: output.status.success(),
        code: output.status.code(),
        lines: stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

async fn secret_key(ns: &TestNamespace, name: &str) -> NodeKey {
    let secret = ns.api::<Secret>().get(name).await.expect("node-key Secret");
    let json = &secret.data.as_ref().expect("data")["node_key.json"].0;
    NodeKey::from_node_key_json(&String::from_utf8_lossy(json)).expect("node key")
}

#[tokio::test]
async fn seed_runs_to_running_and_prints_the_peer_verified_against_the_sidecar_and_the_probe() {
    let ns = TestNamespace::new("seed-e2e").await;
    create_node_service_account(&ns).await;
    let standin = real_seed_for_new_seed(&ns, "seed-0", KeyFrom::Secret).await;
    let address = standin.external_address();
    let run = seed_create(&ns.name, "seed-0", &address, &[]).await;
    let result = run.result();
    assert!(run.ok, "{result}\n{}", run.stderr);
    let key = secret_key(&ns, "seed-0-node-key").await;
    let node_id = key.node_id();
    assert_eq!(result["ok"], true);
    assert_eq!(result["verified"], true);
    assert_eq!(result["reachable"], true);
    assert_eq!(result["nodeId"], node_id.as_str());
    assert_eq!(result["peer"], format!("{node_id}@{address}").as_str());
    // The outside probe checked the seed against the key's NodeID (= the sidecar's).
    let probe = &result["probe"];
    assert_eq!(probe["ok"], true, "{probe}");
    assert_eq!(probe["authenticatedNodeId"], node_id.as_str());
    assert_eq!(probe["origin"]["remoteAddress"], address.as_str());
    assert!(
        probe["origin"]["localAddress"]
            .as_str()
            .is_some_and(|a| a.starts_with("127.0.0.1:")),
        "{probe}"
    );
    let message = result["message"].as_str().expect("message");
    assert!(
        message.starts_with(&format!(
            "seed running; peer {node_id}@{address}; reachable from outside (dialled {address} \
             from 127.0.0.1:"
        )),
        "{message}"
    );
    // The real seed accepted the probe's Handshake and NodeInfo: one connection.
    assert_eq!(standin.probes_accepted(), 1, "one probe connection");
    assert!(
        run.lines
            .iter()
            .any(|l| l["event"] == "plan-finished" && l["node_phase"] == "Running"),
        "{:?}",
        run.lines
    );
    let node = ns.seinodes().get("seed-0").await.expect("seed");
    assert_eq!(node.data["status"]["phase"], "Running");
}

#[tokio::test]
async fn a_sidecar_holding_another_key_fails_naming_both_node_ids() {
    let ns = TestNamespace::new("seed-mismatch").await;
    create_node_service_account(&ns).await;
    // The node's data directory already holds another key (as `seid init` leaves one behind);
    // the add-on never overwrites a key file that is there.
    let other = NodeKey::from_seed(&[42; 32]);
    let config = control_plane()
        .dir
        .join("sidecars")
        .join(&ns.name)
        .join("seed-1")
        .join("config");
    std::fs::create_dir_all(&config).expect("node home");
    std::fs::write(
        config.join("node_key.json"),
        other.to_node_key_json().expose(),
    )
    .expect("write other key");

    let run = seed_create(&ns.name, "seed-1", &closed_loopback_address().await, &[]).await;
    assert!(!run.ok, "must fail: {:?}", run.lines);
    let result = run.result();
    let expected = secret_key(&ns, "seed-1-node-key").await.node_id();
    let message = result["message"].as_str().expect("message");
    assert!(message.contains(&other.node_id()), "{message}");
    assert!(message.contains(&expected), "{message}");
    assert_eq!(result["verified"], false);
}

#[tokio::test]
async fn a_platform_config_without_the_seed_pool_is_refused_before_any_change_with_its_fix() {
    let ns = TestNamespace::new("seed-nopool").await;
    // A controller namespace of its own whose ConfigMap lacks scheduling.nodepoolSeed.
    let text = std::fs::read_to_string(repo_path("assets/demo/platform-config.yaml"))
        .expect("demo platform config");
    let without_seed_pool: String = text
        .lines()
        .filter(|l| !l.contains("nodepoolSeed"))
        .map(|l| format!("{l}\n"))
        .collect();
    let config_map: ConfigMap = serde_json::from_value(json!({
        "metadata": {"name": "sei-controller-config"},
        "data": {"config.yaml": without_seed_pool}
    }))
    .expect("config map");
    ns.api::<ConfigMap>()
        .create(&PostParams::default(), &config_map)
        .await
        .expect("create ConfigMap");
    let fix = format!(
        "fix: set scheduling.nodepoolSeed in ConfigMap {}/sei-controller-config",
        ns.name
    );

    let address = closed_loopback_address().await;
    let controller = ["--controller-namespace", ns.name.as_str()];
    // The dry run says the real run would be refused, and why, with the fix (exit 1).
    let dry = seed_create(
        &ns.name,
        "seed-2",
        &address,
        &[&controller[..], &["--dry-run"]].concat(),
    )
    .await;
    assert_eq!(dry.code, Some(1), "{}\n{}", dry.stdout, dry.stderr);
    assert_eq!(dry.lines[0]["event"], "preview", "{:?}", dry.lines);
    let blocked = dry.lines[0]["preview"]["blocked"]
        .as_str()
        .expect("blocked");
    assert!(blocked.contains("StatefulSetRenderFailed"), "{blocked}");
    assert!(blocked.contains(&fix), "{blocked}");
    let message = dry.result()["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(
        message.starts_with("dry run: the run would be refused"),
        "{message}"
    );

    // The real run is refused the same way and creates nothing: no Secret, no SeiNode left
    // at Active 0/9.
    let run = seed_create(&ns.name, "seed-2", &address, &controller).await;
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(said.contains(&fix), "{said}");
    assert!(said.contains("nothing was changed"), "{said}");
    assert!(
        ns.api::<Secret>()
            .get_opt("seed-2-node-key")
            .await
            .expect("get")
            .is_none(),
        "no Secret may be created"
    );
    assert!(
        ns.api::<sei_console::api::SeiNode>()
            .get_opt("seed-2")
            .await
            .expect("get")
            .is_none(),
        "no SeiNode may be created"
    );
}

#[tokio::test]
async fn text_progress_numbers_the_init_plans_tasks_and_ends_with_the_peer() {
    let ns = TestNamespace::new("seed-text").await;
    create_node_service_account(&ns).await;
    let standin = real_seed_for_new_seed(&ns, "seed-3", KeyFrom::Secret).await;
    let address = standin.external_address();
    let run = seed_create_as(&ns.name, "seed-3", &address, &[], "text").await;
    assert!(run.ok, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("seed-3: [1/9] ensure-data-pvc")
            && run.stdout.contains("seed-3: [9/9] mark-ready"),
        "{}",
        run.stdout
    );
    let node_id = secret_key(&ns, "seed-3-node-key").await.node_id();
    assert!(
        run.stdout
            .lines()
            .last()
            .is_some_and(|l| l.starts_with(&format!(
                "seed running; peer {node_id}@{address}; reachable from outside"
            ))),
        "{}",
        run.stdout
    );
    // Notes go to stderr in text mode; progress and the result to stdout.
    assert!(
        run.stderr
            .contains(&format!("probing {node_id}@{address} from outside"))
            && run
                .stderr
                .contains(&format!("✓ node ID         {node_id} = published")),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn a_seed_in_a_namespace_without_its_service_account_is_refused_with_the_fix() {
    // No ServiceAccount `seid-node`: the StatefulSet could create no pod (FailedCreate), so the
    // preview blocks the seed, naming the fix, and nothing is created.
    let ns = TestNamespace::without_node_service_account("seed-nosa").await;
    let run = seed_create(
        &ns.name,
        "seed-0",
        &closed_loopback_address().await,
        &["--quick"],
    )
    .await;
    assert!(!run.ok, "must not succeed: {}", run.stdout);
    let said = format!("{}{}", run.stdout, run.stderr);
    assert!(
        said.contains("ServiceAccount seid-node does not exist in namespace")
            && said.contains(&format!(
                "fix: kubectl -n {} create serviceaccount seid-node",
                ns.name
            )),
        "{said}"
    );
    let nodes = ns.seinodes().list(&Default::default()).await.expect("list");
    assert!(nodes.items.is_empty(), "nothing created");
    let secrets = ns
        .api::<Secret>()
        .list(&Default::default())
        .await
        .expect("list");
    assert!(
        secrets
            .items
            .iter()
            .all(|s| !s.metadata.name.as_deref().unwrap_or("").contains("seed-0")),
        "no key Secret"
    );
}

#[tokio::test]
async fn a_seed_whose_pod_cannot_be_created_is_not_reported_running_and_names_the_failed_create() {
    // A quota of no pods: the StatefulSet's FailedCreate is named in the end, though every task
    // of the init plan completes.
    let ns = TestNamespace::new("seed-nopods").await;
    let quota: k8s_openapi::api::core::v1::ResourceQuota = serde_json::from_value(json!({
        "metadata": {"name": "no-pods"}, "spec": {"hard": {"pods": "0"}}
    }))
    .expect("quota");
    ns.api::<k8s_openapi::api::core::v1::ResourceQuota>()
        .create(&PostParams::default(), &quota)
        .await
        .expect("quota");
    let run = seed_create(
        &ns.name,
        "seed-0",
        &closed_loopback_address().await,
        &["--quick"],
    )
    .await;
    assert!(!run.ok, "must not succeed: {}", run.stdout);
    let message = run.result()["message"]
        .as_str()
        .expect("message")
        .to_owned();
    assert!(message.contains("not Ready"), "{message}");
    assert!(
        message.contains("Warning events: StatefulSet seed-0: FailedCreate")
            && message.contains("exceeded quota: no-pods"),
        "{message}"
    );
    assert!(!run.stdout.contains("seed running"), "{}", run.stdout);
}

#[tokio::test]
async fn a_running_seed_that_answers_with_another_key_ends_unreachable_with_exit_3() {
    let ns = TestNamespace::new("seed-wrongkey").await;
    create_node_service_account(&ns).await;
    let standin = real_seed_for_new_seed(&ns, "seed-4", KeyFrom::Own).await;
    let address = standin.external_address();
    let run = seed_create(&ns.name, "seed-4", &address, &[]).await;
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    let result = run.result();
    let node_id = secret_key(&ns, "seed-4-node-key").await.node_id();
    assert_eq!(result["ok"], false);
    assert_eq!(
        result["verified"], true,
        "the sidecar has the key: {result}"
    );
    assert_eq!(result["reachable"], false);
    let node_check = result["probe"]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "node-id")
        .expect("node-id check")
        .clone();
    assert_eq!(node_check["verdict"], "fail");
    let message = result["message"].as_str().expect("message");
    assert!(
        message
            .starts_with("seed running, but the outside probe failed: node ID: authenticates as")
            && message.contains(&format!("published {node_id}")),
        "{message}"
    );
    let node = ns.seinodes().get("seed-4").await.expect("seed");
    assert_eq!(node.data["status"]["phase"], "Running");
}
