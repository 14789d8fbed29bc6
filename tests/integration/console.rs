//! The live console against the real control plane: the model and the rendered screen follow
//! SeiNodes being created, their status patched, a render-failure Event posted, and deletes;
//! `get -o json` and `describe` print the same view models.
use std::time::Duration;

use assert_cmd::Command;
use jiff::Timestamp;
use k8s_openapi::api::core::v1::{ConfigMap, Event};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use sei_console::api::{NodeMode, PlanPhase, SeiNode};
use sei_console::app::model::{Model, Msg, Screen, WatchState};
use sei_console::fleet::sample;
use sei_console::fleet::store::ObjectKey;
use sei_console::fleet::watches::WatchKind;
use sei_console::keymap::{Key, KeyCode};
use serde_json::json;

use crate::common::{TestNamespace, control_plane, controller_config_map};

mod harness;
pub(crate) use harness::Console;

fn new_node(ns: &str, name: &str, mode: NodeMode) -> SeiNode {
    let mut node = sample::node(ns, name, mode, 0);
    node.metadata.creation_timestamp = None;
    node.metadata.uid = None;
    node
}

fn render_failed_event(ns: &str, node: &SeiNode) -> Event {
    serde_json::from_value(json!({
        "metadata": {"name": "seed-0.render-failed", "namespace": ns},
        "involvedObject": {
            "apiVersion": "sei.io/v1alpha1", "kind": "SeiNode", "namespace": ns,
            "name": node.metadata.name, "uid": node.metadata.uid,
        },
        "type": "Warning",
        "reason": "StatefulSetRenderFailed",
        "message": "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file",
        "count": 2,
        "firstTimestamp": Timestamp::now().to_string(),
        "lastTimestamp": Timestamp::now().to_string(),
        "source": {"component": "seinode-controller"},
    }))
    .expect("event json")
}

