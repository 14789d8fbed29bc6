//! The local control plane itself: Nodes and StorageClasses match the platform config, a
//! control plane started with `--owner` stops (leaving no process) once its owner exits, and a
//! `start` killed midway (SIGKILL) leaves no process behind.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use k8s_openapi::api::core::v1::Node;
use k8s_openapi::api::storage::v1::StorageClass;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use kube::api::{Api, ListParams};

use crate::common::{client, platform_value, repo_path};

fn whole_units(quantity: Option<&Quantity>, suffix: &str) -> u64 {
    let text = quantity.map(|q| q.0.as_str()).unwrap_or("0");
    text.trim_end_matches(suffix).parse().unwrap_or(0)
}

#[tokio::test]
async fn every_node_pool_has_labelled_tainted_roomy_kwok_nodes_and_classes_exist() {
    let client = client().await;
    let nodes = Api::<Node>::all(client.clone());
    let toleration_key = platform_value("scheduling.tolerationKey");
    for key in [
        "nodepoolName",
        "nodepoolArchive",
        "nodepoolValidator",
        "nodepoolSeed",
    ] {
        let pool = platform_value(&format!("scheduling.{key}"));
        let selector = format!("karpenter.sh/nodepool={pool}");
        let list = nodes
            .list(&ListParams::default().labels(&selector))
            .await
            .expect("list nodes");
        assert!(
            list.items.len() >= 2,
            "pool {pool} has {} nodes",
            list.items.len()
        );
        for node in &list.items {
            let taints = node
                .spec
                .as_ref()
                .and_then(|s| s.taints.clone())
                .unwrap_or_default();
            assert!(
                taints.iter().any(|t| t.key == toleration_key
                    && t.value.as_deref() == Some(pool.as_str())
                    && t.effect == "NoSchedule"),
                "{:?} taints {taints:?}",
                node.metadata.name
            );
            let allocatable = node
                .status
                .as_ref()
                .and_then(|s| s.allocatable.clone())
                .unwrap_or_default();
            // The largest production profile (archive) asks for 64 CPU and 512Gi.
            assert!(
                whole_units(allocatable.get("cpu"), "") >= 64,
                "{allocatable:?}"
            );
            assert!(
                whole_units(allocatable.get("memory"), "Ti") >= 1,
                "{allocatable:?}"
            );
        }
    }
    let classes = Api::<StorageClass>::all(client);
    for key in ["classPerf", "classDefault", "classArchive"] {
        let name = platform_value(&format!("storage.{key}"));
        classes
            .get(&name)
            .await
            .unwrap_or_else(|e| panic!("StorageClass {name}: {e}"));
    }
}

fn pids(dir: &Path) -> Vec<u32> {
    std::fs::read_to_string(dir.join("pids"))
        .unwrap_or_default()
        .lines()
        .filter_map(|line| line.rsplit(' ').next()?.parse().ok())
        .collect()
}

/// Running = exists and is not a zombie waiting to be reaped.
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map(|status| {
            !status
                .lines()
                .any(|l| l.starts_with("State:") && l.contains('Z'))
        })
        .unwrap_or(false)
}

#[tokio::test]
async fn a_control_plane_started_with_an_owner_stops_when_the_owner_exits() {
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "sei-console-owner-test-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let mut owner = Command::new("sleep")
        .arg("600")
        .spawn()
        .expect("spawn owner");
    let started = Command::new("bash")
        .arg(repo_path("tests/control-plane/start"))
        .arg(&dir)
        .arg("--owner")
        .arg(owner.id().to_string())
        .output()
        .expect("run start");
    assert!(
        started.status.success(),
        "start failed: {}",
        String::from_utf8_lossy(&started.stderr)
    );
    let components = pids(&dir);
    assert!(
        components.len() >= 6,
        "etcd, apiserver, KCM, scheduler, kwok, watchdog: {components:?}"
    );
    assert!(components.iter().all(|pid| running(*pid)));

    owner.kill().expect("kill owner");
    owner.wait().expect("reap owner");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while components.iter().any(|pid| running(*pid)) {
        assert!(
            std::time::Instant::now() < deadline,
            "still running 60 s after the owner exited: {:?}",
            components
                .iter()
                .filter(|pid| running(**pid))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(!dir.join("pids").exists(), "stop removes the pid list");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `start` killed with SIGKILL during its startup runs no trap: its watchdog, started before
/// the first component, stops what it had launched (issue 33: a demo killed so left its etcd
/// running for 13 minutes).
#[tokio::test]
async fn a_start_killed_during_startup_leaves_no_process_behind() {
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "sei-console-killed-start-{}",
        uuid::Uuid::new_v4().simple()
    ));
    let mut start = Command::new("bash")
        .arg(repo_path("tests/control-plane/start"))
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run start");
    // Killed once the API server has been launched (etcd and the API server run).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let launched = |name: &str| {
        std::fs::read_to_string(dir.join("pids"))
            .unwrap_or_default()
            .lines()
            .any(|line| line.starts_with(&format!("{name} ")))
    };
    while !launched("kube-apiserver") {
        assert!(
            std::time::Instant::now() < deadline,
            "start launched no API server in 60 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Read before the kill too: the watchdog may have stopped everything (and removed the
    // list) by the time the kill is reaped.
    let mut components = pids(&dir);
    start.kill().expect("SIGKILL start");
    start.wait().expect("reap start");
    components.extend(pids(&dir));
    components.sort_unstable();
    components.dedup();
    assert!(
        components.len() >= 3,
        "watchdog, etcd, kube-apiserver: {components:?}"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while components.iter().any(|pid| running(*pid)) {
        assert!(
            std::time::Instant::now() < deadline,
            "still running 30 s after start was killed: {:?}",
            components
                .iter()
                .filter(|pid| running(**pid))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(!dir.join("pids").exists(), "stop removes the pid list");
    let _ = std::fs::remove_dir_all(&dir);
}
