//! Resilience against the real control plane: one over-deep SeiNode beside good ones (get,
//! describe, the console), and a frozen API server (SIGSTOP) with the console open and a
//! preview in flight, on a control plane of its own so the other tests are not frozen too.
use std::path::PathBuf;
use std::process::Command as StdCommand;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DynamicObject, PostParams};
use sei_console::api::SeiNode;
use sei_console::app::action::Stage;
use sei_console::app::jobs::default_driver_config;
use sei_console::app::model::{Msg, WatchState};
use sei_console::backend::ActionEnv;
use sei_console::backend::KubeBackend;
use sei_console::fleet::sample;
use sei_console::fleet::watches::WatchKind;
use sei_console::keymap::{Key, KeyCode};
use sei_console::sidecar::http::{HttpSidecar, transport_from_env};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::common::{TestNamespace, control_plane, platform_config_path, seinode_resource};
use crate::console::Console;

/// Nesting of the bad node's `status.plan.tasks[0].params`: with the object around it, past
/// serde_json's recursion limit (128) even for the item alone.
const DEEP_LEVELS: usize = 130;

/// `{"a": {"a": … 1}}`, `levels` deep, built without a recursive parser.
fn nested(levels: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..levels {
        value = json!({ "a": value });
    }
    value
}

fn good_node(name: &str) -> DynamicObject {
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0", "fullNode": {}}});
    node
}

/// Writes a plan whose first task's params nest [`DEEP_LEVELS`] deep into `name`'s status. The
/// request is sent raw: the answer (the object) does not decode with kube-rs either.
async fn make_deep(client: &kube::Client, namespace: &str, name: &str) {
    let mut plan =
        serde_json::to_value(sample::plan(&sample::FULL_INIT_TASKS, 2, None)).expect("plan json");
    plan["tasks"][0]["params"] = nested(DEEP_LEVELS);
    let body = serde_json::to_vec(&json!({"status": {"phase": "Initializing", "plan": plan}}))
        .expect("patch body");
    let request = http::Request::patch(format!(
        "/apis/sei.io/v1alpha1/namespaces/{namespace}/seinodes/{name}/status"
    ))
    .header("Content-Type", "application/merge-patch+json")
    .body(body)
    .expect("request");
    client
        .request_text(request)
        .await
        .expect("patch the deep status");
}

fn console_cmd(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("sei-console")
        .expect("binary")
        .args(args)
        .arg("--kubeconfig")
        .arg(&control_plane().kubeconfig)
        .env("SEI_CONSOLE_PLATFORM_CONFIG", platform_config_path())
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run sei-console")
}

