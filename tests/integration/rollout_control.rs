//! A rollout seen and stopped from another process through its record in the cluster (issue 35):
//! four nodes rolled in waves [a] [b c] [d] by the embedded executor, node b served by the
//! sidecar stand-in holding its `config-patch` task so wave 2 stays in flight. From a second
//! process, `rollout status` shows it running (live runner, per-node states), and `rollout
//! abort` stops it: b's Active plan runs to its end once released, d is never touched, the
//! record says aborted and the runner's end names what changed. A runner SIGKILLed mid-wave
//! leaves an orphaned rollout (status names the resume command) that a second process aborts
//! at once, naming the plan left Active.
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::TestNamespace;
use crate::common::console::{
    console, console_env, running_full_nodes_with_standins, sidecar_home, spawn_console,
};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
const HOLD_FILE: &str = ".standin-hold-tasks";

fn names() -> Vec<String> {
    ["ra", "rb", "rc", "rd"].map(str::to_owned).to_vec()
}

/// `sei-console ARGS -o json` from a second process (no executor flags: these commands follow
/// no plan).
async fn control(args: &[&str], state: &Path) -> (bool, Vec<Value>, String) {
    control_with(args, state, &[]).await
}

/// [`control`] with `extra` added to the environment.
pub(crate) async fn control_with(
    args: &[&str],
    state: &Path,
    extra: &[(&str, String)],
) -> (bool, Vec<Value>, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(console_env())
        .envs(extra.iter().map(|(k, v)| (*k, v.as_str())))
        .env("XDG_STATE_HOME", state)
        .env("XDG_CONFIG_HOME", state)
        .args(args)
        .args(["-o", "json"])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run sei-console");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

async fn status(ns: &TestNamespace, state: &Path) -> Vec<Value> {
    let (ok, lines, stderr) = control(&["rollout", "status", "-n", &ns.name], state).await;
    assert!(ok, "{stderr}");
    lines
        .iter()
        .find_map(|l| l["rollouts"].as_array().cloned())
        .unwrap_or_else(|| panic!("no rollouts line: {lines:?}"))
}

fn result_of(lines: &[Value]) -> &Value {
    lines
        .iter()
        .find(|l| l["event"] == "result")
        .unwrap_or_else(|| panic!("no result: {lines:?}"))
}

pub(crate) fn node_state<'a>(rollout: &'a Value, node: &str) -> &'a str {
    rollout["nodes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["name"] == node))
        .and_then(|n| n["state"].as_str())
        .unwrap_or("")
}

