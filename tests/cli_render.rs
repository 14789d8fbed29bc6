//! `sei-console render`: the List printed, the exit codes and the upstream error messages.
use std::path::PathBuf;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

const PLATFORM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/assets/demo/platform-config.yaml"
);

const FULL_NODE: &str = "apiVersion: sei.io/v1alpha1
kind: SeiNode
metadata:
  name: rpc-1
  namespace: sei
  uid: 0b6c9d7e-0000-4000-8000-000000000001
spec:
  chainId: pacific-1
  image: ghcr.io/sei-protocol/sei:v6.0.0
  fullNode: {}
";

const SEED_NODE: &str = "apiVersion: sei.io/v1alpha1
kind: SeiNode
metadata:
  name: seed-1
spec:
  chainId: pacific-1
  image: ghcr.io/sei-protocol/sei:v6.0.0
  seed:
    nodeKey: {secret: {secretName: seed-1-node-key}}
";

/// A file under cargo's per-target scratch dir (inside `target/`, so nothing is left in /tmp),
/// unique to this test process and name.
fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write temp file");
    path
}

fn render(args: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("sei-console").expect("binary");
    cmd.arg("render")
        .args(args)
        .env_remove("SEI_CONSOLE_PLATFORM_CONFIG");
    cmd
}

fn kinds(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["kind"].as_str().expect("kind").to_string())
        .collect()
}

#[test]
fn render_prints_a_list_of_statefulset_service_and_pvc_as_json() {
    let node = temp_file("full.yaml", FULL_NODE);
    let out = render(&[
        "-f",
        node.to_str().expect("utf8"),
        "--platform-config",
        PLATFORM,
        "-o",
        "json",
    ])
    .assert()
    .success()
    .get_output()
    .stdout
    .clone();
    let list: Value = serde_json::from_slice(&out).expect("json");
    assert_eq!(
        (list["apiVersion"].as_str(), list["kind"].as_str()),
        (Some("v1"), Some("List"))
    );
    assert_eq!(
        kinds(&list),
        ["StatefulSet", "Service", "PersistentVolumeClaim"]
    );
    let sts = &list["items"][0];
    assert_eq!(sts["apiVersion"], "apps/v1");
    assert_eq!(sts["metadata"]["namespace"], "sei");
    assert_eq!(sts["metadata"]["ownerReferences"][0]["kind"], "SeiNode");
    let pod = &sts["spec"]["template"]["spec"];
    assert_eq!(pod["containers"][1]["name"], "cosmos-exporter");
    assert_eq!(pod["tolerations"][0]["value"], "sei-node");
    assert_eq!(
        list["items"][2]["spec"]["resources"]["requests"]["storage"],
        "2000Gi"
    );
    assert_eq!(
        list["items"][1]["spec"]["ports"]
            .as_array()
            .expect("ports")
            .len(),
        8
    );
}

#[test]
fn render_yaml_output_and_namespace_flag_for_manifest_without_namespace() {
    let node = temp_file("seed.yaml", SEED_NODE);
    let out = render(&[
        "-f",
        node.to_str().expect("utf8"),
        "--platform-config",
        PLATFORM,
        "-n",
        "seeds",
    ])
    .assert()
    .success()
    .get_output()
    .stdout
    .clone();
    let list: Value = serde_yaml_ng::from_slice(&out).expect("yaml");
    assert_eq!(list["kind"], "List");
    let sts = &list["items"][0];
    assert_eq!(sts["metadata"]["namespace"], "seeds");
    let pod = &sts["spec"]["template"]["spec"];
    let containers = pod["containers"].as_array().expect("containers");
    assert_eq!(containers.len(), 1, "a seed has no cosmos-exporter");
    assert_eq!(containers[0]["readinessProbe"]["tcpSocket"]["port"], 26656);
    let env = containers[0]["env"].as_array().expect("env");
    assert_eq!(env.last().expect("env")["value"], "1868310773B");
    assert_eq!(list["items"][2]["spec"]["storageClassName"], "gp3");
}

