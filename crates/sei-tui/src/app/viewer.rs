//! The read-only text viewer over the screens: `d` describe, `y` YAML, `:events`, `:journal`.
//! Its lines are built from the model each time (the watches keep them current) and shown
//! wrapped to the width (`w` cuts them instead, scrolled sideways with h/l); search moves the
//! scroll to the next line holding the text.
use super::model::{Flash, Model, Screen, WatchState};
use super::viewer_rows::Row;
use crate::fleet::describe::{Unavailable, to_text};
use crate::fleet::detail::NodeDetail;
use crate::fleet::events::in_time_order;
use crate::fleet::store::ObjectKey;
use crate::fleet::text::age;
use crate::fleet::watches::WatchKind;
use crate::keymap::{Action, Key, KeyCode};

/// What the viewer shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewerKind {
    /// The node's `describe` text (its StatefulSet, Pods and events once the detail watches
    /// have listed them).
    Describe(ObjectKey),
    /// The node as the watch holds it, in YAML.
    Yaml(ObjectKey),
    /// Every event about the SeiNodes of the scope, oldest first.
    Events,
    /// The journal of console actions, newest first, filtered (`:journal`).
    Journal(crate::journal::JournalFilter),
    /// The watched clusters' rollouts as `rollout status` prints them (`:rollouts`).
    Rollouts,
}

/// The viewer's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Viewer {
    pub kind: ViewerKind,
    /// The first row shown (rows: the lines as wrapped, or the lines when not wrapped).
    pub scroll: usize,
    /// Long lines wrap at words (the default); off, they are cut at the edge.
    pub wrap: bool,
    /// Columns scrolled sideways while not wrapped.
    pub column: usize,
    /// The search text (`/`), kept for `n`/`N`.
    pub search: String,
    /// The search line is being typed.
    pub typing: bool,
}

impl Viewer {
    pub fn new(kind: ViewerKind) -> Viewer {
        Viewer {
            kind,
            scroll: 0,
            wrap: true,
            column: 0,
            search: String::new(),
            typing: false,
        }
    }

    pub fn title(&self) -> String {
        let what = match &self.kind {
            ViewerKind::Describe(key) => format!("describe {key}"),
            ViewerKind::Yaml(key) => format!("yaml {key}"),
            ViewerKind::Events => "events of the SeiNodes in scope".to_owned(),
            ViewerKind::Journal(filter) => format!("journal ({})", filter.words()),
            ViewerKind::Rollouts => "rollouts (running, held, finished in the last day)".into(),
        };
        match (self.wrap, self.column) {
            (true, _) => format!("{what} · wrap"),
            (false, 0) => format!("{what} · cut (w wraps, h/l scroll)"),
            (false, column) => format!("{what} · from column {}", column + 1),
        }
    }
}

/// The detail watches that could not read their resource, named as `describe` names them.
fn unavailable(model: &Model, key: &ObjectKey) -> Vec<Unavailable> {
    let Some(cluster) = model.clusters.get(key.context.as_ref()) else {
        return Vec::new();
    };
    cluster
        .watches
        .iter()
        .filter(|(kind, _)| kind.is_detail())
        .filter_map(|(kind, state)| {
            let reason = match state {
                WatchState::Forbidden(error) => format!("forbidden: {error}"),
                WatchState::Stale { error, .. } => format!("not read: {error}"),
                // Not listed yet: unknown, not absent.
                WatchState::Syncing => "not listed yet".to_owned(),
                WatchState::Live => return None,
            };
            Some(Unavailable {
                resource: kind.resource(),
                reason,
            })
        })
        .collect()
}

/// The viewer's lines for the model as it is now.
pub fn lines(model: &Model, kind: &ViewerKind) -> Vec<String> {
    match kind {
        ViewerKind::Describe(key) => {
            let detail_open = model.screen == Screen::Node(key.clone());
            let detail = match (&model.detail, detail_open) {
                (Some(detail), true) => Some(detail.clone()),
                _ => model
                    .fleet
                    .fleet(&key.context)
                    .and_then(|fleet| NodeDetail::build(fleet, key, fleet.default_sidecar_image())),
            };
            match detail {
                Some(detail) => to_text(&detail, &unavailable(model, key), model.now)
                    .lines()
                    .map(str::to_owned)
                    .collect(),
                None => vec![format!("SeiNode {key} is not in the watched fleet")],
            }
        }
        ViewerKind::Yaml(key) => yaml_lines(model, key),
        ViewerKind::Events => event_lines(model),
        ViewerKind::Journal(filter) => super::journal_view::lines(model, filter),
        ViewerKind::Rollouts => super::rollouts::lines(model),
    }
}

