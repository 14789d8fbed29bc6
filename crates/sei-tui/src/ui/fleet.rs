//! The fleet screen: one row per SeiNode; only the visible window of rows is handed to ratatui.
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};

use super::theme::Theme;
use crate::api::{Phase, PlanPhase};
use crate::app::model::{Model, WatchState};
use crate::chain::State;
use crate::fleet::columns::{self, Form};
use crate::fleet::events::RENDER_FAILED_REASON;
use crate::fleet::rows::FleetRow;
use crate::fleet::sort::Column;
use crate::fleet::verdict::Severity;
use crate::fleet::watches::WatchKind;
use unicode_width::UnicodeWidthStr;

/// What to give up, in order, until the table fits: NAME, PHASE, the drift mark, PLAN and the
/// warning mark are kept to the end (compacted, never dropped).
/// The CLUSTER column (several clusters watched) is abbreviated with the others and dropped
/// only when nothing else is left to give.
const DEGRADE: [(Column, Step); 14] = [
    (Column::Age, Step::Drop),
    (Column::Chain, Step::Drop),
    // The chain-health mark (✓ ⟳ ↓ ⏸ ✗) stays; the height and lag go.
    (Column::Health, Step::Compact),
    (Column::Conditions, Step::Compact),
    (Column::Plan, Step::Compact),
    (Column::Warning, Step::Compact),
    (Column::Mode, Step::Drop),
    (Column::Cluster, Step::Compact),
    (Column::Image, Step::Compact),
    (Column::Conditions, Step::Drop),
    (Column::Phase, Step::Compact),
    (Column::Namespace, Step::Compact),
    // The last column fills the rest of the line: its reason may be cut, its ⚠ mark stays.
    (Column::Warning, Step::Squeeze(SQUEEZED_WARNING)),
    (Column::Cluster, Step::Drop),
];

/// The room a squeezed warning column still claims (the mark and the start of the reason).
const SQUEEZED_WARNING: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Compact,
    Drop,
    /// Claim at most this width (the last, filling column only).
    Squeeze(usize),
}

fn max_width(column: Column) -> usize {
    match column {
        Column::Plan | Column::Warning | Column::Conditions => 48,
        Column::Image => 36,
        Column::Name => 40,
        _ => 24,
    }
}

/// Columns shown in `width`, in display order, with their form and width.
fn fit_columns(model: &Model, width: usize) -> Vec<(Column, Form, usize)> {
    let widths = model.fleet.widths();
    let mark = usize::from(!model.marked.is_empty());
    let held = held_width(model);
    let mut squeezed: Option<(Column, usize)> = None;
    let mut shown: Vec<(Column, Form, usize)> = Column::ALL
        .iter()
        .filter(|c| **c != Column::Namespace || model.scope.namespace.is_none())
        .filter(|c| **c != Column::Cluster || model.multi_cluster())
        .filter(|c| **c != Column::Health || model.fleet.has_health())
        .map(|c| (*c, Form::Full, 0))
        .collect();
    let measure = |shown: &mut Vec<(Column, Form, usize)>, squeezed: Option<(Column, usize)>| {
        for (column, form, w) in shown.iter_mut() {
            let extra = match column {
                Column::Name => mark,
                Column::Plan => held,
                _ => 0,
            };
            *w = (widths.get(*column, *form) + extra).min(max_width(*column));
            if let Some((squeezed, most)) = squeezed
                && squeezed == *column
            {
                *w = (*w).min(most);
            }
        }
        // The highlight symbol, then one space between columns.
        1 + shown.iter().map(|(_, _, w)| w + 1).sum::<usize>() - 1
    };
    let mut steps = DEGRADE.iter();
    while measure(&mut shown, squeezed) > width {
        let Some((column, step)) = steps.next() else {
            break;
        };
        match step {
            Step::Drop => shown.retain(|(c, _, _)| c != column),
            Step::Compact => {
                for entry in shown.iter_mut().filter(|(c, _, _)| c == column) {
                    entry.1 = Form::Compact;
                }
            }
            // Only the last column fills (and so may be cut); another would cut its neighbour.
            Step::Squeeze(most) => {
                if shown.last().is_some_and(|(c, _, _)| c == column) {
                    squeezed = Some((*column, *most));
                }
            }
        }
    }
    shown
}

