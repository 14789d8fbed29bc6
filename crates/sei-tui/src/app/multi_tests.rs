//! Tests of one fleet across several clusters: routing of each cluster's watch messages,
//! per-cluster health, `:ctx A,B` / `:ctx all`, actions confined to one cluster.
use super::model::{Cmd, Model, Msg, Scope, Screen, WatchState};
use super::tests::{key, press};
use super::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample;
use crate::fleet::store::{Delta, ObjectKey};
use crate::fleet::watches::ServerReport;
use crate::fleet::watches::WatchKind;
use crate::fleet::watches::WatchReport;
use crate::keymap::KeyCode;

pub const ARCTIC: &str = "arctic-1";
pub const PACIFIC: &str = "pacific-1";

/// The demo fleet in `arctic-1`, its first three nodes in `pacific-1`, both synced and live.
pub fn two_cluster_model() -> Model {
    let scope = Scope {
        contexts: vec![ARCTIC.into(), PACIFIC.into()],
        namespace: Some("sei".into()),
    };
    let mut model = Model::new(scope, sample::now(), None);
    model.size = (200, 30);
    model.contexts = vec![ARCTIC.into(), PACIFIC.into(), "atlantic-2".into()];
    let cmds = model.init();
    assert_eq!(cmds.len(), 2, "one watch set per cluster: {cmds:?}");
    for (context, take) in [(ARCTIC, usize::MAX), (PACIFIC, 3)] {
        let epoch = epoch_of(&model, context);
        let (nodes, events) = sample::demo_fleet();
        let mut msgs = vec![FleetDelta::Node(Delta::RelistStarted)];
        msgs.extend(
            nodes
                .into_iter()
                .take(take)
                .map(|n| FleetDelta::Node(Delta::relist_item(n))),
        );
        msgs.push(FleetDelta::Node(Delta::RelistDone));
        msgs.extend(
            events
                .into_iter()
                .map(|e| FleetDelta::NodeEvent(Delta::applied(e))),
        );
        for delta in msgs {
            update(&mut model, Msg::Delta { epoch, delta });
        }
        for kind in [WatchKind::Nodes, WatchKind::NodeEvents] {
            let report = WatchReport::Live;
            update(
                &mut model,
                Msg::Watch {
                    epoch,
                    kind,
                    report,
                },
            );
        }
    }
    model.refresh_views();
    model
}

pub fn epoch_of(model: &Model, context: &str) -> u64 {
    model.clusters[context].epoch
}

pub fn key_in(context: &str, name: &str) -> ObjectKey {
    ObjectKey::new("sei", name).in_context(&std::sync::Arc::from(context))
}

/// `context`'s API server stops answering at the sample clock; 9 s later.
pub fn silence(model: &mut Model, context: &str) {
    let epoch = epoch_of(model, context);
    let at = sample::now();
    update(
        model,
        Msg::Server {
            epoch,
            report: ServerReport::Answered { at },
        },
    );
    update(
        model,
        Msg::Server {
            epoch,
            report: ServerReport::Silent {
                error: "the API server did not answer within 3 s".into(),
            },
        },
    );
    let later = at
        .checked_add(jiff::SignedDuration::from_secs(9))
        .expect("t");
    update(model, Msg::Tick(later));
}

#[test]
fn each_cluster_s_rows_come_from_its_own_watches() {
    let model = two_cluster_model();
    assert_eq!(model.listing.counts.total, 9);
    assert_eq!(model.listing.counts.by_context.len(), 2);
    let pacific = model
        .listing
        .keys
        .iter()
        .find(|k| k.context.as_ref() == PACIFIC)
        .cloned()
        .expect("a pacific row");
    assert!(model.fleet.row(&key_in(ARCTIC, &pacific.name)).is_some());
    // The same name in two clusters is two rows.
    let named = model
        .listing
        .keys
        .iter()
        .filter(|k| k.name == pacific.name)
        .count();
    assert_eq!(named, 2);
}

#[test]
fn a_delta_of_a_replaced_watch_set_reaches_no_cluster() {
    let mut model = two_cluster_model();
    let before = model.fleet.len();
    let stale_epoch = epoch_of(&model, ARCTIC).min(epoch_of(&model, PACIFIC)) - 1;
    update(
        &mut model,
        Msg::Delta {
            epoch: stale_epoch,
            delta: FleetDelta::Node(Delta::applied(sample::node(
                "sei",
                "ghost-0",
                crate::api::NodeMode::Full,
                1,
            ))),
        },
    );
    assert_eq!(model.fleet.len(), before);
}

