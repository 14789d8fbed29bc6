//! Plain-text renderings of view-model cells, shared by the screens and `get`/`describe`.
//! Every status carries a symbol or word, so nothing depends on colour.
use jiff::Timestamp;

use super::rows::{Drift, FleetRow, PlanSummary};
use super::symbols;
use crate::api::{Phase, PlanPhase, TaskStatus};
use crate::render::fix::RenderEventNow;

/// kubectl-style age: `45s`, `12m`, `3h5m`, `4d2h`, `2y`.
pub fn age(since: Option<Timestamp>, now: Timestamp) -> String {
    let Some(since) = since else {
        return "-".to_owned();
    };
    let seconds = now.as_second().saturating_sub(since.as_second()).max(0);
    let (m, h, d) = (seconds / 60, seconds / 3600, seconds / 86_400);
    match seconds {
        s if s < 120 => format!("{s}s"),
        _ if m < 60 => format!("{m}m"),
        _ if h < 10 => match m % 60 {
            0 => format!("{h}h"),
            rest => format!("{h}h{rest}m"),
        },
        _ if h < 48 => format!("{h}h"),
        _ if d < 8 => match h % 24 {
            0 => format!("{d}d"),
            rest => format!("{d}d{rest}h"),
        },
        _ if d < 365 * 2 => format!("{d}d"),
        _ => format!("{}y", d / 365),
    }
}

/// Symbol of a node phase; `None` is a node the controller has not touched.
pub fn phase_symbol(phase: Option<Phase>) -> &'static str {
    symbols::phase(phase)
}

pub fn phase_text(phase: Option<Phase>) -> String {
    format!(
        "{} {}",
        phase_symbol(phase),
        phase.map_or("-", |p| p.as_str())
    )
}

pub fn plan_symbol(phase: PlanPhase) -> &'static str {
    symbols::plan(phase)
}

/// Glyph of a task in the timeline. Upstream never writes `Running`: the task in flight stays
/// `Pending`, so the current task is marked by position, not status.
pub fn task_symbol(status: TaskStatus, current: bool) -> &'static str {
    match status {
        TaskStatus::Complete => symbols::PLAN_COMPLETE,
        TaskStatus::Failed => symbols::PLAN_FAILED,
        TaskStatus::Running => symbols::PLAN_ACTIVE,
        TaskStatus::Pending if current => symbols::PLAN_ACTIVE,
        TaskStatus::Pending => symbols::TASK_WAITING,
    }
}

/// The last path segment of an image reference: `ghcr.io/sei-protocol/sei:v6.3.0` → `sei:v6.3.0`.
pub fn short_image(image: &str) -> &str {
    image.rsplit('/').next().unwrap_or(image)
}

pub fn drift_text(drift: Drift) -> &'static str {
    match (drift.image, drift.sidecar) {
        (true, true) => symbols::DRIFT_BOTH,
        (true, false) => symbols::DRIFT_IMAGE,
        (false, true) => symbols::DRIFT_SIDECAR,
        (false, false) => "",
    }
}

/// Image cell: short image, then the drift mark, then what the pod runs when that is another
/// image (`sei:v6.4.0 ≠image runs sei:v6.3.0`).
pub fn image_cell(row: &FleetRow) -> String {
    let mut text = short_image(&row.image).to_owned();
    let mark = drift_text(row.drift);
    if !mark.is_empty() {
        text.push(' ');
        text.push_str(mark);
    }
    if let Some(running) = row.running.as_ref().filter(|r| !r.is(&row.image)) {
        text.push_str(" runs ");
        text.push_str(short_image(&running.image));
    }
    text
}

/// The row's plan cell: [`plan_cell`], or `▶ 5/7 orphaned` for an Active plan nobody runs.
pub fn row_plan_cell(row: &FleetRow, now: Timestamp) -> String {
    match (&row.plan, &row.orphan) {
        (Some(plan), Some(_)) => orphaned_plan(plan),
        (plan, _) => plan_cell(plan.as_ref(), now),
    }
}

