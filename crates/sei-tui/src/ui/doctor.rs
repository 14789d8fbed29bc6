//! The fleet doctor's view: the ranked findings, one line each, over the selected finding's
//! evidence and fix.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::theme::Theme;
use crate::app::model::Model;
use crate::fleet::text::age;
use crate::ops::doctor::{Finding, Severity};

/// The footer's hints while the doctor is open.
pub const HINTS: &str = "enter node  f fix  j/k g/G move  esc close  ? help";

fn severity_cell(severity: Severity, theme: &Theme) -> (&'static str, Style) {
    match severity {
        Severity::Critical => ("✖ crit", theme.bad),
        Severity::Warning => ("⚠ warn", theme.warn),
        Severity::Info => ("· info", theme.dim),
    }
}

/// `NODE` or `Kind/name` (with its cluster when several are watched).
fn object_label(finding: &Finding, multi: bool) -> String {
    let object = &finding.object;
    let name = match &object.node {
        Some(node) => node.clone(),
        None => format!("{}/{}", object.kind, object.name),
    };
    if multi {
        format!("{}/{name}", object.context)
    } else {
        name
    }
}

fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        format!("{text:<width$}")
    } else {
        let kept: String = text.chars().take(width.saturating_sub(1)).collect();
        format!("{kept}…")
    }
}

fn list_lines(model: &Model, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let multi = model.multi_cluster();
    let node_width = if width >= 140 { 32 } else { 20 };
    let class_width = if width >= 120 { 24 } else { 0 };
    model
        .doctor
        .findings
        .iter()
        .enumerate()
        .map(|(i, finding)| {
            let (severity, style) = severity_cell(finding.severity, theme);
            let mut text = format!(" {} ", cut(&object_label(finding, multi), node_width));
            if class_width > 0 {
                text.push_str(&cut(finding.class.as_str(), class_width));
                text.push(' ');
            }
            text.push_str(&finding.summary);
            let room = width.saturating_sub(7);
            let line = Line::from(vec![
                Span::styled(severity.to_owned(), style),
                Span::raw(cut(&text, room)),
            ]);
            if i == model.doctor.selected {
                line.style(theme.selected)
            } else {
                line
            }
        })
        .collect()
}

fn detail_lines(model: &Model, theme: &Theme, finding: &Finding) -> Vec<Line<'static>> {
    let object = &finding.object;
    let place = if object.namespace.is_empty() {
        object.name.clone()
    } else {
        format!("{}/{}", object.namespace, object.name)
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{} ", finding.class.as_str()), theme.title),
            Span::styled(format!("{} {place}", object.kind), theme.accent),
            Span::styled(
                if object.context.is_empty() {
                    String::new()
                } else {
                    format!(" in {}", object.context)
                },
                theme.dim,
            ),
        ]),
        Line::raw(finding.summary.clone()),
    ];
    for evidence in &finding.evidence {
        let when = evidence.at.map_or(String::new(), |at| {
            format!(" ({} ago)", age(Some(at), model.now))
        });
        lines.push(Line::from(vec![
            Span::styled(format!("  · {}: ", evidence.source), theme.dim),
            Span::raw(format!("{}{when}", evidence.detail)),
        ]));
    }
    lines.push(Line::from(vec![
        Span::styled("fix: ", theme.good),
        Span::raw(finding.fix.summary.clone()),
    ]));
    if let Some(command) = &finding.fix.command {
        let key = if finding.fix.action.is_some() {
            "  (f opens it)"
        } else {
            ""
        };
        lines.push(Line::from(vec![
            Span::styled("  $ ", theme.dim),
            Span::styled(command.clone(), theme.accent),
            Span::styled(key, theme.dim),
        ]));
    }
    lines
}

pub fn render(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let findings = &model.doctor.findings;
    let counts = crate::ops::doctor::Counts::of(findings);
    let mut title = format!(
        " doctor: {} critical, {} warning, {} info ",
        counts.critical, counts.warning, counts.info
    );
    // How old the reads of what the console does not watch are, where there is room.
    let more = match crate::app::doctor::reads_at(model) {
        Some(at) => format!(
            "(Leases, pods, PVCs, permissions read {} ago) ",
            crate::fleet::text::age(Some(at), model.now)
        ),
        None => "(reading Leases, pods, PVCs, permissions…) ".to_owned(),
    };
    if title.chars().count() + more.chars().count() + 2 <= usize::from(area.width) {
        title.push_str(&more);
    }
    let list_height = u16::try_from(findings.len().max(1))
        .unwrap_or(u16::MAX)
        .saturating_add(1)
        .min(area.height / 2);
    let [list_area, detail_area] =
        Layout::vertical([Constraint::Length(list_height), Constraint::Min(0)]).areas(area);
    let width = usize::from(list_area.width);
    let mut list = list_lines(model, theme, width);
    if list.is_empty() {
        list.push(Line::styled(
            " no findings in what the console watches",
            theme.good,
        ));
    }
    // Keep the selected finding in view.
    let rows = usize::from(list_height.saturating_sub(1)).max(1);
    let skip = model.doctor.selected.saturating_sub(rows - 1);
    let shown: Vec<Line> = list.into_iter().skip(skip).take(rows).collect();
    let block = Block::new()
        .borders(Borders::TOP)
        .title(Span::styled(title, theme.title))
        .border_style(theme.dim);
    frame.render_widget(Paragraph::new(shown).block(block), list_area);
    if let Some(finding) = findings.get(model.doctor.selected) {
        let lines = super::wrap::hanging(detail_lines(model, theme, finding), detail_area.width);
        let block = Block::new().borders(Borders::TOP).border_style(theme.dim);
        frame.render_widget(Paragraph::new(lines).block(block), detail_area);
    }
}
