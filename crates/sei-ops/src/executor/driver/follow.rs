//! Hand-off: a live controller executes the plan and the console follows it by its ID to a
//! verdict that matches what happened. The controller's next reconcile clears a terminal plan
//! (`handleTerminalPlan`) within about a second, so a follower polling every two seconds often
//! finds the plan gone: what the clearing leaves behind (the `NodeUpdateInProgress` condition
//! naming the plan, the node's phase) says how it ended.
use std::time::{Duration, Instant};

use super::{DriveReport, Driver, DriverError, Progress};
use crate::api::{ConditionType, PlanPhase, SeiNode, TaskPlan, TaskStatus};
use crate::executor::lease::{ControllerLiveness, controller_liveness};

/// How a followed plan ended.
#[derive(Debug, Clone, PartialEq)]
pub enum FollowOutcome {
    /// The plan was seen terminal.
    Finished(DriveReport),
    /// The plan was cleared from status after it ended; `evidence` says what showed how.
    Cleared {
        plan_id: String,
        phase: PlanPhase,
        evidence: String,
    },
    /// Another plan took its place and nothing shows the followed one ended.
    Replaced { plan_id: String, by: String },
}

impl Driver<'_> {
    /// The controller's Lease holder when a controller is live (checked only when the driver
    /// was told the controller's namespace).
    pub(super) async fn live_controller(&self) -> Result<Option<String>, DriverError> {
        let Some(namespace) = &self.config.controller_namespace else {
            return Ok(None);
        };
        Ok(
            match controller_liveness(self.cluster, namespace, self.clock.now()).await? {
                ControllerLiveness::Live { holder } => Some(holder),
                ControllerLiveness::NotLive { .. } => None,
            },
        )
    }

    /// Follows plan `plan_id` of the node, polling every `interval`, printing each task
    /// transition the executor makes, until the plan ends, is cleared or is replaced.
    pub async fn follow(
        &self,
        namespace: &str,
        name: &str,
        plan_id: &str,
        interval: Duration,
        progress: &mut (dyn FnMut(&Progress) + Send),
    ) -> Result<FollowOutcome, DriverError> {
        let started = Instant::now();
        let mut previous: Option<TaskPlan> = None;
        loop {
            let node = self.read(namespace, name).await?;
            let status = node.status.clone().unwrap_or_default();
            match status.plan.clone().filter(|plan| plan.id == plan_id) {
                Some(plan) => {
                    if let Some(before) = &previous {
                        for line in plan_transitions(before, &plan) {
                            progress(&line);
                        }
                    }
                    if !plan.is_active() {
                        progress(&Progress::PlanFinished {
                            plan_id: plan.id.clone(),
                            phase: plan.phase,
                            node_phase: status.phase,
                            conflicts: 0,
                        });
                        return Ok(FollowOutcome::Finished(DriveReport {
                            plan_id: plan.id.clone(),
                            plan_phase: plan.phase,
                            node_phase: status.phase,
                            conflicts: 0,
                            patches: 0,
                            steps: 0,
                            handed_off_to: None,
                        }));
                    }
                    previous = Some(plan);
                }
                None => {
                    let other = status.plan.as_ref().map(|p| p.id.clone());
                    return match cleared_verdict(&node, plan_id, previous.as_ref()) {
                        Some((phase, evidence)) => {
                            progress(&Progress::PlanFinished {
                                plan_id: plan_id.to_owned(),
                                phase,
                                node_phase: status.phase,
                                conflicts: 0,
                            });
                            Ok(FollowOutcome::Cleared {
                                plan_id: plan_id.to_owned(),
                                phase,
                                evidence,
                            })
                        }
                        None => match other {
                            Some(by) => Ok(FollowOutcome::Replaced {
                                plan_id: plan_id.to_owned(),
                                by,
                            }),
                            None => Err(DriverError::Plan(format!(
                                "plan {plan_id} was removed from status and nothing on the node shows how it ended"
                            ))),
                        },
                    };
                }
            }
            if started.elapsed() > self.config.deadline {
                return Err(DriverError::Deadline(self.config.deadline));
            }
            tokio::time::sleep(interval).await;
        }
    }
}

