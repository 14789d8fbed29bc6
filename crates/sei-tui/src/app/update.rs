//! `update`: the only place the model changes. Pure: no I/O, no awaits, no terminal types.
use super::action_update;
use super::health::{on_server_report, on_watch_report};
use super::model::{
    Cmd, Flash, Input, InputKind, Model, Msg, NodePane, SavedSetting, Scope, Screen, WatchState,
};
use super::viewer::{Viewer, ViewerKind};
use crate::fleet::filter::Filter;
use crate::fleet::sort::Column;
use crate::fleet::watches::WatchKind;
use crate::keymap::{Action, Context, Key};

/// Applies one message; returns the effects it asks for.
pub fn update(model: &mut Model, msg: Msg) -> Vec<Cmd> {
    let is_delta = matches!(msg, Msg::Delta { .. });
    let cmds = match msg {
        Msg::Key(key) => on_key(model, key),
        Msg::Resize { width, height } => {
            model.size = (width, height);
            model.dirty = true;
            Vec::new()
        }
        Msg::Tick(now) => {
            model.now = now;
            // Ages and the STALE clock move once a second; that is the only idle redraw.
            model.dirty = true;
            // The doctor's findings (and the header's critical count) follow.
            let mut cmds = super::doctor::on_tick(model);
            cmds.extend(super::probes::due(model));
            cmds.extend(super::chain_health::due(model));
            cmds.extend(super::runners::due(model));
            cmds.extend(super::rollouts::due(model));
            cmds
        }
        Msg::Delta { epoch, delta } => {
            let detail = matches!(
                delta,
                crate::fleet::FleetDelta::StatefulSet(_)
                    | crate::fleet::FleetDelta::Pod(_)
                    | crate::fleet::FleetDelta::DetailEvent(_)
                    | crate::fleet::FleetDelta::StatefulSetEvent(_)
                    | crate::fleet::FleetDelta::NodeId { .. }
            );
            let context = if detail {
                model
                    .screen_context()
                    .filter(|_| epoch == model.detail_epoch)
            } else {
                model.context_of_epoch(epoch)
            };
            if let Some(context) = context.map(str::to_owned) {
                // An object re-sent unchanged (a relist after a reconnect) moves no revision.
                let before = model.fleet.revision();
                model.fleet.apply(&context, delta);
                model.dirty |= model.fleet.revision() != before;
            }
            Vec::new()
        }
        Msg::PlatformConfig { epoch, config } => {
            // Render failures are judged against the config the controller has now.
            if let (Some(context), Some(source)) = (
                model.context_of_epoch(epoch).map(str::to_owned),
                model.platform_source.clone(),
            ) && let Some(fleet) = model.fleet.fleet_mut(&context)
            {
                fleet.set_platform_in_use(crate::actions::render_fix::PlatformInUse {
                    source,
                    config: Some(*config),
                    read_at: Some(model.now),
                });
                model.dirty = true;
            }
            Vec::new()
        }
        Msg::Crd { epoch, view } => {
            if let Some(context) = model.context_of_epoch(epoch).map(str::to_owned) {
                let before = model.fleet.revision();
                if let Some(fleet) = model.fleet.fleet_mut(&context) {
                    fleet.set_crd(*view);
                }
                model.dirty |= model.fleet.revision() != before;
            }
            Vec::new()
        }
        Msg::PlatformSidecarImage { epoch, image } => {
            if let Some(context) = model.context_of_epoch(epoch).map(str::to_owned) {
                let before = model.fleet.revision();
                if let Some(fleet) = model.fleet.fleet_mut(&context) {
                    fleet.set_default_sidecar_image(image);
                }
                model.dirty |= model.fleet.revision() != before;
            }
            Vec::new()
        }
        Msg::Watch {
            epoch,
            kind,
            report,
        } => {
            let context = if kind.is_detail() {
                model
                    .screen_context()
                    .filter(|_| epoch == model.detail_epoch)
            } else {
                model.context_of_epoch(epoch)
            };
            if let Some(context) = context.map(str::to_owned) {
                on_watch_report(model, &context, kind, report);
            }
            Vec::new()
        }
        Msg::ActionPrepared { id, result } => {
            action_update::on_prepared(model, id, result);
            Vec::new()
        }
        Msg::JournalUnwritable(why) => {
            model.flash = Some(Flash {
                text: format!("not recorded in the journal of console actions: {why}"),
                error: true,
            });
            model.dirty = true;
            Vec::new()
        }
        Msg::ActionProgress { id, line } => {
            action_update::on_progress(model, id, line);
            Vec::new()
        }
        Msg::ActionFinished { id, finished } => {
            action_update::on_finished(model, id, finished);
            Vec::new()
        }
        Msg::Server { epoch, report } => match model.context_of_epoch(epoch).map(str::to_owned) {
            Some(context) => on_server_report(model, &context, report),
            None => Vec::new(),
        },
        Msg::Namespaces(result) => {
            model.namespaces = Some(result);
            Vec::new()
        }
        Msg::Journal(result) => {
            model.journal = Some(result);
            model.dirty = true;
            Vec::new()
        }
        Msg::LogLines { epoch, lines } => {
            super::logs::on_lines(model, epoch, lines);
            Vec::new()
        }
        Msg::LogEnded { epoch, error } => {
            super::logs::on_ended(model, epoch, error);
            Vec::new()
        }
        Msg::LogsSaved { count, result } => {
            super::log_save::on_saved(model, count, result);
            Vec::new()
        }
        Msg::SettingSaved { setting, result } => {
            super::settings::on_setting_saved(model, &setting, result);
            Vec::new()
        }
        Msg::SeedProbed { key, at, outcome } => {
            if let Ok(outcome) = &outcome {
                super::doctor::on_probed(model, &key, at, outcome);
            }
            super::probes::on_probed(model, &key, at, outcome);
            Vec::new()
        }
        Msg::HealthRead { key, reading } => {
            super::chain_health::on_read(model, &key, reading);
            Vec::new()
        }
        Msg::ReferenceRead { chain, read } => {
            super::chain_health::on_reference_read(model, &chain, read);
            Vec::new()
        }
        Msg::Notified(status) => {
            super::notify::on_status(model, status);
            Vec::new()
        }
        Msg::DoctorRead { context, reads } => {
            super::doctor::on_read(model, context, *reads);
            Vec::new()
        }
        Msg::Dumped {
            path,
            what,
            lines,
            result,
        } => {
            super::dump::on_dumped(model, &path, &what, lines, result);
            Vec::new()
        }
        Msg::PluginEnded { name, log, outcome } => {
            super::plugins::on_ended(model, &name, log.as_deref(), outcome);
            Vec::new()
        }
        Msg::Runners { context, runners } => {
            let now = model.now;
            super::runners::on_read(model, &context, *runners, now);
            Vec::new()
        }
        Msg::Rollouts { context, read } => {
            super::rollouts::on_read(model, context, read);
            Vec::new()
        }
    };
    if !is_delta {
        // Deltas come in floods: the loop refreshes views once per batch, before drawing.
        model.refresh_views();
    }
    cmds
}