/// The viewer's rows at the terminal's width: its lines wrapped, or one row each.
pub fn rows(model: &Model, viewer: &Viewer) -> Vec<Row> {
    super::viewer_rows::rows(
        &lines(model, &viewer.kind),
        usize::from(model.size.0),
        viewer.wrap,
    )
}

fn yaml_lines(model: &Model, key: &ObjectKey) -> Vec<String> {
    let Some(node) = model.fleet.node(key) else {
        return vec![format!("SeiNode {key} is not in the watched fleet")];
    };
    let mut out = vec![
        "# As the console's watch holds it: managedFields, the last-applied annotation and"
            .to_owned(),
        format!(
            "# plan task params are left out (kubectl get seinode {} -o yaml has them).",
            key.name
        ),
    ];
    match serde_yaml_ng::to_string(node) {
        Ok(text) => out.extend(text.lines().map(str::to_owned)),
        Err(error) => out.push(format!("cannot print as YAML: {error}")),
    }
    out
}

/// The width from which `:events` is a table with the message last (its other columns take
/// 95); narrower, each event's message is on its own lines under it.
const EVENT_TABLE_WIDTH: u16 = 140;

fn event_lines(model: &Model) -> Vec<String> {
    let events = in_time_order(
        model
            .fleet
            .iter()
            .flat_map(|fleet| fleet.node_events.iter().map(|(_, event)| event)),
    );
    // A table where the message column has room; else each message under its event.
    let table = model.size.0 >= EVENT_TABLE_WIDTH;
    let mut out = vec![if table {
        format!(
            "{:<6} {:<7} {:<26} {:<28} {:<22} MESSAGE",
            "AGE", "TYPE", "REASON", "OBJECT", "SOURCE"
        )
    } else {
        format!(
            "{:<6} {:<7} {:<26} OBJECT from SOURCE",
            "AGE", "TYPE", "REASON"
        )
    }];
    let multi = model.multi_cluster();
    for (context, cluster) in &model.clusters {
        // Several clusters: each line names its cluster, so one cluster's trouble is not
        // read as every cluster's.
        let of = if multi {
            format!(" of {context}")
        } else {
            String::new()
        };
        match cluster.watches.get(&WatchKind::NodeEvents) {
            Some(WatchState::Forbidden(error)) => {
                out.push(format!("✖ events{of} unknown: forbidden: {error}"))
            }
            Some(WatchState::Stale { error, .. }) => {
                out.push(format!("✖ events{of} may be out of date: {error}"))
            }
            Some(WatchState::Syncing) => out.push(format!("… listing events{of}")),
            _ => {}
        }
    }
    if events.is_empty() && out.len() == 1 {
        out.push("no events about SeiNodes in scope".to_owned());
    }
    for e in events {
        let kind = if e.warning { "Warning" } else { "Normal" };
        let count = if e.count > 1 {
            format!(" ×{}", e.count)
        } else {
            String::new()
        };
        let age = age(e.last_seen, model.now);
        if table {
            out.push(format!(
                "{age:<6} {kind:<7} {:<26} {:<28} {:<22} {}{count}",
                e.reason, e.object, e.source, e.message
            ));
        } else {
            out.push(format!(
                "{age:<6} {kind:<7} {:<26} {} from {}",
                e.reason, e.object, e.source
            ));
            out.push(format!("    {}{count}", e.message));
        }
    }
    out
}

/// The first line at or after `from` (or before it, backwards) holding `needle`, any case.
pub fn find<S: AsRef<str>>(lines: &[S], needle: &str, from: usize, forward: bool) -> Option<usize> {
    let needle = needle.to_lowercase();
    if needle.is_empty() || lines.is_empty() {
        return None;
    }
    let n = lines.len();
    (0..n)
        .map(|step| {
            if forward {
                (from + step) % n
            } else {
                (from + n - step % n) % n
            }
        })
        .find(|i| lines[*i].as_ref().to_lowercase().contains(&needle))
}

/// Lines the viewer shows at least: the frame less a header of up to three lines (it wraps on
/// narrow terminals), the viewer's two rules and the footer.
fn page(model: &Model) -> usize {
    usize::from(model.size.1.saturating_sub(6)).max(1)
}