/// How plan `plan_id` ended, from what the controller's terminal-plan handling leaves behind:
/// `NodeUpdateInProgress` False with `plan <id> completed` / `plan <id> failed: …` (set when the
/// condition was True, as for every update plan), else the last observation of the plan
/// (every task Complete, or Failed), else the node at the plan's target phase (an init plan).
pub fn cleared_verdict(
    node: &SeiNode,
    plan_id: &str,
    last_seen: Option<&TaskPlan>,
) -> Option<(PlanPhase, String)> {
    let status = node.status.as_ref()?;
    if let Some(condition) = status.condition(ConditionType::NodeUpdateInProgress) {
        let message = condition.message.as_str();
        if message == format!("plan {plan_id} completed") {
            return Some((
                PlanPhase::Complete,
                format!("NodeUpdateInProgress: {message}"),
            ));
        }
        if message.starts_with(&format!("plan {plan_id} failed")) {
            return Some((
                PlanPhase::Failed,
                format!("NodeUpdateInProgress: {message}"),
            ));
        }
    }
    let last = last_seen?;
    if last.tasks.iter().all(|t| t.status == TaskStatus::Complete) {
        return Some((
            PlanPhase::Complete,
            "every task was Complete when last seen".to_owned(),
        ));
    }
    if last.tasks.iter().any(|t| t.status == TaskStatus::Failed) {
        return Some((
            PlanPhase::Failed,
            "a task was Failed when last seen".to_owned(),
        ));
    }
    match (last.target_phase, status.phase) {
        (Some(target), Some(phase)) if target == phase && last.failed_phase != Some(phase) => {
            Some((
                PlanPhase::Complete,
                format!("the node reached phase {phase}"),
            ))
        }
        _ => None,
    }
}

/// Task transitions between two observations of the same plan (hand-off mode).
pub fn plan_transitions(before: &TaskPlan, after: &TaskPlan) -> Vec<Progress> {
    if before.id != after.id {
        return Vec::new();
    }
    let mut lines = Vec::new();
    for (index, (old, new)) in before.tasks.iter().zip(&after.tasks).enumerate() {
        if old.submitted_at.is_none() && new.submitted_at.is_some() {
            lines.push(Progress::TaskStarted {
                index,
                task: new.kind.to_string(),
                id: new.id.clone(),
            });
        }
        if old.status != new.status || old.retry_count != new.retry_count {
            lines.push(Progress::TaskTransition {
                index,
                task: new.kind.to_string(),
                id: new.id.clone(),
                from: old.status,
                to: new.status,
                error: Some(new.error.clone()).filter(|e| !e.is_empty()),
                retry_count: new.retry_count,
            });
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(status: serde_json::Value) -> SeiNode {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "sei.io/v1alpha1", "kind": "SeiNode",
            "metadata": {"name": "a", "namespace": "ns"},
            "spec": {"chainId": "pacific-1", "image": "sei:v2", "fullNode": {}},
            "status": status
        }))
        .expect("node")
    }

    fn update_condition(message: &str) -> serde_json::Value {
        serde_json::json!({"phase": "Running", "conditions": [{
            "type": "NodeUpdateInProgress", "status": "False", "reason": "UpdateComplete",
            "message": message, "lastTransitionTime": "2026-12-01T00:00:00Z"
        }]})
    }

    fn plan(statuses: &[&str], target: Option<&str>) -> TaskPlan {
        serde_json::from_value(serde_json::json!({
            "id": "p1", "phase": "Active", "targetPhase": target,
            "tasks": statuses.iter().enumerate().map(|(i, s)| serde_json::json!({
                "type": "config-patch", "id": format!("t{i}"), "status": s
            })).collect::<Vec<_>>()
        }))
        .expect("plan")
    }

    #[test]
    fn the_controllers_terminal_plan_handling_names_the_plan_on_the_condition() {
        let done = node(update_condition("plan p1 completed"));
        assert_eq!(
            cleared_verdict(&done, "p1", None).map(|v| v.0),
            Some(PlanPhase::Complete)
        );
        let failed = node(update_condition("plan p1 failed: task config-patch: boom"));
        assert_eq!(
            cleared_verdict(&failed, "p1", None).map(|v| v.0),
            Some(PlanPhase::Failed)
        );
        // Another plan's verdict says nothing about this one.
        assert_eq!(cleared_verdict(&done, "p2", None), None);
    }

    #[test]
    fn without_the_condition_the_last_observation_or_the_target_phase_decides() {
        let running = node(serde_json::json!({"phase": "Running"}));
        let all_done = plan(&["Complete", "Complete"], None);
        assert_eq!(
            cleared_verdict(&running, "p1", Some(&all_done)).map(|v| v.0),
            Some(PlanPhase::Complete)
        );
        let mid = plan(&["Complete", "Pending"], Some("Running"));
        assert_eq!(
            cleared_verdict(&running, "p1", Some(&mid)).map(|v| v.0),
            Some(PlanPhase::Complete),
            "an init plan whose target phase the node reached"
        );
        let initializing = node(serde_json::json!({"phase": "Initializing"}));
        assert_eq!(cleared_verdict(&initializing, "p1", Some(&mid)), None);
        assert_eq!(
            cleared_verdict(&running, "p1", None),
            None,
            "nothing to go by"
        );
    }
}
