//! The read-only viewer (describe, YAML, events) in place of the screen's body, with the
//! search matches highlighted.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::theme::Theme;
use crate::app::model::Model;
use crate::app::viewer::{Viewer, lines};

pub fn render(model: &Model, viewer: &Viewer, theme: &Theme, frame: &mut Frame, area: Rect) {
    let all = lines(model, &viewer.kind);
    let inner_height = usize::from(area.height.saturating_sub(2));
    let needle = viewer.search.to_lowercase();
    let shown: Vec<Line> = all
        .iter()
        .skip(viewer.scroll)
        .take(inner_height)
        .map(|line| {
            if !needle.is_empty() && line.to_lowercase().contains(&needle) {
                Line::from(Span::styled(line.clone(), theme.accent))
            } else {
                Line::raw(line.clone())
            }
        })
        .collect();
    let position = format!(
        " {}–{} of {} ",
        (viewer.scroll + 1).min(all.len()),
        (viewer.scroll + inner_height).min(all.len()),
        all.len()
    );
    let block = Block::new()
        .borders(Borders::TOP | Borders::BOTTOM)
        .title(Span::styled(format!(" {} ", viewer.title()), theme.title))
        .title_bottom(Line::styled(position, theme.dim).right_aligned())
        .border_style(theme.dim);
    frame.render_widget(Paragraph::new(shown).block(block), area);
}
