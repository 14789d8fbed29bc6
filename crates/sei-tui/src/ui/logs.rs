//! The logs view (`l`) in place of the screen's body: the stream's state in the title, a
//! refusal as one line, search matches highlighted, long lines cut or wrapped (`w`); with a
//! filter (`&`) only its lines, the bottom rule saying how many of the kept lines match.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::theme::Theme;
use crate::app::logs::{LogStatus, LogsView};

/// Rows `line` takes at `width` when wrapped.
fn rows(line: &str, width: usize) -> usize {
    line.chars().count().div_ceil(width.max(1)).max(1)
}

pub fn render(view: &LogsView, theme: &Theme, frame: &mut Frame, area: Rect) {
    let width = usize::from(area.width);
    let rows_of = |line: &String| if view.wrap { rows(line, width) } else { 1 };
    // A refusal is one line, wrapped so it is read whole, above whatever was kept.
    let error = match &view.status {
        LogStatus::Failed(error) => Some(format!("✖ {error}")),
        _ => None,
    };
    let error_rows = error.as_ref().map_or(0, |e| rows(e, width).min(4));
    let budget = usize::from(area.height.saturating_sub(2)).saturating_sub(error_rows);
    let lines = view.shown();
    let count = lines.len();
    // Following: the newest lines that fill the body; else from the scroll on.
    let (first, end) = if view.at_end {
        let mut used = 0;
        let mut first = count;
        while first > 0 && used + rows_of(lines[first - 1]) <= budget {
            used += rows_of(lines[first - 1]);
            first -= 1;
        }
        (first, count)
    } else {
        let first = view.scroll.min(count);
        let mut used = 0;
        let mut end = first;
        while end < count && used + rows_of(lines[end]) <= budget {
            used += rows_of(lines[end]);
            end += 1;
        }
        (first, end)
    };
    let needle = view.search.to_lowercase();
    let mut shown: Vec<Line> = lines[first..end]
        .iter()
        .map(|&line| {
            if !needle.is_empty() && line.to_lowercase().contains(&needle) {
                Line::styled(line.clone(), theme.accent)
            } else {
                Line::raw(line.clone())
            }
        })
        .collect();
    if count == 0 && view.filter.is_some() && !view.lines.is_empty() {
        shown.push(Line::styled(
            "no line kept matches the filter (& then enter on an empty line shows all)",
            theme.dim,
        ));
    } else if count == 0 {
        let empty = match view.status {
            LogStatus::Opening => Some("… opening the log"),
            LogStatus::Following => Some("no lines yet; new ones appear as they are written"),
            LogStatus::Ended => Some("the log is empty"),
            LogStatus::Failed(_) => None,
        };
        if let Some(text) = empty {
            shown.push(Line::styled(text, theme.dim));
        }
    }
    let dropped = if view.dropped > 0 {
        format!(" {} older lines dropped ·", view.dropped)
    } else {
        String::new()
    };
    let matching = match &view.filter {
        Some(filter) => format!(
            " matching &{} · {} line{} read",
            filter.pattern(),
            view.lines.len(),
            if view.lines.len() == 1 { "" } else { "s" }
        ),
        None => String::new(),
    };
    let position = format!(
        "{dropped} {}–{end} of {count}{matching} ",
        (first + 1).min(count)
    );
    let block = Block::new()
        .borders(Borders::TOP | Borders::BOTTOM)
        .title(Span::styled(format!(" {} ", view.title()), theme.title))
        .title_bottom(Line::styled(position, theme.dim).right_aligned())
        .border_style(theme.dim);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [error_area, body] = Layout::vertical([
        Constraint::Length(u16::try_from(error_rows).unwrap_or(1)),
        Constraint::Min(0),
    ])
    .areas(inner);
    if let Some(error) = error {
        let line = Paragraph::new(Line::styled(error, theme.bad)).wrap(Wrap { trim: false });
        frame.render_widget(line, error_area);
    }
    let mut paragraph = Paragraph::new(shown);
    if view.wrap {
        paragraph = paragraph.wrap(Wrap { trim: false });
    }
    frame.render_widget(paragraph, body);
}
