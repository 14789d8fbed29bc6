//! Faithful port of sei-k8s-controller's node planners (`internal/planner/*.go`,
//! spec/planner.md section 2). Pure: no I/O, the clock and plan IDs come from [`PlanContext`].
//!
//! Files mirror the Go files one for one: `planner.rs` (planner.go: ResolvePlan, gates,
//! progressions, overrides), `full.rs`, `archive.rs`, `replayer.rs` (replay.go), `validator.rs`,
//! `seed.rs`, `bootstrap.rs`, `genesis.rs` (buildGenesisPlan), `node_update.rs` (the running
//! path shared by every mode), `params.rs` (paramsForTaskType), `ids.rs` (task IDs, retry
//! budgets), `statesync.rs` (the node controller's StateSyncReady gate) and `preview.rs` (what
//! the node controller's next reconcile would plan, used by `sei-console plan`).
mod archive;
mod bootstrap;
mod full;
mod genesis;
pub mod ids;
mod node_update;
pub mod params;
#[allow(
    clippy::module_inception,
    reason = "planner.rs ports upstream's planner.go, one file per Go file"
)]
mod planner;
mod preview;
mod replayer;
mod seed;
pub mod statesync;
mod validator;

use jiff::Timestamp;

pub use bootstrap::{bootstrap_job_name, is_bootstrap_complete};
pub use ids::{PlanIdSource, task_id, task_max_retries};
pub use node_update::{
    UPDATE_PROGRESSION, effective_sidecar_image, image_drift_message, image_drifted,
    p2p_config_patch, sidecar_image_drifted, sidecar_needs_reapproval,
};
pub use params::{ConfigIntent, ConfigPatchParams, params_for_task};
pub use planner::{
    PlanClass, Resolution, SidecarProbe, apply_sidecar_probe, build_plan,
    build_sidecar_progression, classify_plan, common_overrides, handle_terminal_plan,
    merge_overrides, needs_bootstrap, needs_validate_node_key, needs_validate_operator_keyring,
    needs_validate_signing_key, plan_failure_message, resolve_plan, state_sync_blocks_plan,
    validate,
};
pub use preview::{NoPlanReason, Preview, preview};

/// What the planner needs from outside the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanContext {
    /// The platform's default sidecar image (`images.sidecar` of the controller's config), used
    /// when `spec.sidecar.image` is unset. Empty when no platform config is known.
    pub platform_sidecar_image: String,
    /// Where plan IDs come from.
    pub plan_ids: PlanIdSource,
    /// "Now", for `phaseTransitionTime` and condition transition times.
    pub now: Timestamp,
}

impl PlanContext {
    /// A context with random plan IDs (the controller's behaviour).
    pub fn new(platform_sidecar_image: impl Into<String>, now: Timestamp) -> Self {
        PlanContext {
            platform_sidecar_image: platform_sidecar_image.into(),
            plan_ids: PlanIdSource::Random,
            now,
        }
    }

    /// A context from the controller's platform config (its `images.sidecar` default).
    pub fn from_platform(platform: &crate::platform::PlatformConfig, now: Timestamp) -> Self {
        PlanContext::new(platform.images.sidecar.clone(), now)
    }

    /// The same context with every plan ID fixed, so task IDs are reproducible.
    pub fn with_plan_id(mut self, plan_id: uuid::Uuid) -> Self {
        self.plan_ids = PlanIdSource::Fixed(plan_id);
        self
    }
}

/// Why no plan could be built: the planner's exact error text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A mode's `Validate` rejected the node (message is the upstream wording).
    #[error("{0}")]
    Invalid(String),
    /// No mode sub-spec is set.
    #[error("no mode sub-spec set on SeiNode {namespace}/{name}")]
    NoModeSubSpec { namespace: String, name: String },
    /// A progression lacks the task another one must be inserted before (a planner bug).
    #[error("insertBefore: target {target:?} not found in progression [{progression}]")]
    InsertBefore { target: String, progression: String },
}

#[cfg(test)]
mod mode_tests;
#[cfg(test)]
mod oracle_tests;
#[cfg(test)]
mod pinned_tests;
/// Nodes and contexts for the tests of this crate and of the crates above (`testing` feature).
#[cfg(any(test, feature = "testing"))]
pub mod test_support;
