//! Issue 33, "previews are what runs": on the real control plane with the real seictl, the plan
//! a rollout previews (its ID, every task's ID, type and params) is the plan persisted in
//! `.status.plan` and executed — for a plain rollout, for a rollout started while an abandoned
//! rollout's plan is still Active (the first console killed with SIGKILL mid-plan), and for a
//! resume of the killed rollout. Seen before: the way back previewed a one-task mark-ready plan,
//! then ran seven tasks under that ID.
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::common::TestNamespace;
use crate::common::console::{Run, console, running_full_nodes, spawn_console};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

fn rollout_args<'a>(ns: &'a str, image: &'a str) -> Vec<&'a str> {
    vec![
        "rollout",
        "--no-health-gate",
        "full-0",
        "-n",
        ns,
        "--image",
        image,
        "--yes",
        "--executor",
        "embedded",
    ]
}

/// The run's preview of its one node (the `preview` object of its first preview line).
fn previewed(run: &Run) -> Value {
    run.lines
        .iter()
        .find(|l| l["event"] == "preview" && l["preview"]["node"] == "full-0")
        .map(|l| l["preview"].clone())
        .unwrap_or_else(|| panic!("no preview line: {run:?}"))
}

/// What must not differ between a previewed and a persisted task: ID, type, params.
fn shape(tasks: &Value) -> Vec<(Value, Value, Value)> {
    tasks
        .as_array()
        .unwrap_or_else(|| panic!("no tasks: {tasks}"))
        .iter()
        .map(|t| (t["id"].clone(), t["type"].clone(), t["params"].clone()))
        .collect()
}

/// The previewed plan equals `.status.plan` after the run, task for task and param for param.
fn assert_same_plan(previewed: &Value, stored: &Value) {
    assert_eq!(previewed["id"], stored["id"], "plan ID");
    assert_eq!(previewed["targetPhase"], stored["targetPhase"]);
    assert_eq!(previewed["failedPhase"], stored["failedPhase"]);
    assert_eq!(shape(&previewed["tasks"]), shape(&stored["tasks"]));
}

async fn stored_node(ns: &TestNamespace) -> Value {
    ns.seinodes().get("full-0").await.expect("get").data
}

/// Every plan `.status.plan` of `full-0` held while it ran, as first seen (by plan ID): a plan
/// the embedded executor completed is cleared afterwards, as the controller's next reconcile
/// does, so `.status.plan` is read during the run.
struct PlanRecorder {
    plans: Arc<Mutex<Vec<Value>>>,
    task: tokio::task::JoinHandle<()>,
}

