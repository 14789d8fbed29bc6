//! The node screen: spec summary, conditions, plan timeline, events, StatefulSet and Pods.
//! Wide terminals get two columns; narrow ones one scrolling column. Tab focuses a pane.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::node_column::{Column, column, spec_section};
use super::theme::Theme;
use crate::api::{PlanPhase, TaskStatus};
use crate::app::model::{Model, NodePane, WatchState};
use crate::app::node_scroll::NodeLayout;
use crate::fleet::describe::console_action_lines;
use crate::fleet::detail::{NodeDetail, RenderEventNow, SeedPeer};
use crate::fleet::running::{runs_text, since_text, took_text};
use crate::fleet::store::ObjectKey;
use crate::fleet::symbols;
use crate::fleet::text::{age, drift_text, plan_symbol, render_event_line, task_symbol};
use crate::fleet::watches::WatchKind;

mod workload;

/// Builds the lines of one pane.
pub fn pane_lines(
    pane: NodePane,
    detail: &NodeDetail,
    model: &Model,
    theme: &Theme,
) -> Vec<Line<'static>> {
    match pane {
        NodePane::Plan => plan_lines(detail, model, theme),
        NodePane::Conditions => condition_lines(detail, model, theme),
        NodePane::Events => event_lines(detail, model, theme),
        NodePane::Workload => workload::workload_lines(detail, model, theme),
    }
}

pub(super) fn title(text: &str, focused: bool, theme: &Theme) -> Line<'static> {
    let marker = if focused { "▸ " } else { "  " };
    Line::styled(format!("{marker}{text}"), theme.title)
}

fn kv(key: &str, value: String, style: Style, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("  {key:<17}"), theme.dim),
        Span::styled(value, style),
    ])
}

/// The node's fields sei-console does not know (a newer CRD's), when it has any.
fn unknown_fields_line(detail: &NodeDetail, theme: &Theme) -> Option<Line<'static>> {
    let text = crate::fleet::describe::unknown_fields_line(detail)?;
    Some(kv("unknown fields", text, theme.warn, theme))
}

pub(super) fn spec_lines(detail: &NodeDetail, model: &Model, theme: &Theme) -> Vec<Line<'static>> {
    let spec = &detail.spec;
    let base = Style::new();
    let mut lines = vec![
        kv(
            "mode",
            spec.mode
                .map_or("? (invalid: not exactly one mode)".to_owned(), |m| {
                    m.as_str().to_owned()
                }),
            base,
            theme,
        ),
        kv("chain", spec.chain_id.clone(), base, theme),
        super::verdict::phase_line(detail, model, theme),
    ];
    lines.extend(unknown_fields_line(detail, theme));
    lines.push(kv("image", spec.image.clone(), base, theme));
    let current = detail
        .current_image
        .clone()
        .unwrap_or_else(|| "(not observed yet)".to_owned());
    let drift_style = if detail.drift.any() {
        theme.warn
    } else {
        theme.good
    };
    let drift = if detail.drift.any() {
        format!(
            "{}{}",
            drift_text(detail.drift),
            since_text(detail.drift_since.as_ref(), model.now)
        )
    } else {
        "= in sync".to_owned()
    };
    lines.push(kv(
        "current image",
        format!("{current}  {drift}"),
        drift_style,
        theme,
    ));
    lines.push(kv(
        "runs",
        runs_text(detail.running.as_ref(), model.now),
        base,
        theme,
    ));
    lines.push(kv(
        "sidecar image",
        spec.sidecar_image.clone().unwrap_or_else(|| {
            "(platform default; unknown: ConfigMap sei-controller-config unreadable)".to_owned()
        }),
        base,
        theme,
    ));
    if let Some(current) = &detail.current_sidecar_image {
        lines.push(kv("current sidecar", current.clone(), base, theme));
    }
    lines.push(kv(
        "externalAddress",
        spec.external_address
            .clone()
            .unwrap_or_else(|| "-".to_owned()),
        base,
        theme,
    ));
    let peers = if spec.peers.is_empty() {
        "-".to_owned()
    } else {
        spec.peers.join("; ")
    };
    lines.push(kv("peers", peers, base, theme));
    let overrides = if spec.overrides.is_empty() {
        "-".to_owned()
    } else {
        spec.overrides
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    lines.push(kv("overrides", overrides, base, theme));
    let paused_style = if spec.paused { theme.warn } else { base };
    lines.push(kv(
        "paused",
        if spec.paused {
            "yes (reconcile frozen)"
        } else {
            "no"
        }
        .to_owned(),
        paused_style,
        theme,
    ));
    lines.push(kv("data volume", spec.data_volume.clone(), base, theme));
    lines.push(kv("age", age(detail.created, model.now), base, theme));
    match &detail.seed_peer {
        Some(SeedPeer::Known { peer, source }) => lines.push(kv(
            "seed peer",
            format!("{peer}  (from {source})"),
            theme.good,
            theme,
        )),
        Some(SeedPeer::Unknown(why)) => lines.push(kv("seed peer", why.clone(), theme.warn, theme)),
        None => {}
    }
    if let Some((probe, route)) = crate::fleet::probe::detail_lines(detail, model.now, true) {
        let style = match detail.probe.as_ref().and_then(|p| p.last.as_ref()) {
            Some(last) if last.ok => theme.good,
            Some(_) => theme.bad,
            None => theme.dim,
        };
        lines.push(kv("probe", probe, style, theme));
        if let Some(route) = route {
            lines.push(kv("", route, theme.dim, theme));
        }
    }
    lines.extend(super::chain_health::spec_lines(detail, model, theme));
    lines
}

