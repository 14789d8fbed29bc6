//! The async executor driver: persists a plan built by the embedded planner (only when no Active
//! plan exists, under the node's resourceVersion), then drives it with the pure step function,
//! **one status patch per step** under a resourceVersion precondition. On a conflict the step's
//! in-memory result is dropped, the node re-read and the step redone (tasks are idempotent), so
//! another writer's change is never overwritten. Because every step starts from what status says,
//! a driver killed between steps resumes where the last patch left off, never re-running a
//! Complete task. Each pass first syncs the StatefulSet as the controller loop does, emitting
//! `StatefulSetRenderFailed` when that fails.
//!
//! Its entry points: `Driver::persist` (the sidecar probe of a Running node, then a plan only when
//! none is Active), `persist_as` (a new plan under the previewed plan ID, after resolving peers:
//! `peering`), `persist_for_spec`, `drive` and `drive_leased` (drives under a Lease the caller
//! holds, and hands off, `DriveReport::handed_off_to`, when the controller's Lease is live before a
//! step), `follow` (a plan followed by ID to a `FollowOutcome`: finished, cleared with the evidence
//! `handleTerminalPlan` leaves, or replaced) and `clear_completed_plan` (the next reconcile's
//! terminal-plan handling). Errors, progress events, the report and the settings are in
//! `driver/report.rs`; the StatefulSet sync and its typed `RenderFailure` in
//! `driver/statefulset_sync.rs`.
use std::time::{Duration, Instant};

use serde_json::Value;

use super::lease::NodeLease;
use super::{NextStep, Requeue, apply_phase_change, next_step, record_outcome};
use crate::api::{Phase, PlanPhase, SeiNode, SeiNodeStatus, TaskPlan, TaskStatus};
use crate::planner::{self, PlanContext, Resolution};
use crate::ports::{Clock, ClusterApi, ClusterError, SidecarApi, StatusPatch};
use crate::tasks::{TaskEnv, TaskOutcome, WorkloadRenderer, advance};

pub use report::{
    DriveReport, DriverConfig, DriverError, Progress, default_holder, local_holder_prefix,
};
pub use statefulset_sync::{RENDER_FAILED_REASON, RenderFailure};

/// The driver and the ports it talks through.
pub struct Driver<'a> {
    pub cluster: &'a dyn ClusterApi,
    pub sidecar: &'a dyn SidecarApi,
    pub renderer: &'a dyn WorkloadRenderer,
    pub clock: &'a dyn Clock,
    pub config: DriverConfig,
}

/// What [`Driver::persist`] found or did.
#[derive(Debug, Clone, PartialEq)]
pub enum Persisted {
    Built(TaskPlan),
    Resumed(TaskPlan),
    /// No plan: steady state, state-sync gate, paused or Failed node.
    None(String),
}

/// A JSON merge patch turning `before` into `after` (keys removed become `null`).
pub fn merge_diff(before: &Value, after: &Value) -> Option<Value> {
    match (before, after) {
        (Value::Object(old), Value::Object(new)) => {
            let mut patch = serde_json::Map::new();
            for (key, old_value) in old {
                match new.get(key) {
                    None => {
                        patch.insert(key.clone(), Value::Null);
                    }
                    Some(new_value) => {
                        if let Some(inner) = merge_diff(old_value, new_value) {
                            patch.insert(key.clone(), inner);
                        }
                    }
                }
            }
            for (key, new_value) in new {
                if !old.contains_key(key) {
                    patch.insert(key.clone(), new_value.clone());
                }
            }
            (!patch.is_empty()).then_some(Value::Object(patch))
        }
        (old, new) if old == new => None,
        (_, new) => Some(new.clone()),
    }
}

fn status_value(status: Option<&SeiNodeStatus>) -> Result<Value, DriverError> {
    serde_json::to_value(status.cloned().unwrap_or_default())
        .map_err(|err| DriverError::Encode(err.to_string()))
}

