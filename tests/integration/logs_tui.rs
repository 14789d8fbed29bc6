//! The console's logs view (`l`) against kwok-served logs, through the operator's own token
//! kubeconfig (`console.env`, as the demo runs it): each container, lines appearing while it
//! follows, and a node without a pod as one line.
use std::path::Path;
use std::time::Duration;

use kube::api::{DynamicObject, PostParams};
use sei_console::app::model::Msg;
use sei_console::backend::KubeBackend;
use sei_console::keymap::{Key, KeyCode};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::common::console::{production_env, running_full_nodes};
use crate::common::{TestNamespace, seinode_resource};
use crate::console::Console;

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const SERVED: Duration = Duration::from_secs(30);

#[tokio::test]
async fn logs_view_follows_each_container_and_names_a_node_without_a_pod() {
    let ns = TestNamespace::new("logs-tui").await;
    let state = tempfile::tempdir().expect("tempdir");
    running_full_nodes(
        &ns,
        &["full-a".to_owned()],
        IMAGE,
        &Default::default(),
        state.path(),
    )
    .await;
    let mut ghost = DynamicObject::new("ghost", &seinode_resource());
    ghost.data = json!({"spec": {"chainId": "pacific-1", "image": IMAGE, "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &ghost)
        .await
        .expect("create SeiNode");

    let env = production_env();
    let kubeconfig = Path::new(&env["KUBECONFIG"]);
    let conn = sei_console::kube::client::connect(Some(kubeconfig), None)
        .await
        .expect("operator connection");
    let (tx, rx) = mpsc::channel(4096);
    let effects = KubeBackend::new(conn.clone(), Some(kubeconfig.to_owned())).effects(tx);
    let mut console = Console::start_on(&conn.context, &ns.name, effects, rx);
    console
        .until("both rows", |m, _| m.listing.keys.len() == 2)
        .await;

    // `l` on the fleet's first row: seid's log, following.
    console.send(Msg::Key(Key::char('l')));
    let screen = console
        .until_within("seid's log", SERVED, |_, s| s.contains("seid stand-in of"))
        .await;
    let title = format!("logs {}/full-a-0 · seid · following", ns.name);
    assert!(screen.contains(&title), "{screen}");
    console.send(Msg::Key(Key::char('c')));
    console
        .until_within("the sidecar's log", SERVED, |_, s| {
            s.contains("sei-sidecar stand-in of")
        })
        .await;
    console.send(Msg::Key(Key::char('c')));
    console
        .until_within("the proxy's log", SERVED, |_, s| {
            s.contains("· kube-rbac-proxy ·")
        })
        .await;

    // A request through the node's forward is logged by the proxy and appears while following.
    // The proxy logs the path alone; no other caller asks for /v0/livez.
    let marker = format!("/v0/livez?marker={}", ns.name);
    let pods: kube::Api<k8s_openapi::api::core::v1::Pod> =
        kube::Api::namespaced(conn.client.clone(), &ns.name);
    let mut forward = pods
        .portforward("full-a-0", &[8443])
        .await
        .expect("forward");
    let mut stream = forward.take_stream(8443).expect("stream");
    stream
        .write_all(
            format!("GET {marker} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .await
        .expect("send");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer)).await;
    let screen = console
        .until_within("the new request's line", SERVED, |_, s| {
            s.contains("GET /v0/livez")
        })
        .await;
    assert!(screen.contains("following"), "{screen}");

    // The node without a pod: one line naming it, the view stays open.
    console.send(Msg::Key(Key::plain(KeyCode::Esc)));
    console.send(Msg::Key(Key::plain(KeyCode::Esc)));
    console.send(Msg::Key(Key::char('j')));
    console.send(Msg::Key(Key::char('l')));
    let screen = console
        .until_within("the missing pod's line", SERVED, |_, s| {
            s.contains("✖ no logs: pod ghost-0 not found")
        })
        .await;
    assert!(screen.contains("ghost-0 · seid · failed"), "{screen}");
}