/// Columns a sideways step moves.
const SIDEWAYS: usize = 8;

/// A viewer key; returns whether the viewer took it.
pub fn on_action(model: &mut Model, action: Action) -> bool {
    let Some(viewer) = model.viewer.as_ref() else {
        return false;
    };
    let all = rows(model, viewer);
    let page = page(model);
    let last = all.len().saturating_sub(page);
    let widest = all
        .iter()
        .map(|r| r.text.chars().count())
        .max()
        .unwrap_or(0);
    let last_column = widest.saturating_sub(usize::from(model.size.0));
    let Some(viewer) = model.viewer.as_mut() else {
        return false;
    };
    match action {
        Action::Back => model.viewer = None,
        Action::Down => viewer.scroll = (viewer.scroll + 1).min(last),
        Action::Up => viewer.scroll = viewer.scroll.saturating_sub(1),
        Action::PageDown => viewer.scroll = (viewer.scroll + page).min(last),
        Action::PageUp => viewer.scroll = viewer.scroll.saturating_sub(page),
        Action::Top => viewer.scroll = 0,
        Action::Bottom => viewer.scroll = last,
        Action::ToggleWrap => {
            // The line at the top stays at the top.
            let top = all.get(viewer.scroll).map_or(0, |row| row.line);
            viewer.wrap = !viewer.wrap;
            viewer.column = 0;
            let viewer = viewer.clone();
            let scroll = first_row_of(&rows(model, &viewer), top);
            if let Some(open) = model.viewer.as_mut() {
                open.scroll = scroll;
            }
        }
        Action::ScrollRight if !viewer.wrap => {
            viewer.column = (viewer.column + SIDEWAYS).min(last_column);
        }
        Action::ScrollLeft if !viewer.wrap => {
            viewer.column = viewer.column.saturating_sub(SIDEWAYS);
        }
        // Wrapped lines are whole: nothing to scroll sideways to.
        Action::ScrollRight | Action::ScrollLeft => {}
        Action::StartFilter => {
            viewer.typing = true;
            viewer.search.clear();
        }
        Action::ToggleDryRuns => match &mut viewer.kind {
            ViewerKind::Journal(filter) => filter.dry_runs = !filter.dry_runs,
            _ => return false,
        },
        Action::SearchNext => jump(model, true, 1),
        Action::SearchPrevious => jump(model, false, 1),
        _ => return false,
    }
    true
}

/// The first row of line `line`.
fn first_row_of(rows: &[Row], line: usize) -> usize {
    rows.iter().position(|row| row.line >= line).unwrap_or(0)
}

/// Moves the scroll to the next (or previous) line holding the search, `skip` lines on.
fn jump(model: &mut Model, forward: bool, skip: usize) {
    let Some(viewer) = model.viewer.as_ref() else {
        return;
    };
    let all = lines(model, &viewer.kind);
    let shown = rows(model, viewer);
    let top = shown.get(viewer.scroll).map_or(0, |row| row.line);
    let from = if forward {
        top + skip
    } else {
        (top + all.len()).saturating_sub(skip)
    };
    let found = find(&all, &viewer.search, from % all.len().max(1), forward);
    let search = viewer.search.clone();
    // The match goes to the top, unless that would scroll past the end.
    let last = shown.len().saturating_sub(page(model));
    match found {
        Some(line) => {
            if let Some(viewer) = model.viewer.as_mut() {
                viewer.scroll = first_row_of(&shown, line).min(last);
            }
            model.flash = None;
        }
        None if !search.is_empty() => {
            model.flash = Some(Flash {
                text: format!("{search:?} not found"),
                error: true,
            });
        }
        None => {}
    }
}

/// A key while the search line is typed: enter jumps to the first match, esc drops it.
pub fn on_search_key(model: &mut Model, key: Key) {
    let Some(viewer) = model.viewer.as_mut() else {
        return;
    };
    match key.code {
        KeyCode::Enter => {
            viewer.typing = false;
            jump(model, true, 0);
        }
        KeyCode::Esc => {
            viewer.typing = false;
            viewer.search.clear();
        }
        KeyCode::Backspace => {
            viewer.search.pop();
        }
        KeyCode::Char(c) if !key.ctrl => viewer.search.push(c),
        _ => {}
    }
}
