//! `sei-console exec` with the embedded executor against the real control plane and the stand-in
//! sidecars: init plans to Running, an image update, a kill and resume, a concurrent status
//! writer, and the `StatefulSetRenderFailed` event of a seed rendered without `nodepoolSeed`.

use std::process::Stdio;
use std::time::Duration;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Event, Secret};
use kube::api::{DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common::console::console_env;
use crate::common::{TestNamespace, seinode_resource, wait_for};

fn exec_command(
    ns: &str,
    node: &str,
    extra: &[&str],
    executor_id: &str,
) -> tokio::process::Command {
    let state = exec_state(ns);
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"));
    cmd.envs(console_env())
        .env("SEI_CONSOLE_EXECUTOR_ID", executor_id)
        // Its journal and config per test namespace, never the user's.
        .env("XDG_STATE_HOME", &state)
        .env("XDG_CONFIG_HOME", &state)
        .args([
            "exec",
            node,
            "-n",
            ns,
            "--executor",
            "embedded",
            "--yes",
            "-o",
            "json",
        ])
        .args(["--max-wait-ms", "300"])
        .args(extra)
        .args(if extra.contains(&"--timeout") {
            &[][..]
        } else {
            &["--timeout", "90"][..]
        })
        .stdin(Stdio::null())
        .kill_on_drop(true);
    cmd
}

/// The state (journal) and config directory of the exec runs in namespace `ns`.
fn exec_state(ns: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("exec-state-{ns}"))
}