/// Polls `rollout status` until `ready` holds for the one rollout (at most 60 s).
pub(crate) async fn await_status(
    ns: &TestNamespace,
    state: &Path,
    ready: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let rollouts = status(ns, state).await;
        if let Some(r) = rollouts.first().filter(|r| ready(r)) {
            return r.clone();
        }
        assert!(
            Instant::now() < deadline,
            "status never got there: {rollouts:?}"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

pub(crate) async fn spec_image(ns: &TestNamespace, node: &str) -> (String, String) {
    let node = ns.seinodes().get(node).await.expect("get SeiNode");
    let text = |v: &Value| v.as_str().unwrap_or("").to_owned();
    (
        text(&node.data["spec"]["image"]),
        text(&node.data["status"]["currentImage"]),
    )
}

pub(crate) async fn resource_version(ns: &TestNamespace, node: &str) -> String {
    let node = ns.seinodes().get(node).await.expect("get SeiNode");
    node.metadata.resource_version.unwrap_or_default()
}

async fn start(ns: &TestNamespace, state: &Path) -> crate::common::console::Background {
    let labels = BTreeMap::from([("fleet".to_owned(), "control".to_owned())]);
    running_full_nodes_with_standins(ns, &names(), OLD, &labels, state, &["rb"]).await;
    let home = sidecar_home(&ns.name, "rb");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::write(home.join(HOLD_FILE), "config-patch\n").expect("hold file");
    spawn_console(
        &[
            "rollout",
            "ra",
            "rb",
            "rc",
            "rd",
            "--no-health-gate",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--canary",
            "1",
            "--batch",
            "2",
            "--executor",
            "embedded",
            "--yes",
        ],
        state,
        &[],
    )
}

#[tokio::test]
async fn an_abort_from_a_second_process_stops_the_rollout_after_the_wave_in_flight() {
    let ns = TestNamespace::new("rollout-abort").await;
    let state = tempfile::tempdir().expect("tempdir");
    let (hook, seen) = crate::notify_webhook::receiver(false).await;
    crate::notify_webhook::write_config(state.path(), &hook);
    let runner = start(&ns, state.path()).await;
    let rollout = await_status(&ns, state.path(), |r| node_state(r, "rb") == "rolling").await;
    let id = rollout["id"].as_str().expect("id").to_owned();
    assert_eq!(rollout["state"], "running", "{rollout}");
    assert!(
        rollout["runner"]
            .as_str()
            .is_some_and(|r| r.starts_with("live")),
        "{rollout}"
    );
    assert_eq!(node_state(&rollout, "ra"), "rolled", "{rollout}");
    assert_eq!(node_state(&rollout, "rd"), "pending", "{rollout}");
    let rd_before = resource_version(&ns, "rd").await;

    // The abort is read within seconds, but rb's plan is Active: the runner reaches its safe
    // point only once that plan ends.
    let (ok, lines, stderr) = control(
        &["rollout", "abort", "rb", "-n", &ns.name, "--wait", "3"],
        state.path(),
    )
    .await;
    assert!(!ok, "{lines:?} {stderr}");
    let message = result_of(&lines)["message"].as_str().unwrap_or("");
    assert!(
        message.contains(&format!("abort of rollout {id} requested"))
            && message.contains("has not reached a safe point"),
        "{message}"
    );
    let requested = await_status(&ns, state.path(), |r| r["abort"].is_object()).await;
    assert_eq!(requested["state"], "running", "{requested}");

    std::fs::remove_file(sidecar_home(&ns.name, "rb").join(HOLD_FILE)).expect("release");
    let end = runner.finish(Duration::from_secs(90)).await;
    assert!(!end.ok, "{end:?}");
    let result = end.result();
    assert_eq!(result["rollout"], id.as_str(), "{result}");
    let message = result["message"].as_str().unwrap_or("");
    assert!(
        message.contains("is aborted: aborted by")
            && message.contains("not changed: rd (still ghcr.io/sei-protocol/sei:v6.3.0)"),
        "{message}"
    );
    assert!(
        end.notes()
            .iter()
            .any(|n| n.starts_with(&format!("rollout {id} ({}): aborted", ns.name))),
        "{:?}",
        end.notes()
    );
    assert!(
        !end.notes().iter().any(|n| n.starts_with("wave 3")),
        "{:?}",
        end.notes()
    );
    // The webhook is told it was aborted, once, and not that it halted.
    let posts = crate::notify_webhook::posts(&seen, 1).await;
    let events: Vec<&Value> = posts.iter().map(|(_, body)| &body["event"]).collect();
    assert_eq!(events, ["rollout.aborted"], "{posts:?}");
    // The wave in flight ran its plans to their end; the next wave never started.
    for node in ["ra", "rb", "rc"] {
        assert_eq!(
            spec_image(&ns, node).await,
            (NEW.to_owned(), NEW.to_owned()),
            "{node}"
        );
    }
    assert_eq!(spec_image(&ns, "rd").await.0, OLD);
    assert_eq!(resource_version(&ns, "rd").await, rd_before, "rd untouched");
    let record = &status(&ns, state.path()).await[0];
    assert_eq!(record["state"], "aborted", "{record}");
    assert_eq!(record["holder"], Value::Null, "{record}");
    assert_eq!(node_state(record, "rd"), "pending");

    // Aborting it again changes nothing and says so.
    let (ok, _, stderr) = control(&["rollout", "abort", &id, "-n", &ns.name], state.path()).await;
    assert!(
        !ok && stderr.contains("is already aborted; nothing was changed"),
        "{stderr}"
    );
}

#[tokio::test]
async fn a_rollout_whose_runner_was_killed_is_orphaned_and_aborted_by_a_second_process() {
    let ns = TestNamespace::new("rollout-orphan").await;
    let state = tempfile::tempdir().expect("tempdir");
    let mut runner = start(&ns, state.path()).await;
    let rollout = await_status(&ns, state.path(), |r| node_state(r, "rb") == "rolling").await;
    let id = rollout["id"].as_str().expect("id").to_owned();
    runner.child.kill().await.expect("SIGKILL the runner");

    // Its process is gone: orphaned at once, with the command that resumes it.
    let orphan = &status(&ns, state.path()).await[0];
    let words = orphan["runner"].as_str().unwrap_or("");
    assert!(
        words.starts_with("orphaned")
            && words.contains(&format!(
                "resume: sei-console -n {} rollout ra rb rc rd --image {NEW}",
                ns.name
            )),
        "{orphan}"
    );

    let started = Instant::now();
    let (ok, lines, stderr) = control(&["rollout", "abort", "-n", &ns.name], state.path()).await;
    assert!(ok, "{lines:?} {stderr}");
    assert!(started.elapsed() < Duration::from_secs(20));
    let message = result_of(&lines)["message"].as_str().unwrap_or("");
    assert!(
        message.contains(&format!("rollout {id} aborted by"))
            && message.contains("is gone")
            && message.contains("not changed: rd")
            && message.contains("rb: plan ")
            && message.contains("is Active")
            && message.contains("nothing runs it now"),
        "{message}"
    );
    assert_eq!(result_of(&lines)["record"]["state"], "aborted");
    assert_eq!(spec_image(&ns, "rd").await.0, OLD);
    // The abort is journaled: one line naming the rollout, what changed and what did not.
    let journal =
        std::fs::read_to_string(state.path().join("sei-console/journal.jsonl")).unwrap_or_default();
    let aborts: Vec<Value> = journal
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|l: &Value| l["action"] == "rollout-abort")
        .collect();
    assert_eq!(aborts.len(), 1, "{journal}");
    let line = &aborts[0];
    assert_eq!(line["outcome"], "succeeded", "{line}");
    assert_eq!(line["detail"], format!("rollout {id}").as_str(), "{line}");
    let reason = line["reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("changed: ")
            && reason.contains("not changed: rd (still ")
            && reason.contains("rb: plan "),
        "{line}"
    );
    std::fs::remove_file(sidecar_home(&ns.name, "rb").join(HOLD_FILE)).expect("release");
}

#[tokio::test]
async fn undo_after_a_halted_rollout_puts_every_changed_node_back_and_leaves_the_rest() {
    let ns = TestNamespace::new("rollout-undo").await;
    let state = tempfile::tempdir().expect("tempdir");
    let labels = BTreeMap::from([("fleet".to_owned(), "undo".to_owned())]);
    running_full_nodes_with_standins(&ns, &names(), OLD, &labels, state.path(), &["rc"]).await;
    let home = sidecar_home(&ns.name, "rc");
    std::fs::create_dir_all(&home).expect("home");
    let fail_file = home.join(".standin-fail-tasks");
    std::fs::write(&fail_file, "config-patch\n").expect("fault file");
    let rollout = [
        "rollout",
        "ra",
        "rb",
        "rc",
        "rd",
        "--no-health-gate",
        "-n",
        &ns.name,
        "--image",
        NEW,
        "--canary",
        "1",
        "--batch",
        "2",
        "--executor",
        "embedded",
        "--yes",
    ];
    let halted = console(&rollout, state.path()).await;
    assert!(!halted.ok, "{halted:?}");
    let id = halted.result()["rollout"].as_str().expect("id").to_owned();
    let record = &status(&ns, state.path()).await[0];
    assert_eq!(record["state"], "halted", "{record}");
    assert_eq!(node_state(record, "rc"), "failed", "{record}");
    assert_eq!(node_state(record, "rd"), "pending", "{record}");
    let rd_before = resource_version(&ns, "rd").await;
    std::fs::remove_file(&fail_file).expect("clear the fault");

    let undo = [
        "rollout",
        "undo",
        &id,
        "-n",
        &ns.name,
        "--no-health-gate",
        "--executor",
        "embedded",
        "--yes",
    ];
    let dry = console(&[&undo[..], &["--dry-run"]].concat(), state.path()).await;
    assert!(dry.ok, "{dry:?}");
    let notes = dry.notes();
    for node in ["ra", "rb", "rc"] {
        assert!(
            notes.contains(&format!("undo: {node}: back to {OLD} (from rollout {id})").as_str()),
            "{notes:?}"
        );
    }
    let undone = console(&undo, state.path()).await;
    assert!(undone.ok, "{undone:?}");
    let undo_id = undone.result()["rollout"]
        .as_str()
        .expect("undo id")
        .to_owned();
    for node in ["ra", "rb", "rc"] {
        assert_eq!(
            spec_image(&ns, node).await,
            (OLD.to_owned(), OLD.to_owned()),
            "{node} back"
        );
    }
    assert_eq!(resource_version(&ns, "rd").await, rd_before, "rd untouched");
    let records = status(&ns, state.path()).await;
    let undo_record = records
        .iter()
        .find(|r| r["id"] == undo_id.as_str())
        .expect("undo record");
    assert_eq!(undo_record["state"], "done", "{undo_record}");
    assert_eq!(
        undo_record["kind"]["undo"]["of"],
        id.as_str(),
        "{undo_record}"
    );
    // Undoing it again: every node is already back, nothing changes.
    let again = console(&undo, state.path()).await;
    assert!(again.ok, "{again:?}");
    assert!(
        again.result()["message"]
            .as_str()
            .is_some_and(|m| m.contains("already on")),
        "{again:?}"
    );
}

#[tokio::test]
async fn a_rollout_held_after_its_canary_goes_on_when_a_second_process_promotes_it() {
    let ns = TestNamespace::new("rollout-hold").await;
    let state = tempfile::tempdir().expect("tempdir");
    let labels = BTreeMap::from([("fleet".to_owned(), "hold".to_owned())]);
    running_full_nodes_with_standins(&ns, &names(), OLD, &labels, state.path(), &[]).await;
    let (hook, seen) = crate::notify_webhook::receiver(false).await;
    crate::notify_webhook::write_config(state.path(), &hook);
    let runner = spawn_console(
        &[
            "rollout",
            "ra",
            "rb",
            "rc",
            "rd",
            "--no-health-gate",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--canary",
            "1",
            "--batch",
            "3",
            "--hold-after",
            "canary",
            "--executor",
            "embedded",
            "--yes",
        ],
        state.path(),
        &[],
    );
    let held = await_status(&ns, state.path(), |r| r["state"] == "holding").await;
    let id = held["id"].as_str().expect("id").to_owned();
    // Whoever is on call is told the rollout waits for them.
    let posts = crate::notify_webhook::posts(&seen, 1).await;
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert_eq!(posts[0].1["event"], "rollout.held", "{posts:?}");
    assert!(
        posts[0].1["message"]
            .as_str()
            .is_some_and(|m| m.contains(&format!("rollout promote {id}"))),
        "{posts:?}"
    );
    assert_eq!(node_state(&held, "ra"), "rolled", "{held}");
    assert_eq!(node_state(&held, "rb"), "pending", "{held}");
    assert_eq!(
        spec_image(&ns, "rb").await.0,
        OLD,
        "nothing after the canary yet"
    );
    // Still held a few polls later.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(status(&ns, state.path()).await[0]["state"], "holding");

    let (ok, lines, stderr) =
        control(&["rollout", "promote", &id, "-n", &ns.name], state.path()).await;
    assert!(ok, "{lines:?} {stderr}");
    assert!(
        result_of(&lines)["message"]
            .as_str()
            .is_some_and(|m| m.contains("starts wave 2 of 2")),
        "{lines:?}"
    );
    let end = runner.finish(Duration::from_secs(90)).await;
    assert!(end.ok, "{end:?}");
    let notes = end.notes();
    for state in ["holding", "running: promoted by", "done"] {
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with(&format!("rollout {id} ({}): {state}", ns.name))),
            "{state}: {notes:?}"
        );
    }
    for node in names() {
        assert_eq!(spec_image(&ns, &node).await.0, NEW, "{node}");
    }
    let posts = crate::notify_webhook::posts(&seen, 2).await;
    let events: Vec<&Value> = posts.iter().map(|(_, body)| &body["event"]).collect();
    assert_eq!(events, ["rollout.held", "rollout.finished"], "{posts:?}");
    // Promoting a finished rollout is refused, changing nothing.
    let (ok, _, stderr) = control(&["rollout", "promote", &id, "-n", &ns.name], state.path()).await;
    assert!(!ok && stderr.contains("is done, not holding"), "{stderr}");
}
