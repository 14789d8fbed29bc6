//! `[notify]` webhooks on the real control plane: `sei-console rollout` with the embedded
//! executor (one node served by the sidecar stand-in, whose fault file fails its plan), and a
//! webhook receiver on 127.0.0.1 written here (a plain HTTP/1.1 listener that records each
//! POST). A halted rollout and then the finished one are each exactly one documented POST; a
//! receiver that hangs does not hold the rollout: its result line comes while the receiver
//! still hangs, the process exits within the configured bound, and the failure is on stderr and
//! in the journal.
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::common::TestNamespace;
use crate::common::console::{
    Run, console, console_env, running_full_nodes_with_standins, sidecar_home,
};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
const NEWER: &str = "ghcr.io/sei-protocol/sei:v6.5.0";
const FAILING: &str = "hook-1";

/// What the receiver got: (path, JSON body) per POST, in order.
pub type Seen = Arc<Mutex<Vec<(String, Value)>>>;

/// An HTTP/1.1 receiver on 127.0.0.1: records each POST and answers 204, or (`hang`) records
/// it and never answers.
pub async fn receiver(hang: bool) -> (String, Seen) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind the receiver");
    let addr = listener.local_addr().expect("addr");
    let seen: Seen = Arc::default();
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let record = record.clone();
            tokio::spawn(async move {
                let mut stream = BufReader::new(stream);
                let mut head = String::new();
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    if line == "\r\n" {
                        break;
                    }
                    if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0u8; length.min(1 << 20)];
                if stream.read_exact(&mut body).await.is_err() {
                    return;
                }
                let path = head
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_owned();
                let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
                record.lock().expect("lock").push((path, json));
                if hang {
                    tokio::time::sleep(Duration::from_secs(120)).await;
                }
                let _ = stream
                    .get_mut()
                    .write_all(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n")
                    .await;
            });
        }
    });
    (format!("http://127.0.0.1:{}/hook/token", addr.port()), seen)
}

pub fn write_config(state: &Path, url: &str) {
    let dir = state.join("sei-console");
    std::fs::create_dir_all(&dir).expect("config dir");
    std::fs::write(
        dir.join("config.toml"),
        format!("[notify]\nwebhooks = [\"{url}\"]\ntimeout_seconds = 1\nattempts = 2\n"),
    )
    .expect("config");
}

fn rollout_args<'a>(ns: &'a TestNamespace, image: &'a str) -> Vec<&'a str> {
    vec![
        "rollout",
        "hook-0",
        FAILING,
        "--no-health-gate",
        "-n",
        &ns.name,
        "--image",
        image,
        "--canary",
        "1",
        "--batch",
        "1",
        "--executor",
        "embedded",
        "--yes",
    ]
}

/// The POSTs received so far, waiting up to 10 s for at least `count`.
pub async fn posts(seen: &Seen, count: usize) -> Vec<(String, Value)> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = seen.lock().expect("lock").clone();
        if now.len() >= count || Instant::now() >= deadline {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The documented v1 payload of a rollout event, `id` and `time` checked for form only.
fn assert_rollout_payload(
    body: &Value,
    ns: &TestNamespace,
    event: &str,
    image: &str,
    (nodes, failed): (&[&str], Option<&str>),
    run: &Run,
) {
    let object = body.as_object().expect("an object");
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "context",
            "event",
            "id",
            "message",
            "namespace",
            "operator",
            "rollout",
            "schema",
            "time"
        ],
        "{body}"
    );
    assert_eq!(body["schema"], "sei-console.notification/v1");
    assert_eq!(body["event"], event, "{body}");
    assert!(uuid::Uuid::parse_str(body["id"].as_str().unwrap_or("")).is_ok());
    assert!(
        body["time"]
            .as_str()
            .is_some_and(|t| t.parse::<jiff::Timestamp>().is_ok())
    );
    assert_eq!(body["namespace"], ns.name.as_str());
    assert!(body["operator"].as_str().is_some_and(|o| !o.is_empty()));
    assert_eq!(
        body["message"],
        run.result()["message"],
        "the end's own line"
    );
    assert_eq!(
        body["rollout"],
        serde_json::json!({"image": image, "nodes": nodes, "failedNode": failed})
    );
}

