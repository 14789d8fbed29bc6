//! Abort and undo of a rollout that a live controller carries out (issue 35): the controller
//! stand-in (`tests/controller-standin`, the library's planner and executor behind the
//! controller's leader-election Lease) runs every plan the rollout persists. Four nodes rolled
//! in waves [ca] [cb cc] [cd], cb's stand-in sidecar holding its `config-patch` task so wave 2
//! stays in flight; a second process aborts it: the controller runs cb's Active plan to its end
//! (upstream never cancels one), cd is never touched, the record says aborted. Then `rollout
//! undo` puts ca, cb and cc back through plans the controller runs, leaving cd alone.
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::common::console::{
    console_with, running_full_nodes_with_standins, sidecar_home, spawn_console,
};
use crate::common::controller::{
    CONTROLLER_SUBMITTER, ControllerStandin, controller_standin_bin, ledger, new_submissions,
};
use crate::common::{TestNamespace, platform_config_path};
use crate::rollout_control::{
    await_status, control_with, node_state, resource_version, spec_image,
};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
const HOLD_FILE: &str = ".standin-hold-tasks";
const NODES: [&str; 4] = ["ca", "cb", "cc", "cd"];

/// The platform file (the controller namespace is the test's own, without the ConfigMap) and
/// the `X-Remote-User` the console's sidecar calls would carry.
fn live_env() -> Vec<(&'static str, String)> {
    vec![
        (
            "SEI_CONSOLE_PLATFORM_CONFIG",
            platform_config_path().display().to_string(),
        ),
        ("SEI_CONSOLE_SIDECAR_REMOTE_USER", "console".to_owned()),
    ]
}

/// Waits until no node has an Active plan for three reads in a row, a second apart (at most
/// 90 s).
async fn quiet(ns: &TestNamespace) {
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut calm = 0;
    while calm < 3 {
        assert!(Instant::now() < deadline, "plans still Active after 90 s");
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut active = false;
        for node in NODES {
            let node = ns.seinodes().get(node).await.expect("get SeiNode");
            active |= node.data["status"]["plan"]["phase"] == "Active";
        }
        calm = if active { 0 } else { calm + 1 };
    }
}

#[tokio::test]
async fn abort_and_undo_with_a_live_controller_stop_after_the_wave_and_put_the_nodes_back() {
    controller_standin_bin();
    let ns = TestNamespace::new("live-abort").await;
    let ctl = TestNamespace::new("live-abort-ctl").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names: Vec<String> = NODES.map(str::to_owned).to_vec();
    let labels = BTreeMap::from([("fleet".to_owned(), "live".to_owned())]);
    running_full_nodes_with_standins(&ns, &names, OLD, &labels, state.path(), &["cb"]).await;
    let before: BTreeMap<&str, _> = NODES
        .iter()
        .map(|n| (*n, ledger(&sidecar_home(&ns.name, n))))
        .collect();
    let controller = ControllerStandin::start(&[&ns.name], &ctl.name).await;
    // The controller's own reconcile may persist a plan first (a drift it sees): it runs to its
    // end before cb's task is held.
    quiet(&ns).await;
    // What cd's sidecar ran so far (the controller's own plan included): nothing more may run.
    let cd_tasks = ledger(&sidecar_home(&ns.name, "cd"));
    let held = sidecar_home(&ns.name, "cb").join(HOLD_FILE);
    std::fs::create_dir_all(held.parent().expect("home")).expect("home");
    std::fs::write(&held, "config-patch\n").expect("hold file");
    let waves = ["--canary", "1", "--batch", "2", "--no-health-gate"];
    let target = ["-n", &ns.name, "--controller-namespace", &ctl.name];
    let mut args = vec!["rollout", "ca", "cb", "cc", "cd", "--image", NEW];
    args.extend(waves);
    args.extend(target);
    args.extend(["--executor", "auto", "--yes"]);
    let runner = spawn_console(&args, state.path(), &live_env());

    let rollout = await_status(&ns, state.path(), |r| node_state(r, "cb") == "rolling").await;
    let id = rollout["id"].as_str().expect("id").to_owned();
    assert_eq!(node_state(&rollout, "ca"), "rolled", "{rollout}");
    assert_eq!(node_state(&rollout, "cd"), "pending", "{rollout}");
    let cd_before = resource_version(&ns, "cd").await;
    let (ok, lines, stderr) = control_with(
        &["rollout", "abort", &id, "-n", &ns.name, "--wait", "3"],
        state.path(),
        &live_env(),
    )
    .await;
    assert!(!ok, "cb's plan is Active: {lines:?} {stderr}");
    await_status(&ns, state.path(), |r| r["abort"].is_object()).await;
    std::fs::remove_file(&held).expect("release");

    let end = runner.finish(Duration::from_secs(120)).await;
    assert!(!end.ok, "{end:?}");
    assert!(
        end.notes()
            .iter()
            .any(|n| n.starts_with("executor: controller")),
        "the live controller carried it out: {:?}",
        end.notes()
    );
    let message = end.result()["message"].as_str().unwrap_or("").to_owned();
    assert!(
        message.contains("is aborted: aborted by")
            && message.contains(&format!("not changed: cd (still {OLD})")),
        "{message}"
    );
    for node in ["ca", "cb", "cc"] {
        assert_eq!(
            spec_image(&ns, node).await,
            (NEW.to_owned(), NEW.to_owned()),
            "{node}"
        );
    }
    assert_eq!(resource_version(&ns, "cd").await, cd_before, "cd untouched");
    let record = await_status(&ns, state.path(), |r| r["state"] != "running").await;
    assert_eq!(record["state"], "aborted", "{record}");

    // Undo: the nodes the rollout changed go back through plans the controller runs.
    let mut undo = vec!["rollout", "undo", id.as_str()];
    undo.extend(waves);
    undo.extend(target);
    undo.extend(["--executor", "auto", "--yes"]);
    let undone = console_with(&undo, state.path(), &live_env()).await;
    let controller_log = controller.stop().await;
    assert!(undone.ok, "{undone:?}\ncontroller:\n{controller_log}");
    for node in ["ca", "cb", "cc"] {
        assert_eq!(
            spec_image(&ns, node).await,
            (OLD.to_owned(), OLD.to_owned()),
            "{node} back"
        );
    }
    assert_eq!(resource_version(&ns, "cd").await, cd_before, "cd untouched");
    // The controller ran every sidecar task of both rollouts; the console submitted none.
    for node in ["ca", "cb", "cc"] {
        let added = new_submissions(&sidecar_home(&ns.name, node), &before[node]);
        assert!(!added.is_empty(), "{node}: no sidecar task ran");
        for (task, seen) in &added {
            assert!(
                seen.posts_by.keys().all(|k| k == CONTROLLER_SUBMITTER),
                "{node} {task}: {seen:?}"
            );
        }
    }
    assert!(new_submissions(&sidecar_home(&ns.name, "cd"), &cd_tasks).is_empty());
}
