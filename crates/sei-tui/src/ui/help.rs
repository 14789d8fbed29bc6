//! The help overlay, generated from the keymap table plus the symbol legend (built from the
//! symbols the screens use), wrapped to the terminal's width.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::theme::Theme;
use super::wrap::hanging;
use crate::app::console_actions;
use crate::fleet::symbols::legend;
use crate::keymap::help_sections;

pub fn lines(theme: &Theme, plugins: &[(String, String)]) -> Vec<Line<'static>> {
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
    if !plugins.is_empty() {
        lines.push(Line::styled(
            "Plugins ([[plugins]] of the config file)",
            theme.title,
        ));
        for (key, help) in plugins {
            lines.push(Line::from(vec![
                Span::styled(format!("  {key:<16}"), theme.accent),
                Span::raw(help.clone()),
            ]));
        }
    }
    lines.push(Line::styled("Symbols", theme.title));
    for entry in legend() {
        let gap = if entry.symbols.chars().count() >= 16 {
            " "
        } else {
            ""
        };
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<16}{gap}", entry.symbols), theme.accent),
            Span::raw(format!("{}: {}", entry.place, entry.meaning)),
        ]));
    }
    // What the console ports, as `sei-console version` and `--version` say it.
    lines.push(Line::styled("Version", theme.title));
    lines.push(Line::raw(format!(
        "  sei-console {}: {}",
        env!("CARGO_PKG_VERSION"),
        crate::api::upstream::ported_line()
    )));
    lines
}

/// The widest the popup gets: wider reads worse; its lines wrap below that.
const MOST_WIDTH: u16 = 110;

pub fn render(
    scroll: u16,
    plugins: &[(String, String)],
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
) {
    let width = area.width.saturating_sub(4).min(MOST_WIDTH);
    // Wrapped to the popup, continuations under the description column: nothing is cut.
    let lines = hanging(lines(theme, plugins), width.saturating_sub(2));
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