/// Starts the node screen's watches of `key` in its cluster under a new epoch.
pub(super) fn start_detail(model: &mut Model, key: crate::fleet::store::ObjectKey) -> Cmd {
    model.detail_epoch += 1;
    let cluster = model.clusters.entry(key.context.to_string()).or_default();
    for kind in WatchKind::DETAIL {
        cluster.watches.insert(kind, WatchState::Syncing);
    }
    Cmd::WatchDetail {
        node: key,
        epoch: model.detail_epoch,
    }
}

/// Forgets the node screen's watch states in every cluster.
fn forget_detail_watches(model: &mut Model) {
    for cluster in model.clusters.values_mut() {
        for kind in WatchKind::DETAIL {
            cluster.watches.remove(&kind);
        }
    }
}

/// Whether the action dialog is on screen (and so owns the keys).
pub fn dialog_open(model: &Model) -> bool {
    model.action.as_ref().is_some_and(|flow| !flow.hidden)
}

fn context(model: &Model) -> Context {
    if dialog_open(model) {
        Context::Dialog
    } else if model.help_open {
        Context::Help
    } else if model.doctor.open {
        Context::Doctor
    } else if model.logs.is_some() {
        Context::Logs
    } else if model.viewer.is_some() {
        Context::Viewer
    } else {
        match model.screen {
            Screen::Fleet => Context::Fleet,
            Screen::Node(_) => Context::Node,
        }
    }
}