#[tokio::test]
async fn console_follows_creates_status_patches_events_and_deletes() {
    let ns = TestNamespace::new("console").await;
    let nodes: Api<SeiNode> = ns.api();
    let mut console = Console::start(&ns);

    console
        .until("the first (empty) sync", |m, screen| {
            m.watch_state(m.scope.context(), WatchKind::Nodes) == Some(&WatchState::Live)
                && screen.contains("No SeiNodes in")
        })
        .await;

    let pp = PostParams::default();
    nodes
        .create(&pp, &new_node(&ns.name, "full-0", NodeMode::Full))
        .await
        .expect("create full-0");
    let seed = nodes
        .create(&pp, &new_node(&ns.name, "seed-0", NodeMode::Seed))
        .await
        .expect("create seed-0");
    let screen = console
        .until("both rows", |m, screen| {
            m.listing.keys.len() == 2 && screen.contains("seed-0")
        })
        .await;
    assert!(
        screen.contains("full-0") && screen.contains("· -"),
        "{screen}"
    );

    // Plan progress and conditions through the status subresource, as the controller writes them.
    let status = json!({"status": {
        "phase": "Initializing",
        "plan": sample::plan(&sample::FULL_INIT_TASKS, 2, None),
        "conditions": [sample::condition("StateSyncReady", "False", "NoSyncersConfigured", "no syncers", 5)],
    }});
    nodes
        .patch_status("full-0", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("patch status");
    let screen = console
        .until("plan progress on the row", |_, screen| {
            screen.contains("▶ 2/7 apply-service")
        })
        .await;
    // Initializing with a failing condition: the verdict's mark, counted sick (issue 27).
    assert!(screen.contains("✗ Initializing"), "{screen}");
    assert!(screen.contains("▲ sick 1"), "{screen}");
    assert!(
        screen.contains("✗ StateSyncReady/NoSyncersConfigured"),
        "{screen}"
    );
    let row = console
        .model
        .fleet
        .row(&ObjectKey::new(ns.name.as_str(), "full-0").in_context(&"test".into()))
        .expect("row");
    assert_eq!(
        row.plan.as_ref().map(|p| (p.phase, p.done, p.total)),
        Some((PlanPhase::Active, 2, 7))
    );

    // The plan advances and fails: the row follows.
    let failed = json!({"status": {"phase": "Failed", "plan": sample::plan(&sample::FULL_INIT_TASKS, 5, Some("seid config is invalid"))}});
    nodes
        .patch_status("full-0", &PatchParams::default(), &Patch::Merge(&failed))
        .await
        .expect("patch status");
    console
        .until("the failed plan", |_, screen| {
            screen.contains("✗ 5/7 config-validate r3/3") && screen.contains("✗ Failed")
        })
        .await;

    // The render failure exists only as an Event: it reaches the row and the node screen.
    Api::<Event>::namespaced(ns.client.clone(), &ns.name)
        .create(&pp, &render_failed_event(&ns.name, &seed))
        .await
        .expect("post event");
    console
        .until("the warning on the seed row", |_, screen| {
            screen.contains("⚠ StatefulSetRenderFailed ×2")
        })
        .await;
    console.send(Msg::Key(Key::char('/')));
    for c in "mode:seed".chars() {
        console.send(Msg::Key(Key::char(c)));
    }
    console.key(KeyCode::Enter);
    console.key(KeyCode::Enter);
    assert_eq!(
        console.model.screen,
        Screen::Node(ObjectKey::new(ns.name.as_str(), "seed-0").in_context(&"test".into()))
    );
    console.key(KeyCode::Tab);
    console.key(KeyCode::Tab);
    let screen = console
        .until("the render failure in the node screen", |_, screen| {
            screen.contains("scheduling.nodepoolSeed is not configured")
        })
        .await;
    assert!(
        screen.contains("✖ Warning StatefulSetRenderFailed"),
        "{screen}"
    );
    console.key(KeyCode::Esc);
    console.key(KeyCode::Esc);

    // CLI views of the same models.
    let kubeconfig = control_plane().kubeconfig.clone();
    let output = Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["get", "-o", "json", "-n", &ns.name, "--kubeconfig"])
        .arg(&kubeconfig)
        .output()
        .expect("run get");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let items: serde_json::Value = serde_json::from_slice(&output.stdout).expect("get prints JSON");
    let full = &items[0];
    assert_eq!(full["name"], "full-0");
    assert_eq!(full["mode"], "full");
    assert_eq!(full["chainId"], "pacific-1");
    assert_eq!(full["phase"], "Failed");
    assert_eq!(full["drift"], true);
    assert_eq!(
        full["plan"],
        json!({"phase": "Failed", "done": 5, "total": 7, "current": "config-validate"})
    );
    assert_eq!(
        full["conditions"][0],
        json!({"type": "StateSyncReady", "status": "False", "reason": "NoSyncersConfigured"})
    );
    assert_eq!(items[1]["lastWarning"]["reason"], "StatefulSetRenderFailed");
    assert_eq!(items[1]["lastWarning"]["count"], 2);
    // Every row names the kubeconfig context it was read from (several clusters: `get
    // --context A --context B`).
    assert_eq!(full["context"], "sei-console-test");
    let keys: Vec<&String> = full.as_object().expect("object").keys().collect();
    assert_eq!(
        keys,
        [
            "context",
            "namespace",
            "name",
            "mode",
            "chainId",
            "phase",
            "image",
            "currentImage",
            "runningImage",
            "drift",
            "plan",
            "orphaned",
            "conditions",
            "lastWarning",
            "podWarning",
            "chainHealth",
            "seedProbe",
            "verdict"
        ]
    );
    // The one health verdict (issue 27): Failed, its plan failed, a condition failing.
    assert_eq!(full["verdict"]["healthy"], false, "{full:#}");
    assert_eq!(
        full["verdict"]["problems"][0]["kind"], "phase-failed",
        "{full:#}"
    );
    // Its RPC was read once: a node with no pod is unreachable, and says so.
    assert_eq!(full["chainHealth"]["state"], "unreachable", "{full:#}");
    // get NODE... and -l SELECTOR: the API server selects; a missing name exits 1 (kubectl),
    // the found ones still printed.
    nodes
        .patch(
            "seed-0",
            &PatchParams::default(),
            &Patch::Merge(&json!({"metadata": {"labels": {"tier": "edge"}}})),
        )
        .await
        .expect("label seed-0");
    let get = |args: &[&str]| {
        let output = Command::cargo_bin("sei-console")
            .expect("binary")
            .args(["get", "-o", "json", "-n", &ns.name, "--kubeconfig"])
            .arg(&kubeconfig)
            .args(args)
            .output()
            .expect("run get");
        let names: Vec<String> = serde_json::from_slice::<serde_json::Value>(&output.stdout)
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|item| item["name"].as_str().map(str::to_owned))
            .collect();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (output.status.code(), names, stderr)
    };
    assert_eq!(
        get(&["full-0"]),
        (Some(0), vec!["full-0".to_owned()], String::new())
    );
    assert_eq!(get(&["-l", "tier=edge"]).1, ["seed-0"]);
    assert_eq!(
        get(&["-l", "tier=edge", "full-0"]).0,
        Some(1),
        "not matching: not found"
    );
    // A name that does not exist is an error before anything is listed (issue 33): exit 2.
    let (code, names, stderr) = get(&["full-0", "nope"]);
    assert_eq!((code, names), (Some(2), Vec::<String>::new()));
    assert!(
        stderr.contains(&format!("no SeiNode \"nope\" in namespace {}", ns.name)),
        "{stderr}"
    );
    let described = Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["describe", "seed-0", "-n", &ns.name, "--kubeconfig"])
        .arg(&kubeconfig)
        .output()
        .expect("run describe");
    let text = String::from_utf8_lossy(&described.stdout);
    assert!(
        described.status.success(),
        "{}",
        String::from_utf8_lossy(&described.stderr)
    );
    assert!(
        text.contains("StatefulSetRenderFailed")
            && text.contains("Plan:             steady state: no plan"),
        "{text}"
    );

    // Deletes are honoured.
    nodes
        .delete("full-0", &DeleteParams::default())
        .await
        .expect("delete");
    let screen = console
        .until("the deleted row to go", |m, _| m.listing.keys.len() == 1)
        .await;
    assert!(!screen.contains("full-0"), "{screen}");
}

