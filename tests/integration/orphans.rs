//! Orphans are named, and what runs is shown (issue 33), on the real control plane with the
//! real seictl sidecar: a `rollout` killed with SIGKILL mid-plan leaves its plan Active with
//! nobody running it; `get` (row and JSON), `describe` and `doctor` call it orphaned with the
//! command that resumes it, the journal's `started` line is closed as `interrupted` (with the
//! plan's state) the next time the journal is read, and that command does resume it. Along the
//! way the image each pod runs (kwok's container status) is what drift is judged against.
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};

use crate::common::TestNamespace;
use crate::common::console::{cli, console, running_full_nodes, spawn_console};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

fn get_json(ns: &TestNamespace, state: &Path) -> Value {
    let out = cli(&["get", "-n", &ns.name, "-o", "json"], state);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let items: Value = serde_json::from_slice(&out.stdout).expect("get -o json");
    items[0].clone()
}

fn journal(state: &Path) -> Vec<Value> {
    std::fs::read_to_string(state.join("sei-console/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[tokio::test]
async fn a_rollout_killed_mid_plan_is_named_orphaned_with_its_resume_and_its_journal_line_closed() {
    let ns = TestNamespace::new("orphan").await;
    let state = tempfile::tempdir().expect("tempdir");
    let node = "full-0";
    running_full_nodes(&ns, &[node.to_owned()], OLD, &BTreeMap::new(), state.path()).await;

    // What runs: kwok reports the seid container's image; the node runs its spec.
    let before = get_json(&ns, state.path());
    assert_eq!(before["runningImage"], OLD, "{before:#}");
    assert_eq!(before["drift"], false, "{before:#}");

    // The rollout, killed once its plan is in flight (the first task done).
    let args = [
        "rollout",
        "--no-health-gate",
        node,
        "-n",
        &ns.name,
        "--image",
        NEW,
        "--yes",
    ];
    let mut rollout = spawn_console(&args, state.path(), &[]);
    let deadline = Instant::now() + Duration::from_secs(90);
    while !rollout.stdout().contains("\"task-transition\"") {
        assert!(
            Instant::now() < deadline,
            "no task moved: {}",
            rollout.stdout()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    rollout.child.start_kill().expect("SIGKILL the rollout");
    rollout.child.wait().await.expect("reap the rollout");
    let stored = ns.seinodes().get(node).await.expect("get");
    assert_eq!(
        stored.data["status"]["plan"]["phase"], "Active",
        "killed mid-plan: {:#}",
        stored.data["status"]["plan"]
    );

    // `get`: the row and the JSON name the orphan and its resume command.
    let item = get_json(&ns, state.path());
    let resume = item["orphaned"]["resume"]
        .as_str()
        .unwrap_or_else(|| panic!("orphaned: {item:#}"))
        .to_owned();
    assert!(
        resume.starts_with(&format!("sei-console exec {node} -n {}", ns.name)),
        "{resume}"
    );
    assert!(
        item["orphaned"]["why"]
            .as_str()
            .is_some_and(|why| why.contains("no live controller") && why.contains("gone")),
        "{item:#}"
    );
    let table = cli(&["get", "-n", &ns.name], state.path());
    let table = String::from_utf8_lossy(&table.stdout).into_owned();
    assert!(table.contains("orphaned"), "{table}");
    // Until replace-pod ran, the new StatefulSet is applied and the pod still runs the old
    // image (OnDelete): drift, against what runs.
    let replaced = stored.data["status"]["plan"]["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|t| t["type"] == "replace-pod" && t["status"] == "Complete");
    let runs = if replaced { NEW } else { OLD };
    assert_eq!(item["runningImage"], runs, "{item:#}");
    assert_eq!(item["drift"], !replaced, "{item:#}");

    // `describe` and the doctor say it with the same command.
    let described = cli(&["describe", node, "-n", &ns.name], state.path());
    let described = String::from_utf8_lossy(&described.stdout).into_owned();
    assert!(
        described.contains("Orphaned:") && described.contains(&resume),
        "{described}"
    );
    assert!(
        described.contains(&format!("Runs:             {runs}")),
        "{described}"
    );
    let doctor = cli(&["doctor", "-n", &ns.name, "-o", "json"], state.path());
    let doctor: Value = serde_json::from_slice(&doctor.stdout).expect("doctor -o json");
    let findings = doctor["findings"].as_array().cloned().unwrap_or_default();
    assert!(
        findings
            .iter()
            .any(|f| f["class"] == "executor-lease-orphaned"
                && f["summary"]
                    .as_str()
                    .is_some_and(|s| s.contains("orphaned"))
                && f["fix"]["command"]
                    .as_str()
                    .is_some_and(|c| c.starts_with(&format!("sei-console exec {node}")))),
        "{doctor:#}"
    );

    // The journal: the rollout's `started` line is closed on the next read.
    let started = journal(state.path());
    assert!(
        started
            .iter()
            .any(|l| l["action"] == "rollout" && l["outcome"] == "started"),
        "{started:#?}"
    );
    let read = cli(&["journal", "-o", "json"], state.path());
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let lines = journal(state.path());
    let closed = lines
        .iter()
        .find(|l| l["action"] == "rollout" && l["outcome"] == "interrupted")
        .unwrap_or_else(|| panic!("no interrupted line: {lines:#?}"));
    let reason = closed["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("no longer running") && reason.contains("Active"),
        "{reason}"
    );
    // Read again: closed once.
    let _ = cli(&["journal"], state.path());
    let interrupted = journal(state.path())
        .iter()
        .filter(|l| l["outcome"] == "interrupted")
        .count();
    assert_eq!(interrupted, 1);

    // The resume command resumes it.
    let resumed = console(&["exec", node, "-n", &ns.name, "--yes"], state.path()).await;
    assert!(resumed.ok, "{resumed:?}");
    let item = get_json(&ns, state.path());
    assert!(item["orphaned"].is_null(), "{item:#}");
    assert_eq!(item["runningImage"], NEW, "{item:#}");
    assert_eq!(item["drift"], false, "{item:#}");

    // Drift is what runs: a currentImage left behind (an observe-image that never ran) is no
    // drift while the pod runs the spec's image.
    ns.seinodes()
        .patch_status(
            node,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"currentImage": OLD}})),
        )
        .await
        .expect("patch status");
    let item = get_json(&ns, state.path());
    assert_eq!(item["currentImage"], OLD, "{item:#}");
    assert_eq!(item["runningImage"], NEW, "{item:#}");
    assert_eq!(item["drift"], false, "{item:#}");
}
