//! Log triage on the command line: `logs -l SELECTOR` / `--mode` across nodes, each line
//! prefixed with its node, `--grep`, and `--timestamps` (kwok serves the pods' logs from the
//! CRI files the sidecar add-on writes, timestamps included).
use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use kube::api::{Patch, PatchParams};
use serde_json::json;

use crate::common::console::{production_env, running_full_nodes};
use crate::common::{TestNamespace, repo_path};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

/// `logs -n NS ARGS`: (success, stdout, stderr).
async fn logs(ns: &str, args: &[&str]) -> (bool, String, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(production_env())
        .env(
            "SEI_CONSOLE_PLATFORM_CONFIG",
            repo_path("assets/demo/platform-config.yaml"),
        )
        .args(["logs", "-n", ns])
        .args(args)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run logs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Two running full nodes labelled tier=rpc, then `full-b` relabelled tier=canary; returns
/// once both pods' logs are served.
async fn two_nodes(ns: &TestNamespace, state: &std::path::Path) {
    let names = ["full-a".to_owned(), "full-b".to_owned()];
    let labels = BTreeMap::from([("tier".to_owned(), "rpc".to_owned())]);
    running_full_nodes(ns, &names, IMAGE, &labels, state).await;
    ns.seinodes()
        .patch(
            "full-b",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"tier": "canary"}}})),
        )
        .await
        .expect("relabel full-b");
    for name in &names {
        crate::common::wait_for("the pod's logs served", Duration::from_secs(20), || {
            let ns = ns.name.clone();
            let name = name.clone();
            async move {
                let (ok, out, _) = logs(&ns, &[&name]).await;
                Ok((ok && out.contains("container started")).then_some(()))
            }
        })
        .await;
    }
}

#[tokio::test]
async fn logs_across_nodes_prefix_each_line_with_its_node_and_grep_keeps_matching_lines() {
    let ns = TestNamespace::new("logs-many").await;
    let state = tempfile::tempdir().expect("tempdir");
    two_nodes(&ns, state.path()).await;

    // The selector picks full-a only; every line is its own, prefixed.
    let (ok, out, err) = logs(&ns.name, &["-l", "tier=rpc"]).await;
    assert!(ok, "{err}");
    assert!(!out.is_empty());
    for line in out.lines() {
        assert!(line.starts_with("[full-a] "), "{line}");
    }
    let started = format!(
        "[full-a] seid stand-in of {}/full-a: container started",
        ns.name
    );
    assert!(out.contains(&started), "{out}");

    // --mode full picks both; each line is prefixed with the node that wrote it.
    let (ok, out, err) = logs(&ns.name, &["--mode", "full", "-c", "sidecar"]).await;
    assert!(ok, "{err}");
    for node in ["full-a", "full-b"] {
        let mine: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with(&format!("[{node}] ")))
            .collect();
        assert!(
            mine.iter()
                .any(|l| l.contains(&format!("sei-sidecar stand-in of {}/{node}:", ns.name))),
            "{node}: {out}"
        );
    }
    assert!(
        out.lines()
            .all(|l| l.starts_with("[full-a] ") || l.starts_with("[full-b] "))
    );

    // --grep keeps the matching lines only, across nodes too.
    let (ok, out, err) = logs(
        &ns.name,
        &["--mode", "full", "--grep", "STAND-IN OF .*/full-b"],
    )
    .await;
    assert!(ok && out.is_empty(), "a capital makes it exact: {out}{err}");
    let (ok, out, err) = logs(
        &ns.name,
        &["--mode", "full", "--grep", "stand-in of .*/full-b"],
    )
    .await;
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.starts_with("[full-b] seid stand-in of"), "{out}");
    let (ok, out, _) = logs(&ns.name, &["full-a", "--grep", "container started"]).await;
    assert!(
        ok && out.lines().count() == 1 && !out.starts_with('['),
        "{out}"
    );

    // Nothing matches: one line, exit 1; a bad regex: one line, exit 2, nothing read.
    let (ok, out, err) = logs(&ns.name, &["-l", "tier=rpc", "--mode", "seed"]).await;
    assert!(!ok && out.is_empty());
    assert_eq!(
        err.trim(),
        format!(
            "error: no SeiNode in namespace {} matches -l tier=rpc --mode seed",
            ns.name
        )
    );
    let bad = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(production_env())
        .args(["logs", "-n", &ns.name, "--mode", "full", "--grep", "(x"])
        .output()
        .await
        .expect("run");
    assert_eq!(bad.status.code(), Some(2));
    let text = String::from_utf8_lossy(&bad.stderr);
    assert!(text.contains("bad filter \"(x\""), "{text}");
}

#[tokio::test]
async fn timestamps_begin_each_line_with_the_time_the_runtime_read_it() {
    let ns = TestNamespace::new("logs-time").await;
    let state = tempfile::tempdir().expect("tempdir");
    two_nodes(&ns, state.path()).await;
    let (ok, plain, err) = logs(&ns.name, &["full-a"]).await;
    assert!(ok, "{err}");
    let (ok, stamped, err) = logs(&ns.name, &["full-a", "--timestamps"]).await;
    assert!(ok, "{err}");
    assert_eq!(plain.lines().count(), stamped.lines().count(), "{stamped}");
    for (line, with_time) in plain.lines().zip(stamped.lines()) {
        let (time, rest) = with_time.split_once(' ').expect("a time, then the line");
        let time: jiff::Timestamp = time.parse().expect("RFC 3339");
        let age = jiff::Timestamp::now().duration_since(time);
        assert!(age.as_secs() < 3_600, "{time}");
        assert_eq!(rest, line);
    }
    // Across nodes the prefix comes first, as kubectl logs --prefix --timestamps.
    let (ok, out, err) = logs(&ns.name, &["--mode", "full", "--timestamps"]).await;
    assert!(ok, "{err}");
    for line in out.lines() {
        let rest = line
            .strip_prefix("[full-a] ")
            .or_else(|| line.strip_prefix("[full-b] "))
            .expect("prefixed");
        let time = rest.split(' ').next().unwrap_or_default();
        assert!(time.parse::<jiff::Timestamp>().is_ok(), "{line}");
    }
}