#[test]
fn one_silent_cluster_keeps_every_row_and_only_its_health_and_resync() {
    let mut model = two_cluster_model();
    silence(&mut model, PACIFIC);
    assert_eq!(model.fleet.len(), 9, "no cluster is blanked");
    assert!(model.clusters[PACIFIC].server.silent.is_some());
    assert!(model.clusters[ARCTIC].server.silent.is_none());
    // A watch of arctic failing is arctic's alone.
    let epoch = epoch_of(&model, ARCTIC);
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Failed {
                error: "connection refused".into(),
                forbidden: false,
            },
        },
    );
    let stale: Vec<&str> = model.stale().iter().map(|(c, _, _)| *c).collect();
    assert_eq!(stale, [ARCTIC]);
    // Pacific answers again: only pacific's watches restart.
    let epoch = epoch_of(&model, PACIFIC);
    let cmds = update(
        &mut model,
        Msg::Server {
            epoch,
            report: ServerReport::Answered { at: sample::now() },
        },
    );
    assert!(
        matches!(&cmds[..], [Cmd::WatchCluster { context, .. }] if context == PACIFIC),
        "{cmds:?}"
    );
    assert!(
        matches!(
            model.watch_state(ARCTIC, WatchKind::Nodes),
            Some(WatchState::Stale { .. })
        ),
        "arctic's health is its own"
    );
}

#[test]
fn ctx_filter_narrows_and_the_counts_stay_of_every_cluster() {
    let mut model = two_cluster_model();
    press(&mut model, "/ctx:pacific-1");
    key(&mut model, KeyCode::Enter);
    model.refresh_views();
    assert_eq!(model.listing.counts.shown, 3);
    assert_eq!(model.listing.counts.total, 9);
    assert!(
        model
            .listing
            .keys
            .iter()
            .all(|k| k.context.as_ref() == PACIFIC)
    );
}

#[test]
fn sort_cycles_through_the_cluster_column_only_with_several_clusters() {
    use crate::fleet::sort::Column;
    let mut model = two_cluster_model();
    // From NAMESPACE backwards: CLUSTER.
    press(&mut model, "<");
    assert_eq!(model.sort.column, Column::Cluster);
    press(&mut model, "S");
    model.refresh_views();
    assert_eq!(
        model.listing.keys.first().map(|k| k.context.as_ref()),
        Some(PACIFIC)
    );
    let mut single = super::tests::demo_model();
    press(&mut single, "<");
    assert_ne!(single.sort.column, Column::Cluster);
}

#[test]
fn ctx_lists_switch_to_several_clusters_and_all() {
    let mut model = two_cluster_model();
    press(&mut model, ":ctx pacific-1,atlantic-2");
    let cmds = key(&mut model, KeyCode::Enter);
    let watched: Vec<&str> = cmds
        .iter()
        .filter_map(|c| match c {
            Cmd::WatchCluster { context, .. } => Some(context.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(watched, ["pacific-1", "atlantic-2"]);
    assert!(cmds.contains(&Cmd::StopScope));
    assert_eq!(model.scope.contexts, ["pacific-1", "atlantic-2"]);
    assert!(model.fleet.is_empty(), "the old scope's rows are dropped");
    press(&mut model, ":ctx all");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.scope.contexts.len(), 3);
    assert_eq!(model.clusters.len(), 3);
    // An unknown name refuses the whole list, naming what exists; nothing switched.
    press(&mut model, ":ctx pacific-1,nowhere");
    assert!(key(&mut model, KeyCode::Enter).is_empty());
    let flash = model.flash.clone().expect("flash");
    assert!(
        flash.error && flash.text.contains("\"nowhere\""),
        "{flash:?}"
    );
    assert_eq!(model.scope.contexts.len(), 3);
}

#[test]
fn the_node_screen_watches_its_own_cluster() {
    let mut model = two_cluster_model();
    press(&mut model, "/ctx:pacific-1");
    key(&mut model, KeyCode::Enter);
    model.refresh_views();
    let cmds = key(&mut model, KeyCode::Enter);
    let Some(Cmd::WatchDetail { node, epoch }) = cmds.first().cloned() else {
        panic!("{cmds:?}");
    };
    assert_eq!(node.context.as_ref(), PACIFIC);
    assert_eq!(model.screen, Screen::Node(node.clone()));
    assert_eq!(
        model.watch_state(PACIFIC, WatchKind::Pods),
        Some(&WatchState::Syncing)
    );
    assert_eq!(model.watch_state(ARCTIC, WatchKind::Pods), None);
    let pod = sample::pod("sei", &node.name, true, 0, "r");
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Pod(Delta::applied(pod)),
        },
    );
    model.refresh_views();
    assert_eq!(model.detail.as_ref().map(|d| d.pods.len()), Some(1));
    assert!(model.fleet.fleet(ARCTIC).is_some_and(|f| f.pods.is_empty()));
}

