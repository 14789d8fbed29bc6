//! The action dialog over the screen: prompt, preview, confirmation and progress. Every state
//! is written in words and symbols, so the plain theme loses nothing.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::theme::Theme;
use super::wrap::hanging;
use crate::app::action::{
    ActionFlow, ActionPreview, ActionRequest, Form, LineTone, OVERRIDE_WORD, Stage,
};

/// The body lines and the footer hint of the flow's current stage.
fn content(
    flow: &ActionFlow,
    now: jiff::Timestamp,
    theme: &Theme,
) -> (Vec<Line<'static>>, &'static str) {
    match &flow.stage {
        Stage::Prompt(form) => (
            prompt_lines(flow, form, theme),
            "enter next/preview · tab field · esc cancel",
        ),
        Stage::Preparing(request) => {
            let mut lines = request_lines(request, theme);
            lines.push(Line::raw(""));
            // The elapsed time shows a slow or silent API server; every request has a deadline.
            let waited = flow
                .preparing_since
                .map(|since| (now - since).get_seconds().max(0))
                .unwrap_or(0);
            lines.push(Line::styled(
                format!("Computing the preview and asking the permission checks… {waited} s"),
                theme.accent,
            ));
            (lines, "esc cancel")
        }
        Stage::Preview { preview, .. } => {
            let hint = if preview.nothing_to_do.is_some() {
                "esc close — nothing to do · j/k scroll"
            } else if preview.blocked.is_some() {
                "esc close — nothing was changed · j/k scroll"
            } else {
                "enter/y continue · j/k scroll · esc cancel"
            };
            (preview_lines(preview, theme), hint)
        }
        Stage::Confirm {
            preview,
            typed,
            error,
            ..
        } => {
            let mut lines = vec![Line::styled(preview.question.clone(), theme.header)];
            if !preview.executor.is_empty() {
                lines.push(Line::styled(preview.executor.clone(), theme.dim));
            }
            let hint = match preview.expected_typing() {
                Some(expected) => {
                    lines.push(Line::raw(""));
                    lines.push(Line::from(vec![
                        // Validators and seeds, and a tag unlike the running ones (the
                        // question says which).
                        Span::raw("Validator, seed or unusual tag: type "),
                        Span::styled(expected, theme.warn),
                        Span::raw(" to confirm:"),
                    ]));
                    lines.push(Line::from(vec![
                        Span::styled("> ", theme.title),
                        Span::raw(typed.clone()),
                        Span::styled("█", theme.accent),
                    ]));
                    "enter confirm · esc cancel"
                }
                None => "y/enter confirm · esc cancel",
            };
            if let Some(error) = error {
                lines.push(Line::styled(format!("✗ {error}"), theme.bad));
            }
            (lines, hint)
        }
        Stage::Running {
            request,
            started,
            lines: progress,
            finished,
            ..
        } => {
            let mut lines = request_lines(request, theme);
            for line in progress {
                let style = match line.tone {
                    LineTone::Info => Style::new(),
                    LineTone::Good => theme.good,
                    LineTone::Bad => theme.bad,
                };
                let text = match &line.node {
                    Some(node) => format!("{node}: {}", line.text),
                    None => line.text.clone(),
                };
                // Time since the operator confirmed, so a slow task shows where time went.
                let since = line.at.map_or(String::new(), |at| {
                    format!("{:>7} ", since_start(*started, at))
                });
                lines.push(Line::from(vec![
                    Span::styled(since, theme.dim),
                    Span::styled(text, style),
                ]));
            }
            let hint = match finished {
                None => "esc hide (the action goes on) · q quit (asks first) · j/k scroll",
                Some(_) => "esc close · j/k scroll",
            };
            (lines, hint)
        }
        Stage::NotUnderstood {
            message,
            typed,
            error,
            ..
        } => {
            let mut lines = vec![
                Line::styled(format!("✗ {message}"), theme.bad),
                Line::raw("Nothing was changed."),
                Line::raw(""),
                Line::from(vec![
                    Span::raw(
                        "To act anyway (journaled and recorded on the node as an override): type ",
                    ),
                    Span::styled(OVERRIDE_WORD, theme.warn),
                    Span::raw(" and press enter; the preview comes first."),
                ]),
                Line::from(vec![
                    Span::styled("> ", theme.title),
                    Span::raw(typed.clone()),
                    Span::styled("█", theme.accent),
                ]),
            ];
            if let Some(error) = error {
                lines.push(Line::styled(format!("✗ {error}"), theme.bad));
            }
            (lines, "enter preview with the override · esc close")
        }
        Stage::Failed { message } => (
            vec![
                Line::styled(format!("✗ {message}"), theme.bad),
                Line::raw("Nothing was changed."),
            ],
            "esc close",
        ),
    }
}