fn cell_text(column: Column, form: Form, row: &FleetRow, model: &Model) -> String {
    match column {
        Column::Name if model.marked.contains(&row.key) => {
            format!(
                "{}{}",
                crate::fleet::symbols::MARKED,
                columns::cell(column, form, row, model.now)
            )
        }
        // A node in a held, aborting or orphaned rollout says so first (`app::rollouts`).
        Column::Plan => {
            let plan = columns::cell(column, form, row, model.now);
            let Some(mark) = model.rollouts.node_mark(&row.key) else {
                return plan;
            };
            match plan.as_str() {
                "-" | "" => format!("⏸ {mark}"),
                _ => format!("⏸ {mark} · {plan}"),
            }
        }
        _ => columns::cell(column, form, row, model.now),
    }
}

/// The room the PLAN column needs for the rollout marks of the rows (`⏸ orphaned · `).
fn held_width(model: &Model) -> usize {
    // A rollout marks all its nodes or none (its state decides).
    let any = model.rollouts.open().any(|(_, v)| {
        v.record
            .nodes
            .first()
            .is_some_and(|n| v.node_mark(&n.name).is_some())
    });
    if any { "⏸ orphaned · ".width() } else { 0 }
}

fn cell_style(column: Column, row: &FleetRow, theme: &Theme) -> Style {
    match column {
        Column::Phase => match (row.phase, row.verdict.worst()) {
            (Some(Phase::Failed), _) => theme.bad,
            (_, Some(Severity::Critical)) => theme.bad,
            (_, Some(Severity::Warning)) => theme.warn,
            (Some(Phase::Running), None) => theme.good,
            (None, None) => theme.dim,
            _ => theme.warn,
        },
        Column::Health => match row.health.map(|h| h.state) {
            Some(State::InSync) => theme.good,
            Some(State::Stalled | State::Unreachable) => theme.bad,
            Some(State::Lagging) => theme.warn,
            Some(State::CatchingUp) => theme.accent,
            Some(State::Pending) | None => theme.dim,
        },
        Column::Image if row.drift.any() => theme.warn,
        Column::Plan => match row.plan.as_ref().map(|p| p.phase) {
            Some(PlanPhase::Failed) => theme.bad,
            Some(PlanPhase::Active) => theme.accent,
            _ => theme.dim,
        },
        Column::Conditions if row.bad_conditions().next().is_some() => theme.bad,
        Column::Warning => match row.warning() {
            Some(w) if w.reason == RENDER_FAILED_REASON => theme.bad,
            Some(_) => theme.warn,
            None => theme.dim,
        },
        Column::Age => theme.dim,
        _ => Style::new(),
    }
}

/// First row index to show so that `selected` is visible in `page` rows.
pub fn window_start(selected: usize, page: usize) -> usize {
    selected.saturating_sub(page.saturating_sub(1))
}

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    if model.listing.keys.is_empty() {
        render_empty(model, theme, frame, area);
        return;
    }
    let page = usize::from(area.height.saturating_sub(1)).max(1);
    let start = window_start(model.selected, page);
    let window: Vec<&FleetRow> = model.listing.keys[start..]
        .iter()
        .take(page)
        .filter_map(|key| model.fleet.row(key))
        .collect();
    let shown = fit_columns(model, usize::from(area.width));
    let sort = model.sort;
    let header = Row::new(shown.iter().map(|(column, form, _)| {
        let mark = match (sort.column == *column, sort.descending) {
            (true, false) => "↑",
            (true, true) => "↓",
            _ => "",
        };
        Cell::from(format!("{}{mark}", columns::title(*column, *form)))
    }))
    .style(theme.header);
    let rows = window.iter().map(|row| {
        Row::new(shown.iter().map(|(column, form, _)| {
            Cell::from(cell_text(*column, *form, row, model)).style(cell_style(*column, row, theme))
        }))
    });
    let constraints: Vec<Constraint> = shown
        .iter()
        .enumerate()
        .map(|(i, (_, _, w))| {
            if i + 1 == shown.len() {
                Constraint::Fill(1)
            } else {
                Constraint::Length(u16::try_from(*w).unwrap_or(u16::MAX))
            }
        })
        .collect();
    let table = Table::new(rows, constraints)
        .header(header)
        .column_spacing(1)
        .row_highlight_style(theme.selected)
        .highlight_symbol("›")
        .highlight_spacing(ratatui::widgets::HighlightSpacing::Always);
    let mut state = TableState::default().with_selected(Some(model.selected - start));
    frame.render_stateful_widget(table, area, &mut state);
}

