//! kubectl's reading conventions on `get` against the real control plane: `--watch` (a line per
//! change), `-o name|jsonpath|custom-columns`, `--no-headers`, `--as`/`--as-group`
//! (impersonation, refused by RBAC) and dynamic completion of node names.
use std::process::Stdio;
use std::time::Duration;

use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use crate::common::console::{cli, node_reported_running};
use crate::common::{TestNamespace, control_plane};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

fn text(output: &std::process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[tokio::test]
async fn get_prints_names_jsonpath_and_custom_columns_without_headers() {
    let ns = TestNamespace::new("get-forms").await;
    node_reported_running(&ns, "full-a", IMAGE).await;
    node_reported_running(&ns, "full-b", IMAGE).await;
    let state = tempfile::tempdir().expect("tempdir");
    let get = |extra: &[&str]| {
        let mut args = vec!["get", "-n", &ns.name];
        args.extend(extra);
        text(&cli(&args, state.path()))
    };
    assert_eq!(
        get(&["-o", "name"]).0,
        "seinode.sei.io/full-a\nseinode.sei.io/full-b\n"
    );
    assert_eq!(get(&["-o", "jsonpath={.items[*].name}"]).0, "full-a full-b");
    assert_eq!(
        get(&[
            "-o",
            "jsonpath={range .items[*]}{.name}={.phase}{\"\\n\"}{end}"
        ])
        .0,
        "full-a=Running\nfull-b=Running\n"
    );
    let (out, err) = get(&["-o", "custom-columns=NODE:.name,PHASE:.phase,IMAGE:.image"]);
    assert_eq!(
        out,
        format!(
            "NODE     PHASE     IMAGE\nfull-a   Running   {IMAGE}\nfull-b   Running   {IMAGE}\n"
        ),
        "{err}"
    );
    let (table, _) = get(&["--no-headers"]);
    assert!(table.starts_with("full-a "), "{table}");
    assert!(!table.contains("NAME"), "{table}");
    // A bad template is bad input: one line, exit 2, nothing read.
    let output = cli(
        &["get", "-n", &ns.name, "-o", "jsonpath={.items"],
        state.path(),
    );
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

#[tokio::test]
async fn get_watch_prints_a_status_change_as_a_json_line_within_the_bound() {
    let ns = TestNamespace::new("get-watch").await;
    node_reported_running(&ns, "full-w", IMAGE).await;
    let state = tempfile::tempdir().expect("tempdir");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .args([
            "get",
            "--watch",
            "-o",
            "json",
            "-n",
            &ns.name,
            "--kubeconfig",
        ])
        .arg(&control_plane().kubeconfig)
        .env("XDG_STATE_HOME", state.path())
        .env("XDG_CONFIG_HOME", state.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("get --watch");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = async || -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("a line within 20 s")
            .expect("read")
            .expect("a line");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    };
    let first = next().await;
    assert_eq!(first["type"], "ADDED", "{first}");
    assert_eq!(first["object"]["name"], "full-w", "{first}");
    assert_eq!(first["object"]["phase"], "Running", "{first}");
    let status = json!({"status": {"phase": "Failed"}});
    ns.seinodes()
        .patch_status("full-w", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("status");
    let changed = next().await;
    assert_eq!(changed["type"], "MODIFIED", "{changed}");
    assert_eq!(changed["object"]["phase"], "Failed", "{changed}");
    child.kill().await.expect("stop the watch");
}

#[tokio::test]
async fn get_watch_table_prints_a_row_per_change() {
    let ns = TestNamespace::new("get-watch-table").await;
    node_reported_running(&ns, "full-t", IMAGE).await;
    let state = tempfile::tempdir().expect("tempdir");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .args(["get", "-w", "-n", &ns.name, "--kubeconfig"])
        .arg(&control_plane().kubeconfig)
        .env("XDG_STATE_HOME", state.path())
        .env("XDG_CONFIG_HOME", state.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("get -w");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(20), lines.next_line())
            .await
            .expect("a line within 20 s")
            .expect("read")
            .expect("a line")
    };
    assert!(next().await.starts_with("NAME "));
    assert!(next().await.contains("Running"));
    let status = json!({"status": {"phase": "Failed"}});
    ns.seinodes()
        .patch_status("full-t", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("status");
    let row = next().await;
    assert!(
        row.starts_with("full-t ") && row.contains("Failed"),
        "{row}"
    );
    child.kill().await.expect("stop the watch");
}

#[tokio::test]
async fn as_an_identity_without_rights_get_is_refused_by_rbac_and_a_group_grants() {
    let ns = TestNamespace::new("get-as").await;
    node_reported_running(&ns, "full-i", IMAGE).await;
    let state = tempfile::tempdir().expect("tempdir");
    let user = "s5-no-rights";
    let output = cli(&["get", "-n", &ns.name, "--as", user], state.path());
    let (out, err) = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}{err}");
    assert!(err.contains("forbidden") && err.contains(user), "{err}");
    assert!(!err.trim().contains('\n'), "one line: {err}");
    // The same user in the masters group may.
    let output = cli(
        &[
            "get",
            "-n",
            &ns.name,
            "--as",
            user,
            "--as-group",
            "system:masters",
            "-o",
            "name",
        ],
        state.path(),
    );
    let (out, err) = text(&output);
    assert!(output.status.success(), "{err}");
    assert_eq!(out, "seinode.sei.io/full-i\n");
    // --as-group needs --as.
    let output = cli(&["get", "--as-group", "x"], state.path());
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

#[tokio::test]
async fn tab_completes_the_node_names_of_the_namespace_typed() {
    let ns = TestNamespace::new("complete").await;
    node_reported_running(&ns, "full-c1", IMAGE).await;
    node_reported_running(&ns, "full-c2", IMAGE).await;
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .args([
            "--",
            "sei-console",
            "describe",
            "-n",
            &ns.name,
            "--kubeconfig",
        ])
        .arg(&control_plane().kubeconfig)
        .arg("full-")
        .env("SEI_CONSOLE_COMPLETE", "bash")
        .env("_CLAP_COMPLETE_INDEX", "6")
        .env("_CLAP_COMPLETE_COMP_TYPE", "9")
        .env("_CLAP_COMPLETE_SPACE", "true")
        .env("_CLAP_IFS", "\n")
        .output()
        .await
        .expect("complete");
    let out = String::from_utf8_lossy(&output.stdout);
    let words: Vec<&str> = out.lines().collect();
    assert_eq!(words, ["full-c1", "full-c2"], "{output:?}");
}
