//! Plans handed to the executor: the address change's update plan, the seed's previewed plan
//! being the persisted one, an Active plan met at a node's turn, and the node an embedded run
//! leaves behind compared with the controller's next reconcile.
use super::*;
use crate::ports::ObjectKind;

#[tokio::test]
async fn an_address_change_persists_the_update_plan_carrying_it_and_follows_it() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = address::prepare(
        &ops,
        address::AddressInput {
            node: "a".into(),
            address: ExternalAddress::parse("203.0.113.7:26656").expect("address"),
            wait: true,
            dry_run: false,
            restart: false,
        },
    )
    .await
    .expect("prepare");
    assert_eq!(prepared.blocked, None);
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    let node = world.h.cluster.node("ns", "a").expect("node");
    assert_eq!(node.spec.external_address(), "203.0.113.7:26656");
    let patch = world
        .h
        .sidecar
        .submits()
        .into_iter()
        .rev()
        .find(|t| t.task_type == SidecarTaskType::ConfigPatch)
        .expect("config-patch submitted");
    let params = patch.params.unwrap_or_default().to_string();
    assert!(params.contains("203.0.113.7:26656"), "{params}");
    assert_eq!(world.log.lines(), ["ns/a started", "ns/a succeeded"]);
}

#[tokio::test]
async fn the_previewed_plan_is_the_persisted_plan() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let previewed = prepared.nodes[0].preview.plan.plan.clone().expect("plan");
    let mut input = rollout_input(&["a"], 1, 3);
    input.wait = false;
    let mut no_wait = prepared.clone();
    no_wait.input = input;
    let report = Recording::default();
    crate::ops::action::execute(&ops, &no_wait, &report)
        .await
        .expect("run");
    let stored = world
        .h
        .cluster
        .node("ns", "a")
        .and_then(|n| n.status)
        .and_then(|s| s.plan)
        .expect("persisted plan");
    assert_eq!(stored.id, previewed.id, "same plan ID");
    assert_eq!(
        stored.tasks, previewed.tasks,
        "same tasks, task IDs and params"
    );
}

/// The controller's backfill plan (built because `currentImage` was never observed) is Active
/// when the node's turn comes: it runs to its end first, and only then is the previewed plan
/// persisted and `spec.image` pinned. Pinning under it would strand its observe-image: its pod
/// is replaced before the template changes and `OnDelete` never rolls it again.
#[tokio::test]
async fn a_plan_active_at_the_nodes_turn_ends_before_the_image_is_pinned() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    world.h.cluster.mutate_node("ns", "a", |node| {
        node.status_mut().current_image = None;
    });
    let persisted = world
        .ops()
        .driver()
        .persist("ns", "a", SIDECAR_IMAGE)
        .await
        .expect("persist");
    let crate::executor::driver::Persisted::Built(active) = persisted else {
        panic!("no backfill plan: {persisted:?}");
    };
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let previewed = prepared.nodes[0].plan_id.to_string();
    let preview = &prepared.nodes[0].preview;
    assert_eq!(
        preview.runs_first.as_ref().map(|r| r.plan_id.as_str()),
        Some(active.id.as_str())
    );
    assert_eq!(
        preview.plan.plan.as_ref().map(|p| p.id.as_str()),
        Some(previewed.as_str()),
        "the update plan after it is previewed with the ID it is persisted with"
    );
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    let lines = report.0.lock().expect("lock").clone();
    let first = format!(
        "a: plan {} already active; following it before changing the node",
        active.id
    );
    let at = |line: &str| lines.iter().position(|l| l == line);
    let followed = at(&first).expect("the Active plan is followed first");
    let ours = at(&format!("a: plan {previewed} persisted")).expect("previewed plan persisted");
    assert!(followed < ours, "{lines:?}");
    assert_eq!(world.image_of("a"), (V2.into(), V2.into()));
    assert_eq!(world.patches_of("a"), 1, "one spec patch");
    assert_eq!(world.log.lines(), ["ns/a started", "ns/a succeeded"]);
}

