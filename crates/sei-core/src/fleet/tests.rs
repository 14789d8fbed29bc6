//! Tests of the fleet store, rows, filter, sort and detail view models.
use serde_json::json;

use super::detail::{NodeDetail, NodeIdLookup, NodeIdSource, SeedPeer};
use super::rows::{FleetRow, drift};
use super::sample::{self, IMAGE, OLD_IMAGE, SIDECAR_IMAGE};
use super::store::{Delta, ObjectKey};
use super::text;
use super::{Fleet, FleetDelta};
use crate::api::{NodeMode, Phase, PlanPhase, TaskStatus};

pub(super) fn demo() -> Fleet {
    let (nodes, events) = sample::demo_fleet();
    let mut fleet = Fleet::new(None);
    fleet.apply(FleetDelta::Node(Delta::RelistStarted));
    for node in nodes {
        fleet.apply(FleetDelta::Node(Delta::relist_item(node)));
    }
    fleet.apply(FleetDelta::Node(Delta::RelistDone));
    for event in events {
        fleet.apply(FleetDelta::NodeEvent(Delta::applied(event)));
    }
    fleet
}

pub(super) fn key(name: &str) -> ObjectKey {
    ObjectKey::new("sei", name)
}

#[test]
fn quirk_empty_current_image_counts_as_drift() {
    let fresh = sample::node("sei", "a", NodeMode::Full, 10);
    assert!(drift(&fresh, None).image);
    let empty = sample::patched(fresh, json!({"status": {"currentImage": ""}}));
    assert!(drift(&empty, None).image);
    assert!(!drift(&sample::running(empty), None).image);
}

#[test]
fn quirk_sidecar_drift_ignored_while_current_sidecar_image_is_empty() {
    let node = sample::node("sei", "a", NodeMode::Full, 10);
    let node = sample::patched(
        node,
        json!({"spec": {"sidecar": {"image": "seictl:new"}}, "status": {"currentImage": IMAGE}}),
    );
    assert!(!drift(&node, None).sidecar);
    let observed = sample::patched(
        node,
        json!({"status": {"currentSidecarImage": SIDECAR_IMAGE}}),
    );
    assert!(drift(&observed, None).sidecar);
}

#[test]
fn sidecar_drift_uses_platform_default_when_spec_names_none() {
    let node = sample::running(sample::node("sei", "a", NodeMode::Full, 10));
    assert!(
        !drift(&node, None).sidecar,
        "unknown effective image: no claim"
    );
    assert!(!drift(&node, Some(SIDECAR_IMAGE)).sidecar);
    assert!(drift(&node, Some("seictl:v1.0.0")).sidecar);
}

#[test]
fn row_summarises_plan_progress_and_failed_task() {
    let fleet = demo();
    let updating = fleet.row(&key("rpc-1")).expect("row");
    let plan = updating.plan.as_ref().expect("plan");
    assert_eq!(
        (plan.phase, plan.done, plan.total),
        (PlanPhase::Active, 4, 7)
    );
    let current = plan.current.as_ref().expect("current");
    assert_eq!(
        (current.kind.as_str(), current.retries, current.max_retries),
        ("replace-pod", 1, 3)
    );
    assert_eq!(plan.first_incomplete.as_deref(), Some("replace-pod"));
    assert!(updating.drift.image);

    let failed = fleet.row(&key("validator-0")).expect("row");
    let plan = failed.plan.as_ref().expect("plan");
    assert_eq!(plan.phase, PlanPhase::Failed);
    let current = plan.current.as_ref().expect("failed task");
    assert_eq!(
        (current.kind.as_str(), current.status),
        ("config-validate", TaskStatus::Failed)
    );
    assert_eq!(
        text::plan_cell(Some(plan), sample::now()),
        "✗ 5/7 config-validate r3/3 95s"
    );
}