#[tokio::test]
async fn one_over_deep_seinode_is_skipped_and_named_and_never_hides_the_others() {
    let ns = TestNamespace::new("deep-node").await;
    let pp = PostParams::default();
    for name in ["good-0", "good-1", "deep-0"] {
        ns.seinodes()
            .create(&pp, &good_node(name))
            .await
            .expect("create");
    }
    make_deep(&ns.client, &ns.name, "deep-0").await;
    // The fixture is what blinded the console: a typed list of the namespace fails.
    let typed = ns.api::<SeiNode>().list(&Default::default()).await;
    assert!(typed.is_err(), "the deep node decodes as part of a list");

    let get = console_cmd(&["get", "-n", &ns.name]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&get.stdout),
        String::from_utf8_lossy(&get.stderr),
    );
    assert!(get.status.success(), "{stderr}");
    assert!(
        stdout.contains("good-0") && stdout.contains("good-1"),
        "{stdout}"
    );
    assert!(!stdout.contains("deep-0"), "{stdout}");
    assert_eq!(
        stderr.trim(),
        format!(
            "warning: skipped SeiNode {}/deep-0: nested deeper than 128 levels (the JSON decoder's limit)",
            ns.name
        )
    );

    let get = console_cmd(&["get", "-n", &ns.name, "-o", "json"]);
    assert!(get.status.success());
    let items: Value = serde_json::from_slice(&get.stdout).expect("stdout is the JSON rows");
    assert_eq!(items.as_array().map(Vec::len), Some(2));
    let skipped: Value = serde_json::from_slice(&get.stderr).expect("stderr is a JSON line");
    assert_eq!(skipped["skipped"]["name"], "deep-0");
    assert_eq!(skipped["skipped"]["kind"], "SeiNode");
    assert!(
        skipped["skipped"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("128 levels"))
    );

    let good = console_cmd(&["describe", "good-0", "-n", &ns.name]);
    assert!(
        good.status.success(),
        "{}",
        String::from_utf8_lossy(&good.stderr)
    );
    let deep = console_cmd(&["describe", "deep-0", "-n", &ns.name]);
    assert_eq!(deep.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&deep.stderr).trim(),
        format!(
            "error: SeiNode {}/deep-0 cannot be shown: nested deeper than 128 levels (the JSON decoder's limit)",
            ns.name
        )
    );

    // The console: the good rows, the bad one counted and named, the watch live.
    let mut console = Console::start(&ns);
    let screen = console
        .until(
            "the good rows and the skipped one named, the watch live",
            |m, screen| {
                m.listing.keys.len() == 2
                    && screen.contains("SKIPPED 1 undecodable object: SeiNode")
                    && m.watch_state(m.scope.context(), WatchKind::Nodes) == Some(&WatchState::Live)
            },
        )
        .await;
    assert!(
        screen.contains("deep-0 — nested deeper than 128 levels"),
        "{screen}"
    );
    assert_eq!(
        console
            .model
            .watch_state(console.model.scope.context(), WatchKind::Nodes),
        Some(&WatchState::Live)
    );
    // A watch that meets one keeps running: a good node turned deep leaves the table, a new
    // good one arrives.
    make_deep(&ns.client, &ns.name, "good-1").await;
    ns.seinodes()
        .create(&pp, &good_node("good-2"))
        .await
        .expect("create good-2");
    console
        .until("good-1 skipped, good-2 listed", |m, screen| {
            let names: Vec<&str> = m.listing.keys.iter().map(|k| k.name.as_ref()).collect();
            names == ["good-0", "good-2"] && screen.contains("SKIPPED 2 undecodable objects")
        })
        .await;
    assert_eq!(
        console
            .model
            .watch_state(console.model.scope.context(), WatchKind::Nodes),
        Some(&WatchState::Live)
    );
}

/// A control plane of this test's own (other ports, other directory), stopped on drop.
struct OwnControlPlane {
    dir: PathBuf,
}

impl OwnControlPlane {
    fn start() -> OwnControlPlane {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("frozen-cp-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/control-plane/start");
        let output = StdCommand::new("bash")
            .arg(script)
            .arg(&dir)
            .arg("--owner")
            .arg(std::process::id().to_string())
            .output()
            .expect("run start");
        assert!(
            output.status.success(),
            "second control plane: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        OwnControlPlane { dir }
    }

    fn kubeconfig(&self) -> PathBuf {
        self.dir.join("kubeconfig")
    }

    fn apiserver_pid(&self) -> i32 {
        let pids = std::fs::read_to_string(self.dir.join("pids")).expect("pids");
        pids.lines()
            .find_map(|line| line.strip_prefix("kube-apiserver "))
            .and_then(|pid| pid.trim().parse().ok())
            .expect("the kube-apiserver's pid")
    }
}

impl Drop for OwnControlPlane {
    fn drop(&mut self) {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/control-plane/stop");
        let _ = StdCommand::new("bash").arg(script).arg(&self.dir).output();
    }
}

/// The API server stopped (SIGSTOP) until this is dropped (SIGCONT), also on a panic.
struct Frozen {
    pid: i32,
}

/// Sends `signal` to the process `pid` (kill(1): no unsafe code in the tests).
fn signal(pid: i32, signal: &str) -> bool {
    StdCommand::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .is_ok_and(|status| status.success())
}

impl Frozen {
    fn freeze(pid: i32) -> Frozen {
        assert!(signal(pid, "STOP"), "SIGSTOP the API server");
        Frozen { pid }
    }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        signal(self.pid, "CONT");
    }
}