/// An abandoned rollout to v2 (its plan persisted and spec.image pinned, then the console
/// gone) and a rollout back to v1: the preview shows the abandoned plan's tasks as persisted
/// and the plan after it; the run follows exactly that plan, then persists exactly the
/// previewed one (ID, task IDs, types, params), and the node ends on v1.
#[tokio::test]
async fn after_an_abandoned_rollout_the_rollout_back_runs_what_it_previewed() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let persisted = world
        .ops()
        .driver()
        .persist_for_spec("ns", "a", SIDECAR_IMAGE, None, |n| {
            n.spec.image = V2.into();
        })
        .await
        .expect("persist");
    let crate::executor::driver::Persisted::Built(abandoned) = persisted else {
        panic!("no plan: {persisted:?}");
    };
    world
        .h
        .cluster
        .mutate_node("ns", "a", |node| node.spec.image = V2.into());
    let ops = world.ops();
    let mut input = rollout_input(&["a"], 1, 3);
    input.image = ImageRef::parse(V1).expect("image");
    let prepared = rollout::prepare(&ops, input).await.expect("prepare");
    assert!(prepared.blocked.is_empty(), "{:?}", prepared.blocked);
    let preview = &prepared.nodes[0].preview;
    let first = preview.runs_first.as_ref().expect("runs first");
    assert_eq!(first.plan_id, abandoned.id);
    assert_eq!(first.remaining, abandoned.tasks);
    assert_eq!(first.pod_image, V2);
    let previewed = preview.plan.plan.clone().expect("the plan back");
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    let lines = report.0.lock().expect("lock").clone();
    let at = |line: &str| lines.iter().position(|l| l == line);
    let followed = at(&format!(
        "a: plan {} already active; following it before changing the node",
        abandoned.id
    ))
    .unwrap_or_else(|| panic!("the abandoned plan is followed first: {lines:#?}"));
    let ours = at(&format!("a: plan {} persisted", previewed.id))
        .unwrap_or_else(|| panic!("the previewed plan: {lines:#?}"));
    assert!(followed < ours, "{lines:?}");
    // Cleared once Complete (as the controller's next reconcile does): the plan as persisted.
    let written = world.h.cluster.plans_written();
    let stored = written
        .iter()
        .find(|p| p.id == previewed.id)
        .unwrap_or_else(|| panic!("the plan back was persisted: {written:#?}"));
    let shape = |plan: &crate::api::TaskPlan| {
        plan.tasks
            .iter()
            .map(|t| (t.id.clone(), t.kind.clone(), t.params.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(stored.id, previewed.id);
    assert_eq!(
        shape(stored),
        shape(&previewed),
        "task for task, param for param"
    );
    assert_eq!(world.image_of("a"), (V1.into(), V1.into()));
}

/// Without waiting the console cannot follow the Active plan first: that node fails and is
/// left as it was (no spec patch, no Event), naming the plan.
#[tokio::test]
async fn no_wait_on_a_node_with_a_plan_active_changes_nothing_and_says_why() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    world.h.cluster.mutate_node("ns", "a", |node| {
        node.status_mut().current_image = None;
    });
    world
        .ops()
        .driver()
        .persist("ns", "a", SIDECAR_IMAGE)
        .await
        .expect("persist");
    let active = world
        .h
        .cluster
        .node("ns", "a")
        .and_then(|n| n.status)
        .and_then(|s| s.plan)
        .expect("active plan");
    let ops = world.ops();
    let mut input = rollout_input(&["a"], 1, 3);
    input.wait = false;
    let prepared = rollout::prepare(&ops, input).await.expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(!end.ok, "{end:?}");
    assert!(
        end.message
            .contains(&format!("plan {} is Active", active.id)),
        "{end:?}"
    );
    assert_eq!(world.patches_of("a"), 0, "spec untouched");
    assert!(world.h.cluster.events().is_empty(), "no Event");
    let stored = world.h.cluster.node("ns", "a").and_then(|n| n.status);
    assert_eq!(stored.and_then(|s| s.plan).map(|p| p.id), Some(active.id));
}

/// The update plan is written before `spec.image`: a controller reconciling the pinned node
/// finds it Active and runs it instead of building its own. A pin that then fails leaves a plan
/// for the unchanged spec, which changes nothing when it runs.
#[tokio::test]
async fn the_update_plan_is_persisted_before_the_image_is_pinned() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    world.h.cluster.fail_next(
        "patch seinodes a",
        crate::ports::ClusterErrorKind::Other,
        "etcdserver: request timed out",
    );
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(!end.ok, "{end:?}");
    assert!(end.message.contains("patching spec.image of a"), "{end:?}");
    let stored = world.h.cluster.node("ns", "a").expect("node");
    assert_eq!(stored.spec.image, V1);
    let plan = stored
        .status
        .and_then(|s| s.plan)
        .expect("plan persisted first");
    assert_eq!(plan.id, prepared.nodes[0].plan_id.to_string());
}