fn request_lines(request: &ActionRequest, theme: &Theme) -> Vec<Line<'static>> {
    request
        .summary()
        .into_iter()
        .map(|line| Line::styled(line, theme.header))
        .collect()
}

fn prompt_lines(flow: &ActionFlow, form: &Form, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if !form.nodes.is_empty() {
        lines.push(Line::from(vec![
            Span::styled(format!("{}: ", form.namespace), theme.dim),
            Span::styled(form.nodes.join(", "), theme.header),
        ]));
    } else {
        lines.push(Line::styled(
            format!("new seed in namespace {}", form.namespace),
            theme.header,
        ));
    }
    let width = form.fields.iter().map(|f| f.label.len()).max().unwrap_or(0);
    for (index, field) in form.fields.iter().enumerate() {
        let focused = index == form.focus;
        let mut spans = vec![
            Span::styled(
                format!(
                    "{}{:<width$} ",
                    if focused { "›" } else { " " },
                    field.label
                ),
                if focused { theme.title } else { theme.dim },
            ),
            Span::raw(field.value.clone()),
        ];
        if focused {
            spans.push(Span::styled("█", theme.accent));
        }
        lines.push(Line::from(spans));
        if focused {
            lines.push(Line::styled(
                format!("  {:width$} {}", "", field.hint),
                theme.dim,
            ));
        }
    }
    if form.ignored_marks > 0 {
        lines.push(Line::styled(
            format!(
                "{} marked node(s) left out: {} acts on the selected node only (esc on the fleet clears marks)",
                form.ignored_marks,
                flow.kind.name()
            ),
            theme.warn,
        ));
    }
    for warning in form.warnings(flow.kind) {
        lines.push(Line::styled(format!("⚠ {warning}"), theme.warn));
    }
    if let Some(error) = &form.error {
        lines.push(Line::styled(format!("✗ {error}"), theme.bad));
    }
    lines
}

fn preview_lines(preview: &ActionPreview, theme: &Theme) -> Vec<Line<'static>> {
    // Whether it can go on, the waves and the nodes left alone, and who executes come first:
    // a long preview scrolls below them.
    let mut lines = Vec::new();
    if let Some(idle) = &preview.nothing_to_do {
        lines.push(Line::styled(
            format!("✓ nothing to do: {idle}; nothing will be asked"),
            theme.good,
        ));
    }
    if let Some(blocked) = &preview.blocked {
        lines.push(Line::styled(
            format!("✗ cannot go on: {blocked}"),
            theme.bad,
        ));
    }
    lines.extend(preview.head.lines().map(|line| {
        if line.contains(": skipped, nothing will be changed") || line.starts_with("canary: ") {
            Line::styled(format!("⚠ {line}"), theme.warn)
        } else if line.starts_with("Waves") {
            Line::styled(line.to_owned(), theme.header)
        } else {
            Line::raw(line.to_owned())
        }
    }));
    let permissions = &preview.permissions;
    if let Some(error) = &permissions.error {
        lines.push(Line::styled(format!("✗ permissions: {error}"), theme.bad));
    } else if permissions.denied.is_empty() {
        lines.push(Line::styled(
            format!(
                "✓ permissions: all {} calls allowed (SelfSubjectAccessReview)",
                permissions.checked
            ),
            theme.good,
        ));
    } else {
        lines.push(Line::styled(
            format!(
                "✗ permissions: {} of {} calls denied:",
                permissions.denied.len(),
                permissions.checked
            ),
            theme.bad,
        ));
        for denied in &permissions.denied {
            lines.push(Line::styled(format!("  {denied}"), theme.bad));
        }
    }
    // A rollout's head names its executor already (with its waves).
    if !preview.executor.is_empty() && !preview.head.lines().any(|l| l == preview.executor) {
        lines.push(Line::styled(preview.executor.clone(), theme.dim));
    }
    lines.extend(preview.text.lines().map(|line| {
        let trimmed = line.trim_start();
        if trimmed.starts_with("warning:") {
            Line::styled(format!("⚠ {trimmed}"), theme.warn)
        } else if !line.starts_with(' ') {
            Line::styled(line.to_owned(), theme.header)
        } else {
            Line::raw(line.to_owned())
        }
    }));
    lines
}