fn statefulset_event(ns: &str, node: &str) -> Event {
    serde_json::from_value(json!({
        "metadata": {"name": format!("{node}.failed-create"), "namespace": ns},
        "involvedObject": {"apiVersion": "apps/v1", "kind": "StatefulSet", "namespace": ns, "name": node},
        "type": "Warning",
        "reason": "FailedCreate",
        "message": format!("create Pod {node}-0 in StatefulSet {node} failed error: pods \"{node}-0\" is forbidden: exceeded quota"),
        "count": 3,
        "firstTimestamp": Timestamp::now().to_string(),
        "lastTimestamp": Timestamp::now().to_string(),
        "source": {"component": "statefulset-controller"},
    }))
    .expect("event json")
}

/// A kubeconfig acting as `user` through impersonation of the test admin.
fn impersonating_kubeconfig(user: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(&control_plane().kubeconfig).expect("kubeconfig");
    let mut config: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).expect("yaml");
    config["users"][0]["user"]["as"] = serde_yaml_ng::Value::String(user.to_owned());
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("kubeconfig-{user}"));
    std::fs::write(&path, serde_yaml_ng::to_string(&config).expect("yaml")).expect("write");
    path
}

#[tokio::test]
async fn statefulset_events_reach_the_node_screen_and_describe_names_forbidden_sections() {
    let ns = TestNamespace::new("detail").await;
    let nodes: Api<SeiNode> = ns.api();
    nodes
        .create(
            &PostParams::default(),
            &new_node(&ns.name, "full-0", NodeMode::Full),
        )
        .await
        .expect("create full-0");
    Api::<Event>::namespaced(ns.client.clone(), &ns.name)
        .create(
            &PostParams::default(),
            &statefulset_event(&ns.name, "full-0"),
        )
        .await
        .expect("post event");

    let mut console = Console::start(&ns);
    console
        .until("the row", |m, _| m.listing.keys.len() == 1)
        .await;
    console.key(KeyCode::Enter);
    console.key(KeyCode::Tab);
    console.key(KeyCode::Tab);
    let screen = console
        .until("the StatefulSet's event in the node screen", |m, screen| {
            m.watch_state(m.scope.context(), WatchKind::StatefulSetEvents)
                == Some(&WatchState::Live)
                && screen.contains("FailedCreate")
        })
        .await;
    assert!(screen.contains("StatefulSet/full-0"), "{screen}");

    // dave may read SeiNodes and Events, not StatefulSets or Pods.
    let role: k8s_openapi::api::rbac::v1::Role = serde_json::from_value(json!({
        "metadata": {"name": "seinode-reader"},
        "rules": [
            {"apiGroups": ["sei.io"], "resources": ["seinodes"], "verbs": ["get", "list"]},
            {"apiGroups": [""], "resources": ["events"], "verbs": ["get", "list"]},
        ],
    }))
    .expect("role");
    let binding: k8s_openapi::api::rbac::v1::RoleBinding = serde_json::from_value(json!({
        "metadata": {"name": "dave-reads-seinodes"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "seinode-reader"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "dave"}],
    }))
    .expect("binding");
    ns.api::<k8s_openapi::api::rbac::v1::Role>()
        .create(&PostParams::default(), &role)
        .await
        .expect("role");
    ns.api::<k8s_openapi::api::rbac::v1::RoleBinding>()
        .create(&PostParams::default(), &binding)
        .await
        .expect("binding");
    let kubeconfig = impersonating_kubeconfig("dave");
    let describe = |output: &str| {
        Command::cargo_bin("sei-console")
            .expect("binary")
            .args(["describe", "full-0", "-n", &ns.name, "-o", output])
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .output()
            .expect("run describe")
    };
    let json = crate::common::wait_for(
        "RBAC for dave to settle",
        Duration::from_secs(30),
        || async {
            let out = describe("json");
            let value = out
                .status
                .success()
                .then(|| serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("json"));
            Ok::<_, kube::Error>(value)
        },
    )
    .await;
    let unavailable: Vec<&str> = json["unavailable"]
        .as_array()
        .expect("unavailable")
        .iter()
        .filter_map(|u| u["resource"].as_str())
        .collect();
    assert_eq!(unavailable, ["statefulsets", "pods"], "{json:#}");
    assert_eq!(json["events"][0]["reason"], "FailedCreate", "{json:#}");
    let text = String::from_utf8_lossy(&describe("text").stdout).into_owned();
    assert!(
        text.contains("  StatefulSet: unknown, forbidden: ")
            && text.contains("cannot list resource \"statefulsets\""),
        "{text}"
    );
    assert!(!text.contains("no StatefulSet"), "{text}");
    // A node that does not exist is an error naming the near ones, exit 2 (issue 33), before
    // anything is read.
    let missing = Command::cargo_bin("sei-console")
        .expect("binary")
        .args(["describe", "no-such-node", "-n", &ns.name])
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .output()
        .expect("run describe");
    assert_eq!(
        missing.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&missing.stderr)
    );
}

