//! The help overlay, generated from the keymap table plus the symbol legend.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::theme::Theme;
use crate::app::console_actions;
use crate::keymap::help_sections;

const LEGEND: &[(&str, &str)] = &[
    (
        "● ◐ ○ ✗ ⊘ ·",
        "Running, Initializing, Pending, Failed, Terminating, no phase",
    ),
    (
        "▶ ✓ ✗ ·",
        "plan/task: in progress, complete, failed, waiting",
    ),
    (
        "≠image ≠sidecar",
        "spec image differs from the observed one (drift)",
    ),
    ("⚠ ✖", "Warning event; StatefulSetRenderFailed"),
    ("✓name", "node marked (space) for an image rollout"),
    (
        "STALE",
        "a watch failed; data is from the time shown, retrying",
    ),
];

pub fn lines(theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for section in help_sections(&console_actions::bindings()) {
        lines.push(Line::styled(section.title, theme.title));
        for (keys, help) in section.lines {
            // A key list as wide as the column keeps a space before its help.
            let gap = if keys.chars().count() >= 16 { " " } else { "" };
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<16}{gap}"), theme.accent),
                Span::raw(help),
            ]));
        }
    }
    lines.push(Line::styled("Symbols", theme.title));
    for (symbol, meaning) in LEGEND {
        lines.push(Line::from(vec![
            Span::styled(format!("  {symbol:<16}"), theme.accent),
            Span::raw(*meaning),
        ]));
    }
    lines
}

pub fn render(scroll: u16, theme: &Theme, frame: &mut Frame, area: Rect) {
    let lines = lines(theme);
    let width = area.width.saturating_sub(4).min(84);
    let height = area
        .height
        .saturating_sub(2)
        .min(u16::try_from(lines.len() + 2).unwrap_or(u16::MAX));
    let popup = Rect {
        x: area.x + (area.width.saturating_sub(width)) / 2,
        y: area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.border)
        .title(Line::styled(
            " Help — esc or ? closes, j/k scroll ",
            theme.title,
        ))
        .style(theme.base);
    let last = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(height.saturating_sub(2));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll.min(last), 0)),
        popup,
    );
}
