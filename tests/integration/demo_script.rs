//! The README's demo command itself (`tests/control-plane/demo --hold`, with this build's console):
//! it starts its own control plane, applies the demo fleet, puts real sei-tendermint nodes behind
//! the Running nodes' RPC port (`tests/control-plane/demo-chain`), and the console then reads real
//! chain health for every node that serves RPC. Stopping the demo stops every process it started.
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common::repo_path;

/// The demo's cluster as long as the demo holds it (its `DIR`).
async fn wait_for_hold(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    seen: &mut Vec<String>,
) -> PathBuf {
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = tokio::time::timeout(left, lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("the demo did not hold in 240 s:\n{}", seen.join("\n")))
            .expect("read the demo's output")
            .unwrap_or_else(|| panic!("the demo ended early:\n{}", seen.join("\n")));
        seen.push(line.clone());
        if let Some(rest) = line.strip_prefix("demo: KUBECONFIG=") {
            let kubeconfig = rest.split_whitespace().next().expect("a path");
            return Path::new(kubeconfig)
                .parent()
                .expect("the demo's directory")
                .to_owned();
        }
    }
}

/// `get -n sei-demo -o json` as the demo's operator (console.env), `{name: chainHealth}`.
async fn chain_health(dir: &Path) -> Vec<(String, Value)> {
    let env = std::fs::read_to_string(dir.join("console.env")).expect("console.env");
    let state = tempfile::tempdir().expect("state");
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(env.lines().filter_map(|l| l.split_once('=')))
        .env("XDG_STATE_HOME", state.path())
        .env("XDG_CONFIG_HOME", state.path())
        .args(["get", "-n", "sei-demo", "-o", "json"])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run sei-console get");
    assert!(
        output.status.success(),
        "get: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let items: Vec<Value> = serde_json::from_slice(&output.stdout).expect("get -o json");
    items
        .into_iter()
        .map(|item| {
            (
                item["name"].as_str().unwrap_or_default().to_owned(),
                item["chainHealth"].clone(),
            )
        })
        .collect()
}

/// Processes whose command line names `dir` (the chain nodes' homes are under it).
fn processes_under(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(&needle) && !cmdline.contains("sei-console get") {
                found.push(cmdline);
            }
        }
    }
    found
}

#[tokio::test]
async fn the_demo_shows_real_chain_health_and_stops_everything_it_started() {
    let mut demo = tokio::process::Command::new("bash")
        .arg(repo_path("tests/control-plane/demo"))
        .arg("--hold")
        .env("SEI_CONSOLE_BIN", env!("CARGO_BIN_EXE_sei-console"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the demo");
    let mut lines = BufReader::new(demo.stdout.take().expect("stdout")).lines();
    let mut seen = Vec::new();
    let dir = wait_for_hold(&mut lines, &mut seen).await;
    let told = seen.last().cloned().unwrap_or_default();
    assert!(
        told.starts_with(&format!(
            "demo: KUBECONFIG={}/operator.kubeconfig is the one to use",
            dir.display()
        )),
        "the demo names the operator's kubeconfig first: {told}"
    );
    // The next line says why the admin kubeconfig cannot drive the sidecars.
    let why = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
        .await
        .ok()
        .and_then(|line| line.ok().flatten())
        .unwrap_or_default();
    assert!(
        why.contains("client certificate") && why.contains("refuses actions that call a sidecar"),
        "{why}"
    );
    assert!(
        seen.iter()
            .any(|l| l.starts_with("demo: 5/5 starting real sei-tendermint nodes")),
        "the demo says what it is doing:\n{}",
        seen.join("\n")
    );

    // kwok picks the PortForwards up from its watch: read until every RPC answers (45 s at most).
    let deadline = Instant::now() + Duration::from_secs(45);
    let health = loop {
        let health = chain_health(&dir).await;
        let answering = health
            .iter()
            .filter(|(_, h)| h["height"].as_u64().is_some())
            .count();
        if answering >= 4 || Instant::now() > deadline {
            break health;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    };
    let state = |name: &str| {
        health
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, h)| h.clone())
            .unwrap_or_else(|| panic!("{name} listed: {health:?}"))
    };
    for synced in ["pacific-1-full-0", "pacific-1-archive-0"] {
        let h = state(synced);
        assert_eq!(h["state"], "in-sync", "{synced}: {h:#}");
        assert!(
            h["height"].as_u64().is_some_and(|h| h > 1),
            "{synced}: {h:#}"
        );
    }
    let lonely = state("pacific-1-replayer-0");
    assert_eq!(lonely["state"], "catching-up", "{lonely:#}");
    assert_eq!(lonely["verdict"]["onePeer"], true, "{lonely:#}");
    let stalled = state("pacific-1-full-1");
    assert_ne!(
        stalled["state"], "in-sync",
        "its network stopped: {stalled:#}"
    );
    assert!(
        stalled["height"].as_u64().is_some(),
        "it answers: {stalled:#}"
    );
    assert_eq!(
        state("pacific-1-validator-0")["verdict"]["failure"]["kind"],
        "no-pod"
    );
    assert!(state("pacific-1-seed-0").is_null(), "a seed serves no RPC");
    assert!(
        !processes_under(&dir).is_empty(),
        "the chain nodes run under the demo's directory"
    );

    // What a Ctrl-C does: the demo's trap stops the control plane and every chain node.
    let pid = demo.id().expect("the demo runs");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    tokio::time::timeout(Duration::from_secs(90), demo.wait())
        .await
        .expect("the demo stops within 90 s")
        .expect("wait");
    let left = processes_under(&dir);
    assert!(left.is_empty(), "left running: {left:#?}");
}
