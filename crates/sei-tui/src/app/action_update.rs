//! `update` for operator actions: starting one from the fleet or node screen, the dialog keys,
//! and the effect's answers (preview, progress, result). Pure.
use super::action::{
    ActionFlow, ActionPreview, Finished, Form, MAX_PROGRESS_LINES, OVERRIDE_WORD, ProgressLine,
    Stage, validate,
};
use super::console_actions::{self, ConsoleAction, FormInput, Targets};
use super::model::{Cmd, Flash, Model, Screen};
use crate::actions::event::ActionKind;
use crate::fleet::store::ObjectKey;
use crate::keymap::{Action, Context, Key, KeyCode};
use crate::limits::elide_long_lines;
use crate::ops::action::{action_words, read_only_refusal};

/// The nodes an action from the current screen is about: the open node, else (`Marked`) the
/// marked nodes, else the selected one. An address belongs to one node: always the selected
/// one, leftover marks are left out (the form says so).
fn targets(model: &Model, targets: Targets) -> Vec<ObjectKey> {
    if let Screen::Node(key) = &model.screen {
        return vec![key.clone()];
    }
    if targets == Targets::Marked && !model.marked.is_empty() {
        return model.marked.iter().cloned().collect();
    }
    model.selected_key().cloned().into_iter().collect()
}

fn flash(model: &mut Model, text: impl Into<String>, error: bool) {
    model.flash = Some(Flash {
        text: text.into(),
        error,
    });
}

/// Opens the prompt of `kind`, unless another action runs or the console is read-only (then
/// the refusal is said and journaled before any request).
pub fn start(model: &mut Model, kind: ActionKind) -> Vec<Cmd> {
    if let Some(flow) = &model.action
        && flow.is_running()
    {
        flash(
            model,
            "an action is running; p shows its progress (one at a time)",
            true,
        );
        return Vec::new();
    }
    let Some(action) = console_actions::find(kind) else {
        return Vec::new();
    };
    let nodes = targets(model, action.targets);
    let namespace = match (action.targets, nodes.first()) {
        (_, Some(first)) => first.namespace.to_string(),
        (Targets::NewNode, None) => match &model.scope.namespace {
            Some(ns) => ns.clone(),
            None => {
                flash(model, "choose a namespace first (:ns NAME)", true);
                return Vec::new();
            }
        },
        (_, None) => {
            flash(model, "no node selected", true);
            return Vec::new();
        }
    };
    let mut clusters: Vec<&str> = nodes.iter().map(|n| n.context.as_ref()).collect();
    clusters.dedup();
    if clusters.len() > 1 {
        if action.targets == Targets::Marked {
            return start_across_clusters(model, action, &nodes);
        }
        let text = format!(
            "marked nodes in {} clusters ({}): an action goes to one cluster (ctx:NAME filters \
             the table); only an image rollout goes to several",
            clusters.len(),
            clusters.join(", ")
        );
        flash(model, text, true);
        return Vec::new();
    }
    // The nodes' cluster; a new node goes to the selected row's cluster, else the only one.
    let context = match nodes.first() {
        Some(first) => first.context.to_string(),
        None => match model.selected_key() {
            Some(key) => key.context.to_string(),
            None if !model.multi_cluster() => model.scope.context().to_owned(),
            None => {
                flash(model, "select a node of the cluster the seed goes to", true);
                return Vec::new();
            }
        },
    };
    if nodes.iter().any(|n| *n.namespace != *namespace) {
        flash(
            model,
            "the marked nodes are in several namespaces; mark nodes of one namespace",
            true,
        );
        return Vec::new();
    }
    let names: Vec<String> = nodes.iter().map(|n| n.name.to_string()).collect();
    if let Some(refused) =
        read_only_refusal(model.settings.guard.hint(), action_words(kind, &names))
    {
        let reason = refused.to_string();
        flash(model, reason.clone(), true);
        return vec![Cmd::RecordRefusal {
            kind,
            namespace,
            nodes: names,
            reason,
        }];
    }
    let mut form = (action.form)(&FormInput {
        context: &context,
        namespace: &namespace,
        names,
        node: nodes.first().and_then(|key| model.fleet.node(key)),
        row: nodes.first().and_then(|key| model.fleet.row(key)),
        waves: model.settings.waves,
        clusters: Vec::new(),
    });
    if action.targets != Targets::Marked && matches!(model.screen, Screen::Fleet) {
        form.ignored_marks = model
            .marked
            .iter()
            .filter(|key| !nodes.contains(key))
            .count();
    }
    open_prompt(model, kind, form);
    Vec::new()
}

