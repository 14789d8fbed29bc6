//! `sei-console journal` reads the JSONL journal under the XDG state dir.
use assert_cmd::Command;
use predicates::prelude::*;

const LINES: &str = concat!(
    r#"{"time":"2026-11-30T04:00:00Z","operator":"alice (context prod)","action":"rollout","nodes":["sei/rpc-0"],"detail":"image seid:v2","outcome":"refused","reason":"read-only mode"}"#,
    "\n",
    "not json\n",
    r#"{"time":"2026-11-30T04:05:00Z","operator":"bob (context dev)","action":"address","nodes":["sei/rpc-1"],"detail":"external address 203.0.113.7:26656","outcome":"started"}"#,
    "\n",
);

fn state_dir_with_journal() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let app = dir.path().join("sei-console");
    std::fs::create_dir_all(&app).expect("mkdir");
    std::fs::write(app.join("journal.jsonl"), LINES).expect("write");
    dir
}

#[test]
fn lists_the_journal_as_text_and_warns_about_damaged_lines() {
    let state = state_dir_with_journal();
    Command::cargo_bin("sei-console")
        .expect("binary")
        .env("XDG_STATE_HOME", state.path())
        .arg("journal")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "2026-11-30T04:00:00Z  alice (context prod)  rollout  refused  sei/rpc-0  image seid:v2 (read-only mode)",
        ))
        .stdout(predicate::str::contains("address  started"))
        .stderr(predicate::str::contains("line 2"));
}

#[test]
fn lists_the_journal_as_json() {
    let state = state_dir_with_journal();
    let output = Command::cargo_bin("sei-console")
        .expect("binary")
        .env("XDG_STATE_HOME", state.path())
        .args(["journal", "-o", "json"])
        .output()
        .expect("run");
    assert!(output.status.success());
    let entries: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(entries.as_array().map(Vec::len), Some(2));
    assert_eq!(entries[1]["action"], "address");
    assert_eq!(entries[0]["reason"], "read-only mode");
}

#[test]
fn an_empty_journal_says_so() {
    let state = tempfile::tempdir().expect("tempdir");
    Command::cargo_bin("sei-console")
        .expect("binary")
        .env("XDG_STATE_HOME", state.path())
        .arg("journal")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("no actions recorded in "));
}

/// A journal file the operator names and that is not there is an error (exit 1), not an empty
/// journal: "no actions recorded" would read as "nothing was done".
#[test]
fn a_missing_journal_file_is_an_error() {
    let state = tempfile::tempdir().expect("tempdir");
    let missing = state.path().join("nonexistent.jsonl");
    Command::cargo_bin("sei-console")
        .expect("binary")
        .env("XDG_STATE_HOME", state.path())
        .args(["journal", "--file"])
        .arg(&missing)
        .assert()
        .code(1)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(format!(
            "journal file {} does not exist",
            missing.display()
        )));
}

#[test]
fn filters_by_node_action_operator_and_since_and_hides_dry_runs_unless_all() {
    let state = state_dir_with_journal();
    let app = state.path().join("sei-console/journal.jsonl");
    let dry = r#"{"time":"2026-11-30T04:10:00Z","operator":"carol (context prod)","action":"rollout","nodes":["sei/rpc-0"],"detail":"image seid:v3","outcome":"dry-run"}"#;
    std::fs::write(&app, format!("{LINES}{dry}\n")).expect("write");
    let run = |args: &[&str]| {
        let output = Command::cargo_bin("sei-console")
            .expect("binary")
            .env("XDG_STATE_HOME", state.path())
            .arg("journal")
            .args(args)
            .output()
            .expect("run");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        )
    };
    let (_, all) = run(&[]);
    assert!(!all.contains("carol"), "dry runs hidden: {all}");
    let (_, with_dry) = run(&["--all"]);
    assert!(
        with_dry.contains("carol") && with_dry.contains("dry-run"),
        "{with_dry}"
    );
    let (_, node) = run(&["--node", "rpc-1"]);
    assert!(node.contains("bob") && !node.contains("alice"), "{node}");
    let (_, action) = run(&["--action", "rollout", "--all"]);
    assert!(
        action.contains("alice") && action.contains("carol") && !action.contains("bob"),
        "{action}"
    );
    let (_, operator) = run(&["--operator", "ALICE"]);
    assert!(
        operator.contains("alice") && !operator.contains("bob"),
        "{operator}"
    );
    let (_, since) = run(&["--since", "2026-11-30T04:01:00Z"]);
    assert!(since.contains("bob") && !since.contains("alice"), "{since}");
    let (_, none) = run(&["--node", "nope"]);
    assert!(
        none.starts_with("no action in ") && none.contains("node nope"),
        "{none}"
    );
    let (code, _) = run(&["--action", "deploy"]);
    assert_eq!(code, Some(2), "an unknown action is bad input");
    let (code, _) = run(&["--since", "soon"]);
    assert_eq!(code, Some(2), "a bad --since is bad input");
}

