//! Header (scope and counts), STALE/forbidden banner, footer (input line, message or hints).
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;
use crate::api::Phase;
use crate::app::model::{ClusterState, InputKind, Model, Screen, WatchState};
use crate::fleet::text::{age, phase_short, phase_symbol};

/// One piece of the header that is never split: its text in full and abbreviated.
struct Segment {
    full: String,
    short: String,
    style: Style,
    /// Lower is abbreviated first.
    keep: u8,
}

impl Segment {
    fn new(full: String, short: String, style: Style) -> Segment {
        Segment {
            full,
            short,
            style,
            keep: 0,
        }
    }

    fn keep(mut self, keep: u8) -> Segment {
        self.keep = keep;
        self
    }
}

/// The header's pieces in order of importance: scope, node totals (of the whole scope, the
/// filtered count beside them), phases, drift and warnings, then modes.
fn segments(model: &Model, theme: &Theme) -> Vec<Segment> {
    let counts = &model.listing.counts;
    let scope = format!(
        "ctx:{} ns:{}",
        model.scope.contexts_label(),
        model.scope.namespace_label()
    );
    let short_scope = if model.multi_cluster() {
        format!(
            "{} clusters ns:{}",
            model.scope.contexts.len(),
            model.scope.namespace_label()
        )
    } else {
        scope.clone()
    };
    let mut out = vec![
        Segment::new(" sei-console".into(), " sei".into(), theme.title).keep(2),
        Segment::new(scope, short_scope, theme.accent),
    ];
    if model.settings.guard.is_read_only() {
        out.push(Segment::new("READ-ONLY".into(), "RO".into(), theme.warn));
    }
    let nodes = if counts.shown == counts.total {
        format!("│ {} nodes", counts.total)
    } else {
        format!("│ {} nodes ({} shown)", counts.total, counts.shown)
    };
    let short = if counts.shown == counts.total {
        format!("│ {}", counts.total)
    } else {
        format!("│ {} ({} shown)", counts.total, counts.shown)
    };
    out.push(Segment::new(nodes, short, theme.header).keep(4));
    if model.multi_cluster() {
        // Each watched cluster's node count, the empty ones too (a cluster down shows 0).
        for context in &model.scope.contexts {
            let n = counts
                .by_context
                .get(context.as_str())
                .copied()
                .unwrap_or(0);
            out.push(
                Segment::new(
                    format!("{context} {n}"),
                    format!("{} {n}", crate::fleet::text::context_short(context)),
                    theme.dim,
                )
                .keep(3),
            );
        }
    }
    if !model.filter.is_empty() {
        let (full, short) = if model.filter_saved {
            (
                format!("saved filter: {}", model.filter),
                format!("saved /{}", model.filter),
            )
        } else {
            (
                format!("filter: {}", model.filter),
                format!("/{}", model.filter),
            )
        };
        out.push(Segment::new(full, short, theme.accent).keep(4));
    }
    for (key, n) in counts.by_phase.iter().rev() {
        let phase = key.1.0;
        let style = match phase {
            Some(Phase::Failed) => theme.bad,
            Some(Phase::Running) => theme.good,
            _ => theme.warn,
        };
        let name = phase.map_or("-", |p| p.as_str());
        out.push(
            Segment::new(
                format!("{} {name} {n}", phase_symbol(phase)),
                format!("{} {n}", phase_short(phase)),
                style,
            )
            .keep(1),
        );
    }
    // Nodes whose phase reads well but whose verdict does not (`▲ Run` in the table).
    if counts.sick > 0 {
        let mark = crate::fleet::verdict::SICK_MARK;
        out.push(
            Segment::new(
                format!("{mark} sick {}", counts.sick),
                format!("{mark}sick {}", counts.sick),
                theme.bad,
            )
            .keep(1),
        );
    }
    if counts.drifted > 0 {
        out.push(
            Segment::new(
                format!("│ ≠drift {}", counts.drifted),
                format!("│ ≠{}", counts.drifted),
                theme.warn,
            )
            .keep(3),
        );
    }
    if counts.warnings > 0 {
        let text = format!("⚠ {}", counts.warnings);
        out.push(Segment::new(text.clone(), text, theme.warn));
    }
    out.extend(crd_segments(model, theme));
    // The unfinished rollouts of every watched cluster (`:rollouts` lists them).
    for (full, short) in model.rollouts.header() {
        out.push(Segment::new(full, short, theme.accent).keep(3));
    }
    // The doctor's critical findings across every watched cluster (D lists them).
    let critical = model.doctor.critical();
    if critical > 0 {
        out.push(
            Segment::new(
                format!("│ ✖ {critical} critical (D)"),
                format!("│ ✖{critical}"),
                theme.bad,
            )
            .keep(3),
        );
    }
    // Chains whose reference RPC (config file) did not answer: their lag is measured against
    // the fleet top meanwhile (the node screen and `describe` say why).
    let down: Vec<&str> = model
        .fleet
        .references()
        .iter()
        .filter(|(_, reference)| reference.failure().is_some())
        .map(|(chain, _)| chain.as_str())
        .collect();
    if !down.is_empty() {
        let mark = crate::fleet::symbols::LAG_REFERENCE_DOWN;
        out.push(
            Segment::new(
                format!("│ {mark} {} (reference unreachable)", down.join(" ")),
                format!("│ {mark} {}", down.len()),
                theme.warn,
            )
            .keep(3),
        );
    }
    for (i, (mode, n)) in counts.by_mode.iter().enumerate() {
        let bar = if i == 0 { "│ " } else { "" };
        let name = mode.map_or("?", |m| m.as_str());
        let short = match name {
            "archive" => "arch",
            "replayer" => "repl",
            "validator" => "val",
            other => other,
        };
        out.push(Segment::new(
            format!("{bar}{name} {n}"),
            format!("{bar}{short} {n}"),
            theme.dim,
        ));
    }
    out
}

