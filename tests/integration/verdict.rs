//! Issue 27 on the real control plane: what the cluster says of a node reaches `get` as the one
//! health verdict (a Running node with a failing condition is not healthy in the table, the
//! JSON and the filters), and `seed probe` of a seed that was never rendered counts the checks
//! it never reached apart from the one that failed, and says there is no pod to reach.

use k8s_openapi::api::core::v1::Event;
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use sei_console::actions::node_key::NodeKey;
use serde_json::{Value, json};

use crate::common::console::{cli, node_reported_running};
use crate::common::{TestNamespace, seinode_resource};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

async fn run(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || {
        let state = tempfile::tempdir().expect("tempdir");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cli(&args, state.path())
    })
    .await
    .expect("join")
}

fn words(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn get_carries_the_verdict_of_a_running_node_with_a_failing_condition() {
    let ns = TestNamespace::new("verdict-get").await;
    node_reported_running(&ns, "full-0", IMAGE).await;
    node_reported_running(&ns, "full-1", IMAGE).await;
    let status = json!({"status": {"conditions": [{
        "type": "SidecarReady", "status": "Unknown", "reason": "Unreachable",
        "message": "sidecar Healthz error: connection refused",
        "lastTransitionTime": "2026-12-01T12:00:00Z"}]}});
    ns.seinodes()
        .patch_status("full-1", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("status");

    let out = run(words(&["get", "-n", &ns.name, "-o", "json"])).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {rows:?}"))
            .clone()
    };
    let sick = row("full-1");
    assert_eq!(sick["verdict"]["healthy"], false, "{sick}");
    assert_eq!(sick["verdict"]["severity"], "critical", "{sick}");
    assert_eq!(
        sick["verdict"]["problems"][0]["text"], "SidecarReady/Unreachable",
        "{sick}"
    );
    assert_eq!(row("full-0")["verdict"]["healthy"], true);

    let out = run(words(&["get", "-n", &ns.name])).await;
    let table = String::from_utf8_lossy(&out.stdout);
    let line = |name: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} in\n{table}"))
            .to_owned()
    };
    assert!(
        table.lines().next().is_some_and(|h| h.contains("HEALTH")),
        "{table}"
    );
    assert!(
        line("full-1").contains("✗ SidecarReady/Unreachable"),
        "{table}"
    );
    assert!(line("full-0").contains("✓ ok"), "{table}");

    for filter in ["failed", "warning", "sick"] {
        let out = run(words(&["get", "-n", &ns.name, "--filter", filter])).await;
        let table = String::from_utf8_lossy(&out.stdout);
        let names: Vec<&str> = table
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(names, ["full-1"], "--filter {filter}:\n{table}");
    }
}

/// A port on 127.0.0.1 that nothing listens on (bound, then closed).
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

#[tokio::test(flavor = "multi_thread")]
async fn seed_probe_of_a_seed_never_rendered_counts_not_reached_apart_and_says_no_pod() {
    let ns = TestNamespace::new("verdict-probe").await;
    let key = NodeKey::generate().expect("key");
    ns.create_node_key_secret("seed-0-node-key", key.to_node_key_json().expose())
        .await;
    let mut node = DynamicObject::new("seed-0", &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": IMAGE,
        "externalAddress": format!("127.0.0.1:{}", closed_port()),
        "seed": {"nodeKey": {"secret": {"secretName": "seed-0-node-key"}}}}});
    let created = ns
        .seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create seed");
    ns.seinodes()
        .patch_status(
            "seed-0",
            &PatchParams::default(),
            &Patch::Merge(&json!({"status": {"phase": "Pending"}})),
        )
        .await
        .expect("status");
    let event: Event = serde_json::from_value(json!({
        "metadata": {"name": "seed-0.render-failed", "namespace": ns.name},
        "involvedObject": {"apiVersion": "sei.io/v1alpha1", "kind": "SeiNode",
            "namespace": ns.name, "name": "seed-0", "uid": created.metadata.uid},
        "type": "Warning",
        "reason": "StatefulSetRenderFailed",
        "message": "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file",
        "count": 3,
        "firstTimestamp": "2026-12-01T12:00:00Z",
        "lastTimestamp": "2026-12-01T12:05:00Z",
        "source": {"component": "seinode-controller"},
    }))
    .expect("event");
    ns.api::<Event>()
        .create(&PostParams::default(), &event)
        .await
        .expect("event");

    let out = run(words(&[
        "seed",
        "probe",
        "seed-0",
        "-n",
        &ns.name,
        "--timeout",
        "5s",
    ]))
    .await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("result: FAILED, of 7 checks: 1 failed, 6 not reached (an earlier step failed), 0 passed"),
        "{text}"
    );
    assert!(
        text.contains(
            "no pod to reach: the SeiNode is Pending with no StatefulSet and no pod (never \
             rendered: StatefulSetRenderFailed: Cannot render the StatefulSet: syncing \
             statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in \
             the app-config file)"
        ),
        "{text}"
    );
    assert!(!text.contains("before v0.0.69"), "{text}");

    let out = run(words(&[
        "seed",
        "probe",
        "seed-0",
        "-n",
        &ns.name,
        "--timeout",
        "5s",
        "-o",
        "json",
    ]))
    .await;
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        report["counts"],
        json!({"passed": 0, "failed": 1, "notReached": 6, "undecided": 0}),
        "{report}"
    );
}