#[tokio::test]
async fn an_embedded_run_leaves_the_node_as_the_controllers_next_reconcile_would() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let plan_id = prepared.nodes[0].plan_id.to_string();
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    let status = world
        .h
        .cluster
        .node("ns", "a")
        .and_then(|n| n.status)
        .expect("status");
    assert!(status.plan.is_none(), "the completed plan is cleared");
    let condition = status
        .condition(crate::api::ConditionType::NodeUpdateInProgress)
        .expect("NodeUpdateInProgress");
    assert_eq!(condition.status, "False");
    assert_eq!(condition.reason, "UpdateComplete");
    assert_eq!(condition.message, format!("plan {plan_id} completed"));
}

/// Issue 33: an address change ends with seid restarted — the StatefulSet does not change, so
/// the plan's replace-pod replaces no pod and the console restarts it after the plan — and the
/// address it advertises read back by the probe; the verdict is the end line, the Event and the
/// journal's reason.
#[tokio::test]
async fn an_address_change_restarts_seid_and_reads_the_advertised_address_back() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = address::prepare(
        &ops,
        address::AddressInput {
            node: "a".into(),
            address: ExternalAddress::parse("203.0.113.7:26656").expect("address"),
            wait: true,
            dry_run: false,
            restart: true,
        },
    )
    .await
    .expect("prepare");
    assert_eq!(
        prepared.restart,
        address::RestartStep::Console { pod: "a-0".into() }
    );
    let text = prepared.text();
    assert!(
        text.contains("Then: restart seid (seid reads config.toml only at start): delete pod a-0"),
        "{text}"
    );
    let old = prepared.pod.clone().expect("pod").uid;
    let report = Recording::default();
    // The StatefulSet controller's part: a new pod once the old one is gone.
    let recreate = async {
        for _ in 0..1000 {
            tokio::time::sleep(Duration::from_millis(10)).await;
            if world
                .h
                .cluster
                .object(ObjectKind::Pod, "ns", "a-0")
                .is_none()
            {
                world.h.cluster.put(ClusterObject::Pod(ready_pod("a")));
                return;
            }
        }
    };
    let (end, ()) = tokio::join!(
        crate::ops::action::execute(&ops, &prepared, &report),
        recreate
    );
    let end = end.expect("run");
    assert!(end.ok, "{end:?}");
    assert!(
        end.message.starts_with(
            "external address 203.0.113.7:26656 live: seid restarted (pod a-0 deleted; new pod"
        ),
        "{end:?}"
    );
    assert!(
        end.message
            .contains("it advertises 203.0.113.7:26656 in its P2P handshake"),
        "{end:?}"
    );
    let new = world
        .h
        .cluster
        .object(ObjectKind::Pod, "ns", "a-0")
        .and_then(|o| o.metadata().uid.clone())
        .expect("new pod");
    assert_ne!(new, old, "a new pod");
    let probed = world.prober.targets.lock().expect("lock").clone();
    assert_eq!(
        probed
            .iter()
            .map(|t| t.address.as_str())
            .collect::<Vec<_>>(),
        ["203.0.113.7:26656"]
    );
    assert_eq!(world.log.lines(), ["ns/a started", "ns/a succeeded"]);
}

/// `--no-restart`: the address is written, the pod left alone, and the end line says it is not
/// live (no probe: nothing new would answer).
#[tokio::test]
async fn no_restart_leaves_the_address_written_but_not_live_and_says_so() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = address::prepare(
        &ops,
        address::AddressInput {
            node: "a".into(),
            address: ExternalAddress::parse("203.0.113.7:26656").expect("address"),
            wait: true,
            dry_run: false,
            restart: false,
        },
    )
    .await
    .expect("prepare");
    assert!(
        prepared
            .text()
            .contains("Not restarted (--no-restart): config.toml gets the new address"),
        "{}",
        prepared.text()
    );
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    assert!(
        end.message
            .contains("not live: seid reads config.toml only at start"),
        "{end:?}"
    );
    assert_eq!(world.h.cluster.count_calls("delete pods"), 0);
    assert!(world.prober.targets.lock().expect("lock").is_empty());
}