#[test]
fn render_reads_the_manifest_from_stdin() {
    let out = render(&["-f", "-", "--platform-config", PLATFORM, "-o", "json"])
        .write_stdin(FULL_NODE)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let list: Value = serde_json::from_slice(&out).expect("json");
    assert_eq!(list["items"][0]["metadata"]["name"], "rpc-1");
}

#[test]
fn render_error_exits_2_with_the_upstream_message() {
    let platform = std::fs::read_to_string(PLATFORM).expect("platform config");
    let without_seed_pool = temp_file(
        "no-seed-pool.yaml",
        &platform.replace("nodepoolSeed: sei-seed", ""),
    );
    let node = temp_file("seed-for-error.yaml", SEED_NODE);
    render(&[
        "-f",
        node.to_str().expect("utf8"),
        "--platform-config",
        without_seed_pool.to_str().expect("utf8"),
    ])
    .assert()
    .code(2)
    .stdout(predicate::str::is_empty())
    .stderr(predicate::str::contains(
        "scheduling.nodepoolSeed is not configured in the app-config file",
    ));
    let no_proxy = temp_file(
        "no-proxy.yaml",
        &platform.replace("kubeRBACProxy:", "unused:"),
    );
    render(&[
        "-f",
        node.to_str().expect("utf8"),
        "--platform-config",
        no_proxy.to_str().expect("utf8"),
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "images.kubeRBACProxy is not configured in the app-config file",
    ));
}

#[test]
fn render_bad_inputs_exit_2() {
    let node = temp_file("full-for-bad.yaml", FULL_NODE);
    render(&[
        "-f",
        node.to_str().expect("utf8"),
        "--platform-config",
        "/nonexistent/config.yaml",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "platform config file \"/nonexistent/config.yaml\" does not exist",
    ));
    let broken = temp_file("broken-platform.yaml", "scheduling: [\n");
    render(&[
        "-f",
        node.to_str().expect("utf8"),
        "--platform-config",
        broken.to_str().expect("utf8"),
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("parsing controller config file"));
    let two_modes = temp_file(
        "two-modes.yaml",
        &FULL_NODE.replace("fullNode: {}", "fullNode: {}\n  archive: {}"),
    );
    render(&[
        "-f",
        two_modes.to_str().expect("utf8"),
        "--platform-config",
        PLATFORM,
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "exactly one of fullNode, archive, replayer, validator, or seed must be set",
    ));
    let not_a_node = temp_file(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nspec: {chainId: c, image: i}\n",
    );
    render(&[
        "-f",
        not_a_node.to_str().expect("utf8"),
        "--platform-config",
        PLATFORM,
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains("not a SeiNode"));
    render(&[
        "-f",
        "/nonexistent/node.yaml",
        "--platform-config",
        PLATFORM,
    ])
    .assert()
    .code(2);
}

/// Issue 33: explicit nulls of non-nullable fields render as the API server stores the node
/// (nulls dropped, defaults filled in): the same List as without them.
#[test]
fn render_drops_nulls_the_api_server_drops() {
    let with_nulls = FULL_NODE.replace(
        "  fullNode: {}\n",
        "  fullNode:\n    snapshot: null\n    snapshotGeneration: null\n  sidecar:\n    port: null\n",
    );
    let explicit = FULL_NODE.replace(
        "  fullNode: {}\n",
        "  fullNode: {}\n  sidecar:\n    port: 7777\n",
    );
    let run = |text: &str, name: &str| -> Value {
        let node = temp_file(name, text);
        let out = render(&[
            "-f",
            node.to_str().expect("utf8"),
            "--platform-config",
            PLATFORM,
            "-o",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
        serde_json::from_slice(&out).expect("json")
    };
    assert_eq!(
        run(&with_nulls, "nulls.yaml"),
        run(&explicit, "explicit.yaml")
    );
}