#[test]
fn a_rollout_of_marked_nodes_of_two_clusters_is_one_dialog_with_a_part_per_cluster() {
    let mut model = two_cluster_model();
    // The first rows are arctic's; the last is pacific's.
    press(&mut model, " ");
    press(&mut model, "G");
    press(&mut model, " ");
    assert_eq!(model.marked.len(), 2);
    let marked: Vec<ObjectKey> = model.marked.iter().cloned().collect();
    assert!(press(&mut model, "i").is_empty(), "a prompt asks nothing");
    let flow = model.action.as_ref().expect("one dialog");
    let super::action::Stage::Prompt(form) = &flow.stage else {
        panic!("prompt");
    };
    assert_eq!(form.clusters.len(), 2, "{form:?}");
    let cmds = key(&mut model, KeyCode::Enter);
    let [Cmd::PrepareAction { request, .. }] = cmds.as_slice() else {
        panic!("{cmds:?}");
    };
    let parts: Vec<(&str, Vec<String>)> = request
        .parts
        .iter()
        .map(|p| (p.context.as_str(), p.operation.nodes()))
        .collect();
    let expected: Vec<(&str, Vec<String>)> = marked
        .iter()
        .map(|k| (k.context.as_ref(), vec![k.name.to_string()]))
        .collect();
    assert_eq!(parts, expected, "one rollout per cluster, in order");
    // Another action still goes to one cluster.
    model.action = None;
    press(&mut model, "a");
    assert!(
        model.action.is_some(),
        "the address of the selected node only"
    );
}

#[test]
fn a_rollout_across_clusters_is_refused_in_read_only_before_any_request() {
    let mut model = two_cluster_model();
    press(&mut model, " ");
    press(&mut model, "G");
    press(&mut model, " ");
    model.settings.guard = crate::config::read_only::MutationGuard::new(true, false);
    let cmds = press(&mut model, "i");
    assert!(model.action.is_none());
    assert!(
        matches!(cmds.as_slice(), [Cmd::RecordRefusal { .. }]),
        "{cmds:?}"
    );
    let flash = model.flash.clone().expect("flash");
    assert!(
        flash.error
            && flash
                .text
                .starts_with("read-only mode: refusing to run rollout on"),
        "{}",
        flash.text
    );
}

#[test]
fn an_action_on_one_cluster_goes_to_that_cluster() {
    let mut model = two_cluster_model();
    press(&mut model, "G");
    let last = model.selected_key().cloned().expect("selected");
    assert_eq!(last.context.as_ref(), PACIFIC);
    press(&mut model, "i");
    let flow = model.action.as_ref().expect("dialog");
    let super::action::Stage::Prompt(form) = &flow.stage else {
        panic!("prompt");
    };
    assert_eq!(form.context, PACIFIC);
    let request = super::action::validate(flow.kind, form).expect("valid");
    assert_eq!(request.contexts(), PACIFIC);
}

#[test]
fn watch_updates_wait_for_a_frame_only_once_every_cluster_has_listed_its_nodes() {
    let synced = two_cluster_model();
    assert!(crate::app::pacing::holds_data(&synced));
    let scope = Scope {
        contexts: vec![ARCTIC.into(), PACIFIC.into()],
        namespace: Some("sei".into()),
    };
    let mut model = Model::new(scope, sample::now(), None);
    model.init();
    assert!(!crate::app::pacing::holds_data(&model), "empty");
    let epoch = epoch_of(&model, ARCTIC);
    for delta in [
        FleetDelta::Node(Delta::RelistStarted),
        FleetDelta::Node(Delta::relist_item(sample::demo_fleet().0.remove(0))),
        FleetDelta::Node(Delta::RelistDone),
    ] {
        update(&mut model, Msg::Delta { epoch, delta });
    }
    assert!(
        !crate::app::pacing::holds_data(&model),
        "rows, but pacific-1 has not listed yet"
    );
}