#[test]
fn latest_warning_joins_events_and_follows_deletes() {
    let mut fleet = demo();
    let seed = fleet.row(&key("seed-0")).expect("row");
    let warning = seed.last_warning.as_ref().expect("warning");
    assert_eq!(
        (warning.reason.as_str(), warning.count),
        ("StatefulSetRenderFailed", 4)
    );
    // A Normal event never becomes the last warning.
    assert!(
        fleet
            .row(&key("rpc-0"))
            .expect("row")
            .last_warning
            .is_none()
    );

    let (nodes, events) = sample::demo_fleet();
    let seed_node = nodes
        .iter()
        .find(|n| n.metadata.name.as_deref() == Some("seed-0"))
        .expect("seed");
    let newer = sample::event(seed_node, true, "StateSyncBlocked", "blocked", 1, 5);
    fleet.apply(FleetDelta::NodeEvent(Delta::applied(newer.clone())));
    assert_eq!(
        fleet
            .row(&key("seed-0"))
            .expect("row")
            .last_warning
            .as_ref()
            .expect("w")
            .reason,
        "StateSyncBlocked"
    );
    fleet.apply(FleetDelta::NodeEvent(Delta::deleted(newer)));
    fleet.apply(FleetDelta::NodeEvent(Delta::deleted(events[0].clone())));
    assert!(
        fleet
            .row(&key("seed-0"))
            .expect("row")
            .last_warning
            .is_none()
    );
}

#[test]
fn event_relist_rebuilds_the_index() {
    let mut fleet = demo();
    fleet.apply(FleetDelta::NodeEvent(Delta::RelistStarted));
    fleet.apply(FleetDelta::NodeEvent(Delta::RelistDone));
    assert!(fleet.rows().all(|row| row.last_warning.is_none()));
    assert_eq!(fleet.events_of_node(&key("seed-0")).count(), 0);
}

#[test]
fn node_apply_delete_and_relist_keep_rows_in_step() {
    let mut fleet = demo();
    let revision = fleet.revision();
    let fresh = sample::node("sei", "new-0", NodeMode::Archive, 1);
    fleet.apply(FleetDelta::Node(Delta::applied(fresh.clone())));
    assert!(fleet.revision() > revision);
    assert_eq!(fleet.row(&key("new-0")).expect("row").phase, None);
    fleet.apply(FleetDelta::Node(Delta::applied(sample::running(
        fresh.clone(),
    ))));
    assert_eq!(
        fleet.row(&key("new-0")).expect("row").phase,
        Some(Phase::Running)
    );
    fleet.apply(FleetDelta::Node(Delta::deleted(fresh)));
    assert!(fleet.row(&key("new-0")).is_none());
    assert_eq!(fleet.len(), 6);
    // A relist without rpc-0 (deleted while the watch was down) drops its row.
    fleet.apply(FleetDelta::Node(Delta::RelistStarted));
    for node in sample::demo_fleet()
        .0
        .into_iter()
        .filter(|n| n.metadata.name.as_deref() != Some("rpc-0"))
    {
        fleet.apply(FleetDelta::Node(Delta::relist_item(node)));
    }
    fleet.apply(FleetDelta::Node(Delta::RelistDone));
    assert_eq!(fleet.len(), 5);
    assert!(fleet.row(&key("rpc-0")).is_none());
    // Warnings survive a node relist.
    assert!(
        fleet
            .row(&key("seed-0"))
            .expect("row")
            .last_warning
            .is_some()
    );
}

fn with_version(node: crate::api::SeiNode, version: &str) -> crate::api::SeiNode {
    sample::patched(node, json!({"metadata": {"resourceVersion": version}}))
}