/// [`row_plan_cell`], compact.
pub fn row_plan_short(row: &FleetRow) -> String {
    match (&row.plan, &row.orphan) {
        (Some(plan), Some(_)) => orphaned_plan(plan),
        (plan, _) => plan_short(plan.as_ref()),
    }
}

fn orphaned_plan(plan: &PlanSummary) -> String {
    format!(
        "{} {}/{} {}",
        plan_symbol(plan.phase),
        plan.done,
        plan.total,
        symbols::ORPHANED
    )
}

/// Plan cell: `▶ 3/7 config-validate r1/3 2m`, `✗ 4/7 replace-pod r3/3`, `✓ 7/7`, `-`.
pub fn plan_cell(plan: Option<&PlanSummary>, now: Timestamp) -> String {
    let mut text = plan_short(plan);
    if let Some(plan) = plan
        && plan.phase != PlanPhase::Complete
        && let Some(task) = &plan.current
    {
        if task.max_retries > 0 || task.retries > 0 {
            text.push_str(&format!(" r{}/{}", task.retries, task.max_retries));
        }
        if task.submitted_at.is_some() {
            text.push(' ');
            text.push_str(&age(task.submitted_at, now));
        }
    }
    text
}

/// Condition cell: the bad conditions (`✗ SidecarReady/NotReady`), else `✓ N ok`.
pub fn conditions_cell(row: &FleetRow) -> String {
    let bad: Vec<String> = row
        .bad_conditions()
        .map(|c| format!("{}/{}", c.kind, c.reason))
        .collect();
    match (bad.as_slice(), row.conditions.len()) {
        ([], 0) => "-".to_owned(),
        ([], n) => format!("{} {n} ok", symbols::CONDITIONS_OK),
        (bad, _) => format!("{} {}", symbols::CONDITION_BAD, bad.join(" ")),
    }
}

/// Last-warning cell: `StatefulSetRenderFailed ×3 5m`, or the pod's when newer
/// (`Pod full-1-0: FailedScheduling ×3 5m`).
pub fn warning_cell(row: &FleetRow, now: Timestamp) -> String {
    match row.warning() {
        None => "-".to_owned(),
        Some(w) if w.count > 1 => format!(
            "{} {}{} {}{} {}",
            symbols::WARNING,
            w.object_prefix(),
            w.reason,
            symbols::TIMES,
            w.count,
            age(w.last_seen, now)
        ),
        Some(w) => format!(
            "{} {}{} {}",
            symbols::WARNING,
            w.object_prefix(),
            w.reason,
            age(w.last_seen, now)
        ),
    }
}

pub fn mode_text(row: &FleetRow) -> &'static str {
    row.mode.map_or("?", |m| m.as_str())
}

/// The row's phase with its verdict: a node that is not healthy while its phase does not say
/// so carries the verdict's mark instead of the phase's (`▲ Running`, `✗ Running`), so no
/// width hides it: the PHASE column is never dropped.
pub fn verdict_phase_text(row: &FleetRow) -> String {
    with_verdict_mark(row, phase_text(row.phase))
}

/// [`verdict_phase_text`], compact: `▲ Run`.
pub fn verdict_phase_short(row: &FleetRow) -> String {
    with_verdict_mark(row, phase_short(row.phase))
}

fn with_verdict_mark(row: &FleetRow, text: String) -> String {
    match row.verdict.worst().filter(|_| row.is_sick()) {
        Some(severity) => {
            let symbol = phase_symbol(row.phase);
            let rest = text.strip_prefix(symbol).unwrap_or(&text);
            format!("{}{rest}", super::verdict::mark(severity))
        }
        None => text,
    }
}

/// Compact phase: `◐ Init`.
pub fn phase_short(phase: Option<Phase>) -> String {
    let name = match phase {
        Some(Phase::Running) => "Run",
        Some(Phase::Initializing) => "Init",
        Some(Phase::Pending) => "Pend",
        Some(Phase::Failed) => "Fail",
        Some(Phase::Terminating) => "Term",
        None => "-",
    };
    format!("{} {name}", phase_symbol(phase))
}

