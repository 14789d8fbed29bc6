//! `sei-console rollout` against the real API server: dry-run changes nothing, read-only sends
//! nothing, a forbidden operator is stopped by the permission check, no TTY without --yes is a
//! refusal, and `--yes --no-wait` pins the image, persists the update plan, records the Console
//! Event and the journal line.

use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::Event;
use kube::api::{ListParams, PostParams};
use serde_json::json;

use crate::common::console::{cli_as, node_reported_running};
use crate::common::{TestNamespace, control_plane};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

async fn spec_image_and_plan(ns: &TestNamespace, name: &str) -> (String, serde_json::Value) {
    let node = ns.seinodes().get(name).await.expect("get");
    (
        node.data["spec"]["image"].as_str().unwrap_or("").to_owned(),
        node.data["status"]["plan"].clone(),
    )
}

fn journal_lines(state: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(state.join("sei-console/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("journal line"))
        .collect()
}

#[tokio::test]
async fn dry_run_previews_the_update_plan_and_changes_nothing() {
    let ns = TestNamespace::new("rollout-dry").await;
    node_reported_running(&ns, "rpc-0", OLD).await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = cli_as(
        &[
            "rollout",
            "--no-health-gate",
            "rpc-0",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--dry-run",
            "-o",
            "json",
        ],
        &control_plane().kubeconfig,
        state.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    // Notes (who executes, warnings) come before the nodes' previews.
    let preview: serde_json::Value = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find(|line| line["event"] == "preview")
        .expect("a preview line");
    assert_eq!(preview["preview"]["toImage"], NEW, "{stdout}");
    assert_eq!(
        preview["preview"]["plan"]["tasks"].as_array().map(Vec::len),
        Some(7)
    );
    assert!(
        stdout
            .lines()
            .last()
            .is_some_and(|l| l.contains("\"ok\":true")),
        "{stdout}"
    );
    let (image, plan) = spec_image_and_plan(&ns, "rpc-0").await;
    assert_eq!((image.as_str(), plan), (OLD, serde_json::Value::Null));
    assert_eq!(journal_lines(state.path())[0]["outcome"], "dry-run");
}

#[tokio::test]
async fn read_only_refuses_before_any_request() {
    let state = tempfile::tempdir().expect("tempdir");
    // A kubeconfig that does not exist: the refusal must come before it is even read.
    let out = cli_as(
        &[
            "rollout",
            "--no-health-gate",
            "rpc-0",
            "-n",
            "sei",
            "--image",
            NEW,
            "--yes",
            "--read-only",
        ],
        &PathBuf::from("/nonexistent/kubeconfig"),
        state.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("read-only mode: refusing to run rollout on rpc-0; nothing was sent"),
        "{stderr}"
    );
    let journal = journal_lines(state.path());
    assert_eq!(journal[0]["outcome"], "refused");
}

#[tokio::test]
async fn forbidden_operator_is_stopped_by_the_permission_check_before_any_change() {
    let ns = TestNamespace::new("rollout-forbidden").await;
    node_reported_running(&ns, "rpc-0", OLD).await;
    let state = tempfile::tempdir().expect("tempdir");
    // The same credentials, impersonating a user without any RBAC rule.
    let mut kubeconfig: serde_yaml_ng::Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(&control_plane().kubeconfig).expect("kubeconfig"),
    )
    .expect("yaml");
    for user in kubeconfig["users"].as_sequence_mut().expect("users") {
        user["user"]["as"] = "dave".into();
    }
    let impersonating = state.path().join("dave.kubeconfig");
    std::fs::write(
        &impersonating,
        serde_yaml_ng::to_string(&kubeconfig).expect("yaml"),
    )
    .expect("write");
    // dave may read SeiNodes (for the preview) but not change them.
    let role = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "seinode-reader"},
        "rules": [{"apiGroups": ["sei.io"], "resources": ["seinodes"], "verbs": ["get", "list"]}]
    });
    let binding = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "dave-reads"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "seinode-reader"},
        "subjects": [{"kind": "User", "name": "dave", "apiGroup": "rbac.authorization.k8s.io"}]
    });
    ns.api::<k8s_openapi::api::rbac::v1::Role>()
        .create(
            &PostParams::default(),
            &serde_json::from_value(role).expect("role"),
        )
        .await
        .expect("role");
    ns.api::<k8s_openapi::api::rbac::v1::RoleBinding>()
        .create(
            &PostParams::default(),
            &serde_json::from_value(binding).expect("binding"),
        )
        .await
        .expect("binding");
    let args = [
        "rollout",
        "--no-health-gate",
        "rpc-0",
        "-n",
        &ns.name,
        "--image",
        NEW,
        "--yes",
    ];
    let out = crate::common::wait_for(
        "dave's read access to settle",
        std::time::Duration::from_secs(30),
        || async {
            let out = cli_as(&args, &impersonating, state.path());
            Ok::<_, kube::Error>(text(&out.stderr).contains("not allowed to").then_some(out))
        },
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    // Every missing grant is named, the pod-needs read first.
    assert!(
        stderr.contains("not allowed to get serviceaccounts")
            && stderr.contains(&format!(
                "patch seinodes.sei.io \"rpc-0\" in namespace \"{}\"",
                ns.name
            )),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was changed"), "{stderr}");
    let (image, plan) = spec_image_and_plan(&ns, "rpc-0").await;
    assert_eq!((image.as_str(), plan), (OLD, serde_json::Value::Null));
}

#[tokio::test]
async fn without_yes_and_without_a_terminal_it_refuses() {
    let ns = TestNamespace::new("rollout-notty").await;
    node_reported_running(&ns, "rpc-0", OLD).await;
    let state = tempfile::tempdir().expect("tempdir");
    // --no-wait: the admin identity has a client certificate only, so a rollout the console
    // would follow is refused before it asks (its sidecar calls cannot be authenticated).
    let out = cli_as(
        &[
            "rollout",
            "--no-health-gate",
            "rpc-0",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--no-wait",
        ],
        &control_plane().kubeconfig,
        state.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("pass --yes"));
    let (image, _) = spec_image_and_plan(&ns, "rpc-0").await;
    assert_eq!(image, OLD);
}

#[tokio::test]
async fn yes_no_wait_pins_the_image_persists_the_plan_and_records_event_and_journal() {
    let ns = TestNamespace::new("rollout-apply").await;
    node_reported_running(&ns, "rpc-0", OLD).await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = cli_as(
        &[
            "rollout",
            "--no-health-gate",
            "rpc-0",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--yes",
            "--no-wait",
        ],
        &control_plane().kubeconfig,
        state.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (image, plan) = spec_image_and_plan(&ns, "rpc-0").await;
    assert_eq!(image, NEW);
    assert_eq!(plan["phase"], "Active");
    let kinds: Vec<&str> = plan["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter_map(|t| t["type"].as_str())
        .collect();
    assert_eq!(kinds.first(), Some(&"apply-statefulset"));
    assert_eq!(kinds.last(), Some(&"mark-ready"));
    let events = ns
        .api::<Event>()
        .list(&ListParams::default())
        .await
        .expect("events");
    let console_event = events
        .items
        .iter()
        .find(|e| e.reason.as_deref() == Some("ConsoleImageRollout"))
        .expect("Console event recorded");
    let message = console_event.message.as_deref().unwrap_or("");
    assert!(message.contains("via sei-console: image"), "{message}");
    assert!(message.contains(NEW), "{message}");
    let journal = journal_lines(state.path());
    assert_eq!(
        journal.last().map(|l| l["outcome"].clone()),
        Some(json!("started"))
    );
    assert!(!journal.iter().any(|l| l.to_string().contains("priv")));
}