fn open_prompt(model: &mut Model, kind: ActionKind, form: Form) {
    model.next_action_id += 1;
    model.action = Some(ActionFlow {
        id: model.next_action_id,
        kind,
        stage: Stage::Prompt(form),
        hidden: false,
        preparing_since: None,
    });
}

/// An action of marked nodes of several clusters (a rollout): one dialog, one preview per
/// cluster, one confirmation, then cluster after cluster (`ops::across`). The read-only
/// refusal first.
fn start_across_clusters(
    model: &mut Model,
    action: &ConsoleAction,
    nodes: &[ObjectKey],
) -> Vec<Cmd> {
    let kind = action.kind;
    let mut clusters: Vec<(String, String, Vec<String>)> = Vec::new();
    for key in nodes {
        match clusters.iter_mut().find(|(c, _, _)| **c == *key.context) {
            Some((_, namespace, names)) if **namespace == *key.namespace => {
                names.push(key.name.to_string());
            }
            Some(_) => {
                flash(
                    model,
                    "the marked nodes of one cluster are in several namespaces; mark nodes of one namespace per cluster",
                    true,
                );
                return Vec::new();
            }
            None => clusters.push((
                key.context.to_string(),
                key.namespace.to_string(),
                vec![key.name.to_string()],
            )),
        }
    }
    let names: Vec<String> = nodes
        .iter()
        .map(|n| format!("{}/{}", n.context, n.name))
        .collect();
    if let Some(refused) =
        read_only_refusal(model.settings.guard.hint(), action_words(kind, &names))
    {
        let reason = refused.to_string();
        flash(model, reason.clone(), true);
        return vec![Cmd::RecordRefusal {
            kind,
            namespace: clusters[0].1.clone(),
            nodes: names,
            reason,
        }];
    }
    let form = (action.form)(&FormInput {
        context: "",
        namespace: "",
        names,
        node: nodes.first().and_then(|key| model.fleet.node(key)),
        row: nodes.first().and_then(|key| model.fleet.row(key)),
        waves: model.settings.waves,
        clusters,
    });
    open_prompt(model, kind, form);
    Vec::new()
}

/// Space on the fleet screen: mark or unmark the selected node, then move down (so a run of
/// nodes is marked by holding space; the help and footer say it moves).
pub fn toggle_mark(model: &mut Model) {
    let Some(key) = model.selected_key().cloned() else {
        return;
    };
    if !model.marked.remove(&key) {
        model.marked.insert(key);
    }
    let last = model.listing.keys.len().saturating_sub(1);
    model.selected = (model.selected + 1).min(last);
}

/// `p`: shows the running or last action again.
pub fn show(model: &mut Model) {
    match model.action.as_mut() {
        Some(flow) => flow.hidden = false,
        None => flash(model, "no action yet", false),
    }
}

