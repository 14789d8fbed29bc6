//! The symbols the screens show, in one place, and the help's legend built from them: a screen
//! and the legend cannot disagree on a mark (`text`, `probe`, `columns` and the node screen
//! use these constants; a test fails when a fleet cell shows a symbol the legend lacks).
use super::sort::Column;
use crate::api::{Phase, PlanPhase};
use crate::chain::State;

pub const RUNNING: &str = "●";
pub const INITIALIZING: &str = "◐";
pub const PENDING: &str = "○";
pub const FAILED: &str = "✗";
pub const TERMINATING: &str = "⊘";
pub const NO_PHASE: &str = "·";
/// In place of the phase mark (`▲ Run`): the node's health verdict has a warning although its
/// phase reads healthy; a critical problem shows [`FAILED`] there (`✗ Run`).
pub const SICK: &str = "▲";

pub const PLAN_ACTIVE: &str = "▶";
pub const PLAN_COMPLETE: &str = "✓";
pub const PLAN_FAILED: &str = "✗";
pub const TASK_WAITING: &str = "·";
/// After an Active plan's progress: nobody runs it (`fleet::runners`).
pub const ORPHANED: &str = "orphaned";

pub const DRIFT_IMAGE: &str = "≠image";
pub const DRIFT_SIDECAR: &str = "≠sidecar";
pub const DRIFT_BOTH: &str = "≠image+sidecar";
pub const DRIFT_IMAGE_SHORT: &str = "≠img";
pub const DRIFT_SIDECAR_SHORT: &str = "≠sc";
pub const DRIFT_BOTH_SHORT: &str = "≠img+sc";

pub const CONDITIONS_OK: &str = "✓";
pub const CONDITION_BAD: &str = "✗";

/// The last Warning event of the node (fleet), a Warning event (node screen, `describe`).
pub const WARNING: &str = "⚠";
/// An event's count.
pub const TIMES: &str = "×";
/// A `StatefulSetRenderFailed` event on the node screen and in `describe`.
pub const RENDER_FAILED: &str = "✖";

/// After a seed's name: its last outside probe.
pub const PROBE_OK: &str = "✓";
pub const PROBE_FAILED: &str = "✗";
pub const PROBE_RUNNING: &str = "…";
/// After a lag figure in HEIGHT/LAG: measured against the chain's reference RPC (config file),
/// or against the fleet top because that reference did not answer.
pub const LAG_REFERENCE: &str = "ref";
pub const LAG_REFERENCE_DOWN: &str = "ref✗";
/// Before a node's name: marked with space for a rollout.
pub const MARKED: &str = "✓";
/// After a node's name: it carries fields sei-console does not know (a newer CRD's).
pub const UNKNOWN_FIELDS: &str = "?";

pub fn phase(phase: Option<Phase>) -> &'static str {
    match phase {
        Some(Phase::Running) => RUNNING,
        Some(Phase::Initializing) => INITIALIZING,
        Some(Phase::Pending) => PENDING,
        Some(Phase::Failed) => FAILED,
        Some(Phase::Terminating) => TERMINATING,
        None => NO_PHASE,
    }
}

pub fn plan(phase: PlanPhase) -> &'static str {
    match phase {
        PlanPhase::Active => PLAN_ACTIVE,
        PlanPhase::Complete => PLAN_COMPLETE,
        PlanPhase::Failed => PLAN_FAILED,
    }
}

/// One line of the legend: where the symbols are shown, the symbols, what they mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegendEntry {
    /// The fleet column (its full and compact titles) or the screen that shows them.
    pub place: String,
    pub symbols: String,
    pub meaning: String,
}

fn entry(place: &str, symbols: &[&str], meaning: &str) -> LegendEntry {
    LegendEntry {
        place: place.to_owned(),
        symbols: symbols.join(" "),
        meaning: meaning.to_owned(),
    }
}

/// Both titles of a fleet column when they differ (`IMAGE/DRIFT`).
fn column(column: Column) -> String {
    let full = super::columns::title(column, super::columns::Form::Full);
    let compact = super::columns::title(column, super::columns::Form::Compact);
    if full == compact {
        full.to_owned()
    } else {
        format!("{full}/{compact}")
    }
}