#[test]
fn a_relist_replaying_unchanged_nodes_and_events_moves_no_revision() {
    let (nodes, events) = sample::demo_fleet();
    let nodes: Vec<_> = nodes.into_iter().map(|n| with_version(n, "41")).collect();
    let events: Vec<_> = events
        .into_iter()
        .map(|mut e| {
            e.metadata.resource_version = Some("42".into());
            e
        })
        .collect();
    let mut fleet = Fleet::new(None);
    let relist_nodes = |fleet: &mut Fleet| {
        fleet.apply(FleetDelta::Node(Delta::RelistStarted));
        for node in &nodes {
            fleet.apply(FleetDelta::Node(Delta::relist_item(node.clone())));
        }
        fleet.apply(FleetDelta::Node(Delta::RelistDone));
    };
    let relist_events = |fleet: &mut Fleet| {
        fleet.apply(FleetDelta::NodeEvent(Delta::RelistStarted));
        for event in &events {
            fleet.apply(FleetDelta::NodeEvent(Delta::relist_item(event.clone())));
        }
        fleet.apply(FleetDelta::NodeEvent(Delta::RelistDone));
    };
    relist_nodes(&mut fleet);
    relist_events(&mut fleet);
    let revision = fleet.revision();
    let rows: Vec<FleetRow> = fleet.rows().cloned().collect();
    // The watches reconnected and relisted the same objects.
    relist_nodes(&mut fleet);
    relist_events(&mut fleet);
    assert_eq!(fleet.revision(), revision);
    assert_eq!(fleet.rows().cloned().collect::<Vec<_>>(), rows);
    // A real change still shows, and so does an event the relist no longer lists.
    let seed = nodes.iter().find(|n| n.name() == "seed-0").expect("seed");
    fleet.apply(FleetDelta::Node(Delta::applied(with_version(
        sample::running(seed.clone()),
        "43",
    ))));
    assert!(fleet.revision() > revision);
    assert_eq!(
        fleet.row(&key("seed-0")).expect("row").phase,
        Some(Phase::Running)
    );
    fleet.apply(FleetDelta::NodeEvent(Delta::RelistStarted));
    fleet.apply(FleetDelta::NodeEvent(Delta::RelistDone));
    assert!(
        fleet
            .row(&key("seed-0"))
            .expect("row")
            .last_warning
            .is_none()
    );
    assert_eq!(fleet.events_of_node(&key("seed-0")).count(), 0);
}

#[test]
fn stored_nodes_are_slimmed_without_changing_what_screens_show() {
    let (nodes, _) = sample::demo_fleet();
    let updating = nodes
        .into_iter()
        .find(|n| n.name() == "rpc-1")
        .expect("rpc-1");
    let updating = sample::patched(
        updating,
        json!({"metadata": {
            "annotations": {super::LAST_APPLIED_ANNOTATION: "{\"spec\":{}}", "team": "infra"},
            "managedFields": [{"manager": "kubectl", "operation": "Apply"}],
        }}),
    );
    let row_before = FleetRow::build(ObjectKey::of(&updating), &updating, [], None);
    let mut fleet = Fleet::new(None);
    fleet.apply(FleetDelta::Node(Delta::applied(updating.clone())));
    let stored = fleet.nodes.get(&key("rpc-1")).expect("stored");
    assert!(stored.metadata.managed_fields.is_none());
    let annotations = stored.metadata.annotations.as_ref().expect("annotations");
    assert_eq!(annotations.keys().collect::<Vec<_>>(), ["team"]);
    let plan = stored
        .status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .expect("plan");
    assert!(plan.tasks.iter().all(|t| t.params.is_none()));
    assert_eq!(stored.spec, updating.spec, "the spec is kept whole");
    assert_eq!(fleet.row(&key("rpc-1")), Some(&row_before));
    let detail = NodeDetail::build(&fleet, &key("rpc-1"), None).expect("detail");
    let mut unslimmed = Fleet::new(None);
    unslimmed.nodes.apply(Delta::applied(updating));
    assert_eq!(
        Some(detail),
        NodeDetail::build(&unslimmed, &key("rpc-1"), None)
    );
}

