//! The controller's sidecar probe (`NodeResolver.ResolvePlan` step 1), for the embedded executor.
//!
//! The controller probes a Running node's sidecar on every reconcile. The embedded executor
//! reconciles only while it has a plan to build or drive, so it probes where the controller's
//! reconciles would matter to what the node shows: before resolving a plan, and once more after
//! a plan completes. Without that last probe a node whose plan ended with `mark-ready` would keep
//! the `SidecarReady False/NotReady` seen before the plan (a restarted sidecar answers 503 until
//! `mark-ready`) whenever no controller runs to probe it again.
use super::{Driver, status_value};
use crate::api::{Phase, SeiNode};
use crate::planner::{self, PlanContext, SidecarProbe};
use crate::ports::SidecarTarget;

impl Driver<'_> {
    /// Probes the sidecar of `node` (Running nodes only, like the controller) and records the
    /// answer in its `SidecarReady` condition, in memory.
    pub(super) async fn probe_sidecar(&self, node: &mut SeiNode, ctx: &PlanContext) {
        if node.status.as_ref().and_then(|s| s.phase) != Some(Phase::Running) {
            return;
        }
        let target = SidecarTarget::new(node.namespace(), node.name());
        let probe = match self.sidecar.healthz(&target).await {
            Ok(true) => SidecarProbe::Ready,
            Ok(false) => SidecarProbe::NotReady,
            Err(err) => SidecarProbe::Error(err.to_string()),
        };
        planner::apply_sidecar_probe(node, &probe, ctx);
    }

    /// The probe of the reconcile that follows a completed plan, persisted. Best effort: the
    /// plan's outcome stands whatever happens here, so errors end it quietly.
    pub(super) async fn probe_after_plan(&self, namespace: &str, name: &str) {
        for _ in 0..self.config.max_conflicts_per_step.max(1) {
            let Ok(mut node) = self.read(namespace, name).await else {
                return;
            };
            let Ok(before) = status_value(node.status.as_ref()) else {
                return;
            };
            // Only `now` matters to a condition; the sidecar image is not read here.
            let ctx = PlanContext::new(String::new(), self.clock.now());
            self.probe_sidecar(&mut node, &ctx).await;
            match self.flush(&before, &node).await {
                Err(err) if err.is_conflict() => continue,
                Ok(_) | Err(_) => return,
            }
        }
    }

    /// The terminal-plan handling of the controller's next reconcile (`handleTerminalPlan`),
    /// persisted: a Complete plan `plan_id` is cleared and `NodeUpdateInProgress` goes False
    /// `UpdateComplete` naming it, so a node the console executed looks as a live controller
    /// would have left it. Best effort, like the probe.
    pub async fn clear_completed_plan(&self, namespace: &str, name: &str, plan_id: &str) {
        for _ in 0..self.config.max_conflicts_per_step.max(1) {
            let Ok(mut node) = self.read(namespace, name).await else {
                return;
            };
            let complete = node
                .status
                .as_ref()
                .and_then(|s| s.plan.as_ref())
                .is_some_and(|p| p.id == plan_id && p.phase == crate::api::PlanPhase::Complete);
            if !complete {
                return;
            }
            let Ok(before) = status_value(node.status.as_ref()) else {
                return;
            };
            let ctx = PlanContext::new(String::new(), self.clock.now());
            planner::handle_terminal_plan(&mut node, &ctx);
            match self.flush(&before, &node).await {
                Err(err) if err.is_conflict() => continue,
                Ok(_) | Err(_) => return,
            }
        }
    }
}
