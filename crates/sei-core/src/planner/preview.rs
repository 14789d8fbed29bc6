//! What the node controller's next reconcile would plan (internal/controller/node/controller.go
//! steps 2, 6, 7, 9, 11 and 12 around ResolvePlan; spec/planner.md section 5). Pure: works on a
//! copy of the node.
use std::fmt;

use super::statesync::reconcile_state_sync_gate;
use super::{PlanContext, PlanError, Resolution, resolve_plan};
use crate::api::{ConditionType, Phase, SeiNode, TaskPlan};

/// Why the next reconcile would build no plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoPlanReason {
    /// `metadata.deletionTimestamp` is set: the deletion path runs instead.
    Deleting,
    /// Phase Failed is terminal; the controller never plans for it.
    Failed,
    /// `spec.paused` freezes reconciliation before planning.
    Paused,
    /// An adopted workflow occupies the node and suppresses the node planner.
    WorkflowAdopted { workflow: String },
    /// An Active plan exists and is resumed.
    Resumed { plan_id: String },
    /// The state-sync gate holds planning.
    StateSyncBlocked { status: String, reason: String },
    /// Running, no drift, sidecar readiness not lost.
    SteadyState,
}

impl fmt::Display for NoPlanReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoPlanReason::Deleting => f.write_str("the node is being deleted"),
            NoPlanReason::Failed => f.write_str(
                "the node is Failed, which is terminal; delete and recreate it to retry",
            ),
            NoPlanReason::Paused => f.write_str("spec.paused is true; reconciliation is frozen"),
            NoPlanReason::WorkflowAdopted { workflow } => {
                write!(
                    f,
                    "workflow {workflow} has adopted the node; node plans are suppressed"
                )
            }
            NoPlanReason::Resumed { plan_id } => {
                write!(f, "plan {plan_id} is Active and is resumed, not rebuilt")
            }
            NoPlanReason::StateSyncBlocked { status, reason } => write!(
                f,
                "state sync gate: StateSyncReady is {status}/{reason}; no plan until it is True"
            ),
            NoPlanReason::SteadyState => f.write_str(
                "steady state: images match what is running and the sidecar has not lost readiness",
            ),
        }
    }
}

/// The outcome of [`preview`].
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    /// The node as the reconcile would leave it in memory (conditions, phase, plan).
    pub node: SeiNode,
    /// The plan that would be persisted, or why there is none.
    pub outcome: Result<TaskPlan, NoPlanReason>,
}

/// Plans `node` as the next reconcile would. `canonical_syncers` is the platform config's
/// syncer list for the node's chain: when given, the StateSyncReady gate is re-evaluated as
/// the controller does on every reconcile; when `None`, the node's status is taken as is.
pub fn preview(
    node: &SeiNode,
    canonical_syncers: Option<&[String]>,
    ctx: &PlanContext,
) -> Result<Preview, PlanError> {
    let mut node = node.clone();
    let no_plan = |node: SeiNode, reason| {
        Ok(Preview {
            node,
            outcome: Err(reason),
        })
    };
    if node.metadata.deletion_timestamp.is_some() {
        return no_plan(node, NoPlanReason::Deleting);
    }
    if let Some(syncers) = canonical_syncers {
        reconcile_state_sync_gate(&mut node, Ok::<_, std::convert::Infallible>(syncers), ctx);
    }
    let status = node.status.as_ref();
    if status.and_then(|s| s.phase) == Some(Phase::Failed) {
        return no_plan(node, NoPlanReason::Failed);
    }
    if node.spec.is_paused() {
        return no_plan(node, NoPlanReason::Paused);
    }
    if let Some(workflow) = status.and_then(|s| s.adopted_workflow.as_ref()) {
        let workflow = workflow.name.clone();
        return no_plan(node, NoPlanReason::WorkflowAdopted { workflow });
    }
    let reason = match resolve_plan(&mut node, ctx)? {
        Resolution::Built => {
            let plan = node.status.as_ref().and_then(|s| s.plan.clone());
            return match plan {
                Some(plan) => Ok(Preview {
                    node,
                    outcome: Ok(plan),
                }),
                None => no_plan(node, NoPlanReason::SteadyState),
            };
        }
        Resolution::Resumed { plan_id } => NoPlanReason::Resumed { plan_id },
        Resolution::SteadyState => NoPlanReason::SteadyState,
        Resolution::StateSyncBlocked => {
            let condition = node
                .status
                .as_ref()
                .and_then(|s| s.condition(ConditionType::StateSyncReady));
            NoPlanReason::StateSyncBlocked {
                status: condition.map_or(String::new(), |c| c.status.clone()),
                reason: condition.map_or(String::new(), |c| c.reason.clone()),
            }
        }
    };
    no_plan(node, reason)
}