/// `│ CRD newer: 3 fields` for each watched cluster whose SeiNode CRD is not the one the
/// console ports (named by its cluster when several are watched); kept long (the operator
/// must see why actions are refused before trying).
fn crd_segments(model: &Model, theme: &Theme) -> Vec<Segment> {
    model
        .fleet
        .iter()
        .filter_map(|fleet| {
            let words = fleet.crd()?.header()?;
            let (full, short) = if model.multi_cluster() {
                let context = fleet.context();
                (
                    format!("│ {context} {words}"),
                    format!("│ {} {words}", crate::fleet::text::context_short(context)),
                )
            } else {
                (format!("│ {words}"), format!("│ {words}"))
            };
            Some(Segment::new(full, short, theme.warn).keep(4))
        })
        .collect()
}

/// The header in `width` columns: pieces are abbreviated from the least important up until the
/// header fits on one line, then wrapped between pieces, so no count is ever cut off.
pub fn header_lines(model: &Model, theme: &Theme, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width);
    let mut segments = segments(model, theme);
    let mut used: usize = segments.iter().map(|s| s.full.width() + 1).sum();
    let mut short = vec![false; segments.len()];
    let mut order: Vec<usize> = (0..segments.len()).collect();
    // Least important first; among equals, the later piece first.
    order.sort_by_key(|i| (segments[*i].keep, std::cmp::Reverse(*i)));
    for i in order {
        if used <= width {
            break;
        }
        used -= segments[i].full.width();
        used += segments[i].short.width();
        short[i] = true;
    }
    let mut lines: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    for (segment, short) in segments.drain(..).zip(short) {
        let text = if short { segment.short } else { segment.full };
        let w = text.width() + 1;
        if used > 0 && used + w > width {
            lines.push(vec![Span::raw(" ")]);
            used = 1;
        }
        used += w;
        if let Some(line) = lines.last_mut() {
            line.push(Span::styled(text, segment.style));
            line.push(Span::raw(" "));
        }
    }
    lines.into_iter().map(Line::from).collect()
}

pub fn header(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let lines = header_lines(model, theme, area.width);
    frame.render_widget(Paragraph::new(lines), area);
}

