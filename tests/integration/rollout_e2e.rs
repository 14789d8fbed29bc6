//! `sei-console rollout` to the end with the embedded executor, against the real control plane
//! and the stand-in sidecars: two Running full nodes rolled in two waves (canary, then a batch),
//! each plan Complete and each node's currentImage the new image.

use std::collections::BTreeMap;

use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use sei_console::api::SeiNode;
use sei_console::planner::{PlanContext, Resolution, resolve_plan};
use serde_json::json;

use crate::common::console::{console, create_node_service_account, running_full_nodes};
use crate::common::{TestNamespace, platform_value, seinode_resource};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

#[tokio::test]
async fn two_nodes_roll_in_a_canary_and_a_batch_to_the_new_image() {
    let ns = TestNamespace::new("rollout-e2e").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["full-0".to_owned(), "full-1".to_owned()];
    running_full_nodes(&ns, &names, OLD, &BTreeMap::new(), state.path()).await;
    let run = console(
        &[
            "rollout",
            "--no-health-gate",
            "full-0",
            "full-1",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--yes",
            "--executor",
            "embedded",
            "--canary",
            "1",
            "--batch",
            "1",
        ],
        state.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");
    assert_eq!(run.result()["ok"], true);
    let notes = run.notes();
    assert!(notes.contains(&"wave 1 of 2: full-0"), "{notes:?}");
    assert!(notes.contains(&"wave 2 of 2: full-1"), "{notes:?}");
    for name in &names {
        let finished = run
            .lines
            .iter()
            .find(|l| l["event"] == "plan-finished" && l["node"] == name.as_str())
            .unwrap_or_else(|| panic!("no plan-finished for {name}: {run:?}"));
        assert_eq!(finished["phase"], "Complete");
        let node = ns.seinodes().get(name).await.expect("get");
        assert_eq!(node.data["status"]["currentImage"], NEW, "{name}");
        assert_eq!(node.data["status"]["phase"], "Running");
    }
}

/// Creates a full node on `OLD` that the controller never initialised.
async fn uninitialised_node(ns: &TestNamespace, name: &str) {
    create_node_service_account(ns).await;
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": OLD, "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
}

/// Rolls `name` to `NEW` with the embedded executor and checks it ended on the image after
/// two Complete plans (the init plan, then the update plan). Returns the run's notes.
async fn roll_through_two_plans(ns: &TestNamespace, name: &str) -> Vec<String> {
    let state = tempfile::tempdir().expect("tempdir");
    let args = [
        "rollout",
        "--no-health-gate",
        name,
        "-n",
        &ns.name,
        "--image",
        NEW,
        "--yes",
        "--executor",
        "embedded",
    ];
    let run = console(&args, state.path()).await;
    assert!(run.ok, "{run:?}");
    let finished: Vec<_> = run
        .lines
        .iter()
        .filter(|l| l["event"] == "plan-finished")
        .map(|l| l["phase"].clone())
        .collect();
    assert_eq!(
        finished,
        ["Complete", "Complete"],
        "init plan, then update plan: {run:?}"
    );
    let node = ns.seinodes().get(name).await.expect("get");
    assert_eq!(node.data["status"]["currentImage"], NEW);
    assert_eq!(node.data["status"]["phase"], "Running");
    run.notes().into_iter().map(str::to_owned).collect()
}

/// A node the controller never initialised: the rollout's pin persists its init plan (which
/// observes no image), so reaching the image takes the update plan after it. With no controller
/// live the console persists and follows that second plan itself instead of waiting at the
/// gate for a reconcile that never comes.
#[tokio::test]
async fn a_node_never_initialised_gets_its_init_plan_then_the_update_plan_to_the_image() {
    let ns = TestNamespace::new("rollout-fresh").await;
    uninitialised_node(&ns, "fresh-0").await;
    roll_through_two_plans(&ns, "fresh-0").await;
}

/// A node in the middle of its init plan (persisted by someone else, tasks pending): the
/// rollout follows that plan first, then the update plan to the image.
#[tokio::test]
async fn a_node_mid_init_finishes_its_init_plan_then_gets_the_update_plan() {
    let ns = TestNamespace::new("rollout-mid-init").await;
    uninitialised_node(&ns, "mid-0").await;
    let mut node: SeiNode = ns.api::<SeiNode>().get("mid-0").await.expect("get");
    let ctx = PlanContext::new(platform_value("images.sidecar"), jiff::Timestamp::now());
    let resolution = resolve_plan(&mut node, &ctx).expect("plan");
    assert_eq!(resolution, Resolution::Built);
    let init_plan = node
        .status
        .as_ref()
        .and_then(|s| s.plan.clone())
        .expect("plan");
    let status = json!({"status": serde_json::to_value(&node.status).expect("status")});
    ns.seinodes()
        .patch_status("mid-0", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("persist the init plan");
    let notes = roll_through_two_plans(&ns, "mid-0").await;
    let resumed = format!(
        "mid-0: plan {} already active; following it before changing the node",
        init_plan.id
    );
    assert!(notes.contains(&resumed), "{notes:?}");
}