#[tokio::test]
async fn a_frozen_api_server_goes_stale_fails_the_preview_in_time_and_recovers() {
    let plane = OwnControlPlane::start();
    let conn = sei_console::kube::client::connect(Some(&plane.kubeconfig()), None)
        .await
        .expect("connect through the console's own client");
    let namespace = format!("frozen-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let ns: Namespace =
        serde_json::from_value(json!({"metadata": {"name": namespace}})).expect("ns");
    Api::<Namespace>::all(conn.client.clone())
        .create(&PostParams::default(), &ns)
        .await
        .expect("namespace");
    let nodes: Api<DynamicObject> =
        Api::namespaced_with(conn.client.clone(), &namespace, &seinode_resource());
    nodes
        .create(&PostParams::default(), &good_node("full-0"))
        .await
        .expect("node");

    // The stand-in sidecars of this control plane (its add-on writes `console.env`).
    let env: std::collections::HashMap<String, String> =
        // The stand-ins reached directly: this test is about the API server, not the sidecar.
        std::fs::read_to_string(plane.dir.join("console-direct.env"))
            .expect("console-direct.env")
            .lines()
            .filter_map(|line| line.split_once('='))
            .map(|(key, value)| (key.to_owned(), value.to_owned()))
            .collect();
    let transport = transport_from_env(|k| env.get(k).cloned(), None).expect("sidecar env");
    let actions = ActionEnv {
        server: None,
        controller_namespace: "sei-system".into(),
        platform_file: Some(platform_config_path()),
        sidecar: Ok(HttpSidecar::new(transport)),
        sidecar_vars: Default::default(),
        operator: "tester (context test)".into(),
        context: "test".into(),
        journal: None,
        driver: default_driver_config(),
        prober: std::sync::Arc::new(sei_console::p2p::prober::P2pProber::new(
            sei_console::p2p::tcp::TcpDialer,
        )),
        node_rpc: sei_console::rpc::node_rpc_for(None),
        notifier: std::sync::Arc::new(sei_console::ports::notify::NoNotifier),
        read_only: None,
        require_journal: false,
    };
    let (tx, rx) = mpsc::channel(4096);
    let effects = KubeBackend::new(conn.clone(), Some(plane.kubeconfig()))
        .with_actions(actions)
        .effects(tx);
    let mut console = Console::start_on(&conn.context, &namespace, effects, rx);
    console.ticking = true;
    console
        .until("the row, the server confirmed", |m, _| {
            m.listing.keys.len() == 1 && m.clusters[m.scope.context()].server.confirmed_at.is_some()
        })
        .await;

    let frozen = Frozen::freeze(plane.apiserver_pid());
    let stopped_at = Instant::now();
    // A rollout preview asked for while the server is frozen.
    console.send(Msg::Key(Key::char('i')));
    console.send(Msg::Key(Key::ctrl('u')));
    for c in "ghcr.io/sei-protocol/sei:v6.4.0".chars() {
        console.send(Msg::Key(Key::char(c)));
    }
    console.send(Msg::Key(Key::plain(KeyCode::Enter)));
    let screen = console
        .until_within("STALE", Duration::from_secs(30), |m, screen| {
            m.clusters[m.scope.context()].server.silent.is_some()
                && screen.contains("STALE — data last confirmed")
        })
        .await;
    let stale_after = stopped_at.elapsed();
    eprintln!("STALE shown {stale_after:?} after the API server was frozen");
    assert!(stale_after < Duration::from_secs(10), "{stale_after:?}");
    assert!(screen.contains("Computing the preview"), "{screen}");
    // The preview shows how long it has waited, then fails within its deadline.
    console
        .until_within(
            "the preview's elapsed time",
            Duration::from_secs(30),
            |_, screen| screen.contains("permission checks… 5 s"),
        )
        .await;
    let screen = console
        .until_within("the preview to fail", Duration::from_secs(130), |m, _| {
            m.action
                .as_ref()
                .is_some_and(|f| matches!(f.stage, Stage::Failed { .. }))
        })
        .await;
    let failed_after = stopped_at.elapsed();
    eprintln!("preview failed {failed_after:?} after the freeze");
    assert!(screen.contains("did not answer"), "{screen}");
    console.send(Msg::Key(Key::plain(KeyCode::Esc)));

    drop(frozen);
    let resumed_at = Instant::now();
    console
        .until_within("recovery", Duration::from_secs(30), |m, screen| {
            m.clusters[m.scope.context()].server.silent.is_none()
                && m.watch_state(m.scope.context(), WatchKind::Nodes) == Some(&WatchState::Live)
                && !screen.contains("STALE")
        })
        .await;
    eprintln!("STALE cleared {:?} after SIGCONT", resumed_at.elapsed());
    // Resynced and live: a node created now is listed.
    nodes
        .create(&PostParams::default(), &good_node("full-1"))
        .await
        .expect("node");
    console
        .until("the new row", |m, _| m.listing.keys.len() == 2)
        .await;
}