/// The banner lines: per watched cluster in trouble, one line (its API server silent, else its
/// oldest STALE watch, else a forbidden one), each naming its cluster when several are
/// watched, so one cluster down never reads as all of them; else undecodable objects, else
/// webhooks that recently failed (`app::notify`), else the config file's first problem (until the first key). At most [`MAX_BANNERS`] lines.
pub fn banner_lines(model: &Model) -> Vec<String> {
    let multi = model.multi_cluster();
    let mut lines: Vec<String> = model
        .clusters
        .iter()
        .filter_map(|(context, cluster)| {
            let name = if multi {
                format!(" {context}")
            } else {
                String::new()
            };
            cluster_banner(model, context, cluster, &name)
        })
        .collect();
    if lines.len() > MAX_BANNERS {
        let more = lines.len() - (MAX_BANNERS - 1);
        lines.truncate(MAX_BANNERS - 1);
        lines.push(format!(" … and {more} more clusters in trouble "));
    }
    if lines.is_empty()
        && let Some(line) = skipped_line(model)
            .or_else(|| crate::app::notify::banner_line(model))
            .or_else(|| config_problem_line(model))
    {
        lines.push(line);
    }
    lines
}

/// Banner lines at most (the table keeps the rest of the screen).
pub const MAX_BANNERS: usize = 3;

/// The first banner line, if any.
pub fn banner_line(model: &Model) -> Option<String> {
    banner_lines(model).into_iter().next()
}

/// The trouble of one cluster (`name`: how the line names it, empty for the only one).
fn cluster_banner(
    model: &Model,
    context: &str,
    cluster: &ClusterState,
    name: &str,
) -> Option<String> {
    if let Some((_, error)) = &cluster.server.silent {
        let confirmed = match cluster.server.confirmed_at {
            Some(at) => format!(
                "data last confirmed {} ago ({} UTC)",
                age(Some(at), model.now),
                at.to_zoned(jiff::tz::TimeZone::UTC).strftime("%H:%M:%S")
            ),
            None => "no data confirmed yet".to_owned(),
        };
        // The age first: it is what a narrow terminal must still show.
        return Some(format!(
            " STALE{name} — {confirmed}: the API server does not answer ({error}) — retrying "
        ));
    }
    let detail_visible = model.screen_context() == Some(context);
    if let Some((kind, WatchState::Stale { since, error })) = cluster.stale(detail_visible) {
        let clock = since
            .to_zoned(jiff::tz::TimeZone::UTC)
            .strftime("%H:%M:%S")
            .to_string();
        return Some(format!(
            " STALE{name} since {clock} UTC ({} ago) — {}: {error} — retrying ",
            age(Some(*since), model.now),
            kind.resource()
        ));
    }
    cluster
        .watches
        .iter()
        .filter(|(kind, _)| detail_visible || !kind.is_detail())
        .find_map(|(kind, state)| match state {
            WatchState::Forbidden(error) => {
                Some(format!(" FORBIDDEN{name} {}: {error} ", kind.resource()))
            }
            _ => None,
        })
}