#[test]
fn detail_collects_spec_plan_events_and_workload() {
    let mut fleet = demo();
    fleet.apply(FleetDelta::StatefulSet(Delta::applied(
        sample::statefulset("sei", "rpc-1", 0, "rpc-1-aaa", "rpc-1-bbb"),
    )));
    fleet.apply(FleetDelta::Pod(Delta::applied(sample::pod(
        "sei",
        "rpc-1",
        false,
        2,
        "rpc-1-aaa",
    ))));
    fleet.apply(FleetDelta::DetailEvent(Delta::applied(
        sample::event_about(
            "Pod",
            "rpc-1-0",
            "sei",
            true,
            "BackOff",
            "Back-off restarting failed container seid",
            7,
            30,
        ),
    )));
    let detail = NodeDetail::build(&fleet, &key("rpc-1"), None).expect("detail");
    assert_eq!(detail.spec.mode, Some(NodeMode::Full));
    let plan = detail.plan.as_ref().expect("plan");
    assert_eq!(plan.done(), 4);
    assert!(plan.tasks[4].current);
    let sts = detail.statefulset.as_ref().expect("sts");
    assert_eq!(
        (
            sts.ready,
            sts.current_revision.as_str(),
            sts.update_revision.as_str()
        ),
        (0, "rpc-1-aaa", "rpc-1-bbb")
    );
    assert_eq!(detail.pods[0].ready_count(), (1, 2));
    assert_eq!(detail.pods[0].containers[0].restarts, 2);
    assert_eq!(detail.events[0].reason, "BackOff", "warnings first");
    assert!(detail.seed_peer.is_none());
    assert!(NodeDetail::build(&fleet, &key("missing"), None).is_none());
}

#[test]
fn seed_peer_comes_from_a_peer_list_or_says_why_not() {
    let mut fleet = demo();
    let detail = NodeDetail::build(&fleet, &key("seed-0"), None).expect("detail");
    match detail.seed_peer {
        Some(SeedPeer::Unknown(why)) => assert!(why.contains("seed-0.sei.example:26656"), "{why}"),
        other => panic!("expected unknown, got {other:?}"),
    }
    let dialer = sample::patched(
        sample::running(sample::node("sei", "rpc-9", NodeMode::Full, 60)),
        json!({"status": {"resolvedPeers": ["d3adb33f@seed-0.sei.example:26656"]}}),
    );
    fleet.apply(FleetDelta::Node(Delta::applied(dialer)));
    let detail = NodeDetail::build(&fleet, &key("seed-0"), None).expect("detail");
    assert_eq!(
        detail.seed_peer,
        Some(SeedPeer::Known {
            peer: "d3adb33f@seed-0.sei.example:26656".into(),
            source: "status.resolvedPeers of a peer".into()
        })
    );
    let no_address = sample::node("sei", "seed-1", NodeMode::Seed, 60);
    fleet.apply(FleetDelta::Node(Delta::applied(no_address)));
    let detail = NodeDetail::build(&fleet, &key("seed-1"), None).expect("detail");
    assert_eq!(
        detail.seed_peer,
        Some(SeedPeer::Unknown("spec.externalAddress is not set".into()))
    );
}

#[test]
fn text_cells() {
    let now = sample::now();
    let at = |s: i64| {
        Some(
            now.checked_sub(jiff::SignedDuration::from_secs(s))
                .expect("range"),
        )
    };
    assert_eq!(text::age(at(59), now), "59s");
    assert_eq!(text::age(at(600), now), "10m");
    assert_eq!(text::age(at(3 * 3600 + 300), now), "3h5m");
    assert_eq!(text::age(at(30 * 3600), now), "30h");
    assert_eq!(text::age(at(3 * 86_400 + 7200), now), "3d2h");
    assert_eq!(text::age(None, now), "-");
    assert_eq!(text::short_image(OLD_IMAGE), "sei:v6.2.1");
    let fleet = demo();
    let row: &FleetRow = fleet.row(&key("replayer-0")).expect("row");
    assert_eq!(
        text::conditions_cell(row),
        "✗ StateSyncReady/NoSyncersConfigured"
    );
    assert_eq!(
        text::conditions_cell(fleet.row(&key("rpc-0")).expect("row")),
        "✓ 2 ok"
    );
    assert_eq!(
        text::image_cell(fleet.row(&key("rpc-1")).expect("row")),
        "sei:v6.4.0 ≠image"
    );
    assert_eq!(
        text::warning_cell(fleet.row(&key("seed-0")).expect("row"), now),
        "⚠ StatefulSetRenderFailed ×4 40s"
    );
}