impl<'a> Driver<'a> {
    fn env(&self) -> TaskEnv<'_> {
        TaskEnv {
            cluster: self.cluster,
            sidecar: self.sidecar,
            renderer: self.renderer,
            now: self.clock.now(),
        }
    }

    async fn read(&self, namespace: &str, name: &str) -> Result<SeiNode, DriverError> {
        self.cluster
            .get_seinode(namespace, name)
            .await?
            .ok_or_else(|| DriverError::NodeNotFound {
                namespace: namespace.to_owned(),
                name: name.to_owned(),
            })
    }

    /// Refuses, before any step, a node carrying fields the port does not know: its plan
    /// could be one the controller would not run (a node held for maintenance).
    fn refuse_unknown_fields(&self, node: &SeiNode) -> Result<(), DriverError> {
        if self.config.allow_unknown_fields {
            return Ok(());
        }
        let paths = crate::api::schema::node_unknown_field_paths(node)
            .map_err(|err| DriverError::Encode(err.to_string()))?;
        if paths.is_empty() {
            return Ok(());
        }
        Err(DriverError::UnknownFields {
            namespace: node.namespace().to_owned(),
            name: node.name().to_owned(),
            paths,
        })
    }

    /// Writes `node.status` as a merge patch against `before` under `node`'s resourceVersion.
    /// On a conflict the node is re-read: when the other writer touched none of the top-level
    /// status fields this patch sets, the same patch is resent under the fresh resourceVersion
    /// (both writes survive); otherwise the conflict is returned and the caller redoes the step
    /// from the fresh state. Returns whether a patch was written and the conflicts absorbed.
    async fn flush(&self, before: &Value, node: &SeiNode) -> Result<(bool, u32), ClusterError> {
        let after = serde_json::to_value(node.status.clone().unwrap_or_default())
            .map_err(|e| ClusterError::new(crate::ports::ClusterErrorKind::Other, e.to_string()))?;
        let Some(status) = merge_diff(before, &after) else {
            return Ok((false, 0));
        };
        let mut patch = StatusPatch {
            resource_version: node.metadata.resource_version.clone().unwrap_or_default(),
            status,
        };
        let mut absorbed = 0;
        loop {
            let err = match self
                .cluster
                .patch_seinode_status(node.namespace(), node.name(), &patch)
                .await
            {
                Ok(_) => return Ok((true, absorbed)),
                Err(err) if err.is_conflict() => err,
                Err(err) => return Err(err),
            };
            if absorbed >= self.config.max_conflicts_per_step {
                return Err(err);
            }
            let Some(fresh) = self
                .cluster
                .get_seinode(node.namespace(), node.name())
                .await?
            else {
                return Err(err);
            };
            let fresh_status = serde_json::to_value(fresh.status.clone().unwrap_or_default())
                .map_err(|e| {
                    ClusterError::new(crate::ports::ClusterErrorKind::Other, e.to_string())
                })?;
            let untouched = patch
                .status
                .as_object()
                .is_some_and(|keys| keys.keys().all(|k| fresh_status.get(k) == before.get(k)));
            if !untouched {
                return Err(err);
            }
            absorbed += 1;
            patch.resource_version = fresh.metadata.resource_version.clone().unwrap_or_default();
        }
    }

    fn conflict_limit(
        &self,
        namespace: &str,
        name: &str,
        attempts: u32,
    ) -> Result<(), DriverError> {
        if attempts >= self.config.max_conflicts_per_step {
            return Err(DriverError::TooManyConflicts {
                namespace: namespace.to_owned(),
                name: name.to_owned(),
                attempts,
            });
        }
        Ok(())
    }

    /// Builds the plan the planner would build for the node now and persists it, unless an
    /// Active plan exists (then that one is returned). Retries on conflict from a fresh read.
    pub async fn persist(
        &self,
        namespace: &str,
        name: &str,
        platform_sidecar_image: &str,
    ) -> Result<Persisted, DriverError> {
        self.persist_as(namespace, name, platform_sidecar_image, None)
            .await
    }

    /// As [`Self::persist`], a new plan getting `plan_id` when given: the plan an operator saw
    /// in a preview is the plan persisted (same ID, same task IDs). Before planning, peers are
    /// resolved into `status.resolvedPeers` as the controller's reconcile does.
    pub async fn persist_as(
        &self,
        namespace: &str,
        name: &str,
        platform_sidecar_image: &str,
        plan_id: Option<uuid::Uuid>,
    ) -> Result<Persisted, DriverError> {
        self.persist_for_spec(namespace, name, platform_sidecar_image, plan_id, |_| {})
            .await
    }

    /// As [`Self::persist_as`], planning for the stored node with `edit` applied to it in
    /// memory: the plan a spec change will need, persisted before the change is written, so
    /// a live controller finds it Active and runs it instead of building its own. Only the
    /// status is written.
    pub async fn persist_for_spec(
        &self,
        namespace: &str,
        name: &str,
        platform_sidecar_image: &str,
        plan_id: Option<uuid::Uuid>,
        edit: impl Fn(&mut SeiNode),
    ) -> Result<Persisted, DriverError> {
        let mut conflicts = 0;
        loop {
            let mut node = self.read(namespace, name).await?;
            edit(&mut node);
            let before = status_value(node.status.as_ref())?;
            let phase = node.status.as_ref().and_then(|s| s.phase);
            if phase == Some(Phase::Failed) {
                return Ok(Persisted::None(
                    "SeiNode is in Failed state. Delete and recreate the resource to retry.".into(),
                ));
            }
            if node.spec.is_paused() {
                return Ok(Persisted::None(
                    "spec.paused is true; reconciliation is frozen".into(),
                ));
            }
            let mut ctx = PlanContext::new(platform_sidecar_image, self.clock.now());
            if let Some(id) = plan_id {
                ctx = ctx.with_plan_id(id);
            }
            self.resolve_peers(&mut node).await?;
            self.probe_sidecar(&mut node, &ctx).await;
            let resolution = planner::resolve_plan(&mut node, &ctx)
                .map_err(|err| DriverError::Plan(err.to_string()))?;
            let outcome = match resolution {
                Resolution::Resumed { .. } => {
                    let plan = node.status.as_ref().and_then(|s| s.plan.clone());
                    return Ok(plan.map_or(Persisted::None("no plan".into()), Persisted::Resumed));
                }
                Resolution::StateSyncBlocked => {
                    Persisted::None("state sync enabled but not ready; not building plan".into())
                }
                Resolution::SteadyState => Persisted::None("no drift: nothing to do".into()),
                Resolution::Built => match node.status.as_ref().and_then(|s| s.plan.clone()) {
                    Some(plan) => Persisted::Built(plan),
                    None => Persisted::None("no plan".into()),
                },
            };
            match self.flush(&before, &node).await {
                Ok(_) => return Ok(outcome),
                Err(err) if err.is_conflict() => {
                    conflicts += 1;
                    self.conflict_limit(namespace, name, conflicts)?;
                }
                Err(err) => return Err(err.into()),
            }
        }
    }

    /// `spec.peers` into `status.resolvedPeers` (in memory), as the controller's reconcile does
    /// before it plans; returns what was resolved.
    pub async fn resolve_peers(
        &self,
        node: &mut SeiNode,
    ) -> Result<super::peering::ResolvedPeers, DriverError> {
        let prior = node
            .status
            .as_ref()
            .and_then(|s| s.resolved_peers.clone())
            .unwrap_or_default();
        let resolved = super::peering::resolve_peers(self.cluster, self.sidecar, node, &prior)
            .await
            .map_err(|err| {
                DriverError::Plan(format!(
                    "reconciling peers: resolving peers: listing peers by label: {err}"
                ))
            })?;
        super::peering::store_resolved(node, &resolved.peers);
        Ok(resolved)
    }

    /// Drives the node's Active plan to its end while holding the node Lease.
    pub async fn drive(
        &self,
        namespace: &str,
        name: &str,
        progress: &mut (dyn FnMut(&Progress) + Send),
    ) -> Result<DriveReport, DriverError> {
        let mut lease = NodeLease::acquire(
            self.cluster,
            namespace,
            name,
            &self.config.holder,
            self.clock.now(),
        )
        .await?;
        let result = self
            .drive_held(namespace, name, Some(&mut lease), progress)
            .await;
        // Releasing is best effort: an unreleased Lease simply expires.
        let _ = lease.release(self.cluster).await;
        result
    }

    /// Drives the node's Active plan while the caller holds (and renews) the node Lease.
    pub async fn drive_leased(
        &self,
        namespace: &str,
        name: &str,
        progress: &mut (dyn FnMut(&Progress) + Send),
    ) -> Result<DriveReport, DriverError> {
        self.drive_held(namespace, name, None, progress).await
    }

    async fn drive_held(
        &self,
        namespace: &str,
        name: &str,
        mut lease: Option<&mut NodeLease>,
        progress: &mut (dyn FnMut(&Progress) + Send),
    ) -> Result<DriveReport, DriverError> {
        let started = Instant::now();
        let mut report = DriveReport {
            plan_id: String::new(),
            plan_phase: PlanPhase::Active,
            node_phase: None,
            conflicts: 0,
            patches: 0,
            steps: 0,
            handed_off_to: None,
        };
        let mut conflicts_in_step = 0;
        let mut last_render_failure: Option<RenderFailure> = None;
        let mut last_retry: Option<(usize, String)> = None;
        loop {
            if started.elapsed() > self.config.deadline {
                return Err(DriverError::Deadline(self.config.deadline));
            }
            if let Some(lease) = lease.as_deref_mut() {
                lease.renew(self.cluster, self.clock.now()).await?;
            }
            if let Some(holder) = self.live_controller().await? {
                report.handed_off_to = Some(holder);
                return Ok(report);
            }
            let mut node = self.read(namespace, name).await?;
            self.refuse_unknown_fields(&node)?;
            let before = status_value(node.status.as_ref())?;
            let Some(mut plan) = node.status.as_mut().and_then(|s| s.plan.take()) else {
                return Ok(report);
            };
            report.plan_id.clone_from(&plan.id);
            if !plan.is_active() {
                report.plan_phase = plan.phase;
                report.node_phase = node.status.as_ref().and_then(|s| s.phase);
                return Ok(report);
            }
            if node.status.as_ref().and_then(|s| s.phase) == Some(Phase::Failed) {
                report.node_phase = Some(Phase::Failed);
                return Ok(report);
            }
            // Controller loop step 7: the StatefulSet is synced on every pass.
            if let Err(failure) = self.sync_statefulset_pass(&mut node).await {
                if last_render_failure.as_ref() != Some(&failure) {
                    progress(&Progress::RenderFailed {
                        failure: failure.clone(),
                    });
                    last_render_failure = Some(failure.clone());
                }
                if self.config.halt_on_render_failure {
                    return Err(DriverError::RenderFailed(failure));
                }
                self.wait(Requeue::After(super::TASK_POLL_INTERVAL)).await;
                continue;
            }
            // Upstream's reconcile returns right after the StatefulSet sync (scaled to zero)
            // while the node is paused: an Active plan is frozen, never advanced.
            if node.spec.is_paused() {
                return Err(DriverError::Paused);
            }
            node.status_mut().plan = Some(plan.clone());
            let (requeue, transitions, finished) = self.step(&mut node, &mut plan).await;
            node.status_mut().plan = Some(plan.clone());
            report.steps += 1;
            match self.flush(&before, &node).await {
                Ok((wrote, absorbed)) => {
                    conflicts_in_step = 0;
                    report.conflicts += absorbed;
                    report.patches += u32::from(wrote);
                    for line in &transitions {
                        if let Progress::TaskRetrying { index, error, .. } = line {
                            let retry = (*index, error.clone());
                            if last_retry.as_ref() == Some(&retry) {
                                continue;
                            }
                            last_retry = Some(retry);
                        }
                        progress(line);
                    }
                    if finished {
                        report.plan_phase = plan.phase;
                        report.node_phase = node.status.as_ref().and_then(|s| s.phase);
                        if plan.phase == PlanPhase::Complete {
                            self.probe_after_plan(namespace, name).await;
                        }
                        progress(&Progress::PlanFinished {
                            plan_id: plan.id.clone(),
                            phase: plan.phase,
                            node_phase: report.node_phase,
                            conflicts: report.conflicts,
                        });
                        return Ok(report);
                    }
                    self.wait(requeue).await;
                }
                Err(err) if err.is_conflict() => {
                    report.conflicts += 1;
                    conflicts_in_step += 1;
                    self.conflict_limit(namespace, name, conflicts_in_step)?;
                }
                Err(err) => return Err(err.into()),
            }
        }
    }

    /// One step: advance the current task once (or complete the plan) and record the outcome.
    /// Returns the requeue, the progress lines to print once the step is persisted, and whether
    /// the plan ended.
    async fn step(
        &self,
        node: &mut SeiNode,
        plan: &mut TaskPlan,
    ) -> (Requeue, Vec<Progress>, bool) {
        let now = self.clock.now();
        let mut lines = Vec::new();
        match next_step(plan) {
            NextStep::Idle => (Requeue::Never, lines, true),
            NextStep::PlanComplete { target_phase } => {
                apply_phase_change(node.status_mut(), target_phase, now);
                (Requeue::Never, lines, true)
            }
            NextStep::RunTask { index, submit } => {
                let planned = plan.tasks[index].clone();
                let env = self.env();
                let outcome = advance(&planned, submit, &env, node).await;
                if let TaskOutcome::TransientError(error) = &outcome {
                    lines.push(Progress::TaskRetrying {
                        index,
                        task: planned.kind.to_string(),
                        id: planned.id.clone(),
                        error: error.clone(),
                    });
                }
                let result = record_outcome(plan, index, outcome, now);
                apply_phase_change(node.status_mut(), result.phase_change, now);
                let after = &plan.tasks[index];
                // A task that finishes in the step it was submitted gets one line, not two.
                if planned.submitted_at.is_none()
                    && after.submitted_at.is_some()
                    && after.status == TaskStatus::Pending
                {
                    lines.push(Progress::TaskStarted {
                        index,
                        task: after.kind.to_string(),
                        id: after.id.clone(),
                    });
                }
                if after.status != planned.status || after.retry_count != planned.retry_count {
                    lines.push(Progress::TaskTransition {
                        index,
                        task: after.kind.to_string(),
                        id: after.id.clone(),
                        from: planned.status,
                        to: after.status,
                        error: (after.status == TaskStatus::Failed)
                            .then(|| after.error.clone())
                            .or_else(|| plan.failed_task_detail.as_ref().map(|d| d.error.clone()))
                            .filter(|e| !e.is_empty()),
                        retry_count: after.retry_count,
                    });
                }
                let finished = plan.phase != PlanPhase::Active;
                let requeue = if result.continue_plan {
                    Requeue::After(Duration::ZERO)
                } else {
                    result.requeue
                };
                (requeue, lines, finished)
            }
        }
    }

    async fn wait(&self, requeue: Requeue) {
        let wait = match requeue {
            Requeue::Never => Duration::ZERO,
            Requeue::After(d) => d.min(self.config.max_wait),
        };
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

mod follow;
mod probe;
mod report;

pub use follow::{FollowOutcome, plan_transitions};
mod statefulset_sync;

#[cfg(test)]
mod tests;
