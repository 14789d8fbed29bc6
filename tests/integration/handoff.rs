//! Hand-off with a live controller (issue 11), against the real control plane, the sidecar
//! stand-ins and the controller stand-in (`tests/controller-standin`, the library's planner and
//! executor behind the controller's leader-election Lease): a rollout in waves with the
//! controller live; the controller starting mid-way through an embedded run (each sidecar task
//! runs once, submitted by one executor); two consoles on one node (the loser changes nothing);
//! a crash and an immediate rerun (it waits for the dead console's Lease, resumes, re-runs no
//! Complete task). Every test has its own node and controller namespaces.
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Event;
use kube::api::{DynamicObject, ListParams, PostParams};
use serde_json::json;

use crate::common::console::{
    Background, Run, console_with, create_node_service_account, running_full_nodes,
    running_full_nodes_with_standins, sidecar_home, spawn_console,
};
use crate::common::controller::{
    CONTROLLER_SUBMITTER, ControllerStandin, controller_standin_bin, ledger, new_submissions,
    wait_for_submission,
};
use crate::common::{TestNamespace, platform_config_path, seinode_resource, standin_sidecar};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
const OTHER: &str = "ghcr.io/sei-protocol/sei:v6.5.0";
/// Holding a task in flight is a stand-in hook: the tests that hold one put their node on the
/// stand-in (`standin_sidecar`); the others run against the real seictl.
const HOLD_FILE: &str = ".standin-hold-tasks";

/// The console's environment: the platform file (the controller namespace is the test's own,
/// without the ConfigMap) and the `X-Remote-User` its sidecar calls carry.
fn console_env(submitter: &str) -> Vec<(&'static str, String)> {
    vec![
        (
            "SEI_CONSOLE_PLATFORM_CONFIG",
            platform_config_path().display().to_string(),
        ),
        ("SEI_CONSOLE_SIDECAR_REMOTE_USER", submitter.to_owned()),
    ]
}