fn on_key(model: &mut Model, key: Key) -> Vec<Cmd> {
    if dialog_open(model) {
        return action_update::on_key(model, key);
    }
    if model.input.is_some() {
        model.dirty = true;
        return super::input_line::on_key(model, key);
    }
    if model.plugin_pending.is_some() {
        return super::plugins::on_answer(model, key);
    }
    if model
        .logs
        .as_ref()
        .is_some_and(|v| v.typing || v.filter_typing)
        && !model.help_open
    {
        model.dirty = true;
        super::logs::on_search_key(model, key);
        return Vec::new();
    }
    if model.viewer.as_ref().is_some_and(|v| v.typing) && !model.help_open {
        model.dirty = true;
        super::viewer::on_search_key(model, key);
        return Vec::new();
    }
    // A quit asked for while an action runs waits for a second, immediate quit.
    let quit_confirmed = std::mem::take(&mut model.quit_armed);
    let Some(action) = model.keymap.action(context(model), key) else {
        return Vec::new();
    };
    model.dirty = true;
    model.flash = None;
    model.settings.problems.clear();
    if context(model) == Context::Viewer && super::viewer::on_action(model, action) {
        return Vec::new();
    }
    if context(model) == Context::Logs
        && let Some(cmds) = super::logs::on_action(model, action)
    {
        return cmds;
    }
    if context(model) == Context::Doctor
        && let Some(cmds) = super::doctor::on_action(model, action)
    {
        return cmds;
    }
    if context(model) == Context::Node && super::node_scroll::on_action(model, action) {
        return Vec::new();
    }
    match action {
        Action::Quit => request_quit(model, quit_confirmed),
        Action::Suspend => model.suspend = true,
        Action::Copy => super::copy::copy(model, false),
        Action::CopyRow => super::copy::copy(model, true),
        Action::Plugin(index) => return super::plugins::on_key(model, index),
        Action::Describe | Action::Yaml => return open_viewer(model, action),
        Action::Logs => return open_logs(model),
        // Keys of the logs view mean nothing elsewhere.
        Action::NextContainer | Action::PreviousLogs | Action::ToggleWrap => {}
        Action::ToggleTimestamps | Action::StartLineFilter | Action::SaveLogs => {}
        Action::ScrollLeft | Action::ScrollRight => {}
        Action::SearchNext | Action::SearchPrevious | Action::ToggleDryRuns => {}
        Action::ClearMarks => model.marked.clear(),
        Action::ToggleHelp => {
            model.help_open = !model.help_open;
            model.help_scroll = 0;
        }
        Action::Up | Action::Down if model.help_open => {
            model.help_scroll = if action == Action::Up {
                model.help_scroll.saturating_sub(1)
            } else {
                model.help_scroll.saturating_add(1).min(200)
            };
        }
        Action::StartFilter => {
            model.input = Some(Input {
                kind: InputKind::Filter,
                text: model.filter.text.clone(),
                previous_filter: model.filter.clone(),
            })
        }
        Action::StartCommand => {
            model.help_open = false;
            model.input = Some(Input {
                kind: InputKind::Command,
                text: String::new(),
                previous_filter: model.filter.clone(),
            })
        }
        // esc clears the filter first, then the marks.
        Action::ClearFilter if model.filter.is_empty() => model.marked.clear(),
        Action::ClearFilter => {
            model.filter = Filter::default();
            return super::settings::save_filter(model);
        }
        Action::ToggleMark => action_update::toggle_mark(model),
        Action::Operator(name) => {
            if let Some(action) = super::console_actions::named(name) {
                return action_update::start(model, action.kind);
            }
        }
        Action::ShowAction => action_update::show(model),
        Action::ProbeSeed => return super::probes::probe_now(model),
        Action::Doctor => super::doctor::open(model),
        // The doctor's fix key means nothing outside it.
        Action::Fix => {}
        // Dialog keys mean nothing outside a dialog.
        Action::Confirm | Action::Cancel | Action::NextField | Action::PreviousField => {}
        Action::SwitchTheme => {
            model.settings.theme = model.settings.theme.next();
            let theme = model.settings.theme;
            model.flash = Some(Flash {
                text: format!("theme {}", theme.name()),
                error: false,
            });
            return super::settings::save(model, SavedSetting::Theme(theme));
        }
        Action::Up => move_selection(model, -1),
        Action::Down => move_selection(model, 1),
        Action::PageUp => move_selection(model, -page(model)),
        Action::PageDown => move_selection(model, page(model)),
        Action::Top => move_selection(model, isize::MIN / 2),
        Action::Bottom => move_selection(model, isize::MAX / 2),
        Action::SortNextColumn => model.sort.column = sort_column(model, Column::next),
        Action::SortPreviousColumn => model.sort.column = sort_column(model, Column::previous),
        Action::SortReverse => model.sort.descending = !model.sort.descending,
        // The node screen's panes (`node_scroll`); nothing elsewhere.
        Action::NextPane | Action::PreviousPane => {}
        Action::Open => return open_selected(model),
        Action::Back => {
            model.screen = Screen::Fleet;
            model.detail = None;
            model.fleet.clear_detail();
            forget_detail_watches(model);
            return vec![Cmd::StopDetail];
        }
    }
    Vec::new()
}

