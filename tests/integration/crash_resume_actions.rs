//! Crash anywhere, resume at once (issue 39) for the seed bring-up and the address change, as
//! `crash_resume` does for the rollout: the real binary SIGKILLed as each task of the plan it
//! started becomes Complete, the same command run again at once. The seed keeps the key its
//! first run generated (one Secret, the NodeID the sidecar reports), the address change is
//! carried by one plan; every sidecar task ran once and no Lease is left behind.
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Secret;
use kube::api::ListParams;
use sei_console::actions::node_key::NodeKey;

use crate::common::TestNamespace;
use crate::common::chaos::{
    Chain, ChainEnd, Extra, Parent, assert_no_lease_left, assert_sidecar_tasks_ran_once,
    print_resumes, run_chain, seictl_runs,
};
use crate::common::console::{
    console_env, create_node_service_account, running_full_nodes, sidecar_home,
};
use crate::common::controller::{ledger, new_submissions};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

/// Every sidecar task added to the ledger since `before` ran once by the ledger, and the
/// chain's sidecar tasks once each by the real seictl's log (nothing else ran).
fn each_sidecar_task_ran_once(
    ns: &TestNamespace,
    node: &str,
    end: &ChainEnd,
    before: &BTreeMap<String, sidecar_standin::submissions::Submissions>,
    seictl_before: &BTreeMap<String, usize>,
) -> usize {
    let added = new_submissions(&sidecar_home(&ns.name, node), before);
    for (id, seen) in &added {
        assert_eq!(
            seen.runs, 1,
            "{node}: {id} ({}) ran twice: {seen:?}",
            seen.task_type
        );
    }
    assert_sidecar_tasks_ran_once(ns, node, end, seictl_before)
}

#[tokio::test]
async fn a_seed_bring_up_killed_at_every_step_resumes_with_the_same_key() {
    let ns = TestNamespace::new("crash-seed").await;
    create_node_service_account(&ns).await;
    let state = tempfile::tempdir().expect("state");
    let node = "seed-c";
    let args: Vec<String> = [
        "seed",
        "create",
        node,
        "-n",
        &ns.name,
        "--chain-id",
        "pacific-1",
        "--image",
        IMAGE,
        "--executor",
        "embedded",
        "--yes",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let chain = Chain {
        ns: &ns,
        node,
        args,
        env: console_env(),
        state: state.path(),
        parent: Parent::Reaps,
        extra: Extra::None,
        max_tasks: 16,
    };
    let end = run_chain(&chain).await;
    print_resumes("seed bring-up, parent reaping", &end);
    assert!(end.last.ok, "{:?}", end.last);
    let result = end.last.result();
    assert_eq!(result["verified"], true, "{result}");
    assert!(!end.resumes.is_empty(), "no kill landed");
    assert_eq!(end.plans.len(), 1, "one init plan: {:?}", end.plans);
    // One Secret, made by the first run; the key the sidecar reports is its key.
    let secrets = ns
        .api::<Secret>()
        .list(&ListParams::default())
        .await
        .expect("secrets");
    let keys: Vec<&Secret> = secrets
        .items
        .iter()
        .filter(|s| s.metadata.name.as_deref() == Some("seed-c-node-key"))
        .collect();
    assert_eq!(keys.len(), 1);
    let json = &keys[0].data.as_ref().expect("data")["node_key.json"].0;
    let key = NodeKey::from_node_key_json(&String::from_utf8_lossy(json)).expect("node key");
    assert_eq!(result["nodeId"], key.node_id().as_str(), "{result}");
    let stored = ns.seinodes().get(node).await.expect("get");
    assert_eq!(stored.data["status"]["phase"], "Running");
    each_sidecar_task_ran_once(&ns, node, &end, &BTreeMap::new(), &BTreeMap::new());
    assert_no_lease_left(&ns, node).await;
}

#[tokio::test]
async fn an_address_change_killed_at_every_step_resumes_while_its_parent_holds_a_zombie() {
    let ns = TestNamespace::new("crash-addr").await;
    let state = tempfile::tempdir().expect("state");
    let node = "addr-0";
    running_full_nodes(
        &ns,
        &[node.to_owned()],
        IMAGE,
        &BTreeMap::new(),
        state.path(),
    )
    .await;
    let before = ledger(&sidecar_home(&ns.name, node));
    let seictl_before = seictl_runs(&ns.name, node);
    let address = "203.0.113.7:26656";
    let args: Vec<String> = [
        "address",
        node,
        "-n",
        &ns.name,
        "--external-address",
        address,
        "--executor",
        "embedded",
        "--yes",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let chain = Chain {
        ns: &ns,
        node,
        args,
        env: console_env(),
        state: state.path(),
        parent: Parent::HoldsZombie,
        extra: Extra::None,
        max_tasks: 7,
    };
    let end = run_chain(&chain).await;
    print_resumes("address change, parent holding zombies", &end);
    // 203.0.113.7 is not dialled from here (loopback only, SEI_CONSOLE_P2P_LOOPBACK_ONLY): after
    // the plan and seid's restart the run ends "not verified" (exit 3), as it says; what this
    // chain checks is that every rerun resumed the one plan.
    let unverifiable = format!("{:?}", end.last.lines).contains("only 127.0.0.0/8 is dialled here");
    assert!(end.last.ok || unverifiable, "{:?}", end.last);
    crate::crash_resume::assert_kills_cover_the_plan(&end, 7);
    assert_eq!(end.plans.len(), 1, "one update plan: {:?}", end.plans);
    let stored = ns.seinodes().get(node).await.expect("get");
    assert_eq!(stored.data["spec"]["externalAddress"], address);
    assert_ne!(stored.data["status"]["plan"]["phase"], "Active");
    assert_eq!(
        each_sidecar_task_ran_once(&ns, node, &end, &before, &seictl_before),
        3
    );
    let config = std::fs::read_to_string(sidecar_home(&ns.name, node).join("config/config.toml"))
        .expect("the node's config.toml");
    assert!(
        config.contains(&format!("external-address = '{address}'"))
            || config.contains(&format!("external-address = \"{address}\"")),
        "config-patch wrote the address"
    );
    assert_no_lease_left(&ns, node).await;
}