#[tokio::test]
async fn the_node_screen_shows_a_seeds_peer_from_its_node_key_secret() {
    let ns = TestNamespace::new("seed-screen").await;
    let key = sei_console::actions::node_key::NodeKey::from_seed(&[5; 32]);
    let secret: k8s_openapi::api::core::v1::Secret = serde_json::from_value(json!({
        "metadata": {"name": "seed-0-node-key"},
        "stringData": {"node_key.json": key.to_node_key_json().expose()}
    }))
    .expect("secret");
    ns.api::<k8s_openapi::api::core::v1::Secret>()
        .create(&PostParams::default(), &secret)
        .await
        .expect("create Secret");
    let mut seed = new_node(&ns.name, "seed-0", NodeMode::Seed);
    seed.spec.external_address = Some("seed-0.example.com:26656".into());
    seed.spec.seed = serde_json::from_value(json!({
        "nodeKey": {"secret": {"secretName": "seed-0-node-key"}}
    }))
    .expect("seed spec");
    ns.api::<SeiNode>()
        .create(&PostParams::default(), &seed)
        .await
        .expect("create seed");

    let mut console = Console::start(&ns);
    console
        .until("the row", |m, _| m.listing.keys.len() == 1)
        .await;
    console.key(KeyCode::Enter);
    let peer = format!("{}@seed-0.example.com:26656", key.node_id());
    let screen = console
        .until("the seed's peer string on the node screen", |_, screen| {
            screen.contains(&peer)
        })
        .await;
    assert!(
        screen
            .replace('\n', " ")
            .contains("node-key Secret seed-0-node-key"),
        "{screen}"
    );
}

/// Sidecar drift follows the controller's ConfigMap while the console runs: a new
/// `images.sidecar` marks the nodes still on the old sidecar, with no restart.
#[tokio::test]
async fn sidecar_drift_follows_the_controllers_config_map_live() {
    const RUNNING_SIDECAR: &str = "ghcr.io/sei-protocol/seictl:v0.9.0";
    const NEWER_SIDECAR: &str = "ghcr.io/sei-protocol/seictl:v1.0.0";
    let ns = TestNamespace::new("console-platform").await;
    let controller = TestNamespace::new("console-controller").await;
    let config_maps: Api<ConfigMap> = controller.api();
    config_maps
        .create(
            &PostParams::default(),
            &controller_config_map(RUNNING_SIDECAR),
        )
        .await
        .expect("create ConfigMap");
    let nodes: Api<SeiNode> = ns.api();
    let node = new_node(&ns.name, "full-0", NodeMode::Full);
    let image = node.spec.image.clone();
    nodes
        .create(&PostParams::default(), &node)
        .await
        .expect("create full-0");
    let status = json!({"status": {"phase": "Running", "currentImage": image,
        "currentSidecarImage": RUNNING_SIDECAR}});
    nodes
        .patch_status("full-0", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("patch status");
    let key = ObjectKey::new(ns.name.as_str(), "full-0").in_context(&"test".into());
    let sidecar_drift = |m: &Model| m.fleet.row(&key).map(|r| r.drift.sidecar);

    let mut console = Console::start_with(&ns, Some(&controller.name));
    let screen = console
        .until("the ConfigMap's sidecar image, no drift", |m, _| {
            m.fleet
                .fleet("test")
                .and_then(|f| f.default_sidecar_image())
                == Some(RUNNING_SIDECAR)
                && sidecar_drift(m) == Some(false)
        })
        .await;
    assert!(!screen.contains("≠sidecar"), "{screen}");

    config_maps
        .replace(
            "sei-controller-config",
            &PostParams::default(),
            &controller_config_map(NEWER_SIDECAR),
        )
        .await
        .expect("update ConfigMap");
    console
        .until("sidecar drift after the ConfigMap changed", |m, screen| {
            sidecar_drift(m) == Some(true) && screen.contains("≠sidecar")
        })
        .await;
}