/// The legend of the help overlay, in the fleet's column order, then the node screen's.
pub fn legend() -> Vec<LegendEntry> {
    let health: Vec<&str> = [
        State::InSync,
        State::CatchingUp,
        State::Lagging,
        State::Stalled,
        State::Unreachable,
        State::Pending,
    ]
    .iter()
    .map(|s| s.mark())
    .collect();
    let health_words = [
        State::InSync,
        State::CatchingUp,
        State::Lagging,
        State::Stalled,
        State::Unreachable,
        State::Pending,
    ]
    .iter()
    .map(|s| s.word())
    .collect::<Vec<_>>()
    .join(", ");
    vec![
        entry(
            &column(Column::Name),
            &[&format!("{MARKED}name")],
            "node marked (space) for an image rollout",
        ),
        entry(
            &column(Column::Name),
            &[
                &format!("name {PROBE_OK}"),
                &format!("name {PROBE_FAILED}"),
                &format!("name {PROBE_RUNNING}"),
            ],
            "a seed's last outside probe (P): reachable, failed, being probed (not its phase)",
        ),
        entry(
            &column(Column::Name),
            &[&format!("name {UNKNOWN_FIELDS}")],
            "the node has fields sei-console does not know (a newer CRD): actions on it are \
             refused; enter names them",
        ),
        entry(
            &column(Column::Phase),
            &[
                RUNNING,
                INITIALIZING,
                PENDING,
                FAILED,
                TERMINATING,
                NO_PHASE,
            ],
            "Running, Initializing, Pending, Failed, Terminating, no phase yet",
        ),
        entry(
            &column(Column::Phase),
            &[&format!("{FAILED} Run"), &format!("{SICK} Run")],
            "the node is not healthy although its phase says otherwise: something failed, or a \
             warning (a failing condition, a Warning event of the node or its pod, a chain \
             problem, a failed probe); \
             /failed, /warning and /sick find them, the header counts them as sick",
        ),
        entry(
            &column(Column::Health),
            &health,
            &format!("chain health: {health_words}"),
        ),
        entry(
            &column(Column::Health),
            &[
                &format!("{PROBE_OK} N peers"),
                &format!("{PROBE_FAILED} N peers"),
                &format!("{PROBE_FAILED} unreachable"),
            ],
            "a seed (it serves no RPC), from its last probe: ready (reachable as its NodeID, \
             knows N peers through PEX), not ready (knows none, or a check failed: named), \
             unreachable",
        ),
        entry(
            &column(Column::Health),
            &[
                "-N",
                &format!("-N {LAG_REFERENCE}"),
                &format!("-N {LAG_REFERENCE_DOWN}"),
            ],
            "blocks behind the fleet top (the highest node of the chain), behind the chain's \
             reference RPC (config file), behind the fleet top because the reference is \
             unreachable",
        ),
        entry(
            &column(Column::Image),
            &[DRIFT_IMAGE, DRIFT_SIDECAR, DRIFT_BOTH],
            "the spec's image or sidecar differs from the one running (drift)",
        ),
        entry(
            &column(Column::Image),
            &[DRIFT_IMAGE_SHORT, DRIFT_SIDECAR_SHORT, DRIFT_BOTH_SHORT],
            "the same drift, compact (narrow terminals)",
        ),
        entry(
            &column(Column::Plan),
            &[PLAN_ACTIVE, PLAN_COMPLETE, PLAN_FAILED],
            "plan in progress, complete, failed; rN/M retries of the current task",
        ),
        entry(
            &column(Column::Conditions),
            &[CONDITIONS_OK, CONDITION_BAD],
            "every condition fine (how many), the failing ones (Type/Reason or how many)",
        ),
        entry(
            &column(Column::Warning),
            &[WARNING, &format!("{TIMES}N")],
            "the last Warning event's reason (a StatefulSetRenderFailed too), its count, age; \
             its pod's when newer (Pod NAME-0:, compact: pod), unless the pod outlived it",
        ),
        entry(
            "node screen",
            &[PLAN_ACTIVE, PLAN_COMPLETE, PLAN_FAILED, TASK_WAITING],
            "task: in progress, complete, failed, waiting",
        ),
        entry(
            "node screen",
            &[WARNING, RENDER_FAILED],
            "Warning event; StatefulSetRenderFailed (with its fix, or that it is from before)",
        ),
        entry(
            "header",
            &[RENDER_FAILED],
            "the fleet doctor's critical findings (D lists them)",
        ),
        entry(
            "header",
            &[&format!("{LAG_REFERENCE_DOWN} CHAIN")],
            "the chain's reference RPC (config file) did not answer: lag is measured against the \
             fleet top meanwhile",
        ),
        entry(
            "header",
            &["STALE"],
            "a watch failed; data is from the time shown, retrying",
        ),
    ]
}
