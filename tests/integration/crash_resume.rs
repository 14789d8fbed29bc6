//! Crash anywhere, resume at once (issue 39), on the real control plane with the real seictl:
//! `sei-console rollout NODE --image … --yes --executor embedded` (the real binary, a child
//! process) SIGKILLed as each task of its update plan becomes Complete, and once while its
//! wave gate (the health gate, against a real sei-tendermint validator's RPC) runs; the same
//! command run again at once each time (`common::chaos`). Its parent reaps it at once in one
//! chain and holds it as a zombie while rerunning in the other; with the controller stand-in
//! live, the controller executes and each rerun only follows. Each chain ends with the node on
//! the image, one plan, no Complete task run twice (the real seictl's own log of handler runs,
//! the submission ledger, the audit log's pod deletions), and no Lease left behind.
use std::collections::{BTreeMap, HashMap};

use crate::common::chaos::{
    Chain, ChainEnd, Extra, Parent, assert_no_lease_left, assert_sidecar_tasks_ran_once, audited,
    print_resumes, run_chain, seictl_runs,
};
use crate::common::console::{console_env, production_env, running_full_nodes, sidecar_home};
use crate::common::controller::{
    CONTROLLER_SUBMITTER, ControllerStandin, controller_standin_bin, ledger, new_submissions,
};
use crate::common::{TestNamespace, platform_config_path, wait_for};
use tendermint_net::{Network, NetworkSpec};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
/// apply-statefulset, apply-service, config-patch, config-validate, replace-pod,
/// observe-image, mark-ready.
const UPDATE_TASKS: usize = 7;
/// config-patch, config-validate, mark-ready.
const SIDECAR_TASKS: usize = 3;

fn rollout_args(node: &str, ns: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["rollout", node, "-n", ns, "--image", NEW, "--yes"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    args.extend(extra.iter().map(|s| (*s).to_owned()));
    args
}

/// What a rerun chain left on the node and its sidecar, against what was there before it.
struct Before {
    ledger: BTreeMap<String, sidecar_standin::submissions::Submissions>,
    seictl: BTreeMap<String, usize>,
    /// The pod's deletions by the console, and by the controller stand-in.
    pod_deletes: (usize, usize),
}

fn pod_deletes(ns: &TestNamespace, node: &str) -> (usize, usize) {
    let pod = format!("{node}-0");
    (
        audited("sei-console/", "delete", "pods", &ns.name, &pod),
        audited("controller-standin/", "delete", "pods", &ns.name, &pod),
    )
}

fn before(ns: &TestNamespace, node: &str) -> Before {
    Before {
        ledger: ledger(&sidecar_home(&ns.name, node)),
        seictl: seictl_runs(&ns.name, node),
        pod_deletes: pod_deletes(ns, node),
    }
}

/// The chain's end: the command succeeded, the node runs the image under one plan, every
/// sidecar task of that plan ran once (the real seictl's own log; the submission ledger where
/// the direct route keeps one), the pod was deleted once by the executor (the audit log), and the Lease is
/// free. Returns the plan's new ledger entries.
async fn assert_rolled_once(
    ns: &TestNamespace,
    node: &str,
    end: &ChainEnd,
    before: &Before,
    by_controller: bool,
) -> BTreeMap<String, sidecar_standin::submissions::Submissions> {
    assert!(end.last.ok, "{node}: {:?}", end.last);
    assert_eq!(end.last.result()["ok"], true, "{:?}", end.last);
    assert_eq!(
        end.plans.len(),
        1,
        "{node}: never two plans: {:?}",
        end.plans
    );
    let stored = ns.seinodes().get(node).await.expect("get");
    assert_eq!(stored.data["spec"]["image"], NEW, "{node}");
    assert_eq!(stored.data["status"]["currentImage"], NEW, "{node}");
    assert_eq!(stored.data["status"]["phase"], "Running", "{node}");
    assert_ne!(
        stored.data["status"]["plan"]["phase"], "Active",
        "{node}: a plan left Active"
    );
    assert_eq!(
        assert_sidecar_tasks_ran_once(ns, node, end, &before.seictl),
        SIDECAR_TASKS
    );
    let added = new_submissions(&sidecar_home(&ns.name, node), &before.ledger);
    for (id, seen) in &added {
        assert_eq!(
            seen.runs, 1,
            "{node}: {id} ({}) ran twice: {seen:?}",
            seen.task_type
        );
    }
    let (console, controller) = pod_deletes(ns, node);
    let deletes = (
        console - before.pod_deletes.0,
        controller - before.pod_deletes.1,
    );
    let expected = if by_controller { (0, 1) } else { (1, 0) };
    assert_eq!(
        deletes, expected,
        "{node}: replace-pod's pod deletions (console, controller)"
    );
    assert_no_lease_left(ns, node).await;
    added
}

/// A kill landed after every transition but where a run crossed two before its kill landed
/// (then one kill covers both): the last kill after the plan's last task, and kills at no fewer
/// than all but two transitions.
pub(crate) fn assert_kills_cover_the_plan(end: &ChainEnd, tasks: usize) {
    let points: Vec<usize> = end
        .resumes
        .iter()
        .filter_map(|r| r.killed.split(' ').next()?.parse().ok())
        .collect();
    assert!(
        points.contains(&tasks) && points.len() + 2 >= tasks,
        "kills after {points:?} of {tasks} tasks: {:#?}",
        end.resumes
    );
}

#[tokio::test]
async fn a_rollout_killed_at_every_step_and_in_its_gate_resumes_at_once_when_reaped() {
    // A real validator serves the node's RPC, so the health gate passes after its soak.
    let network = Network::start(NetworkSpec {
        chain_id: "pacific-1".into(),
        full_nodes: 0,
        seed: false,
    })
    .await;
    let ns = TestNamespace::new("crash-reap").await;
    let state = tempfile::tempdir().expect("state");
    let node = "crash-0";
    running_full_nodes(&ns, &[node.to_owned()], OLD, &BTreeMap::new(), state.path()).await;
    let rpc = network.validator.rpc.expect("validator RPC").to_string();
    let patch = serde_json::json!({"metadata": {"annotations": {"sei-console.test/rpc": rpc}}});
    ns.seinodes()
        .patch(
            node,
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(&patch),
        )
        .await
        .expect("annotate");
    let before = before(&ns, node);
    let chain = Chain {
        ns: &ns,
        node,
        args: rollout_args(
            node,
            &ns.name,
            &[
                "--executor",
                "embedded",
                "--soak",
                "3s",
                "--health-timeout",
                "60s",
            ],
        ),
        env: production_env(),
        state: state.path(),
        parent: Parent::Reaps,
        extra: Extra::WhileGating,
        max_tasks: UPDATE_TASKS,
    };
    let end = run_chain(&chain).await;
    print_resumes("rollout, parent reaping", &end);
    assert_kills_cover_the_plan(&end, UPDATE_TASKS);
    assert!(
        end.resumes
            .iter()
            .any(|r| r.killed == "the health gate running"),
        "a kill in the gate: {:#?}",
        end.resumes
    );
    assert_rolled_once(&ns, node, &end, &before, false).await;
    let notes = end.last.notes();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with(&format!("{node}: health gate passed after"))),
        "the gate ran to its verdict after the kill in it: {notes:#?}"
    );
    for resume in &end.resumes {
        assert!(
            resume
                .lease_notes
                .iter()
                .all(|n| n.contains("at once: its process on this machine has exited")),
            "{resume:?}"
        );
    }
}

