//! The fleet screen: one row per SeiNode; only the visible window of rows is handed to ratatui.
use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Cell, Paragraph, Row, Table, TableState};
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;
use crate::api::{Phase, PlanPhase};
use crate::app::model::{Model, WatchState};
use crate::fleet::events::RENDER_FAILED_REASON;
use crate::fleet::rows::FleetRow;
use crate::fleet::sort::Column;
use crate::fleet::text;
use crate::kube::watches::WatchKind;

/// Columns kept first when the terminal is narrow.
const PRIORITY: [Column; 10] = [
    Column::Name,
    Column::Phase,
    Column::Plan,
    Column::Mode,
    Column::Warning,
    Column::Image,
    Column::Conditions,
    Column::Age,
    Column::Chain,
    Column::Namespace,
];

fn max_width(column: Column) -> usize {
    match column {
        Column::Plan | Column::Warning | Column::Conditions => 48,
        Column::Image => 36,
        Column::Name => 40,
        _ => 24,
    }
}

fn cell_text(column: Column, row: &FleetRow, model: &Model) -> String {
    match column {
        Column::Namespace => row.key.namespace.to_string(),
        Column::Name if model.marked.contains(&row.key) => format!("✓{}", row.key.name),
        Column::Name => row.key.name.to_string(),
        Column::Mode => text::mode_text(row).to_owned(),
        Column::Chain => row.chain_id.clone(),
        Column::Phase => text::phase_text(row.phase),
        Column::Image => text::image_cell(row),
        Column::Plan => text::plan_cell(row.plan.as_ref(), model.now),
        Column::Conditions => text::conditions_cell(row),
        Column::Warning => text::warning_cell(row, model.now),
        Column::Age => text::age(row.created, model.now),
    }
}

fn cell_style(column: Column, row: &FleetRow, theme: &Theme) -> Style {
    match column {
        Column::Phase => match row.phase {
            Some(Phase::Running) => theme.good,
            Some(Phase::Failed) => theme.bad,
            None => theme.dim,
            _ => theme.warn,
        },
        Column::Image if row.drift.any() => theme.warn,
        Column::Plan => match row.plan.as_ref().map(|p| p.phase) {
            Some(PlanPhase::Failed) => theme.bad,
            Some(PlanPhase::Active) => theme.accent,
            _ => theme.dim,
        },
        Column::Conditions if row.bad_conditions().next().is_some() => theme.bad,
        Column::Warning => match &row.last_warning {
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

/// Which columns fit in `width`, in display order, with their widths.
fn fit_columns(
    widths: &[(Column, usize)],
    width: usize,
    show_namespace: bool,
) -> Vec<(Column, usize)> {
    let mut chosen: Vec<Column> = Vec::new();
    let mut used = 0;
    for column in PRIORITY {
        if column == Column::Namespace && !show_namespace {
            continue;
        }
        let w = widths
            .iter()
            .find(|(c, _)| *c == column)
            .map_or(0, |(_, w)| *w);
        let extra = if chosen.is_empty() { w } else { w + 1 };
        if used + extra <= width || chosen.is_empty() {
            chosen.push(column);
            used += extra;
        }
    }
    widths
        .iter()
        .filter(|(c, _)| chosen.contains(c))
        .copied()
        .collect()
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
    let cells: Vec<Vec<String>> = window
        .iter()
        .map(|row| {
            Column::ALL
                .iter()
                .map(|c| cell_text(*c, row, model))
                .collect()
        })
        .collect();
    let widths: Vec<(Column, usize)> = Column::ALL
        .iter()
        .enumerate()
        .map(|(i, column)| {
            let content = cells.iter().map(|r| r[i].width()).max().unwrap_or(0);
            let header = column.title().len() + 2;
            (*column, content.max(header).min(max_width(*column)))
        })
        .collect();
    let shown = fit_columns(
        &widths,
        usize::from(area.width),
        model.scope.namespace.is_none(),
    );
    let sort = model.sort;
    let header = Row::new(shown.iter().map(|(column, _)| {
        let mark = match (sort.column == *column, sort.descending) {
            (true, false) => "↑",
            (true, true) => "↓",
            _ => "",
        };
        Cell::from(format!("{}{mark}", column.title()))
    }))
    .style(theme.header);
    let rows = window.iter().zip(&cells).map(|(row, texts)| {
        Row::new(shown.iter().map(|(column, _)| {
            let index = Column::ALL.iter().position(|c| c == column).unwrap_or(0);
            Cell::from(texts[index].clone()).style(cell_style(*column, row, theme))
        }))
    });
    let constraints: Vec<Constraint> = shown
        .iter()
        .enumerate()
        .map(|(i, (_, w))| {
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
    let nodes_state = model.watches.get(&WatchKind::Nodes);
    let lines: Vec<Line> = match nodes_state {
        Some(WatchState::Forbidden(error)) => vec![
            Line::styled("  ✖ forbidden: cannot list SeiNodes here", theme.bad),
            Line::styled(format!("  {error}"), theme.dim),
            Line::styled(
                "  Try another namespace with `:ns NAME` or ask for list/watch on seinodes.sei.io.",
                theme.dim,
            ),
        ],
        Some(WatchState::Stale { error, .. }) if !model.fleet.nodes.is_synced() => vec![
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
        _ => vec![
            Line::styled(
                format!("  No SeiNode matches the filter `{}`.", model.filter),
                theme.header,
            ),
            Line::styled("  esc clears the filter; / edits it.", theme.dim),
        ],
    };
    frame.render_widget(Paragraph::new(lines), area);
}