/// The widest the dialog gets: a wide terminal shows a preview's long lines whole.
const MAX_WIDTH: u16 = 160;

/// `+12s`, `+3m`, `+1h2m`: how long after `started` something happened, in the ages the
/// screens use.
fn since_start(started: jiff::Timestamp, at: jiff::Timestamp) -> String {
    format!("+{}", crate::fleet::text::age(Some(started), at))
}

/// The dialog's rectangle: centred, at most [`MAX_WIDTH`] wide, as tall as needed and fits.
fn popup(area: Rect, wanted_height: usize) -> Rect {
    let width = area.width.saturating_sub(2).min(MAX_WIDTH);
    let height = u16::try_from(wanted_height)
        .unwrap_or(u16::MAX)
        .min(area.height.saturating_sub(2).max(3))
        .min(area.height);
    Rect {
        x: area.x + (area.width.saturating_sub(width)) / 2,
        y: area.y + (area.height.saturating_sub(height)) / 2,
        width,
        height,
    }
}

/// The status line under the progress: running (for how long), or how it ended (wrapped,
/// never cut).
fn status_line(flow: &ActionFlow, now: jiff::Timestamp, theme: &Theme) -> Option<Line<'static>> {
    let Stage::Running {
        finished, started, ..
    } = &flow.stage
    else {
        return None;
    };
    Some(match finished {
        None => Line::styled(
            format!("▶ running… {}", since_start(*started, now)),
            theme.accent,
        ),
        // One line, its parts joined as the command line's end joins them.
        Some(end) if end.ok => Line::styled(format!("✓ {}", one_line(&end.message)), theme.good),
        Some(end) => Line::styled(format!("✗ {}", one_line(&end.message)), theme.bad),
    })
}

/// `text` on one line: its lines joined with "; " (a status line has no line breaks).
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// Draws the dialog; `cluster` (several clusters watched) is named in its title, so the
/// operator confirms knowing which cluster the action goes to.
pub fn render(
    flow: &ActionFlow,
    cluster: Option<&str>,
    now: jiff::Timestamp,
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
) {
    let (lines, hint) = content(flow, now, theme);
    let status = status_line(flow, now, theme);
    // The dialog's inner width (borders off): lines are wrapped to it under their own column.
    let inner_width = area.width.saturating_sub(4).clamp(1, MAX_WIDTH - 2);
    let lines = hanging(lines, inner_width);
    let inner_width = usize::from(inner_width);
    let status_height = status
        .as_ref()
        .map_or(0, |l| l.width().max(1).div_ceil(inner_width));
    let rect = popup(area, lines.len() + status_height + 3);
    frame.render_widget(Clear, rect);
    let title = match cluster {
        Some(cluster) => format!(" {} · cluster {cluster} ", flow.title()),
        None => format!(" {} ", flow.title()),
    };
    let block = Block::new()
        .borders(Borders::ALL)
        .border_style(theme.border)
        .title(Line::styled(title, theme.title))
        .style(theme.base);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let status_rows = u16::try_from(status_height)
        .unwrap_or(u16::MAX)
        .min(inner.height.saturating_sub(2));
    let [body, status_area, footer] = Layout::vertical([
        Constraint::Min(0),
        Constraint::Length(status_rows),
        Constraint::Length(1),
    ])
    .areas(inner);
    if let Some(status) = status {
        frame.render_widget(
            Paragraph::new(status).wrap(Wrap { trim: false }),
            status_area,
        );
    }
    let visible = usize::from(body.height);
    let paragraph = match &flow.stage {
        Stage::Running {
            scroll_from_end, ..
        } => {
            // Follow the end of the progress, unless scrolled back.
            let end = lines
                .len()
                .saturating_sub(usize::from(*scroll_from_end))
                .max(visible.min(lines.len()));
            let start = end.saturating_sub(visible);
            Paragraph::new(lines[start..end].to_vec())
        }
        Stage::Preview { scroll, .. } => {
            // Never past the end: the last page stays in view however far j goes.
            let last_page = u16::try_from(lines.len().saturating_sub(visible)).unwrap_or(u16::MAX);
            Paragraph::new(lines).scroll(((*scroll).min(last_page), 0))
        }
        _ => Paragraph::new(lines),
    };
    frame.render_widget(paragraph, body);
    frame.render_widget(Paragraph::new(Line::styled(hint, theme.dim)), footer);
}