/// `action outcome` of each exec line of the journal of namespace `ns`'s runs.
fn exec_journal(ns: &str) -> Vec<(String, String, Option<String>)> {
    std::fs::read_to_string(exec_state(ns).join("sei-console/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("journal line"))
        .filter(|l| l["action"] == "exec")
        .map(|l| {
            assert_eq!(l["nodes"], json!([format!("{ns}/full-0")]), "{l}");
            (
                l["outcome"].as_str().unwrap_or("").to_owned(),
                l["detail"].as_str().unwrap_or("").to_owned(),
                l["reason"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

struct ExecRun {
    success: bool,
    lines: Vec<Value>,
    stderr: String,
}

async fn run_exec(ns: &str, node: &str, extra: &[&str]) -> ExecRun {
    let output = exec_command(ns, node, extra, "it-exec")
        .output()
        .await
        .expect("run sei-console exec");
    ExecRun {
        success: output.status.success(),
        lines: String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn finished(run: &ExecRun) -> &Value {
    run.lines
        .iter()
        .rev()
        .find(|l| l["event"] == "plan-finished")
        .unwrap_or_else(|| panic!("no plan-finished line: {:?} {}", run.lines, run.stderr))
}

async fn setup(prefix: &str) -> TestNamespace {
    // With the platform's service account, which every rendered pod runs as.
    TestNamespace::new(prefix).await
}

async fn create_node(ns: &TestNamespace, name: &str, spec: Value) {
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.data = json!({ "spec": spec });
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
}

fn full_spec(image: &str) -> Value {
    json!({"chainId": "pacific-1", "image": image, "fullNode": {}})
}

async fn create_seed(ns: &TestNamespace, name: &str) {
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": format!("{name}-node-key")},
        "stringData": {"node_key.json":
            r#"{"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"AAAA"}}"#}
    }))
    .expect("secret");
    ns.api::<Secret>()
        .create(&PostParams::default(), &secret)
        .await
        .expect("create node-key Secret");
    create_node(
        ns,
        name,
        json!({"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0",
               "seed": {"nodeKey": {"secret": {"secretName": format!("{name}-node-key")}}}}),
    )
    .await;
}

async fn status(ns: &TestNamespace, name: &str) -> Value {
    ns.seinodes().get(name).await.expect("get SeiNode").data["status"].clone()
}

#[tokio::test]
async fn full_node_and_seed_go_from_no_status_to_running_then_an_image_update_completes() {
    let ns = setup("exec-init").await;
    create_node(&ns, "full-0", full_spec("ghcr.io/sei-protocol/sei:v6.3.0")).await;
    create_seed(&ns, "seed-0").await;
    for node in ["full-0", "seed-0"] {
        let run = run_exec(&ns.name, node, &[]).await;
        assert!(run.success, "{node}: {}", run.stderr);
        let done = finished(&run);
        assert_eq!(done["phase"], "Complete", "{node}");
        assert_eq!(done["node_phase"], "Running", "{node}");
        let status = status(&ns, node).await;
        assert_eq!(status["phase"], "Running");
        assert!(status["statefulSet"]["uid"].is_string(), "{status}");
        // The completed plan is cleared, as the controller's next reconcile does.
        assert!(status["plan"].is_null(), "{node}: {status}");
        let transitions = run
            .lines
            .iter()
            .filter(|l| l["event"] == "task-transition")
            .count();
        let tasks = run
            .lines
            .iter()
            .find(|l| l["event"] == "plan-persisted")
            .and_then(|l| l["tasks"].as_array())
            .map_or(0, Vec::len);
        assert_eq!(transitions, tasks, "one line per task transition");
    }
    let sts: StatefulSet = ns.api().get("seed-0").await.expect("seed StatefulSet");
    let seid = sts
        .spec
        .template
        .spec
        .as_ref()
        .expect("pod spec")
        .containers[0]
        .clone();
    assert!(
        seid.env
            .unwrap_or_default()
            .iter()
            .any(|e| e.name == "GOMEMLIMIT")
    );

    // The first Running exec backfills currentImage; then an image change rolls out.
    let backfill = run_exec(&ns.name, "full-0", &[]).await;
    assert!(backfill.success, "{}", backfill.stderr);
    ns.seinodes()
        .patch(
            "full-0",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"image": "ghcr.io/sei-protocol/sei:v6.4.0"}})),
        )
        .await
        .expect("patch image");
    let update = run_exec(&ns.name, "full-0", &[]).await;
    assert!(update.success, "{}", update.stderr);
    assert_eq!(finished(&update)["phase"], "Complete");
    let status = status(&ns, "full-0").await;
    assert_eq!(status["currentImage"], "ghcr.io/sei-protocol/sei:v6.4.0");
    let persisted = update
        .lines
        .iter()
        .find(|l| l["event"] == "plan-persisted")
        .expect("plan-persisted line");
    let kinds: Vec<_> = persisted["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| t.as_str().unwrap_or("").to_owned())
        .collect();
    assert!(
        kinds.contains(&"replace-pod".to_owned()) && kinds.contains(&"observe-image".to_owned())
    );
}

#[tokio::test]
async fn killed_between_steps_the_restarted_executor_finishes_without_rerunning_complete_tasks() {
    let ns = setup("exec-kill").await;
    create_node(&ns, "full-0", full_spec("ghcr.io/sei-protocol/sei:v6.3.0")).await;
    let mut child = exec_command(&ns.name, "full-0", &[], "it-kill")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn exec");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut transitions = 0;
    while let Ok(Some(line)) = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
        .await
        .expect("exec progresses")
    {
        if line.contains("\"task-transition\"") {
            transitions += 1;
            if transitions == 3 {
                break;
            }
        }
    }
    child.kill().await.expect("kill exec");
    let half = status(&ns, "full-0").await["plan"]["tasks"].clone();
    let complete: Vec<Value> = half
        .as_array()
        .expect("tasks")
        .iter()
        .filter(|t| t["status"] == "Complete")
        .cloned()
        .collect();
    assert!(complete.len() >= 3, "{half}");

    let mut resumed = exec_command(&ns.name, "full-0", &[], "it-kill");
    let output = resumed.output().await.expect("resume");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.contains("\"plan-resumed\""), "{text}");
    let after = status(&ns, "full-0").await;
    assert_eq!(after["phase"], "Running");
    assert!(after["plan"].is_null(), "cleared once complete: {after}");
    for done in &complete {
        assert!(
            !text.contains(&format!("\"id\":{}", done["id"])),
            "a Complete task appeared again in the resumed run: {done}"
        );
    }
}

#[tokio::test]
async fn a_concurrent_status_writer_causes_conflicts_that_are_retried_and_neither_write_is_lost() {
    let ns = setup("exec-conflict").await;
    create_node(&ns, "full-0", full_spec("ghcr.io/sei-protocol/sei:v6.3.0")).await;
    let writer_nodes = ns.seinodes();
    let writer = tokio::spawn(async move {
        // Another writer of status (no precondition): a field the executor never touches.
        let mut last = 0;
        for i in 0..400 {
            let patch = json!({"status": {"resolvedRPCWitnesses": [format!("w-{i}")]}});
            if writer_nodes
                .patch_status("full-0", &PatchParams::default(), &Patch::Merge(patch))
                .await
                .is_ok()
            {
                last = i;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        last
    });
    let run = run_exec(&ns.name, "full-0", &[]).await;
    let last = writer.await.expect("writer");
    assert!(run.success, "{}", run.stderr);
    let done = finished(&run);
    assert_eq!(done["phase"], "Complete");
    let status = status(&ns, "full-0").await;
    assert_eq!(status["phase"], "Running", "the executor's writes survive");
    assert_eq!(
        status["resolvedRPCWitnesses"],
        json!([format!("w-{last}")]),
        "the writer's too"
    );
    eprintln!("conflicting status writes retried: {}", done["conflicts"]);
    assert!(
        done["conflicts"].as_u64().unwrap_or(0) > 0,
        "the writer raced the executor: {done}"
    );
}

#[tokio::test]
async fn a_seed_without_nodepool_seed_yields_statefulset_render_failed_while_its_plan_keeps_retrying()
 {
    let ns = setup("exec-render").await;
    create_seed(&ns, "seed-0").await;
    let mut config: serde_yaml_ng::Value = crate::common::platform_config();
    config["scheduling"]["nodepoolSeed"] = serde_yaml_ng::Value::String(String::new());
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("platform-no-seed-{}.yaml", ns.name));
    std::fs::write(&file, serde_yaml_ng::to_string(&config).expect("yaml")).expect("write config");
    let path = file.to_string_lossy().into_owned();
    let output = exec_command(
        &ns.name,
        "seed-0",
        &["--platform-config", &path, "--timeout", "4"],
        "it-render",
    )
    .output()
    .await
    .expect("run exec");
    assert!(
        !output.status.success(),
        "gives up at the deadline, never fails the plan"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("\"render-failed\""), "{stdout}");
    let events: kube::Api<Event> = ns.api();
    let wanted = "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file";
    let found = wait_for(
        "the StatefulSetRenderFailed event",
        Duration::from_secs(10),
        || {
            let events = events.clone();
            async move {
                let list = events
                    .list(&ListParams::default().fields("involvedObject.name=seed-0"))
                    .await?;
                Ok(list
                    .items
                    .into_iter()
                    .filter(|e| e.reason.as_deref() == Some("StatefulSetRenderFailed"))
                    .collect::<Vec<_>>()
                    .into_iter()
                    .next()
                    .filter(|_| true))
            }
        },
    )
    .await;
    assert_eq!(found.type_.as_deref(), Some("Warning"));
    assert_eq!(found.message.as_deref(), Some(wanted));
    assert_eq!(found.involved_object.kind.as_deref(), Some("SeiNode"));
    let status = status(&ns, "seed-0").await;
    assert_eq!(status["plan"]["phase"], "Active", "the plan keeps retrying");
    assert!(
        ns.api::<StatefulSet>()
            .get_opt("seed-0")
            .await
            .expect("get")
            .is_none()
    );
    let _ = std::fs::remove_file(file);
}

#[tokio::test]
async fn exec_is_an_action_previewed_refused_read_only_and_recorded_by_its_console_event_and_journal()
 {
    let ns = setup("exec-action").await;
    create_node(&ns, "full-0", full_spec("ghcr.io/sei-protocol/sei:v6.3.0")).await;
    let detail = "execute the plan the planner builds now".to_owned();

    // The preview is the plan it would persist; nothing changes, the dry run is journaled.
    let dry = run_exec(&ns.name, "full-0", &["--dry-run"]).await;
    assert!(dry.success, "{}", dry.stderr);
    let preview = dry
        .lines
        .iter()
        .find(|l| l["event"] == "preview")
        .unwrap_or_else(|| panic!("no preview: {:?}", dry.lines));
    let tasks = preview["preview"]["tasks"].as_array().expect("tasks");
    assert!(!tasks.is_empty(), "{preview}");
    assert_eq!(preview["preview"]["resumed"], false);
    assert!(status(&ns, "full-0").await["plan"].is_null(), "dry run");
    assert_eq!(dry.lines.last().expect("result")["event"], "result");

    // Read-only: refused before any request with the words every action uses, and journaled.
    let refused = run_exec(&ns.name, "full-0", &["--read-only"]).await;
    assert!(!refused.success);
    assert!(
        refused
            .stderr
            .contains("read-only mode: refusing to run exec on full-0"),
        "{}",
        refused.stderr
    );
    assert!(status(&ns, "full-0").await["plan"].is_null(), "read-only");

    let run = run_exec(&ns.name, "full-0", &[]).await;
    assert!(run.success, "{}", run.stderr);
    assert_eq!(finished(&run)["phase"], "Complete");
    let plan_id = run
        .lines
        .iter()
        .find(|l| l["event"] == "plan-persisted")
        .and_then(|l| l["plan_id"].as_str())
        .unwrap_or_else(|| panic!("no plan-persisted line: {:?}", run.lines))
        .to_owned();
    let result = run.lines.last().expect("result");
    assert_eq!(result["event"], "result", "{result}");
    assert_eq!(result["ok"], true, "{result}");

    // The Console Event on the SeiNode names the operator and the plan persisted.
    let events = ns
        .api::<Event>()
        .list(&ListParams::default().fields("involvedObject.name=full-0"))
        .await
        .expect("events");
    let console_events: Vec<&Event> = events
        .items
        .iter()
        .filter(|e| e.reason.as_deref() == Some("ConsolePlanExec"))
        .collect();
    assert_eq!(console_events.len(), 1, "{:#?}", events.items);
    let event = console_events[0];
    assert_eq!(event.involved_object.kind.as_deref(), Some("SeiNode"));
    let message = event.message.as_deref().unwrap_or_default();
    assert!(
        message.contains(" via sei-console: plan ")
            && message.contains(&format!("{plan_id} persisted: {} tasks: ", tasks.len())),
        "{message}"
    );

    // The journal: the dry run, the refusal, then the run started and succeeded.
    let journal = exec_journal(&ns.name);
    let outcomes: Vec<&str> = journal.iter().map(|(o, _, _)| o.as_str()).collect();
    assert_eq!(
        outcomes,
        ["dry-run", "refused", "started", "succeeded"],
        "{journal:?}"
    );
    assert!(journal.iter().all(|(_, d, _)| *d == detail), "{journal:?}");
    assert!(
        journal[1]
            .2
            .as_deref()
            .is_some_and(|r| r.starts_with("read-only mode: refusing to run exec on full-0")),
        "{journal:?}"
    );
}
