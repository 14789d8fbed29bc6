//! Chain health against a real sei-tendermint network on loopback (tests/tendermint_net), read
//! the way an operator's console reads it: `get -o wide|json` and `describe -o json` as the
//! token operator (console.env), through a port-forward to each SeiNode's Running pod port
//! 26657, which the control plane's add-on forwards to the real node's RPC named by the
//! SeiNode's `sei-console.test/rpc` annotation.
//!
//! Nodes: `hc-val` is the kvstore validator (in sync ✓; RPC unreachable ✗ once stopped),
//! `hc-synced` a full node peered to the validator and another full node (in sync ✓, then
//! stalled ⏸ when the validator stops), `hc-full` a full node whose only peer is the validator
//! (blocksync needs two peers to call itself caught up: catching up ⟳ with one peer),
//! `hc-dark` has no RPC behind its pod port (RPC unreachable ✗).
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};

use sei_console::backend::KubeBackend;
use sei_console::kube::client::Connection;
use tokio::sync::mpsc;

use crate::common::console::{production_env, running_full_nodes};
use crate::common::identity::{Operator, rule};
use crate::common::{TestNamespace, repo_path};
use crate::console::Console;
use tendermint_net::{Mode, Network, NetworkSpec, Peering};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

/// `sei-console ARGS` as the token operator over the production path; stdout and success.
pub(crate) async fn console(args: &[&str], state: &Path) -> (bool, String, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(production_env())
        .env("XDG_STATE_HOME", state)
        .env("XDG_CONFIG_HOME", state)
        .args(args)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run sei-console");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `get -o json` as `{name: chainHealth}`.
pub(crate) async fn health_by_name(ns: &TestNamespace, state: &Path) -> BTreeMap<String, Value> {
    let (ok, out, err) = console(&["get", "-n", &ns.name, "-o", "json"], state).await;
    assert!(ok, "get -o json: {err}");
    let items: Vec<Value> = serde_json::from_str(&out).expect("get -o json");
    items
        .into_iter()
        .map(|item| {
            (
                item["name"].as_str().unwrap_or_default().to_owned(),
                item["chainHealth"].clone(),
            )
        })
        .collect()
}

/// The console's loop (no terminal) as the token operator, chain health on and ticking.
pub(crate) async fn console_as_operator(ns: &TestNamespace) -> Console {
    let path = production_env()
        .remove("KUBECONFIG")
        .expect("console.env names the operator's kubeconfig");
    let kubeconfig = kube::config::Kubeconfig::read_from(&path).expect("operator kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("config");
    // As the console builds it: its requests name it.
    let config = sei_console::kube::client::with_user_agent(config);
    let connection = Connection {
        client: kube::Client::try_from(config.clone()).expect("client"),
        context: "test".into(),
        default_namespace: ns.name.clone(),
        kube_config: Some(config),
    };
    let (tx, rx) = mpsc::channel(1024);
    let effects = KubeBackend::new(connection, None).effects(tx);
    let mut console = Console::start_on("test", &ns.name, effects, rx);
    console.model.settings.chain_health = true;
    console.ticking = true;
    console
}

pub(crate) async fn annotate_rpc(ns: &TestNamespace, node: &str, rpc: std::net::SocketAddr) {
    let patch = json!({"metadata": {"annotations": {"sei-console.test/rpc": rpc.to_string()}}});
    ns.seinodes()
        .patch(node, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("annotate SeiNode");
}

/// Polls `get -o json` until `node`'s state is `state` (the add-on's watcher applies the
/// forward within a second or two); returns its chain health.
async fn wait_for_state(ns: &TestNamespace, state_dir: &Path, node: &str, state: &str) -> Value {
    let started = Instant::now();
    let mut last = Value::Null;
    while started.elapsed() < Duration::from_secs(60) {
        last = health_by_name(ns, state_dir)
            .await
            .remove(node)
            .unwrap_or_default();
        if last["state"] == state {
            return last;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    panic!("{node} did not become {state} within 60 s; last: {last:#}");
}

#[tokio::test]
async fn get_and_describe_show_in_sync_catching_up_unreachable_and_stalled_nodes() {
    let mut network = Network::start(NetworkSpec {
        chain_id: "pacific-1".into(),
        full_nodes: 0,
        seed: false,
    })
    .await;
    let full_a = network.add_node("full-a", Mode::Full, Peering::default());
    let full_b =
        network.add_node_with_peers("full-b", Mode::Full, Peering::default(), &[full_a.peer()]);
    let lonely = network.add_node(
        "lonely",
        Mode::Full,
        Peering {
            to_validator: true,
            advertise_self: false,
            pex: false,
        },
    );
    for node in [&full_a, &full_b, &lonely] {
        node.wait_for_height_above(1, Duration::from_secs(90)).await;
    }

    let ns = TestNamespace::new("chain-health").await;
    let state = tempfile::tempdir().expect("state");
    let names: Vec<String> = ["hc-val", "hc-synced", "hc-full", "hc-dark"]
        .into_iter()
        .map(String::from)
        .collect();
    running_full_nodes(&ns, &names, IMAGE, &BTreeMap::new(), state.path()).await;
    annotate_rpc(&ns, "hc-val", network.validator.rpc.expect("validator RPC")).await;
    annotate_rpc(&ns, "hc-synced", full_b.rpc.expect("full node RPC")).await;
    annotate_rpc(&ns, "hc-full", lonely.rpc.expect("full node RPC")).await;

    let val = wait_for_state(&ns, state.path(), "hc-val", "in-sync").await;
    assert_eq!(val["catchingUp"], false, "{val:#}");
    assert_eq!(val["moniker"], "validator", "{val:#}");
    assert_eq!(val["nodeId"], network.validator.node_id.as_str(), "{val:#}");
    assert!(val["height"].as_u64().is_some_and(|h| h > 1), "{val:#}");
    assert_eq!(val["lagStatus"]["httpStatus"], 200, "{val:#}");

    let full_health = wait_for_state(&ns, state.path(), "hc-full", "catching-up").await;
    assert_eq!(full_health["catchingUp"], true, "{full_health:#}");
    assert_eq!(full_health["peers"], 1, "{full_health:#}");
    assert_eq!(full_health["verdict"]["onePeer"], true, "{full_health:#}");
    let synced = wait_for_state(&ns, state.path(), "hc-synced", "in-sync").await;
    assert!(
        synced["peers"].as_u64().is_some_and(|p| p >= 2),
        "{synced:#}"
    );

    let dark = health_by_name(&ns, state.path()).await["hc-dark"].clone();
    assert_eq!(dark["state"], "unreachable", "{dark:#}");
    assert!(dark["error"]["kind"].is_string(), "{dark:#}");

    // The column: every mark in `get -o wide`.
    let (ok, wide, err) = console(&["get", "-n", &ns.name, "-o", "wide"], state.path()).await;
    assert!(ok, "{err}");
    assert!(
        wide.lines()
            .next()
            .is_some_and(|h| h.contains("HEIGHT/LAG")),
        "{wide}"
    );
    for (node, mark) in [("hc-val", "✓ "), ("hc-full", "⟳ "), ("hc-dark", "✗ ")] {
        let line = wide
            .lines()
            .find(|l| l.starts_with(node))
            .unwrap_or_else(|| panic!("{node} in {wide}"));
        assert!(line.contains(mark), "{node} shows {mark}: {line}");
    }
    assert!(wide.contains("1 peer"), "{wide}");

    // The live console's column, its reads through the port-forwards off the render path.
    let mut tui = console_as_operator(&ns).await;
    let screen = tui
        .until_within(
            "the HEIGHT/LAG column with every mark",
            Duration::from_secs(60),
            |_, screen| {
                let row = |node: &str, mark: &str| {
                    screen
                        .lines()
                        .any(|l| l.contains(&format!("{node} ")) && l.contains(mark))
                };
                row("hc-val", "✓ ") && row("hc-full", "⟳ ") && row("hc-dark", "✗ ")
            },
        )
        .await;
    assert!(screen.contains("HEIGHT/LAG"), "{screen}");
    drop(tui);

    // describe -o json carries the same fields.
    let (ok, out, err) = console(
        &["describe", "hc-val", "-n", &ns.name, "-o", "json"],
        state.path(),
    )
    .await;
    assert!(ok, "{err}");
    let described: Value = serde_json::from_str(&out).expect("describe -o json");
    let health = &described["chainHealth"];
    for field in [
        "height",
        "blockTime",
        "blockAgeSeconds",
        "catchingUp",
        "maxPeerHeight",
        "lagStatus",
        "peers",
        "moniker",
        "version",
        "nodeId",
        "readAt",
    ] {
        assert!(!health[field].is_null(), "describe has {field}: {health:#}");
    }

    // An operator who may read SeiNodes but not `create pods/portforward`: forbidden, and why.
    let dir = tempfile::tempdir().expect("tempdir");
    let reader = Operator::create(
        &ns,
        "reader",
        vec![
            rule("sei.io", &["seinodes"], &["get", "list", "watch"]),
            rule("", &["events", "pods"], &["get", "list", "watch"]),
        ],
        dir.path(),
    )
    .await;
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(production_env())
        .env("KUBECONFIG", &reader.kubeconfig)
        .env(
            "SEI_CONSOLE_PLATFORM_CONFIG",
            repo_path("assets/demo/platform-config.yaml"),
        )
        .env("XDG_STATE_HOME", state.path())
        .env("XDG_CONFIG_HOME", state.path())
        .args(["get", "hc-val", "-n", &ns.name, "-o", "json"])
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run sei-console");
    let items: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "get -o json as a reader: {err}: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let refused = &items[0]["chainHealth"];
    assert_eq!(refused["state"], "unreachable", "{refused:#}");
    assert_eq!(refused["error"]["kind"], "forbidden", "{refused:#}");
    assert!(
        refused["error"]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("pods/portforward")),
        "{refused:#}"
    );

    // A stopped validator stalls the chain: the full node's last block ages past the 30 s
    // floor; the validator's own RPC is gone (nothing listens behind its pod port).
    network.validator.stop();
    tokio::time::sleep(Duration::from_secs(31)).await;
    let stalled = wait_for_state(&ns, state.path(), "hc-synced", "stalled").await;
    assert_eq!(stalled["verdict"]["thresholdSeconds"], 30, "{stalled:#}");
    let gone = wait_for_state(&ns, state.path(), "hc-val", "unreachable").await;
    assert!(gone["error"]["kind"].is_string(), "{gone:#}");
    let (ok, text, err) = console(&["describe", "hc-synced", "-n", &ns.name], state.path()).await;
    assert!(ok, "{err}");
    assert!(
        text.contains("Chain health:\n  sync             ⏸ stalled: height stuck at"),
        "{text}"
    );
    // The doctor ranks the stalled chain as critical, with its evidence and the fix.
    let (ok, out, err) = console(
        &[
            "doctor",
            "-n",
            &ns.name,
            "-o",
            "json",
            "--fail-on",
            "critical",
        ],
        state.path(),
    )
    .await;
    assert!(!ok, "--fail-on critical fails on a stalled chain: {err}");
    let doctor: Value = serde_json::from_str(&out).expect("doctor -o json");
    let findings = doctor["findings"].as_array().expect("findings");
    let stalled = findings
        .iter()
        .find(|f| f["class"] == "chain-stalled" && f["object"]["name"] == "hc-synced")
        .unwrap_or_else(|| panic!("a chain-stalled finding for hc-synced: {doctor:#}"));
    assert_eq!(stalled["severity"], "critical", "{stalled:#}");
    assert!(
        stalled["evidence"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("has not advanced since")),
        "{stalled:#}"
    );
    let command = stalled["fix"]["command"].as_str().unwrap_or_default();
    assert!(
        command.starts_with("sei-console logs hc-synced ")
            && command.ends_with(&format!(" -n {}", ns.name)),
        "{stalled:#}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f["class"] == "chain-rpc-unreachable" && f["object"]["name"] == "hc-val"),
        "the stopped validator's RPC: {doctor:#}"
    );
}