#[tokio::test]
async fn a_halted_and_a_finished_rollout_are_each_one_documented_post() {
    let ns = TestNamespace::new("notify").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = vec!["hook-0".to_owned(), FAILING.to_owned()];
    running_full_nodes_with_standins(&ns, &names, OLD, &BTreeMap::new(), state.path(), &[FAILING])
        .await;
    let (url, seen) = receiver(false).await;
    write_config(state.path(), &url);
    let home = sidecar_home(&ns.name, FAILING);
    std::fs::create_dir_all(&home).expect("stand-in home");
    let fault = home.join(".standin-fail-tasks");
    std::fs::write(&fault, "config-patch\n").expect("fault file");

    let halted = console(&rollout_args(&ns, NEW), state.path()).await;
    assert!(!halted.ok, "{halted:?}");
    let got = posts(&seen, 1).await;
    assert_eq!(got.len(), 1, "one POST for the halt: {got:?}");
    assert_eq!(got[0].0, "/hook/token", "the URL as configured");
    assert_rollout_payload(
        &got[0].1,
        &ns,
        "rollout.halted",
        NEW,
        (&["hook-0", FAILING], Some(FAILING)),
        &halted,
    );
    assert!(
        got[0].1["message"]
            .as_str()
            .is_some_and(|m| m.contains(&format!("rollout halted at {}/{FAILING}", ns.name))),
        "{}",
        got[0].1
    );

    std::fs::remove_file(&fault).expect("clear the fault");
    let finished = console(&rollout_args(&ns, NEW), state.path()).await;
    assert!(finished.ok, "{finished:?}");
    let got = posts(&seen, 2).await;
    assert_eq!(got.len(), 2, "one more POST for the finish: {got:?}");
    // hook-0 is on the image already: the resumed rollout changes the other node only.
    assert_rollout_payload(
        &got[1].1,
        &ns,
        "rollout.finished",
        NEW,
        (&[FAILING], None),
        &finished,
    );
    assert_ne!(got[0].1["id"], got[1].1["id"]);
    assert!(
        !finished.stderr.contains("notification failed"),
        "{}",
        finished.stderr
    );
    // Nothing else arrives later (the dry run, the preview and refusals are not notified).
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(seen.lock().expect("lock").len(), 2);
}

#[tokio::test]
async fn a_hanging_receiver_does_not_hold_the_rollout_and_its_failure_is_said_and_journaled() {
    let ns = TestNamespace::new("notify-hang").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = vec!["hook-0".to_owned(), FAILING.to_owned()];
    running_full_nodes_with_standins(&ns, &names, OLD, &BTreeMap::new(), state.path(), &[FAILING])
        .await;
    let (url, seen) = receiver(true).await;
    write_config(state.path(), &url);

    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(console_env())
        .env("XDG_STATE_HOME", state.path())
        .env("XDG_CONFIG_HOME", state.path())
        .args(rollout_args(&ns, NEWER))
        .args(["--max-wait-ms", "300", "--timeout", "90", "-o", "json"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("run sei-console");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut result = None;
    while let Ok(Some(line)) = lines.next_line().await {
        let value: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if value["event"] == "result" {
            result = Some((value, Instant::now()));
            break;
        }
    }
    let (result, ended_at) = result.expect("a result line");
    assert_eq!(result["ok"], true, "{result}");
    // The rollout ended; the receiver answers no POST (it holds each for 120 s).
    assert!(seen.lock().expect("lock").len() <= 1);
    let mut stderr = String::new();
    let status = tokio::time::timeout(Duration::from_secs(30), async {
        if let Some(mut err) = child.stderr.take() {
            let _ = err.read_to_string(&mut stderr).await;
        }
        child.wait().await
    })
    .await
    .expect("exits while the receiver still hangs")
    .expect("wait");
    let after = ended_at.elapsed();
    assert!(status.success(), "{stderr}");
    // 2 tries of 1 s, one backoff of 0.5 s and the 1 s slack, with room for a loaded machine.
    assert!(
        after < Duration::from_secs(10),
        "exited {after:?} after its result line"
    );
    eprintln!("exit {after:?} after the result line (bound 2.5 s + 1 s slack)");
    let got = seen.lock().expect("lock").clone();
    assert_eq!(got.len(), 2, "two tries: {got:?}");
    assert_eq!(got[0].1["id"], got[1].1["id"], "a retry repeats the id");
    assert_eq!(got[0].1["event"], "rollout.finished");
    assert!(
        stderr.contains("warning: notification failed: webhook http://127.0.0.1:")
            && stderr.contains(
                "rollout.finished not delivered after 2 attempt(s): no answer within 1s (journaled)"
            ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("/hook/token"),
        "the path stays out: {stderr}"
    );
    let journal =
        std::fs::read_to_string(state.path().join("sei-console/journal.jsonl")).expect("journal");
    let line: Value = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["action"] == "notify")
        .expect("a notify line");
    assert_eq!(line["outcome"], "failed");
    assert!(
        line["detail"]
            .as_str()
            .is_some_and(|d| d.starts_with("rollout.finished to http://127.0.0.1:")),
        "{line}"
    );
    assert_eq!(
        line["nodes"],
        serde_json::json!([
            format!("{}/hook-0", ns.name),
            format!("{}/{FAILING}", ns.name)
        ])
    );
}
