//! `sei-console describe` on the real control plane checks a seed's `StatefulSetRenderFailed`
//! event against the platform config it has now: the demo platform file and the controller's
//! ConfigMap both name `nodepoolSeed`, so the event is from before (with since when), not a
//! stale `set scheduling.nodepoolSeed` fix; text and JSON say the same.
use std::process::Stdio;

use k8s_openapi::api::core::v1::Event;
use kube::api::{DynamicObject, PostParams};
use serde_json::{Value, json};

use crate::common::console::cli;
use crate::common::{TestNamespace, control_plane, seinode_resource};

const MESSAGE: &str = "Cannot render the StatefulSet: syncing statefulset: generating \
                       statefulset: scheduling.nodepoolSeed is not configured in the app-config file";

fn ago(seconds: i64) -> String {
    (jiff::Timestamp::now() - jiff::SignedDuration::from_secs(seconds))
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// A seed with a render-failure event last seen ten minutes ago.
async fn seed_that_failed_to_render(ns: &TestNamespace) {
    let mut node = DynamicObject::new("seed-0", &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0",
        "seed": {"nodeKey": {"secret": {"secretName": "seed-0-node-key"}}}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create seed");
    let seed = ns.seinodes().get("seed-0").await.expect("seed");
    let event: Event = serde_json::from_value(json!({
        "metadata": {"name": "seed-0.render-failed"},
        "involvedObject": {"apiVersion": "sei.io/v1alpha1", "kind": "SeiNode",
            "namespace": ns.name, "name": "seed-0", "uid": seed.metadata.uid},
        "type": "Warning", "reason": "StatefulSetRenderFailed", "message": MESSAGE,
        "source": {"component": "seinode-controller"}, "count": 3,
        "firstTimestamp": ago(900), "lastTimestamp": ago(600)}))
    .expect("event");
    ns.api::<Event>()
        .create(&PostParams::default(), &event)
        .await
        .expect("create Event");
}

fn stdout(out: &std::process::Output) -> String {
    assert!(
        out.status.success(),
        "describe failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn describe_says_a_render_failure_the_present_config_renders_is_from_before() {
    let ns = TestNamespace::new("describe-render").await;
    let state = tempfile::tempdir().expect("state dir");
    seed_that_failed_to_render(&ns).await;

    // The demo platform file (as the demo runs the console).
    let text = stdout(&cli(&["describe", "seed-0", "-n", &ns.name], state.path()));
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("from before (last seen 10m ago"))
        .unwrap_or_else(|| panic!("no from-before line:\n{text}"));
    assert!(
        line.contains("assets/demo/platform-config.yaml, read 0s ago")
            && line.ends_with("renders the node now"),
        "{line}"
    );
    assert!(!text.contains("fix: set scheduling.nodepoolSeed"), "{text}");

    let json: Value = serde_json::from_str(&stdout(&cli(
        &["describe", "seed-0", "-n", &ns.name, "-o", "json"],
        state.path(),
    )))
    .expect("describe JSON");
    let event = json["events"]
        .as_array()
        .and_then(|events| {
            events
                .iter()
                .find(|e| e["reason"] == "StatefulSetRenderFailed")
        })
        .unwrap_or_else(|| panic!("no render-failure event: {json}"));
    assert_eq!(event["renderCheck"]["verdict"], "from-before", "{event}");
    assert!(
        event["renderCheck"]["line"]
            .as_str()
            .is_some_and(|l| l.starts_with("from before (last seen 10m ago")),
        "{event}"
    );

    // Without a file: the controller's ConfigMap, read by describe itself.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .args(["describe", "seed-0", "-n", &ns.name, "--kubeconfig"])
        .arg(&control_plane().kubeconfig)
        .env("XDG_STATE_HOME", state.path())
        .env("XDG_CONFIG_HOME", state.path())
        .env_remove("SEI_CONSOLE_PLATFORM_CONFIG")
        .stdin(Stdio::null())
        .output()
        .expect("run sei-console");
    let text = stdout(&out);
    assert!(
        text.contains(
            "from before (last seen 10m ago"
        ) && text.contains("ConfigMap sei-k8s-controller-system/sei-controller-config (key config.yaml), read 0s ago"),
        "{text}"
    );
}