#[test]
fn seed_peer_from_the_node_key_secret_or_the_sidecar_wins_and_reasons_are_kept() {
    let mut fleet = demo();
    let seed = key("seed-0");
    fleet.apply(FleetDelta::NodeId {
        key: seed.clone(),
        lookup: NodeIdLookup::NotFound {
            reasons: vec![
                "Secret seed-0-node-key: forbidden".into(),
                "sidecar: node ID of sei/seed-0 not yet available".into(),
            ],
        },
    });
    let detail = NodeDetail::build(&fleet, &seed, None).expect("detail");
    match detail.seed_peer {
        Some(SeedPeer::Unknown(why)) => {
            assert!(why.contains("Secret seed-0-node-key: forbidden"), "{why}");
            assert!(why.contains("sidecar: node ID"), "{why}");
        }
        other => panic!("expected unknown, got {other:?}"),
    }
    // A peer listing the seed does not beat the node's own key.
    let dialer = sample::patched(
        sample::running(sample::node("sei", "rpc-9", NodeMode::Full, 60)),
        json!({"status": {"resolvedPeers": ["d3adb33f@seed-0.sei.example:26656"]}}),
    );
    fleet.apply(FleetDelta::Node(Delta::applied(dialer)));
    let node_id = "8e0ce6da7bc451e8bea1ceadcb71ca14ce79776c";
    fleet.apply(FleetDelta::NodeId {
        key: seed.clone(),
        lookup: NodeIdLookup::Found {
            node_id: node_id.into(),
            source: NodeIdSource::Secret("seed-0-node-key".into()),
        },
    });
    let detail = NodeDetail::build(&fleet, &seed, None).expect("detail");
    assert_eq!(
        detail.seed_peer,
        Some(SeedPeer::Known {
            peer: format!("{node_id}@seed-0.sei.example:26656"),
            source: "node-key Secret seed-0-node-key".into()
        })
    );
    fleet.clear_detail();
    assert!(
        fleet.node_ids.is_empty(),
        "the lookup belongs to the detail"
    );
}

#[test]
fn detail_objects_change_the_revision_but_not_the_rows_revision() {
    let mut fleet = demo();
    let (revision, rows_revision) = (fleet.revision(), fleet.rows_revision());
    fleet.apply(FleetDelta::Pod(Delta::applied(sample::pod(
        "sei",
        "rpc-1",
        true,
        0,
        "rpc-1-aaa",
    ))));
    fleet.apply(FleetDelta::StatefulSetEvent(Delta::applied(
        sample::event_about(
            "StatefulSet",
            "rpc-1",
            "sei",
            false,
            "SuccessfulCreate",
            "ok",
            1,
            5,
        ),
    )));
    assert!(fleet.revision() > revision, "the node screen must redraw");
    assert_eq!(
        fleet.rows_revision(),
        rows_revision,
        "the fleet listing has nothing to redo"
    );
    let node = sample::running(sample::node("sei", "rpc-1", NodeMode::Full, 60));
    fleet.apply(FleetDelta::Node(Delta::applied(node)));
    assert!(fleet.rows_revision() > rows_revision);
}

