//! Tests of `update`: keys, filter typing, navigation, watch health, scope switching.
use super::model::{Cmd, InputKind, Model, Msg, Scope, Screen, WatchState};
use super::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample;
use crate::fleet::store::{Delta, ObjectKey};
use crate::fleet::watches::WatchKind;
use crate::fleet::watches::WatchReport;
use crate::keymap::{Key, KeyCode};

/// The key of demo node `name` in the demo model's cluster.
pub fn demo_key(name: &str) -> ObjectKey {
    ObjectKey::new("sei", name).in_context(&std::sync::Arc::from("kind-sei"))
}

/// A model holding the demo fleet, as after the first sync.
pub fn demo_model() -> Model {
    let scope = Scope::one("kind-sei", Some("sei".into()));
    let mut model = Model::new(scope, sample::now(), None);
    model.size = (120, 30);
    let source = crate::actions::render_fix::PlatformSource::ConfigMap {
        namespace: "sei-k8s-controller-system".into(),
    };
    model.platform_source = Some(source.clone());
    // As the console starts without a platform file: the ConfigMap not read yet.
    model
        .fleet
        .set_platform_in_use(crate::actions::render_fix::PlatformInUse {
            source,
            config: None,
            read_at: None,
        });
    let cmds = model.init();
    assert_eq!(cmds.len(), 1);
    let epoch = model.scope_epoch;
    let (nodes, events) = sample::demo_fleet();
    let mut msgs = vec![Msg::Delta {
        epoch,
        delta: FleetDelta::Node(Delta::RelistStarted),
    }];
    msgs.extend(nodes.into_iter().map(|n| Msg::Delta {
        epoch,
        delta: FleetDelta::Node(Delta::relist_item(n)),
    }));
    msgs.push(Msg::Delta {
        epoch,
        delta: FleetDelta::Node(Delta::RelistDone),
    });
    msgs.push(Msg::Watch {
        epoch,
        kind: WatchKind::Nodes,
        report: WatchReport::Live,
    });
    msgs.extend(events.into_iter().map(|e| Msg::Delta {
        epoch,
        delta: FleetDelta::NodeEvent(Delta::applied(e)),
    }));
    msgs.push(Msg::Watch {
        epoch,
        kind: WatchKind::NodeEvents,
        report: WatchReport::Live,
    });
    for msg in msgs {
        update(&mut model, msg);
    }
    model
}

pub fn press(model: &mut Model, keys: &str) -> Vec<Cmd> {
    let mut cmds = Vec::new();
    for c in keys.chars() {
        cmds.extend(update(model, Msg::Key(Key::char(c))));
    }
    cmds
}

pub fn key(model: &mut Model, code: KeyCode) -> Vec<Cmd> {
    update(model, Msg::Key(Key::plain(code)))
}

#[test]
fn navigation_moves_and_clamps_selection() {
    let mut model = demo_model();
    assert_eq!(
        model.selected_key().map(|k| k.name.as_ref()),
        Some("archive-0")
    );
    press(&mut model, "jj");
    assert_eq!(model.selected, 2);
    press(&mut model, "G");
    assert_eq!(model.selected, 5);
    press(&mut model, "j");
    assert_eq!(model.selected, 5);
    press(&mut model, "g");
    assert_eq!(model.selected, 0);
    press(&mut model, "k");
    assert_eq!(model.selected, 0);
}

#[test]
fn selection_follows_the_node_when_rows_move() {
    let mut model = demo_model();
    press(&mut model, "jj");
    let chosen = model.selected_key().cloned().expect("selected");
    // A new node sorting before it shifts the rows; the selection stays on the same node.
    let epoch = model.scope_epoch;
    let early = sample::node("sei", "aaa-0", crate::api::NodeMode::Full, 5);
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::applied(early)),
        },
    );
    model.refresh_views();
    assert_eq!(model.listing.keys.len(), 7);
    assert_eq!(model.selected, 3, "the row moved down by one");
    assert_eq!(model.selected_key(), Some(&chosen));
}

#[test]
fn filter_applies_while_typing_and_esc_restores() {
    let mut model = demo_model();
    press(&mut model, "/");
    assert_eq!(
        model.input.as_ref().map(|i| i.kind),
        Some(InputKind::Filter)
    );
    press(&mut model, "mode:seed");
    assert_eq!(model.listing.keys.len(), 1);
    key(&mut model, KeyCode::Enter);
    assert!(model.input.is_none());
    assert_eq!(model.filter.text, "mode:seed");
    // Editing again then esc restores the applied filter.
    press(&mut model, "/");
    key(&mut model, KeyCode::Backspace);
    press(&mut model, "x");
    assert!(
        model.flash.as_ref().is_some_and(|f| f.error),
        "mode:seex is not a mode"
    );
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.filter.text, "mode:seed");
    assert_eq!(model.listing.keys.len(), 1);
    key(&mut model, KeyCode::Esc);
    assert!(model.filter.is_empty());
    assert_eq!(model.listing.keys.len(), 6);
}

