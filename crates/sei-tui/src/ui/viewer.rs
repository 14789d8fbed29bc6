//! The read-only viewer (describe, YAML, events, journal) in place of the screen's body: its
//! rows wrapped to the width (or cut and scrolled sideways), the search matches highlighted.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::theme::Theme;
use crate::app::model::Model;
use crate::app::viewer::{Viewer, lines, rows};
use crate::app::viewer_rows::from_column;

pub fn render(model: &Model, viewer: &Viewer, theme: &Theme, frame: &mut Frame, area: Rect) {
    let all = rows(model, viewer);
    let inner_height = usize::from(area.height.saturating_sub(2));
    // Never past the end: the last row at the bottom.
    let top = viewer.scroll.min(all.len().saturating_sub(inner_height));
    let needle = viewer.search.to_lowercase();
    let matching: Vec<bool> = if needle.is_empty() {
        Vec::new()
    } else {
        lines(model, &viewer.kind)
            .iter()
            .map(|line| line.to_lowercase().contains(&needle))
            .collect()
    };
    let shown: Vec<Line> = all
        .iter()
        .skip(top)
        .take(inner_height)
        .map(|row| {
            let text = if viewer.wrap {
                row.text.clone()
            } else {
                from_column(&row.text, viewer.column)
            };
            if matching.get(row.line).copied().unwrap_or(false) {
                Line::from(Span::styled(text, theme.accent))
            } else {
                Line::raw(text)
            }
        })
        .collect();
    let position = format!(
        " {}–{} of {} ",
        (top + 1).min(all.len()),
        (top + inner_height).min(all.len()),
        all.len()
    );
    let block = Block::new()
        .borders(Borders::TOP | Borders::BOTTOM)
        .title(Span::styled(format!(" {} ", viewer.title()), theme.title))
        .title_bottom(Line::styled(position, theme.dim).right_aligned())
        .border_style(theme.dim);
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