fn journal(state: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(state.join("sei-console/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

async fn spec_image(ns: &TestNamespace, node: &str) -> (String, String) {
    let node = ns.seinodes().get(node).await.expect("get SeiNode");
    let text = |v: &serde_json::Value| v.as_str().unwrap_or("").to_owned();
    (
        text(&node.data["spec"]["image"]),
        text(&node.data["status"]["currentImage"]),
    )
}

fn hold(home: &Path, task_type: &str) {
    std::fs::create_dir_all(home).expect("home");
    std::fs::write(home.join(HOLD_FILE), format!("{task_type}\n")).expect("hold file");
}

fn release(home: &Path) {
    let _ = std::fs::remove_file(home.join(HOLD_FILE));
}

fn rollout_args<'a>(nodes: &[&'a str], ns: &'a str, image: &'a str, ctl: &'a str) -> Vec<&'a str> {
    let mut args = vec!["rollout", "--no-health-gate"];
    args.extend_from_slice(nodes);
    args.extend_from_slice(&[
        "-n",
        ns,
        "--image",
        image,
        "--controller-namespace",
        ctl,
        "--yes",
    ]);
    args
}

/// The plan ID a run printed as persisted or resumed.
fn plan_ids(run: &Run) -> Vec<String> {
    run.lines
        .iter()
        .filter_map(|l| l["planId"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn rollout_in_waves_with_the_controller_live_succeeds_for_every_node() {
    controller_standin_bin();
    let ns = TestNamespace::new("handoff-waves").await;
    let ctl = TestNamespace::new("handoff-waves-ctl").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names: Vec<String> = (0..4).map(|i| format!("rpc-{i}")).collect();
    let labels = BTreeMap::from([("fleet".to_owned(), "handoff".to_owned())]);
    running_full_nodes(&ns, &names, OLD, &labels, state.path()).await;
    let before: BTreeMap<String, _> = names
        .iter()
        .map(|n| (n.clone(), ledger(&sidecar_home(&ns.name, n))))
        .collect();

    let controller = ControllerStandin::start(&[&ns.name], &ctl.name).await;
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut args = rollout_args(&refs, &ns.name, NEW, &ctl.name);
    args.extend_from_slice(&["--canary", "1", "--batch", "2", "--executor", "auto"]);
    let started = Instant::now();
    let run = console_with(&args, state.path(), &console_env("console")).await;
    let took = started.elapsed();
    let controller_log = controller.stop().await;
    assert!(run.ok, "{run:?}\ncontroller:\n{controller_log}");
    let notes = run.notes();
    for wave in [
        "wave 1 of 3: rpc-0",
        "wave 2 of 3: rpc-1, rpc-2",
        "wave 3 of 3: rpc-3",
    ] {
        assert!(notes.contains(&wave), "{wave}: {notes:?}");
    }
    assert!(
        notes.iter().any(|n| n.starts_with("executor: controller")),
        "{notes:?}"
    );
    for name in &names {
        assert_eq!(
            spec_image(&ns, name).await,
            (NEW.to_owned(), NEW.to_owned()),
            "{name}"
        );
        let outcomes: Vec<String> = journal(state.path())
            .iter()
            .filter(|e| e["action"] == "rollout")
            .filter(|e| {
                e["nodes"]
                    .as_array()
                    .is_some_and(|n| n.iter().any(|x| *x == format!("{}/{name}", ns.name)))
            })
            .map(|e| e["outcome"].as_str().unwrap_or("").to_owned())
            .collect();
        assert!(
            outcomes.iter().any(|o| o == "succeeded"),
            "{name}: {outcomes:?}"
        );
        // The controller executed every task; the console submitted none.
        let added = new_submissions(&sidecar_home(&ns.name, name), &before[name]);
        assert!(!added.is_empty(), "{name}: no sidecar task ran");
        for (id, seen) in &added {
            assert_eq!(seen.runs, 1, "{name} {id}: {seen:?}");
            assert!(
                seen.posts_by.keys().all(|k| k == CONTROLLER_SUBMITTER),
                "{name} {id}: {seen:?}"
            );
        }
        assert!(
            controller_log.contains(&format!("{}/{name}: cleared plan", ns.name)),
            "{name}: {controller_log}"
        );
    }
    eprintln!(
        "handoff waves: 4 nodes in 3 waves, {took:?}; plans {:?}",
        plan_ids(&run)
    );
}

#[tokio::test]
async fn a_controller_starting_mid_run_takes_the_plan_over_and_each_task_runs_once() {
    // Built before the clock starts (a first build takes minutes).
    controller_standin_bin();
    let ns = TestNamespace::new("handoff-mid").await;
    let ctl = TestNamespace::new("handoff-mid-ctl").await;
    let state = tempfile::tempdir().expect("tempdir");
    let node = "rpc-0";
    running_full_nodes_with_standins(
        &ns,
        &[node.to_owned()],
        OLD,
        &BTreeMap::new(),
        state.path(),
        &[node],
    )
    .await;
    let home = sidecar_home(&ns.name, node);
    let before = ledger(&home);
    hold(&home, "config-patch");

    let mut args = rollout_args(&[node], &ns.name, NEW, &ctl.name);
    args.extend_from_slice(&["--executor", "auto"]);
    let console = spawn_console(&args, state.path(), &console_env("console"));
    let held = wait_for_submission(&home, "config-patch", &before, Duration::from_secs(60)).await;
    let controller = ControllerStandin::start(&[&ns.name], &ctl.name).await;
    // The controller's reconcile resubmits the in-flight task (same ID, a no-op) and the
    // console, re-checking the Lease before its next step, stops driving.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !console.stdout().contains("handing the plan over") {
        assert!(
            Instant::now() < deadline,
            "no hand-off: {}",
            console.stdout()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    release(&home);
    let run = console.finish(Duration::from_secs(90)).await;
    let controller_log = controller.stop().await;
    assert!(run.ok, "{run:?}\ncontroller:\n{controller_log}");
    assert!(
        run.notes().iter().any(
            |n| n.contains(&format!("{node}: controller controller-standin-"))
                && n.contains("handing the plan over and following it")
        ),
        "{:?}",
        run.notes()
    );
    assert_eq!(
        spec_image(&ns, node).await,
        (NEW.to_owned(), NEW.to_owned())
    );

    let added = new_submissions(&home, &before);
    let mut by_type = BTreeMap::new();
    for (id, seen) in &added {
        assert_eq!(seen.runs, 1, "{id} ran {} times: {seen:?}", seen.runs);
        by_type.insert(seen.task_type.clone(), seen.clone());
    }
    // The held task was in flight across the hand-off: submitted by both (the same ID, a
    // no-op for the sidecar) and run once, by the console's submission; every later task was
    // submitted by the controller only.
    let patch = &added[&held];
    assert_eq!(patch.task_type, "config-patch");
    assert_eq!(
        patch.runs_by.keys().collect::<Vec<_>>(),
        ["console"],
        "{patch:?}"
    );
    assert!(
        patch.posts_by.contains_key(CONTROLLER_SUBMITTER),
        "{patch:?}"
    );
    for later in ["config-validate", "mark-ready"] {
        let seen = &by_type[later];
        assert_eq!(
            seen.posts_by.keys().collect::<Vec<_>>(),
            [CONTROLLER_SUBMITTER],
            "{later}: {seen:?}"
        );
    }
    eprintln!(
        "handoff mid-run: plan {:?}; submissions {:?}",
        plan_ids(&run).first(),
        added
            .values()
            .map(|s| (s.task_type.clone(), s.posts_by.clone()))
            .collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn two_consoles_on_one_node_one_executes_and_the_loser_changes_nothing() {
    let ns = TestNamespace::new("handoff-two").await;
    let ctl = TestNamespace::new("handoff-two-ctl").await;
    let node = "rpc-0";
    let init_state = tempfile::tempdir().expect("tempdir");
    running_full_nodes_with_standins(
        &ns,
        &[node.to_owned()],
        OLD,
        &BTreeMap::new(),
        init_state.path(),
        &[node],
    )
    .await;
    let home = sidecar_home(&ns.name, node);
    let before = ledger(&home);
    hold(&home, "config-patch");
    let (state_a, state_b) = (
        tempfile::tempdir().expect("a"),
        tempfile::tempdir().expect("b"),
    );
    let spawn = |image: &'static str, state: &Path, id: &str| -> Background {
        let mut args = rollout_args(&[node], &ns.name, image, &ctl.name);
        args.extend_from_slice(&["--executor", "embedded"]);
        let mut env = console_env(id);
        env.push(("SEI_CONSOLE_EXECUTOR_ID", id.to_owned()));
        spawn_console(&args, state, &env)
    };
    let mut a = spawn(NEW, state_a.path(), "console-a");
    let mut b = spawn(OTHER, state_b.path(), "console-b");
    // The loser is refused at once; the winner waits on the held task.
    let deadline = Instant::now() + Duration::from_secs(60);
    let a_first = loop {
        if a.child.try_wait().expect("poll a").is_some() {
            break true;
        }
        if b.child.try_wait().expect("poll b").is_some() {
            break false;
        }
        assert!(Instant::now() < deadline, "neither console ended");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // The winner pins the image after persisting its plan and before its first sidecar task.
    wait_for_submission(&home, "config-patch", &before, Duration::from_secs(60)).await;
    let spec_while_running = spec_image(&ns, node).await.0;
    release(&home);
    let (loser, winner, loser_state, winner_image, loser_image, winner_id) = if a_first {
        (a, b, state_a.path(), OTHER, NEW, "console-b")
    } else {
        (b, a, state_b.path(), NEW, OTHER, "console-a")
    };
    let loser = loser.finish(Duration::from_secs(10)).await;
    let winner = winner.finish(Duration::from_secs(90)).await;
    assert!(winner.ok, "winner: {winner:?}");
    assert!(!loser.ok, "loser: {loser:?}");
    assert!(
        loser.stderr.contains(winner_id) || loser.result().to_string().contains(winner_id),
        "the refusal names the holder: {}",
        loser.stderr
    );
    assert_eq!(spec_while_running, winner_image);
    assert_eq!(
        spec_image(&ns, node).await,
        (winner_image.to_owned(), winner_image.to_owned())
    );
    // No Event and no journal line of the loser's but its refusal.
    let events = ns
        .api::<Event>()
        .list(&ListParams::default())
        .await
        .expect("events");
    for event in &events.items {
        let message = event.message.as_deref().unwrap_or("");
        assert!(!message.contains(loser_image), "loser's Event: {message}");
    }
    let outcomes: Vec<_> = journal(loser_state)
        .iter()
        .map(|e| e["outcome"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(outcomes, ["refused"], "loser's journal");
    eprintln!(
        "handoff two consoles: winner {winner_id} on {winner_image}; loser said {}",
        loser.stderr.trim()
    );
}

#[tokio::test]
async fn a_rerun_after_a_crash_takes_the_lease_over_at_once_and_resumes_without_rerunning_tasks() {
    let ns = TestNamespace::new("handoff-crash").await;
    let ctl = TestNamespace::new("handoff-crash-ctl").await;
    let state = tempfile::tempdir().expect("tempdir");
    let node = "full-0";
    create_node_service_account(&ns).await;
    let mut object = DynamicObject::new(node, &seinode_resource());
    object.data = json!({"spec": {"chainId": "pacific-1", "image": OLD, "fullNode": {}}});
    standin_sidecar(&mut object);
    ns.seinodes()
        .create(&PostParams::default(), &object)
        .await
        .expect("create SeiNode");
    // The init plan: configure-genesis completes, config-apply is held when the console dies.
    let home = sidecar_home(&ns.name, node);
    hold(&home, "config-apply");
    let args = [
        "exec",
        node,
        "-n",
        &ns.name,
        "--executor",
        "embedded",
        "--controller-namespace",
        &ctl.name,
        "--yes",
    ];
    let env = console_env("console");
    let mut first = spawn_console(&args, state.path(), &env);
    let none = BTreeMap::new();
    wait_for_submission(&home, "config-apply", &none, Duration::from_secs(60)).await;
    first.child.kill().await.expect("kill the console");
    let at_crash = ledger(&home);
    let plan_at_crash = ns.seinodes().get(node).await.expect("node").data["status"]["plan"].clone();
    release(&home);

    let started = Instant::now();
    let rerun = console_with(&args, state.path(), &env).await;
    let waited = started.elapsed();
    assert!(rerun.ok, "{rerun:?}");
    let notes = rerun.notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("took over the Lease of sei-console-")
                && n.contains("at once: its process on this machine has exited")),
        "{notes:?}"
    );
    let plan_id = plan_at_crash["id"].as_str().expect("plan at crash");
    assert!(
        rerun.lines.iter().any(|l| l.to_string().contains(plan_id)),
        "the rerun resumed plan {plan_id}: {rerun:?}"
    );
    let phase = ns.seinodes().get(node).await.expect("node").data["status"]["phase"].clone();
    assert_eq!(phase, "Running");
    // The task Complete at the crash was not submitted again; every task ran once.
    let after = ledger(&home);
    let genesis = at_crash
        .iter()
        .find(|(_, s)| s.task_type == "configure-genesis")
        .map(|(id, s)| (id.clone(), s.clone()))
        .expect("configure-genesis ran before the crash");
    assert_eq!(
        after[&genesis.0].posts, genesis.1.posts,
        "{:?}",
        after[&genesis.0]
    );
    for (id, seen) in &after {
        assert_eq!(seen.runs, 1, "{id}: {seen:?}");
    }
    eprintln!(
        "handoff crash: plan {plan_id}; the rerun took the Lease over and finished in {waited:?}; ledger {:?}",
        after
            .values()
            .map(|s| (s.task_type.clone(), s.posts, s.runs))
            .collect::<Vec<_>>()
    );
}
