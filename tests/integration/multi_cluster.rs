//! One fleet across two real control planes: the run's and a second one started by this test.
//! The console watches both contexts of a merged kubeconfig as one table with a CLUSTER column;
//! `get` with both contexts prints rows carrying `context`; then the second control plane is
//! stopped: its banner names it, and both clusters' rows stay on screen.
use std::time::Duration;

use kube::api::{Api, PostParams};
use sei_console::api::{NodeMode, SeiNode};
use sei_console::backend::KubeBackend;
use sei_console::fleet::watches::WatchKind;
use sei_console::kube::client::connect;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::common::second::{SecondControlPlane, merged_kubeconfig};
use crate::common::{TestNamespace, wait_for};
use crate::console::Console;

const ALPHA: &str = "alpha";
const BETA: &str = "beta";

pub(crate) async fn create_namespace(client: &kube::Client, name: &str) {
    let namespace: k8s_openapi::api::core::v1::Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": name}})).expect("ns");
    Api::<k8s_openapi::api::core::v1::Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .expect("create namespace");
    let accounts: Api<k8s_openapi::api::core::v1::ServiceAccount> =
        Api::namespaced(client.clone(), name);
    wait_for(
        "ServiceAccount default",
        Duration::from_secs(30),
        || async { accounts.get_opt("default").await },
    )
    .await;
}

async fn create_node(client: &kube::Client, ns: &str, name: &str) {
    let mut node = sei_console::fleet::sample::node(ns, name, NodeMode::Full, 0);
    node.metadata.creation_timestamp = None;
    node.metadata.uid = None;
    Api::<SeiNode>::namespaced(client.clone(), ns)
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
}

#[tokio::test]
async fn two_clusters_in_one_table_and_one_stopped_keeps_the_other() {
    let ns = TestNamespace::new("multi").await;
    let mut second = tokio::task::spawn_blocking(|| SecondControlPlane::start("multi"))
        .await
        .expect("start second control plane");
    let state = tempfile::tempdir().expect("state dir");
    let kubeconfig = merged_kubeconfig(
        ALPHA,
        &second.kubeconfig,
        BETA,
        &state.path().join("kubeconfig"),
    );
    let beta = connect(Some(&kubeconfig), Some(BETA)).await.expect("beta");
    create_namespace(&beta.client, &ns.name).await;
    // The same name in both clusters, and one node only the second has.
    create_node(&ns.client, &ns.name, "full-0").await;
    create_node(&beta.client, &ns.name, "full-0").await;
    create_node(&beta.client, &ns.name, "rpc-0").await;

    let alpha = connect(Some(&kubeconfig), Some(ALPHA))
        .await
        .expect("alpha");
    let (tx, rx) = mpsc::channel(1024);
    let effects = KubeBackend::new(alpha, Some(kubeconfig.clone())).effects(tx);
    let mut console = Console::start_multi(&[ALPHA, BETA], &ns.name, effects, rx);
    let screen = console
        .until("both clusters' rows", |m, _| m.listing.keys.len() == 3)
        .await;
    assert!(screen.contains("CLUSTER"), "{screen}");
    assert!(
        screen.contains("alpha 1") && screen.contains("beta 2"),
        "{screen}"
    );
    let contexts: Vec<&str> = console
        .model
        .listing
        .keys
        .iter()
        .map(|k| k.context.as_ref())
        .collect();
    assert_eq!(contexts, [ALPHA, BETA, BETA]);

    // `get` over both contexts: one list, each row naming its context.
    let get = |extra: &'static [&'static str]| {
        let kubeconfig = kubeconfig.clone();
        let namespace = ns.name.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                let mut args = vec!["get", "--context", "alpha,beta", "-n", &namespace];
                args.extend(extra);
                crate::common::console::cli_as(&args, &kubeconfig, state_path())
            })
            .await
            .expect("get")
        }
    };
    let out = get(&["-o", "json"]).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Value = serde_json::from_slice(&out.stdout).expect("json");
    let named: Vec<(String, String)> = rows
        .as_array()
        .expect("array")
        .iter()
        .map(|r| {
            (
                r["context"].as_str().unwrap_or("?").to_owned(),
                r["name"].as_str().unwrap_or("?").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        named,
        [
            (ALPHA.into(), "full-0".into()),
            (BETA.into(), "full-0".into()),
            (BETA.into(), "rpc-0".into())
        ]
    );

    // A rollout naming both clusters is refused unless asked; asked, each cluster previews
    // its own node under its heading (dry run: nothing changes).
    let rollout = |extra: &'static [&'static str]| {
        let kubeconfig = kubeconfig.clone();
        let namespace = ns.name.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                let mut args = vec![
                    "rollout",
                    "full-0",
                    "--image",
                    "ghcr.io/sei-protocol/sei:v6.5.0",
                    "--dry-run",
                    "--context",
                    "alpha,beta",
                    "-n",
                    &namespace,
                ];
                args.extend(extra);
                crate::common::console::cli_as(&args, &kubeconfig, state_path())
            })
            .await
            .expect("rollout")
        }
    };
    let refused = rollout(&[]).await;
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("the rollout names 2 clusters (alpha, beta): pass --across-clusters"),
        "{stderr}"
    );
    let asked = rollout(&["--across-clusters"]).await;
    let (stdout, stderr) = (
        String::from_utf8_lossy(&asked.stdout),
        String::from_utf8_lossy(&asked.stderr),
    );
    assert!(asked.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("== cluster alpha (1 of 2) ==")
            && stdout.contains("== cluster beta (2 of 2) =="),
        "{stdout}"
    );
    assert!(
        stdout.contains("dry run in 2 clusters (alpha, beta): nothing was changed"),
        "{stdout}\n{stderr}"
    );

    // The second cluster goes away: its banner names it, every row stays.
    tokio::task::spawn_blocking(move || {
        second.stop();
        second
    })
    .await
    .expect("stop second control plane");
    console.ticking = true;
    let screen = console
        .until_within(
            "beta's STALE banner",
            Duration::from_secs(30),
            |m, screen| m.clusters[BETA].server.silent.is_some() && screen.contains("STALE beta"),
        )
        .await;
    assert!(!screen.contains("STALE alpha"), "{screen}");
    assert_eq!(console.model.listing.keys.len(), 3, "{screen}");
    assert!(
        console.model.clusters[ALPHA].server.silent.is_none(),
        "alpha still answers"
    );
    assert_eq!(
        console.model.watch_state(ALPHA, WatchKind::Nodes),
        Some(&sei_console::app::model::WatchState::Live)
    );
    // Alpha keeps following changes.
    create_node(&ns.client, &ns.name, "full-1").await;
    let screen = console
        .until("alpha's new row while beta is down", |m, _| {
            m.listing.keys.len() == 4
        })
        .await;
    assert!(screen.contains("full-1"), "{screen}");
    eprintln!("{screen}");

    // `get` names the unreachable cluster, prints the other's rows, exits 1.
    let out = get(&[]).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("CONTEXT") && stdout.contains("full-1"),
        "{stdout}"
    );
    assert!(stderr.contains("error: context beta:"), "{stderr}");
}

fn state_path() -> &'static std::path::Path {
    static STATE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    STATE
        .get_or_init(|| tempfile::tempdir().expect("state dir"))
        .path()
}