#[test]
fn typing_q_in_the_filter_does_not_quit() {
    let mut model = demo_model();
    press(&mut model, "/q");
    assert!(!model.quit);
    key(&mut model, KeyCode::Esc);
    press(&mut model, "q");
    assert!(model.quit);
}

#[test]
fn enter_opens_the_node_and_esc_goes_back() {
    let mut model = demo_model();
    press(&mut model, "G");
    let cmds = key(&mut model, KeyCode::Enter);
    let node = demo_key("validator-0");
    assert_eq!(
        cmds,
        vec![Cmd::WatchDetail {
            node: node.clone(),
            epoch: 1
        }]
    );
    assert_eq!(model.screen, Screen::Node(node));
    assert!(model.detail.as_ref().is_some_and(|d| d.plan.is_some()));
    // Detail deltas from an older epoch are dropped.
    update(
        &mut model,
        Msg::Delta {
            epoch: 0,
            delta: FleetDelta::Pod(Delta::applied(sample::pod("sei", "x", true, 0, "r"))),
        },
    );
    assert!(
        model
            .fleet
            .fleet("kind-sei")
            .is_some_and(|f| f.pods.is_empty())
    );
    update(
        &mut model,
        Msg::Delta {
            epoch: 1,
            delta: FleetDelta::Pod(Delta::applied(sample::pod(
                "sei",
                "validator-0",
                true,
                0,
                "r",
            ))),
        },
    );
    model.refresh_views();
    assert_eq!(model.detail.as_ref().map(|d| d.pods.len()), Some(1));
    let cmds = key(&mut model, KeyCode::Esc);
    assert_eq!(cmds, vec![Cmd::StopDetail]);
    assert_eq!(model.screen, Screen::Fleet);
    assert!(
        model
            .fleet
            .fleet("kind-sei")
            .is_some_and(|f| f.pods.is_empty())
    );
}

#[test]
fn watch_failure_goes_stale_keeps_since_and_recovers() {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    let fail = |error: &str| Msg::Watch {
        epoch,
        kind: WatchKind::Nodes,
        report: WatchReport::Failed {
            error: error.into(),
            forbidden: false,
        },
    };
    update(&mut model, fail("connection refused"));
    let since = sample::now();
    assert_eq!(
        model.stale().first().map(|(_, k, _)| *k),
        Some(WatchKind::Nodes)
    );
    update(
        &mut model,
        Msg::Tick(
            since
                .checked_add(jiff::SignedDuration::from_secs(7))
                .expect("t"),
        ),
    );
    update(&mut model, fail("connection reset"));
    assert_eq!(
        model.watch_state("kind-sei", WatchKind::Nodes),
        Some(&WatchState::Stale {
            since,
            error: "connection reset".into()
        })
    );
    assert_eq!(model.fleet.len(), 6, "the last known fleet stays on screen");
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Live,
        },
    );
    assert!(model.stale().is_empty());
}

#[test]
fn forbidden_is_not_stale_and_old_epochs_are_ignored() {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::NodeEvents,
            report: WatchReport::Failed {
                error: "events is forbidden".into(),
                forbidden: true,
            },
        },
    );
    assert!(model.stale().is_empty());
    assert_eq!(
        model.watch_state("kind-sei", WatchKind::NodeEvents),
        Some(&WatchState::Forbidden("events is forbidden".into()))
    );
    update(
        &mut model,
        Msg::Watch {
            epoch: epoch - 1,
            kind: WatchKind::Nodes,
            report: WatchReport::Failed {
                error: "old".into(),
                forbidden: false,
            },
        },
    );
    assert!(model.stale().is_empty());
}

#[test]
fn command_line_switches_namespace_and_context() {
    let mut model = demo_model();
    press(&mut model, ":ns all");
    let cmds = key(&mut model, KeyCode::Enter);
    assert_eq!(
        cmds,
        vec![
            Cmd::StopDetail,
            Cmd::StopLogs,
            Cmd::StopScope,
            Cmd::WatchCluster {
                context: "kind-sei".into(),
                namespace: None,
                epoch: 2
            }
        ]
    );
    assert!(model.fleet.is_empty(), "old scope's objects are dropped");
    model.contexts = vec!["kind-sei".into(), "other".into()];
    press(&mut model, ":ctx other");
    let cmds = key(&mut model, KeyCode::Enter);
    assert!(matches!(&cmds[3], Cmd::WatchCluster { context, epoch: 3, .. } if context == "other"));
    press(&mut model, ":frobnicate");
    assert!(key(&mut model, KeyCode::Enter).is_empty());
    assert!(model.flash.as_ref().is_some_and(|f| f.error));
    press(&mut model, ":q");
    key(&mut model, KeyCode::Enter);
    assert!(model.quit);
}