fn condition_lines(detail: &NodeDetail, model: &Model, theme: &Theme) -> Vec<Line<'static>> {
    if detail.conditions.is_empty() {
        return vec![Line::styled("  no conditions yet", theme.dim)];
    }
    let mut lines = vec![Line::styled(
        format!(
            "  {:<22} {:<8} {:<20} {:>6}  MESSAGE",
            "TYPE", "STATUS", "REASON", "AGE"
        ),
        theme.header,
    )];
    for c in &detail.conditions {
        let brief = crate::fleet::rows::ConditionBrief {
            kind: c.kind.clone(),
            status: c.status.clone(),
            reason: c.reason.clone(),
        };
        let (symbol, style) = match (c.status.as_str(), brief.is_bad()) {
            (_, true) => ("✗", theme.bad),
            ("True", false) => ("✓", theme.good),
            ("Unknown", false) => ("?", theme.warn),
            _ => ("·", Style::new()),
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "{symbol} {:<22} {:<8} {:<20} {:>6}  ",
                    c.kind,
                    c.status,
                    c.reason,
                    age(c.since, model.now)
                ),
                style,
            ),
            Span::raw(c.message.clone()),
        ]));
    }
    lines
}

fn plan_lines(detail: &NodeDetail, model: &Model, theme: &Theme) -> Vec<Line<'static>> {
    let Some(plan) = &detail.plan else {
        return vec![Line::styled("  steady state: no plan", theme.good)];
    };
    let phase_style = match plan.phase {
        PlanPhase::Failed => theme.bad,
        PlanPhase::Active => theme.accent,
        PlanPhase::Complete => theme.good,
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(
            format!(
                "  {} {} {}/{}",
                plan_symbol(plan.phase),
                plan.phase,
                plan.done(),
                plan.tasks.len()
            ),
            phase_style,
        ),
        Span::styled(
            format!(
                "  target {}  on failure {}  id {}",
                plan.target_phase.map_or("-", |p| p.as_str()),
                plan.failed_phase.map_or("-", |p| p.as_str()),
                if plan.id.is_empty() { "-" } else { &plan.id }
            ),
            theme.dim,
        ),
    ])];
    if let Some(orphan) = &detail.orphan {
        lines.push(Line::styled(
            format!("  ▲ orphaned: {}", orphan.why),
            theme.warn,
        ));
        lines.push(Line::styled(
            format!("    resume it: {}", orphan.resume),
            theme.warn,
        ));
    }
    lines.push(Line::styled(
        format!(
            "  {:<2} {:<28} {:>7} {:>9} {:>13}  ERROR",
            "", "TASK", "RETRIES", "SUBMITTED", "TOOK"
        ),
        theme.header,
    ));
    for task in &plan.tasks {
        let style = match task.status {
            TaskStatus::Complete => theme.good,
            TaskStatus::Failed => theme.bad,
            _ if task.current => theme.accent,
            _ => theme.dim,
        };
        let submitted = task.submitted_at.map_or("-".to_owned(), |t| {
            format!("{} ago", age(Some(t), model.now))
        });
        lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "  {:<2} {:<28} {:>7} {:>9} {:>13}  ",
                    task_symbol(task.status, task.current),
                    task.kind,
                    format!("{}/{}", task.retries, task.max_retries),
                    submitted,
                    took_text(task.took, model.now)
                ),
                style,
            ),
            Span::styled(task.error.clone(), theme.bad),
        ]));
    }
    if let Some(failed) = &plan.failed {
        lines.push(Line::styled(
            format!(
                "  ✗ failed task #{}: {} ({}) after {}/{} retries",
                failed.index.map_or("?".to_owned(), |i| i.to_string()),
                failed.kind,
                failed.id,
                failed.retries,
                failed.max_retries
            ),
            theme.bad,
        ));
        lines.push(Line::styled(format!("    {}", failed.error), theme.bad));
    }
    lines
}