/// Objects left out because they could not be decoded: how many, the first named with why.
fn skipped_line(model: &Model) -> Option<String> {
    let skipped = model.fleet.skipped();
    let (context, first) = skipped.first()?;
    let cluster = if model.multi_cluster() {
        format!(" in {context}")
    } else {
        String::new()
    };
    let more = match skipped.len() {
        1 => String::new(),
        n => format!(" (+{} more)", n - 1),
    };
    Some(format!(
        " SKIPPED {} undecodable object{}: {} {}{cluster} — {}{more} ",
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
    let lines: Vec<Line> = banner_lines(model)
        .into_iter()
        .map(|text| Line::styled(text, theme.banner))
        .collect();
    if !lines.is_empty() {
        frame.render_widget(Paragraph::new(lines), area);
    }
}

pub fn footer(model: &Model, theme: &Theme, frame: &mut Frame, area: Rect) {
    let search = match &model.logs {
        Some(logs) if logs.filter_typing => Some(("filter &", logs.filter_text.clone())),
        Some(logs) => Some(("search /", logs.search.clone())).filter(|_| logs.typing),
        None => model
            .viewer
            .as_ref()
            .filter(|v| v.typing)
            .map(|v| ("search /", v.search.clone())),
    };
    let line = if let Some((prompt, search)) = search {
        let mut spans = vec![
            Span::styled(prompt, theme.title),
            Span::raw(search),
            Span::styled("█", theme.accent),
        ];
        // A filter that does not compile says why beside the line still being typed.
        if let Some(flash) = model.flash.as_ref().filter(|f| f.error) {
            spans.push(Span::styled(format!("  {}", flash.text), theme.bad));
        }
        Line::from(spans)
    } else if let Some(input) = &model.input {
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
        let lines = flash_lines(&flash.text, area.width)
            .into_iter()
            .map(|line| line.style(style))
            .collect::<Vec<_>>();
        frame.render_widget(Paragraph::new(lines), area);
        return;
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
        let hints = match (&model.viewer, &model.screen) {
            _ if model.doctor.open => super::doctor::HINTS,
            _ if model.logs.is_some() => {
                "& filter  / search  n/N  t timestamps  ctrl-s save  c container  p previous  w wrap  j/k g/G scroll  esc close"
            }
            (Some(_), _) => "/ search  n/N  w wrap  h/l sideways  j/k g/G scroll  esc close",
            (None, Screen::Fleet) => {
                "? help  / filter  enter open  d describe  y yaml  l logs  space mark  i image  : command  q quit"
            }
            (None, Screen::Node(_)) => {
                "? help  tab next pane  j/k scroll  d describe  y yaml  l logs  i image  esc back  q quit"
            }
        };
        let used: usize = spans.iter().map(|s| s.content.width()).sum();
        let room = usize::from(area.width).saturating_sub(used);
        spans.push(Span::styled(fit_hints(hints, room), theme.dim));
        Line::from(spans)
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// Most rows a message takes in the footer: a longer one is cut there with `…`.
const MAX_FLASH_ROWS: usize = 4;

/// A message wrapped to `width` (issue 33: at 80 columns the quit question was cut before its
/// instruction), at most [`MAX_FLASH_ROWS`] rows, the last one ending in `…` when cut.
fn flash_lines(text: &str, width: u16) -> Vec<Line<'static>> {
    let mut lines = super::wrap::hanging(vec![Line::raw(text.to_owned())], width);
    if lines.len() > MAX_FLASH_ROWS {
        lines.truncate(MAX_FLASH_ROWS);
        if let Some(last) = lines.last_mut() {
            let mut text: String = last.spans.iter().map(|s| s.content.as_ref()).collect();
            while text.width() + 1 > usize::from(width) && text.pop().is_some() {}
            text.push('…');
            *last = Line::raw(text);
        }
    }
    lines
}

/// Rows the footer takes at `width`: one, or as many as the message being shown wraps to.
pub fn footer_height(model: &Model, width: u16) -> u16 {
    let typing = model.input.is_some()
        || model
            .logs
            .as_ref()
            .is_some_and(|l| l.typing || l.filter_typing)
        || model.viewer.as_ref().is_some_and(|v| v.typing);
    match &model.flash {
        Some(flash) if !typing => u16::try_from(flash_lines(&flash.text, width).len())
            .unwrap_or(1)
            .max(1),
        _ => 1,
    }
}

/// The footer's hints in `width` columns: every hint when they fit, else the first (`? help`,
/// which lists every key) and the last (`q quit`, `esc close`) with as many of the others, in
/// order, as fit, so no hint is cut mid-word (issue 27: 60 columns cut the footer).
fn fit_hints(hints: &str, width: usize) -> String {
    if hints.width() <= width {
        return hints.to_owned();
    }
    let items: Vec<&str> = hints.split("  ").collect();
    let [first, middle @ .., last] = items.as_slice() else {
        return hints.to_owned();
    };
    let gap = 2;
    let mut used = first.width() + gap + last.width();
    let mut kept = vec![*first];
    for item in middle {
        if used + gap + item.width() <= width {
            used += gap + item.width();
            kept.push(item);
        }
    }
    kept.push(last);
    kept.join("  ")
}