#[test]
fn several_contexts_show_only_their_entries_and_json_rows_carry_context() {
    let state = state_dir_with_journal();
    let app = state.path().join("sei-console/journal.jsonl");
    // A line written with the typed field, in a third context.
    let stage = r#"{"time":"2026-11-30T04:20:00Z","operator":"dan (context stage)","context":"stage","action":"rollout","nodes":["sei/rpc-2"],"detail":"image seid:v4","outcome":"succeeded"}"#;
    std::fs::write(&app, format!("{LINES}{stage}\n")).expect("write");
    let operators = |args: &[&str]| -> Vec<(String, String)> {
        let output = Command::cargo_bin("sei-console")
            .expect("binary")
            .env("XDG_STATE_HOME", state.path())
            .args(args)
            .args(["-o", "json"])
            .output()
            .expect("run");
        assert!(output.status.success(), "{output:?}");
        let rows: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
        rows.as_array()
            .expect("array")
            .iter()
            .map(|r| {
                (
                    r["context"].as_str().unwrap_or("?").to_owned(),
                    r["operator"].as_str().unwrap_or("?").to_owned(),
                )
            })
            .collect()
    };
    let pair = |context: &str, operator: &str| (context.to_owned(), operator.to_owned());
    assert_eq!(
        operators(&["journal"]),
        [
            pair("prod", "alice (context prod)"),
            pair("dev", "bob (context dev)"),
            pair("stage", "dan (context stage)"),
        ],
        "no --context: every entry, each row naming its context"
    );
    assert_eq!(
        operators(&["--context", "stage", "journal", "--context", "prod"]),
        [
            pair("prod", "alice (context prod)"),
            pair("stage", "dan (context stage)"),
        ]
    );
    assert_eq!(
        operators(&["journal", "--context", "dev"]),
        [pair("dev", "bob (context dev)")]
    );
    Command::cargo_bin("sei-console")
        .expect("binary")
        .env("XDG_STATE_HOME", state.path())
        .args(["--context", "nowhere", "journal"])
        .assert()
        .success()
        .stdout(predicate::str::contains("context nowhere"));
}

/// No silent loss of the record (issue 26): an action whose journal cannot be written says so
/// before anything happens (here the state dir is a file, so no journal can be made under it).
#[test]
fn an_action_whose_journal_cannot_be_written_says_so_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let not_a_dir = dir.path().join("state-is-a-file");
    std::fs::write(&not_a_dir, "").expect("write");
    Command::cargo_bin("sei-console")
        .expect("binary")
        .env("XDG_STATE_HOME", &not_a_dir)
        .env("XDG_CONFIG_HOME", dir.path())
        .env("KUBECONFIG", dir.path().join("no-such-kubeconfig"))
        .args(["rollout", "a", "--image", "sei:v2", "--dry-run"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "warning: the journal of console actions cannot be written (cannot write journal",
        ))
        .stderr(predicate::str::contains(
            "this action will not be recorded there",
        ));
}