fn watch_note(model: &Model, kind: WatchKind, theme: &Theme) -> Option<Line<'static>> {
    match model.node_watch(kind)? {
        WatchState::Forbidden(error) => Some(Line::styled(
            format!("  ✖ {}: forbidden — {error}", kind.resource()),
            theme.bad,
        )),
        WatchState::Syncing => Some(Line::styled(
            format!("  … listing {}", kind.resource()),
            theme.dim,
        )),
        WatchState::Stale { error, .. } => Some(Line::styled(
            format!(
                "  ✗ {}: cannot read, shown as last seen — {error}",
                kind.resource()
            ),
            theme.bad,
        )),
        WatchState::Live => None,
    }
}

fn event_lines(detail: &NodeDetail, model: &Model, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = [
        WatchKind::NodeEvents,
        WatchKind::StatefulSetEvents,
        WatchKind::DetailEvents,
    ]
    .into_iter()
    .filter_map(|kind| watch_note(model, kind, theme))
    .collect();
    if detail.events.is_empty() {
        lines.push(Line::styled("  no events", theme.dim));
        return lines;
    }
    for event in &detail.events {
        let (symbol, style) = match (event.warning, event.is_render_failure()) {
            (_, true) => (symbols::RENDER_FAILED, theme.bad),
            (true, false) => (symbols::WARNING, theme.warn),
            (false, false) => ("·", theme.dim),
        };
        let kind = if event.warning { "Warning" } else { "Normal" };
        lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "{symbol} {kind:<7} {:<26} ×{:<3} {:>6} ",
                    event.reason,
                    event.count,
                    age(event.last_seen, model.now)
                ),
                style,
            ),
            Span::styled(format!("{} from {}", event.object, event.source), theme.dim),
        ]));
        let message_style = if event.is_render_failure() {
            theme.bad
        } else {
            Style::new()
        };
        lines.push(Line::styled(
            format!("    {}", event.message),
            message_style,
        ));
        // The fix, or that the platform config in use renders the node now (the event is
        // from before), as `describe` and the doctor say it.
        if event.is_render_failure()
            && let Some(verdict) = &detail.render_now
            && let Some(text) = render_event_line(verdict, event.last_seen, model.now)
        {
            let style = match verdict {
                RenderEventNow::FromBefore { .. } => theme.good,
                _ => theme.accent,
            };
            lines.push(Line::styled(format!("    {text}"), style));
        }
    }
    lines
}