#[test]
fn sort_keys_cycle_columns_and_direction() {
    let mut model = demo_model();
    press(&mut model, "s");
    assert_eq!(model.sort.column, crate::fleet::sort::Column::Name);
    press(&mut model, "S");
    assert!(model.sort.descending);
    assert_eq!(
        model.selected_key().map(|k| k.name.as_ref()),
        Some("archive-0"),
        "selection kept"
    );
    press(&mut model, "<");
    assert_eq!(model.sort.column, crate::fleet::sort::Column::Namespace);
}

#[test]
fn only_changes_mark_the_model_dirty() {
    let mut model = demo_model();
    model.dirty = false;
    let epoch = model.scope_epoch;
    // A repeated health report changes nothing on screen: no redraw.
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Live,
        },
    );
    assert!(!model.dirty);
    // Neither does an unbound key; a bound key or the 1 Hz tick does.
    press(&mut model, "x");
    assert!(!model.dirty);
    press(&mut model, "j");
    assert!(model.dirty);
    model.dirty = false;
    update(&mut model, Msg::Tick(sample::now()));
    assert!(model.dirty);
}

#[test]
fn help_toggles_and_swallows_other_keys() {
    let mut model = demo_model();
    press(&mut model, "?");
    assert!(model.help_open);
    press(&mut model, "j");
    assert_eq!(model.selected, 0);
    key(&mut model, KeyCode::Esc);
    assert!(!model.help_open);
}

/// The loop draws only a dirty model: messages that change nothing visible must leave it clean,
/// so an idle console redraws only on the 1 Hz tick (ages and the STALE clock move).
#[test]
fn no_redraw_without_a_change_except_the_tick() {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    let versioned: Vec<_> = sample::demo_fleet()
        .0
        .into_iter()
        .map(|n| sample::patched(n, serde_json::json!({"metadata": {"resourceVersion": "9"}})))
        .collect();
    let relist = |nodes: &[crate::api::SeiNode]| {
        let mut msgs = vec![Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::RelistStarted),
        }];
        msgs.extend(nodes.iter().map(|n| Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::relist_item(n.clone())),
        }));
        msgs.push(Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::RelistDone),
        });
        msgs
    };
    for msg in relist(&versioned) {
        update(&mut model, msg);
    }
    assert!(model.dirty, "new versions are a change");
    model.dirty = false;

    let gone = sample::node("sei", "never-seen", crate::api::NodeMode::Full, 1);
    let mut idle = relist(&versioned);
    idle.extend([
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Live,
        },
        Msg::Key(crate::keymap::Key::char('x')),
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::deleted(gone.clone())),
        },
        Msg::Delta {
            epoch: epoch - 1,
            delta: FleetDelta::Node(Delta::applied(gone)),
        },
    ]);
    for msg in idle {
        update(&mut model, msg);
        assert!(!model.dirty, "nothing changed, nothing to draw");
    }
    update(&mut model, Msg::Tick(sample::now()));
    assert!(model.dirty, "the 1 Hz tick redraws");
}

#[test]
fn the_platform_config_maps_sidecar_image_redraws_drift_and_old_epochs_are_ignored() {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    let newer = Some("ghcr.io/sei-protocol/seictl:v9.9.9".to_owned());
    model.dirty = false;
    update(
        &mut model,
        Msg::PlatformSidecarImage {
            epoch: epoch - 1,
            image: newer.clone(),
        },
    );
    assert_eq!(
        model
            .fleet
            .fleet("kind-sei")
            .and_then(|f| f.default_sidecar_image()),
        None,
        "stale watch"
    );
    assert!(!model.dirty);
    update(
        &mut model,
        Msg::PlatformSidecarImage {
            epoch,
            image: newer.clone(),
        },
    );
    assert_eq!(
        model
            .fleet
            .fleet("kind-sei")
            .and_then(|f| f.default_sidecar_image()),
        newer.as_deref()
    );
    assert!(model.dirty);
    // Nodes that report a sidecar image and name none in their spec now drift.
    assert!(model.fleet.rows().any(|row| row.drift.sidecar));
    model.dirty = false;
    update(
        &mut model,
        Msg::PlatformSidecarImage {
            epoch,
            image: newer,
        },
    );
    assert!(!model.dirty, "the same image draws nothing");
}
