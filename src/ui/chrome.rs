//! Header (scope and counts), STALE/forbidden banner, footer (input line, message or hints).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::Theme;
use crate::app::model::{InputKind, Model, Screen, WatchState};
use crate::fleet::text::{age, phase_symbol};

pub fn header(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let counts = &model.listing.counts;
    let mut spans = vec![
        Span::styled(" sei-console ", theme.title),
        Span::styled(format!("ctx:{} ", model.scope.context), theme.accent),
        Span::styled(
            format!("ns:{} ", model.scope.namespace_label()),
            theme.accent,
        ),
    ];
    if model.settings.guard.is_read_only() {
        spans.push(Span::styled("READ-ONLY ", theme.warn));
    }
    let shown = if counts.shown == counts.total {
        format!("│ {} nodes ", counts.total)
    } else {
        format!("│ {}/{} nodes ", counts.shown, counts.total)
    };
    spans.push(Span::styled(shown, theme.header));
    for (key, n) in counts.by_phase.iter().rev() {
        let style = match key.1.0 {
            Some(crate::api::Phase::Failed) => theme.bad,
            Some(crate::api::Phase::Running) => theme.good,
            _ => theme.warn,
        };
        let name = key.1.0.map_or("-", |p| p.as_str());
        spans.push(Span::styled(
            format!("{} {name} {n} ", phase_symbol(key.1.0)),
            style,
        ));
    }
    if !counts.by_mode.is_empty() {
        spans.push(Span::styled("│ ", theme.dim));
        for (mode, n) in &counts.by_mode {
            spans.push(Span::raw(format!(
                "{} {n} ",
                mode.map_or("?", |m| m.as_str())
            )));
        }
    }
    if counts.drifted > 0 {
        spans.push(Span::styled(
            format!("│ ≠drift {} ", counts.drifted),
            theme.warn,
        ));
    }
    if counts.warnings > 0 {
        spans.push(Span::styled(format!("⚠ {} ", counts.warnings), theme.warn));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The banner text: the oldest STALE watch, else a forbidden one, else the config file's first
/// problem (until the first key).
pub fn banner_line(model: &Model) -> Option<String> {
    if let Some((_, error)) = &model.server.silent {
        let confirmed = match model.server.confirmed_at {
            Some(at) => format!(
                "data last confirmed {} ago ({} UTC)",
                age(Some(at), model.now),
                at.to_zoned(jiff::tz::TimeZone::UTC).strftime("%H:%M:%S")
            ),
            None => "no data confirmed yet".to_owned(),
        };
        // The age first: it is what a narrow terminal must still show.
        return Some(format!(
            " STALE — {confirmed}: the API server does not answer ({error}) — retrying "
        ));
    }
    if let Some((kind, WatchState::Stale { since, error })) = model.stale() {
        let clock = since
            .to_zoned(jiff::tz::TimeZone::UTC)
            .strftime("%H:%M:%S")
            .to_string();
        return Some(format!(
            " STALE since {clock} UTC ({} ago) — {}: {error} — retrying ",
            age(Some(*since), model.now),
            kind.resource()
        ));
    }
    let detail_visible = matches!(model.screen, Screen::Node(_));
    model
        .watches
        .iter()
        .filter(|(kind, _)| detail_visible || !kind.is_detail())
        .find_map(|(kind, state)| match state {
            WatchState::Forbidden(error) => {
                Some(format!(" FORBIDDEN {}: {error} ", kind.resource()))
            }
            _ => None,
        })
        .or_else(|| skipped_line(model))
        .or_else(|| config_problem_line(model))
}

/// Objects left out because they could not be decoded: how many, the first named with why.
fn skipped_line(model: &Model) -> Option<String> {
    let skipped = model.fleet.skipped();
    let first = skipped.first()?;
    let more = match skipped.len() {
        1 => String::new(),
        n => format!(" (+{} more)", n - 1),
    };
    Some(format!(
        " SKIPPED {} undecodable object{}: {} {} — {}{more} ",
        skipped.len(),
        if skipped.len() == 1 { "" } else { "s" },
        first.kind,
        first.key,
        first.reason
    ))
}

fn config_problem_line(model: &Model) -> Option<String> {
    let problems = &model.settings.problems;
    let first = problems.first()?;
    let more = match problems.len() {
        1 => String::new(),
        n => format!(" (+{} more in the log)", n - 1),
    };
    Some(format!(" {first}{more} "))
}

pub fn banner(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    if let Some(text) = banner_line(model) {
        frame.render_widget(Paragraph::new(text).style(theme.banner), area);
    }
}

pub fn footer(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let line = if let Some(input) = &model.input {
        let prompt = match input.kind {
            InputKind::Filter => "/",
            InputKind::Command => ":",
        };
        let mut spans = vec![
            Span::styled(prompt, theme.title),
            Span::raw(input.text.clone()),
            Span::styled("█", theme.accent),
        ];
        if let Some(flash) = &model.flash {
            spans.push(Span::styled(format!("  {}", flash.text), theme.bad));
        }
        Line::from(spans)
    } else if let Some(flash) = &model.flash {
        let style = if flash.error { theme.bad } else { theme.good };
        Line::styled(flash.text.clone(), style)
    } else {
        let mut spans = Vec::new();
        if !model.marked.is_empty() {
            spans.push(Span::styled(
                format!("{} marked  ", model.marked.len()),
                theme.accent,
            ));
        }
        if !model.filter.is_empty() {
            spans.push(Span::styled(
                format!("filter: {}  ", model.filter),
                theme.accent,
            ));
        }
        let hints = match model.screen {
            Screen::Fleet => {
                "? help  / filter  enter open  space mark  i image  a address  n seed  s sort  q quit"
            }
            Screen::Node(_) => {
                "? help  tab next pane  j/k scroll  i image  a address  esc back  q quit"
            }
        };
        spans.push(Span::styled(hints, theme.dim));
        Line::from(spans)
    };
    frame.render_widget(Paragraph::new(line), area);
}