/// Compact drift mark: `≠img`, `≠sc`, `≠img+sc`, `-` without drift.
pub fn drift_short(drift: Drift) -> &'static str {
    match (drift.image, drift.sidecar) {
        (true, true) => symbols::DRIFT_BOTH_SHORT,
        (true, false) => symbols::DRIFT_IMAGE_SHORT,
        (false, true) => symbols::DRIFT_SIDECAR_SHORT,
        (false, false) => "-",
    }
}

/// Compact plan: `▶ 3/7 config-validate`, without retries and age.
pub fn plan_short(plan: Option<&PlanSummary>) -> String {
    let Some(plan) = plan else {
        return "-".to_owned();
    };
    let mut text = format!("{} {}/{}", plan_symbol(plan.phase), plan.done, plan.total);
    if plan.phase != PlanPhase::Complete
        && let Some(task) = &plan.current
    {
        text.push(' ');
        text.push_str(&task.kind);
    }
    text
}

/// Compact conditions: `✗ 2` bad ones, else `✓ 3` good ones.
pub fn conditions_short(row: &FleetRow) -> String {
    match (row.bad_condition_count(), row.conditions.len()) {
        (0, 0) => "-".to_owned(),
        (0, n) => format!("{} {n}", symbols::CONDITIONS_OK),
        (bad, _) => format!("{} {bad}", symbols::CONDITION_BAD),
    }
}

/// Compact warning: `⚠ StatefulSetRenderFailed`, without count and age; a pod's says so
/// (`⚠ pod FailedScheduling`).
pub fn warning_short(row: &FleetRow) -> String {
    match row.warning() {
        None => "-".to_owned(),
        Some(w) if w.pod.is_some() => format!("{} pod {}", symbols::WARNING, w.reason),
        Some(w) => format!("{} {}", symbols::WARNING, w.reason),
    }
}

/// Longest abbreviated context in the fleet table's compact CLUSTER column.
pub const CONTEXT_SHORT: usize = 8;

/// A kubeconfig context abbreviated for 80 columns: the tail after an ARN's or a path's last
/// `/` or `:` (EKS contexts are ARNs ending in the cluster name), cut to [`CONTEXT_SHORT`]
/// characters with `…`.
pub fn context_short(context: &str) -> String {
    let tail = context
        .rsplit(['/', ':'])
        .find(|part| !part.is_empty())
        .unwrap_or(context);
    if tail.chars().count() <= CONTEXT_SHORT {
        return tail.to_owned();
    }
    let mut short: String = tail.chars().take(CONTEXT_SHORT - 1).collect();
    short.push('…');
    short
}

/// `text` cut to `width` display columns, its last one `…` when cut.
pub fn fit_width(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    if unicode_width::UnicodeWidthStr::width(text) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

fn clock(at: Timestamp) -> String {
    at.strftime("%H:%M:%SZ").to_string()
}

/// The line under a render-failure event last seen at `last_seen`: `fix: …`, or `from before:
/// …` with the event's last time and when the platform config that renders the node was read.
pub fn render_event_line(
    verdict: &RenderEventNow,
    last_seen: Option<Timestamp>,
    now: Timestamp,
) -> Option<String> {
    let ago = |at: Timestamp| age(Some(at), now);
    match verdict {
        RenderEventNow::StillFails { fix: Some(fix), .. } => Some(format!("fix: {fix}")),
        RenderEventNow::StillFails { error, fix: None } => Some(format!(
            "still fails with the platform config in use: {error}"
        )),
        RenderEventNow::Unchecked { fix: Some(fix) } => Some(format!(
            "fix: {fix} (not checked: the platform config in use was not read)"
        )),
        RenderEventNow::Unchecked { fix: None } => None,
        RenderEventNow::FromBefore { source, read_at } => {
            let seen = last_seen.map_or(String::new(), |at| {
                format!(" (last seen {} ago, {})", ago(at), clock(at))
            });
            let read = read_at.map_or(String::new(), |at| {
                format!(", read {} ago ({}),", ago(at), clock(at))
            });
            let after = match (last_seen, read_at) {
                (Some(seen), Some(read)) if seen > *read => {
                    "; it was seen after that read: the controller may use another config"
                }
                _ => "",
            };
            Some(format!(
                "from before{seen}: {source}{read} renders the node now{after}"
            ))
        }
    }
}