fn render_empty(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let lines = if model.multi_cluster() {
        empty_clusters_lines(model, theme)
    } else {
        empty_lines(model, theme, model.scope.context())
    };
    frame.render_widget(Paragraph::new(lines), area);
}

/// Why the table of one watched cluster is empty.
fn empty_lines(model: &Model, theme: &Theme, context: &str) -> Vec<Line<'static>> {
    let nodes_state = model.watch_state(context, WatchKind::Nodes);
    let synced = model
        .fleet
        .fleet(context)
        .is_some_and(|fleet| fleet.nodes.is_synced());
    match nodes_state {
        Some(WatchState::Forbidden(error)) => vec![
            Line::styled("  ✖ forbidden: cannot list SeiNodes here", theme.bad),
            Line::styled(format!("  {error}"), theme.dim),
            Line::styled(
                "  Try another namespace with `:ns NAME` or ask for list/watch on seinodes.sei.io.",
                theme.dim,
            ),
        ],
        Some(WatchState::Stale { error, .. }) if !synced => vec![
            Line::styled("  ✗ cannot reach the API server yet; retrying", theme.bad),
            Line::styled(format!("  {error}"), theme.dim),
        ],
        Some(WatchState::Syncing) | None => vec![Line::styled("  … listing SeiNodes", theme.dim)],
        _ if model.fleet.is_empty() => vec![
            Line::styled(
                format!("  No SeiNodes in {}.", model.scope.namespace_label()),
                theme.header,
            ),
            Line::styled(
                "  Switch namespace with `:ns NAME` or `:ns all`; create one with kubectl apply.",
                theme.dim,
            ),
        ],
        _ => no_match_lines(model, theme),
    }
}

fn no_match_lines(model: &Model, theme: &Theme) -> Vec<Line<'static>> {
    vec![
        Line::styled(
            format!("  No SeiNode matches the filter `{}`.", model.filter),
            theme.header,
        ),
        Line::styled("  esc clears the filter; / edits it.", theme.dim),
    ]
}

/// Several clusters and no row: one line per cluster saying why it shows none.
fn empty_clusters_lines(model: &Model, theme: &Theme) -> Vec<Line<'static>> {
    if !model.fleet.is_empty() {
        return no_match_lines(model, theme);
    }
    let mut lines = Vec::new();
    for context in &model.scope.contexts {
        let synced = model
            .fleet
            .fleet(context)
            .is_some_and(|fleet| fleet.nodes.is_synced());
        let line = match model.watch_state(context, WatchKind::Nodes) {
            Some(WatchState::Forbidden(error)) => {
                Line::styled(format!("  ✖ {context}: forbidden: {error}"), theme.bad)
            }
            Some(WatchState::Stale { error, .. }) if !synced => Line::styled(
                format!("  ✗ {context}: cannot reach the API server yet ({error}); retrying"),
                theme.bad,
            ),
            Some(WatchState::Syncing) | None => {
                Line::styled(format!("  … {context}: listing SeiNodes"), theme.dim)
            }
            _ => Line::styled(
                format!(
                    "  {context}: no SeiNodes in {}",
                    model.scope.namespace_label()
                ),
                theme.header,
            ),
        };
        lines.push(line);
    }
    lines
}