impl PlanRecorder {
    fn start(ns: &TestNamespace) -> PlanRecorder {
        let plans: Arc<Mutex<Vec<Value>>> = Arc::default();
        let api = ns.seinodes();
        let seen = plans.clone();
        let task = tokio::spawn(async move {
            loop {
                if let Ok(node) = api.get("full-0").await {
                    let plan = &node.data["status"]["plan"];
                    let mut seen = seen.lock().expect("lock");
                    if plan.is_object() && !seen.iter().any(|p| p["id"] == plan["id"]) {
                        seen.push(plan.clone());
                    }
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
        });
        PlanRecorder { plans, task }
    }

    /// The plan `id` as `.status.plan` held it.
    fn stored(&self, id: &Value) -> Value {
        let plans = self.plans.lock().expect("lock");
        plans
            .iter()
            .find(|p| p["id"] == *id)
            .cloned()
            .unwrap_or_else(|| panic!("plan {id} never seen in .status.plan: {plans:#?}"))
    }
}

impl Drop for PlanRecorder {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The `plan-finished` plan IDs of a run, in order.
fn finished(run: &Run) -> Vec<String> {
    run.lines
        .iter()
        .filter(|l| l["event"] == "plan-finished")
        .filter_map(|l| l["plan_id"].as_str().or(l["planId"].as_str()))
        .map(str::to_owned)
        .collect()
}

/// Starts a rollout to `image` and kills it with SIGKILL as soon as a task of its plan started
/// or completed: the plan stays Active, `spec.image` pinned. Returns the abandoned plan.
async fn abandoned_rollout(ns: &TestNamespace, state: &std::path::Path, image: &str) -> Value {
    let mut first = spawn_console(&rollout_args(&ns.name, image), state, &[]);
    let mut started = false;
    // Bounded: a minute on a loaded machine.
    for _ in 0..3000 {
        if first
            .stdout()
            .lines()
            .any(|l| l.contains("\"task-started\"") || l.contains("\"task-transition\""))
        {
            started = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(started, "no task started: {}", first.stdout());
    first.child.start_kill().expect("SIGKILL");
    let _ = first.child.wait().await;
    let node = stored_node(ns).await;
    let plan = node["status"]["plan"].clone();
    assert_eq!(
        plan["phase"], "Active",
        "killed mid-plan, the plan stays Active: {node}"
    );
    assert_eq!(node["spec"]["image"], image);
    plan
}

#[tokio::test]
async fn a_plain_rollout_runs_the_plan_it_previewed() {
    let ns = TestNamespace::new("preview-plain").await;
    let state = tempfile::tempdir().expect("tempdir");
    running_full_nodes(
        &ns,
        &["full-0".to_owned()],
        OLD,
        &BTreeMap::new(),
        state.path(),
    )
    .await;
    let recorder = PlanRecorder::start(&ns);
    let run = console(&rollout_args(&ns.name, NEW), state.path()).await;
    assert!(run.ok, "{run:?}");
    let preview = previewed(&run);
    assert!(preview.get("runsFirst").is_none(), "{preview}");
    assert_same_plan(&preview["plan"], &recorder.stored(&preview["plan"]["id"]));
    let node = stored_node(&ns).await;
    assert_eq!(
        finished(&run),
        [preview["plan"]["id"].as_str().unwrap_or("?")]
    );
    assert_eq!(node["status"]["currentImage"], NEW);
}

/// The way back after an abandoned rollout: the preview shows the abandoned plan's remaining
/// tasks as persisted (and that the pod ends it on NEW), then the plan back to OLD; the run
/// follows exactly that plan, then persists and runs exactly the previewed one.
#[tokio::test]
async fn after_an_abandoned_rollout_the_way_back_runs_what_it_previewed() {
    let ns = TestNamespace::new("preview-back").await;
    let state = tempfile::tempdir().expect("tempdir");
    running_full_nodes(
        &ns,
        &["full-0".to_owned()],
        OLD,
        &BTreeMap::new(),
        state.path(),
    )
    .await;
    let abandoned = abandoned_rollout(&ns, state.path(), NEW).await;
    let left: Vec<Value> = abandoned["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter(|t| t["status"] != "Complete")
        .cloned()
        .collect();

    let recorder = PlanRecorder::start(&ns);
    let run = console(&rollout_args(&ns.name, OLD), state.path()).await;
    assert!(run.ok, "{run:?}");
    let preview = previewed(&run);
    let first = &preview["runsFirst"];
    assert_eq!(first["planId"], abandoned["id"], "{preview}");
    assert_eq!(
        shape(&first["remaining"]),
        shape(&Value::Array(left)),
        "the abandoned plan's remaining tasks, as persisted"
    );
    assert_eq!(first["podImage"], NEW);
    let back = &preview["plan"];
    assert_eq!(
        back["tasks"].as_array().map(Vec::len),
        Some(7),
        "the update plan back, not a mark-ready: {back}"
    );
    assert_eq!(
        finished(&run),
        [
            abandoned["id"].as_str().unwrap_or("?"),
            back["id"].as_str().unwrap_or("?")
        ],
        "the abandoned plan, then the previewed one, nothing else"
    );
    assert_same_plan(back, &recorder.stored(&back["id"]));
    let node = stored_node(&ns).await;
    assert_eq!(node["status"]["currentImage"], OLD);
    assert_eq!(node["spec"]["image"], OLD);
}

/// The killed rollout run again: its Active plan is what runs, and nothing after it.
#[tokio::test]
async fn a_resumed_rollout_runs_its_active_plan_and_previews_nothing_else() {
    let ns = TestNamespace::new("preview-resume").await;
    let state = tempfile::tempdir().expect("tempdir");
    running_full_nodes(
        &ns,
        &["full-0".to_owned()],
        OLD,
        &BTreeMap::new(),
        state.path(),
    )
    .await;
    let abandoned = abandoned_rollout(&ns, state.path(), NEW).await;

    let run = console(&rollout_args(&ns.name, NEW), state.path()).await;
    assert!(run.ok, "{run:?}");
    let preview = previewed(&run);
    assert_eq!(preview["runsFirst"]["planId"], abandoned["id"], "{preview}");
    assert_eq!(preview["runsFirst"]["podImage"], NEW);
    assert!(preview.get("plan").is_none(), "no plan after it: {preview}");
    assert_eq!(finished(&run), [abandoned["id"].as_str().unwrap_or("?")]);
    let node = stored_node(&ns).await;
    assert_eq!(node["status"]["currentImage"], NEW);
    assert_eq!(node["spec"]["image"], NEW);
}