/// `q` or `ctrl-c`, on any screen or dialog: quits, except that while an action runs the first
/// press only warns (quitting stops the embedded executor mid-plan) and a second one quits.
/// `confirmed` is whether the key before was such a first press.
pub(super) fn request_quit(model: &mut Model, confirmed: bool) {
    if !confirmed && model.action.as_ref().is_some_and(|a| a.is_running()) {
        model.quit_armed = true;
        model.dirty = true;
        model.flash = Some(Flash {
            text: "press q or ctrl-c again to quit: the running action stops mid-plan and its plan stays Active (running the same action again resumes it)".into(),
            error: true,
        });
    } else {
        model.quit = true;
    }
}

/// `d` / `y`: the viewer over the selected node (`d` opens the node screen under it, so its
/// StatefulSet, Pods and events are watched and the describe text stays current).
fn open_viewer(model: &mut Model, action: Action) -> Vec<Cmd> {
    let (key, cmds) = match &model.screen {
        Screen::Node(key) => (key.clone(), Vec::new()),
        Screen::Fleet => {
            let Some(key) = model.selected_key().cloned() else {
                return Vec::new();
            };
            let cmds = if action == Action::Describe {
                open_selected(model)
            } else {
                Vec::new()
            };
            (key, cmds)
        }
    };
    let kind = if action == Action::Describe {
        ViewerKind::Describe(key)
    } else {
        ViewerKind::Yaml(key)
    };
    model.viewer = Some(Viewer::new(kind));
    cmds
}

/// `l`: the logs of the selected node (from the fleet, the node screen opens under it, as for
/// `d`, so its pod's containers are listed for `c`).
fn open_logs(model: &mut Model) -> Vec<Cmd> {
    let (key, mut cmds) = match &model.screen {
        Screen::Node(key) => (key.clone(), Vec::new()),
        Screen::Fleet => {
            let Some(key) = model.selected_key().cloned() else {
                return Vec::new();
            };
            (key, open_selected(model))
        }
    };
    model.viewer = None;
    cmds.extend(super::logs::open(model, key));
    cmds
}

/// The next sort column in `step`'s direction, skipping CLUSTER while only one is watched and
/// HEIGHT/LAG while no node was read (the columns are not shown then).
fn sort_column(model: &Model, step: fn(Column) -> Column) -> Column {
    let hidden = |column: Column| {
        (column == Column::Cluster && !model.multi_cluster())
            || (column == Column::Health && !model.fleet.has_health())
    };
    let mut next = step(model.sort.column);
    for _ in 0..Column::ALL.len() {
        if !hidden(next) {
            break;
        }
        next = step(next);
    }
    next
}

fn page(model: &Model) -> isize {
    isize::try_from(model.page_rows()).unwrap_or(1)
}

fn move_selection(model: &mut Model, delta: isize) {
    let last = model.listing.keys.len().saturating_sub(1);
    let target = isize::try_from(model.selected)
        .unwrap_or(0)
        .saturating_add(delta);
    model.selected = usize::try_from(target.max(0)).unwrap_or(0).min(last);
}

fn open_selected(model: &mut Model) -> Vec<Cmd> {
    let Some(key) = model.selected_key().cloned() else {
        return Vec::new();
    };
    open_node(model, key)
}

/// The node screen of `key` (the doctor's `enter` too).
pub(super) fn open_node(model: &mut Model, key: crate::fleet::store::ObjectKey) -> Vec<Cmd> {
    model.fleet.clear_detail();
    forget_detail_watches(model);
    model.screen = Screen::Node(key.clone());
    model.node_pane = NodePane::default();
    model.node_scroll = 0;
    model.node_layout.take();
    model.invalidate_views();
    vec![start_detail(model, key)]
}

/// Drops everything watched and restarts the watches in the new scope.
pub fn switch_scope(model: &mut Model, scope: Scope) -> Vec<Cmd> {
    model.flash = Some(Flash {
        text: format!(
            "switched to {} / {}",
            scope.contexts_label(),
            scope.namespace_label()
        ),
        error: false,
    });
    model.scope = scope;
    model.screen = Screen::Fleet;
    model.detail = None;
    model.fleet.clear();
    model.clusters.clear();
    model.marked.clear();
    model.selected = 0;
    model.logs = None;
    let mut cmds = vec![Cmd::StopDetail, Cmd::StopLogs, Cmd::StopScope];
    cmds.extend(model.init());
    model.invalidate_views();
    cmds
}