#[test]
fn refreshing_a_row_in_place_equals_building_it_afresh() {
    // Every demo node turned into every other one (same key): plans appear and vanish,
    // conditions grow and shrink, warnings come and go.
    let fleet = demo();
    let (nodes, _) = sample::demo_fleet();
    let events_of = |node: &crate::api::SeiNode| {
        fleet
            .events_of_node(&ObjectKey::of(node))
            .cloned()
            .collect::<Vec<_>>()
    };
    for before in &nodes {
        for after in &nodes {
            let renamed =
                sample::patched(after.clone(), json!({"metadata": {"name": before.name()}}));
            let mut row = FleetRow::build(
                ObjectKey::of(before),
                before,
                &events_of(before),
                Some(SIDECAR_IMAGE),
            );
            row.refresh(&renamed, &events_of(after), Some(SIDECAR_IMAGE));
            let fresh = FleetRow::build(
                ObjectKey::of(&renamed),
                &renamed,
                &events_of(after),
                Some(SIDECAR_IMAGE),
            );
            assert_eq!(
                row,
                fresh,
                "{} refreshed as {}",
                before.name(),
                after.name()
            );
            assert!(row.text_matches(&after.spec.chain_id.to_lowercase()));
        }
    }
}

#[test]
fn a_new_default_sidecar_image_rebuilds_sidecar_drift_of_every_row() {
    let running = sample::patched(
        sample::running(sample::node("sei", "a", NodeMode::Full, 10)),
        json!({"status": {"currentSidecarImage": SIDECAR_IMAGE}}),
    );
    let mut fleet = Fleet::new(Some(SIDECAR_IMAGE.to_owned()));
    fleet.apply(FleetDelta::Node(Delta::applied(running)));
    let sidecar_drift = |fleet: &Fleet| fleet.row(&key("a")).map(|r| r.drift.sidecar);
    assert_eq!(sidecar_drift(&fleet), Some(false));
    let before = fleet.rows_revision();
    fleet.set_default_sidecar_image(Some("ghcr.io/sei-protocol/seictl:v1.0.0".into()));
    assert_eq!(sidecar_drift(&fleet), Some(true));
    assert_ne!(fleet.rows_revision(), before);
    let after = fleet.revision();
    fleet.set_default_sidecar_image(Some("ghcr.io/sei-protocol/seictl:v1.0.0".into()));
    assert_eq!(fleet.revision(), after, "the same image changes nothing");
    fleet.set_default_sidecar_image(None);
    assert_eq!(
        sidecar_drift(&fleet),
        Some(false),
        "unknown: no drift claimed"
    );
}

#[test]
fn native_sidecar_init_containers_count_as_containers_and_plain_init_containers_do_not() {
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"namespace": "sei", "name": "rpc-0-0"},
        "spec": {
            "initContainers": [
                {"name": "init-config", "image": "busybox"},
                {"name": "rbac-proxy", "image": "proxy:1", "restartPolicy": "Always"},
            ],
            "containers": [{"name": "seid", "image": "sei:v1"}, {"name": "sei-sidecar", "image": "sc:1"}],
        },
        "status": {
            "phase": "Running",
            "initContainerStatuses": [
                {"name": "init-config", "image": "busybox", "imageID": "", "ready": false, "restartCount": 0},
                {"name": "rbac-proxy", "image": "proxy:1", "imageID": "", "ready": true, "restartCount": 1},
            ],
            "containerStatuses": [
                {"name": "seid", "image": "sei:v1", "imageID": "", "ready": true, "restartCount": 0},
                {"name": "sei-sidecar", "image": "sc:1", "imageID": "", "ready": true, "restartCount": 0},
            ],
        },
    }))
    .expect("pod");
    let summary = super::detail::PodSummary::of(&pod);
    assert_eq!(summary.ready_count(), (3, 3));
    let names: Vec<&str> = summary.containers.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["rbac-proxy", "seid", "sei-sidecar"]);
    assert_eq!(summary.containers[0].restarts, 1);
}