/// A key while the action dialog is open.
pub fn on_key(model: &mut Model, key: Key) -> Vec<Cmd> {
    model.dirty = true;
    let Some(flow) = model.action.as_mut() else {
        return Vec::new();
    };
    // ctrl-c is quit, never a plain kill: a running action warns first.
    let quit_confirmed = std::mem::take(&mut model.quit_armed);
    if key == Key::ctrl('c') {
        super::update::request_quit(model, quit_confirmed);
        return Vec::new();
    }
    if flow.takes_text() && type_text(flow, key) {
        return Vec::new();
    }
    // `q` where nothing is typed does what it does everywhere (issue 33: on the progress
    // dialog it did nothing and said nothing): quits, after asking while the action runs.
    if key == Key::char('q') {
        super::update::request_quit(model, quit_confirmed);
        return Vec::new();
    }
    let Some(action) = model.keymap.action(Context::Dialog, key) else {
        return Vec::new();
    };
    match action {
        Action::Cancel => cancel(model),
        Action::Confirm => confirm(model),
        Action::NextField => {
            move_focus(flow, 1);
            Vec::new()
        }
        Action::PreviousField => {
            move_focus(flow, -1);
            Vec::new()
        }
        Action::Down => {
            scroll(flow, 1);
            Vec::new()
        }
        Action::Up => {
            scroll(flow, -1);
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// Edits the focused text; `true` when the key was text editing.
fn type_text(flow: &mut ActionFlow, key: Key) -> bool {
    let text = match &mut flow.stage {
        Stage::Prompt(form) => {
            form.error = None;
            match form.fields.get_mut(form.focus) {
                Some(field) => &mut field.value,
                None => return false,
            }
        }
        Stage::Confirm { typed, error, .. } | Stage::NotUnderstood { typed, error, .. } => {
            *error = None;
            typed
        }
        _ => return false,
    };
    match (key.code, key.ctrl) {
        (KeyCode::Char('u'), true) => text.clear(),
        (KeyCode::Char(c), false) => text.push(c),
        (KeyCode::Backspace, _) => {
            text.pop();
        }
        (KeyCode::Left | KeyCode::Right, false) => {
            if let Stage::Prompt(form) = &mut flow.stage
                && let Some(field) = form.fields.get_mut(form.focus)
                && !field.choices.is_empty()
            {
                field.cycle(if key.code == KeyCode::Left { -1 } else { 1 });
                return true;
            }
            return false;
        }
        _ => return false,
    }
    true
}

fn move_focus(flow: &mut ActionFlow, delta: isize) {
    if let Stage::Prompt(form) = &mut flow.stage {
        let count = form.fields.len().max(1);
        let next = (form.focus as isize + delta).rem_euclid(count as isize);
        form.focus = usize::try_from(next).unwrap_or(0);
    }
}

fn scroll(flow: &mut ActionFlow, delta: i32) {
    match &mut flow.stage {
        Stage::Prompt(_) => move_focus(flow, delta as isize),
        Stage::Preview { scroll, .. } => {
            *scroll = u16::try_from((i32::from(*scroll) + delta).max(0)).unwrap_or(0);
        }
        Stage::Running {
            scroll_from_end, ..
        } => {
            *scroll_from_end =
                u16::try_from((i32::from(*scroll_from_end) - delta).max(0)).unwrap_or(0);
        }
        _ => {}
    }
}

/// Esc: cancels before execution; while running it only hides the dialog; after the end it
/// closes it (`p` opens the last action's end again).
fn cancel(model: &mut Model) -> Vec<Cmd> {
    let Some(flow) = model.action.as_mut() else {
        return Vec::new();
    };
    match &flow.stage {
        Stage::Running { finished: None, .. } => {
            flow.hidden = true;
            flash(
                model,
                "the action goes on; p shows its progress again",
                false,
            );
            Vec::new()
        }
        // The end stays for `p` ("show the running or last action"): closing the dialog
        // only hides it, until the next action replaces it.
        Stage::Running { .. } | Stage::Failed { .. } | Stage::NotUnderstood { .. } => {
            flow.hidden = true;
            Vec::new()
        }
        Stage::Prompt(_) => {
            model.action = None;
            flash(model, "cancelled; nothing was changed", false);
            Vec::new()
        }
        _ => {
            let id = flow.id;
            model.action = None;
            flash(model, "cancelled; nothing was changed", false);
            vec![Cmd::CancelAction { id }]
        }
    }
}

/// Enter (or y): next step.
fn confirm(model: &mut Model) -> Vec<Cmd> {
    let executor = model.settings.executor;
    let now = model.now;
    let Some(flow) = model.action.as_mut() else {
        return Vec::new();
    };
    let id = flow.id;
    let stage = std::mem::replace(
        &mut flow.stage,
        Stage::Failed {
            message: String::new(),
        },
    );
    let (next, cmds) = match stage {
        Stage::Prompt(mut form) => {
            // Enter on a field before the last one it must visit moves on; from there it
            // validates (optional fields after it are reached with tab).
            let last = form.fields.iter().rposition(|f| !f.optional).unwrap_or(0);
            if form.focus < last {
                form.focus += 1;
                (Stage::Prompt(form), Vec::new())
            } else {
                match validate(flow.kind, &form) {
                    Ok(request) => (
                        Stage::Preparing(request.clone()),
                        vec![Cmd::PrepareAction {
                            id,
                            request,
                            executor,
                        }],
                    ),
                    Err(error) => {
                        // The error names its field: focus it to fix it.
                        if let Some(at) = form
                            .fields
                            .iter()
                            .position(|f| error.field_label() == Some(f.label))
                        {
                            form.focus = at;
                        }
                        form.error = Some(error.to_string());
                        (Stage::Prompt(form), Vec::new())
                    }
                }
            }
        }
        Stage::Preview {
            request,
            preview,
            scroll,
        } => {
            // Nothing to ask: blocked, or nothing to do.
            if preview.blocked.is_some() || preview.nothing_to_do.is_some() {
                (
                    Stage::Preview {
                        request,
                        preview,
                        scroll,
                    },
                    Vec::new(),
                )
            } else {
                (
                    Stage::Confirm {
                        request,
                        preview,
                        typed: String::new(),
                        error: None,
                    },
                    Vec::new(),
                )
            }
        }
        Stage::Confirm {
            request,
            preview,
            typed,
            ..
        } => match preview.expected_typing() {
            Some(expected) if typed.trim() != expected => {
                let error = Some(format!("type {expected} exactly to confirm"));
                (
                    Stage::Confirm {
                        request,
                        preview,
                        typed,
                        error,
                    },
                    Vec::new(),
                )
            }
            _ => (
                Stage::Running {
                    request: request.clone(),
                    started: now,
                    lines: Vec::new(),
                    finished: None,
                    scroll_from_end: 0,
                },
                vec![Cmd::RunAction {
                    id,
                    request,
                    executor,
                }],
            ),
        },
        Stage::NotUnderstood {
            mut request,
            message,
            typed,
            ..
        } => {
            if typed.trim() == OVERRIDE_WORD {
                // The preview again, this time as the override: it says what is overridden,
                // and the journal and the node's record will say the override was given.
                request.allow_unknown_fields = true;
                (
                    Stage::Preparing(request.clone()),
                    vec![Cmd::PrepareAction {
                        id,
                        request,
                        executor,
                    }],
                )
            } else {
                let error = Some(format!(
                    "type {OVERRIDE_WORD} exactly to go on, or esc: nothing was changed"
                ));
                (
                    Stage::NotUnderstood {
                        request,
                        message,
                        typed,
                        error,
                    },
                    Vec::new(),
                )
            }
        }
        other => (other, Vec::new()),
    };
    if matches!(next, Stage::Preparing(_)) {
        flow.preparing_since = Some(now);
    }
    flow.stage = next;
    cmds
}

fn current(model: &mut Model, id: u64) -> Option<&mut ActionFlow> {
    model.action.as_mut().filter(|flow| flow.id == id)
}

/// The effect's preview (or why there is none).
pub fn on_prepared(
    model: &mut Model,
    id: u64,
    result: Result<ActionPreview, super::action_error::ActionError>,
) {
    let Some(flow) = current(model, id) else {
        return;
    };
    let Stage::Preparing(request) = &flow.stage else {
        return;
    };
    flow.stage = match result {
        Ok(preview) => Stage::Preview {
            request: request.clone(),
            preview,
            scroll: 0,
        },
        Err(error) if error.is_not_understood() && !request.allow_unknown_fields => {
            Stage::NotUnderstood {
                request: request.clone(),
                message: elide_long_lines(&error.to_string()),
                typed: String::new(),
                error: None,
            }
        }
        Err(error) => Stage::Failed {
            message: elide_long_lines(&error.to_string()),
        },
    };
    model.dirty = true;
}

pub fn on_progress(model: &mut Model, id: u64, line: ProgressLine) {
    let line = ProgressLine {
        at: Some(model.now),
        ..line
    };
    let Some(flow) = current(model, id) else {
        return;
    };
    if let Stage::Running { lines, .. } = &mut flow.stage {
        let same_live = |old: &ProgressLine| old.live && old.node == line.node;
        if line.live
            && let Some(old) = lines.iter_mut().rev().find(|old| same_live(old))
        {
            *old = line;
            model.dirty = true;
            return;
        }
        if lines.len() >= MAX_PROGRESS_LINES {
            lines.remove(0);
        }
        lines.push(line);
        model.dirty = true;
    }
}

pub fn on_finished(model: &mut Model, id: u64, end: Finished) {
    let Some(flow) = current(model, id) else {
        return;
    };
    let hidden = flow.hidden;
    let end = Finished {
        ok: end.ok,
        message: elide_long_lines(&end.message),
    };
    if let Stage::Running { finished, .. } = &mut flow.stage {
        *finished = Some(end.clone());
    }
    if hidden {
        flash(model, end.message, !end.ok);
    }
    model.dirty = true;
}
