//! One health verdict per node that every screen agrees on (issue 27): the fleet's PHASE mark,
//! the header's sick count, the `/failed`, `/warning` and `/sick` filters, the node screen and
//! `get` (text, wide, JSON) all read [`judge`] over the node's row. A Running node with a
//! failing condition, a Warning event (its own or its pod's), a render failure, a failed plan,
//! a chain problem of its RPC or a seed unreachable from outside is not healthy anywhere.
//!
//! The judgements are the shared ones: a condition is bad by `ConditionBrief::is_bad` (the
//! doctor's `condition-failing` too), a chain verdict matters by `chain::concern` (the doctor's
//! chain findings too).
use serde::Serialize;

use super::events::RENDER_FAILED_REASON;
use super::rows::FleetRow;
use crate::api::{Phase, PlanPhase};
use crate::chain::Concern;

/// How bad a problem is, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something failed: the phase or the plan, a condition, the render, or the chain stalled.
    Critical,
    /// It works, but not as it should: a Warning event, a lagging or unreachable RPC, a seed
    /// the outside cannot reach.
    Warning,
}

/// What kind of problem (the JSON `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    PhaseFailed,
    PlanFailed,
    /// An Active plan nobody runs (`fleet::runners`).
    PlanOrphaned,
    ConditionFailing,
    RenderFailed,
    WarningEvent,
    /// A live Warning event of the node's pod (FailedScheduling, BackOff, …).
    PodWarning,
    Chain,
    SeedUnreachable,
}

/// One reason the node is not healthy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub severity: Severity,
    pub kind: ProblemKind,
    /// Short enough for a cell: `SidecarReady/Unreachable`, `plan failed at replace-pod`.
    pub text: String,
}

/// The node's verdict: healthy when it has no problem; problems worst first.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct NodeVerdict {
    pub problems: Vec<Problem>,
}

/// The mark of a node that is not healthy while its phase says otherwise (`▲ Run`).
pub const SICK_MARK: &str = super::symbols::SICK;

impl NodeVerdict {
    pub fn is_healthy(&self) -> bool {
        self.problems.is_empty()
    }

    /// The worst problem's severity (`None`: healthy).
    pub fn worst(&self) -> Option<Severity> {
        self.problems.first().map(|p| p.severity)
    }

    /// Whether something failed (the `/failed` filter).
    pub fn has_failed(&self) -> bool {
        self.worst() == Some(Severity::Critical)
    }

    /// One line: `healthy`, or the problems' texts worst first (`SidecarReady/Unreachable, RPC
    /// unreachable (refused)`).
    pub fn summary(&self) -> String {
        if self.is_healthy() {
            return "healthy".to_owned();
        }
        self.problems
            .iter()
            .map(|p| p.text.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The `get` table's HEALTH cell: `✓ ok`, or the mark and the worst problem, with how many
    /// more (`▲ SidecarReady/Unreachable +1`).
    pub fn cell(&self) -> String {
        match self.problems.as_slice() {
            [] => "✓ ok".to_owned(),
            [one] => format!("{} {}", mark(one.severity), one.text),
            [first, rest @ ..] => {
                format!("{} {} +{}", mark(first.severity), first.text, rest.len())
            }
        }
    }
}

/// `✗` for a critical problem, [`SICK_MARK`] for a warning.
pub fn mark(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => super::symbols::FAILED,
        Severity::Warning => SICK_MARK,
    }
}

/// The verdict on the node of `row`: its phase and plan, its conditions, its last Warning
/// event (a render failure is critical), its pod's live Warning event, its chain health as last judged and a seed's last
/// outside probe.
pub fn judge(row: &FleetRow) -> NodeVerdict {
    let mut problems = Vec::new();
    let mut add = |severity, kind, text: String| {
        problems.push(Problem {
            severity,
            kind,
            text,
        })
    };
    if row.phase == Some(Phase::Failed) {
        add(
            Severity::Critical,
            ProblemKind::PhaseFailed,
            "phase Failed".to_owned(),
        );
    }
    if let Some(plan) = row.plan.as_ref().filter(|p| p.phase == PlanPhase::Failed) {
        let at = plan
            .current
            .as_ref()
            .map(|t| format!(" at {}", t.kind))
            .unwrap_or_default();
        add(
            Severity::Critical,
            ProblemKind::PlanFailed,
            format!("plan failed{at}"),
        );
    }
    if row.orphan.is_some() {
        add(
            Severity::Warning,
            ProblemKind::PlanOrphaned,
            "plan orphaned: nobody runs it".to_owned(),
        );
    }
    for condition in row.bad_conditions() {
        add(
            Severity::Critical,
            ProblemKind::ConditionFailing,
            format!("{}/{}", condition.kind, condition.reason),
        );
    }
    if let Some(warning) = &row.last_warning {
        let (severity, kind) = if warning.reason == RENDER_FAILED_REASON {
            (Severity::Critical, ProblemKind::RenderFailed)
        } else {
            (Severity::Warning, ProblemKind::WarningEvent)
        };
        add(severity, kind, warning.reason.clone());
    }
    if let Some(warning) = &row.pod_warning {
        add(
            Severity::Warning,
            ProblemKind::PodWarning,
            format!("pod {}", warning.reason),
        );
    }
    if let Some(health) = row.health
        && let Some(concern) = health.concern()
    {
        let severity = match concern {
            Concern::Critical => Some(Severity::Critical),
            Concern::Warning => Some(Severity::Warning),
            // Catching up is progress, not sickness.
            Concern::Info => None,
        };
        if let Some(severity) = severity {
            let text = match (health.failure, health.one_peer) {
                // `RPC unreachable`, not `RPC unreachable (unreachable)`.
                (Some(why), _) if why != "unreachable" => {
                    format!("{} ({why})", health.state.word())
                }
                (_, true) => format!("{} with 1 peer", health.state.word()),
                (_, false) => health.state.word().to_owned(),
            };
            add(severity, ProblemKind::Chain, text);
        }
    }
    if row.probe_mark == Some(super::symbols::PROBE_FAILED) {
        add(
            Severity::Warning,
            ProblemKind::SeedUnreachable,
            "seed unreachable from outside".to_owned(),
        );
    }
    // Stable: within one severity, the order above (phase, plan, conditions, events, chain).
    problems.sort_by_key(|p| p.severity);
    NodeVerdict { problems }
}