/// The node's recorded console actions (`sei.io/console-actions`), newest last as Events read;
/// nothing when the node has no record.
pub(super) fn console_action_section(
    detail: &NodeDetail,
    model: &Model,
    theme: &Theme,
) -> Vec<Line<'static>> {
    if detail.console_actions.is_none() {
        return Vec::new();
    }
    let mut lines = vec![title("Console actions", false, theme)];
    for text in console_action_lines(detail, model.now, false) {
        let style = if text.starts_with('✖') {
            theme.bad
        } else {
            Style::new()
        };
        lines.push(match text.split_once(" ago ") {
            Some((age, rest)) if !text.starts_with('✖') => Line::from(vec![
                Span::styled(format!("  {age:>6} ago "), theme.dim),
                Span::styled(rest.to_owned(), style),
            ]),
            _ => Line::styled(format!("  {text}"), style),
        });
    }
    lines.push(Line::raw(""));
    lines
}

/// The node screen's title; with several clusters watched it names the node's cluster.
fn node_title(model: &Model, key: &ObjectKey) -> String {
    if model.multi_cluster() {
        format!(" SeiNode {key} · cluster {} ", key.context)
    } else {
        format!(" SeiNode {key} ")
    }
}

pub fn render(model: &Model, key: &ObjectKey, theme: &Theme, frame: &mut Frame, area: Rect) {
    let Some(detail) = &model.detail else {
        let text = vec![
            Line::styled(
                format!("  SeiNode {key} is gone (deleted, or not listed yet)."),
                theme.warn,
            ),
            Line::styled("  esc goes back to the fleet.", theme.dim),
        ];
        frame.render_widget(Paragraph::new(text), area);
        return;
    };
    let block = Block::new()
        .borders(Borders::TOP)
        .border_style(theme.border)
        .title(Line::styled(node_title(model, key), theme.title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // Two columns only where the left one still holds the conditions table (about 62 wide).
    let wide = inner.width >= 140 && inner.height >= 20;
    let mut layout = NodeLayout {
        known: true,
        ..NodeLayout::default()
    };
    if wide {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)])
                .areas(inner);
        // One column of gutter keeps a full left line from touching the right pane.
        let left_width = left.width.saturating_sub(1);
        let mut left_column = Column {
            lines: spec_section(detail, model, theme, left_width),
            starts: Vec::new(),
            height: left.height,
        };
        column(
            &[NodePane::Conditions, NodePane::Workload],
            detail,
            model,
            theme,
            left_width,
            &mut left_column.lines,
            &mut left_column.starts,
        );
        let mut right_column = Column {
            lines: Vec::new(),
            starts: Vec::new(),
            height: right.height,
        };
        column(
            &[NodePane::Plan, NodePane::Events],
            detail,
            model,
            theme,
            right.width,
            &mut right_column.lines,
            &mut right_column.starts,
        );
        left_column.record(&mut layout);
        right_column.record(&mut layout);
        frame.render_widget(left_column.paragraph(model), left);
        frame.render_widget(right_column.paragraph(model), right);
    } else {
        let mut one = Column {
            lines: Vec::new(),
            starts: Vec::new(),
            height: inner.height,
        };
        // A failed plan comes first, so its failing task is on the first screen.
        let failed = detail
            .plan
            .as_ref()
            .is_some_and(|plan| plan.phase == PlanPhase::Failed);
        let rest: &[NodePane] = if failed {
            column(
                &[NodePane::Plan],
                detail,
                model,
                theme,
                inner.width,
                &mut one.lines,
                &mut one.starts,
            );
            &[NodePane::Conditions, NodePane::Events, NodePane::Workload]
        } else {
            &[
                NodePane::Plan,
                NodePane::Conditions,
                NodePane::Events,
                NodePane::Workload,
            ]
        };
        one.lines
            .extend(spec_section(detail, model, theme, inner.width));
        column(
            rest,
            detail,
            model,
            theme,
            inner.width,
            &mut one.lines,
            &mut one.starts,
        );
        one.record(&mut layout);
        frame.render_widget(one.paragraph(model), inner);
    }
    model.node_layout.set(layout);
}
