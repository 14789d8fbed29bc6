//! The rollout across clusters from the console's job path (its model, effects and
//! `app::jobs`, no terminal) over two real control planes (the run's as context `alpha`, a second
//! one as `beta`): the marked nodes of both clusters, one dialog, one preview per cluster, one
//! confirmation, then both clusters rolled, cluster after cluster.
use std::time::Duration;

use jiff::Timestamp;
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, DynamicObject, PostParams};
use sei_console::app::action::Stage;
use sei_console::app::jobs::default_driver_config;
use sei_console::app::model::{Model, Scope};
use sei_console::backend::ActionEnv;
use sei_console::backend::KubeBackend;
use sei_console::config::ExecutorMode;
use sei_console::journal::Journal;
use sei_console::keymap::{Key, KeyCode};
use sei_console::sidecar::http::{HttpSidecar, transport_from_env};
use serde_json::json;
use tokio::sync::mpsc;

use super::console_actions::Console;
use super::multi_cluster_rollout::{Clusters, all_on, images, running_nodes};
use crate::common::console::console_env;
use crate::common::second::{SecondControlPlane, merged_kubeconfig};
use crate::common::{TestNamespace, repo_path, seinode_resource};
use crate::multi_cluster::create_namespace;

const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

#[tokio::test]
async fn the_console_rolls_out_marked_nodes_of_two_clusters_with_one_confirmation() {
    let ns = TestNamespace::new("across-console").await;
    let second = tokio::task::spawn_blocking(|| SecondControlPlane::start("across-console"))
        .await
        .expect("start second control plane");
    let state = tempfile::tempdir().expect("state dir");
    let kubeconfig = merged_kubeconfig(
        "alpha",
        &second.kubeconfig,
        "beta",
        &state.path().join("kubeconfig"),
    );
    let alpha = sei_console::kube::client::connect(Some(&kubeconfig), Some("alpha"))
        .await
        .expect("alpha");
    let beta = sei_console::kube::client::connect(Some(&kubeconfig), Some("beta"))
        .await
        .expect("beta");
    create_namespace(&beta.client, &ns.name).await;
    let account: ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": "seid-node"}})).expect("sa");
    Api::<ServiceAccount>::namespaced(beta.client.clone(), &ns.name)
        .create(&PostParams::default(), &account)
        .await
        .expect("seid-node in beta");
    let clusters = Clusters {
        kubeconfig: kubeconfig.clone(),
        state,
    };
    let alpha_nodes: Api<DynamicObject> =
        Api::namespaced_with(ns.client.clone(), &ns.name, &seinode_resource());
    let beta_nodes: Api<DynamicObject> =
        Api::namespaced_with(beta.client.clone(), &ns.name, &seinode_resource());
    let (alpha_names, beta_names) = (["ca-0"], ["cb-0"]);
    tokio::join!(
        running_nodes(&clusters, &alpha_nodes, &ns.name, "alpha", &alpha_names),
        running_nodes(&clusters, &beta_nodes, &ns.name, "beta", &beta_names),
    );

    // The console on both contexts, as `sei-console --context alpha,beta -n NS` opens it.
    let env = console_env();
    let transport = transport_from_env(|k| env.get(k).cloned(), None).expect("sidecar env");
    let journal = Journal::at(clusters.state.path().join("journal.jsonl"));
    let mut driver = default_driver_config();
    driver.max_wait = Duration::from_millis(300);
    driver.deadline = Duration::from_secs(90);
    let actions = ActionEnv {
        server: None,
        controller_namespace: env
            .get("SEI_CONSOLE_CONTROLLER_NAMESPACE")
            .cloned()
            .expect("controller namespace"),
        // The bare second cluster has no platform ConfigMap: the demo's file serves both.
        platform_file: Some(repo_path("assets/demo/platform-config.yaml")),
        sidecar: Ok(HttpSidecar::new(transport)),
        // Beta's transport is made from these: the stand-ins' direct router serves both.
        sidecar_vars: env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        operator: "tester (context alpha)".into(),
        context: "alpha".into(),
        journal: Some(journal.clone()),
        driver,
        prober: std::sync::Arc::new(sei_console::p2p::prober::P2pProber::new(
            sei_console::p2p::tcp::TcpDialer,
        )),
        read_only: None,
        require_journal: false,
        node_rpc: sei_console::rpc::node_rpc_for(None),
        notifier: std::sync::Arc::new(sei_console::ports::notify::NoNotifier),
    };
    let scope = Scope {
        contexts: vec!["alpha".into(), "beta".into()],
        namespace: Some(ns.name.clone()),
    };
    let mut model = Model::new(scope, Timestamp::now(), None);
    model.settings.executor = ExecutorMode::Embedded;
    let (tx, rx) = mpsc::channel(4096);
    let mut effects = KubeBackend::new(alpha, Some(kubeconfig))
        .with_actions(actions)
        .effects(tx);
    for cmd in model.init() {
        effects.run(cmd);
    }
    let mut console = Console::from_parts(model, effects, rx);
    console
        .until("both clusters' rows", |m| m.listing.keys.len() == 2)
        .await;

    // Both rows marked, `i`, the image, one preview per cluster.
    console.key(Key::char('g'));
    console.key(Key::char(' '));
    console.key(Key::char(' '));
    assert_eq!(console.model.marked.len(), 2);
    console.key(Key::char('i'));
    console.key(Key::ctrl('u'));
    console.type_text(NEW);
    // The health gate off: these kwok nodes serve no RPC (`rollout_health_gate` gates real ones).
    console.key(Key::plain(KeyCode::Tab));
    console.key(Key::plain(KeyCode::Right));
    console.key(Key::plain(KeyCode::Enter));
    let preview = console.preview().await;
    assert!(
        preview.text.contains("== cluster alpha ==") && preview.text.contains("== cluster beta =="),
        "{}",
        preview.text
    );
    assert_eq!(preview.blocked, None, "{}", preview.text);
    assert!(preview.permissions.allowed(), "{:?}", preview.permissions);
    assert!(
        preview.question.contains("alpha") && preview.question.contains("beta"),
        "one question naming both clusters: {}",
        preview.question
    );

    // One confirmation, then cluster after cluster.
    console.key(Key::plain(KeyCode::Enter));
    assert!(matches!(
        console.model.action.as_ref().map(|f| &f.stage),
        Some(Stage::Confirm { .. })
    ));
    console.key(Key::char('y'));
    let (end, lines) = console.finished("the rollout of both clusters").await;
    let shown: Vec<String> = lines.iter().map(|l| l.text.clone()).collect();
    assert!(end.ok, "{end:?}\n{shown:#?}");
    assert_eq!(images(&alpha_nodes, &alpha_names).await, all_on(NEW, 1));
    assert_eq!(images(&beta_nodes, &beta_names).await, all_on(NEW, 1));
    let contexts: Vec<String> = journal
        .read()
        .expect("journal")
        .entries
        .iter()
        .filter(|e| e.action == "rollout" && e.outcome.name() == "succeeded")
        .filter_map(|e| e.context.clone())
        .collect();
    assert_eq!(
        contexts,
        ["alpha", "beta"],
        "journaled per cluster, in turn"
    );
    drop(second);
}