#[tokio::test]
async fn a_rollout_killed_at_every_step_resumes_at_once_while_its_parent_holds_a_zombie() {
    let ns = TestNamespace::new("crash-zombie").await;
    let state = tempfile::tempdir().expect("state");
    let node = "zombie-0";
    running_full_nodes(&ns, &[node.to_owned()], OLD, &BTreeMap::new(), state.path()).await;
    let before = before(&ns, node);
    let chain = Chain {
        ns: &ns,
        node,
        args: rollout_args(
            node,
            &ns.name,
            &["--executor", "embedded", "--no-health-gate"],
        ),
        env: console_env(),
        state: state.path(),
        parent: Parent::HoldsZombie,
        extra: Extra::None,
        max_tasks: UPDATE_TASKS,
    };
    let end = run_chain(&chain).await;
    print_resumes("rollout, parent holding zombies", &end);
    assert_kills_cover_the_plan(&end, UPDATE_TASKS);
    assert_eq!(
        end.zombie_reruns,
        end.resumes.len(),
        "every rerun beside a zombie"
    );
    assert_rolled_once(&ns, node, &end, &before, false).await;
    let zombie_takeovers = end
        .resumes
        .iter()
        .filter(|r| {
            r.lease_notes
                .iter()
                .any(|n| n.contains("at once: its process on this machine is a zombie"))
        })
        .count();
    assert!(zombie_takeovers > 0, "{:#?}", end.resumes);
}

#[tokio::test]
async fn with_the_controller_live_a_killed_rollout_is_followed_again_and_never_driven_twice() {
    controller_standin_bin();
    let ns = TestNamespace::new("crash-ctl").await;
    let ctl = TestNamespace::new("crash-ctl-lead").await;
    let state = tempfile::tempdir().expect("state");
    let node = "ctl-0";
    running_full_nodes(&ns, &[node.to_owned()], OLD, &BTreeMap::new(), state.path()).await;
    let controller = ControllerStandin::start(&[&ns.name], &ctl.name).await;
    // Its first reconcile backfills currentImage (an init plan observes no image) with a plan
    // of its own; the rollout starts once that plan was cleared.
    let api = ns.seinodes();
    wait_for(
        "the controller's backfill of currentImage",
        std::time::Duration::from_secs(60),
        || async {
            let stored = api.get(node).await?;
            let status = &stored.data["status"];
            Ok((status["currentImage"] == OLD && status["plan"].is_null()).then_some(()))
        },
    )
    .await;
    let before = before(&ns, node);
    // The platform file: the controller namespace is the test's own, without the ConfigMap.
    let mut env: HashMap<String, String> = console_env();
    env.insert("SEI_CONSOLE_SIDECAR_REMOTE_USER".into(), "console".into());
    env.insert(
        "SEI_CONSOLE_PLATFORM_CONFIG".into(),
        platform_config_path().display().to_string(),
    );
    let chain = Chain {
        ns: &ns,
        node,
        args: rollout_args(
            node,
            &ns.name,
            &[
                "--executor",
                "auto",
                "--no-health-gate",
                "--controller-namespace",
                &ctl.name,
            ],
        ),
        env,
        state: state.path(),
        parent: Parent::Reaps,
        extra: Extra::None,
        max_tasks: UPDATE_TASKS,
    };
    let end = run_chain(&chain).await;
    let controller_log = controller.stop().await;
    print_resumes("rollout, controller live", &end);

    assert!(!end.resumes.is_empty(), "{:?}\n{controller_log}", end.last);
    assert_eq!(end.plans.len(), 1, "{:?}\n{controller_log}", end.plans);
    let added = assert_rolled_once(&ns, node, &end, &before, true).await;
    // The controller executed every sidecar task; no console submitted one.
    for (id, seen) in &added {
        assert!(
            seen.posts_by.keys().all(|k| k == CONTROLLER_SUBMITTER),
            "{id}: {seen:?}\n{controller_log}"
        );
    }
}
