//! What the driver reports and how it is configured: its errors, its progress events, the
//! report of a run and its settings.
use std::time::Duration;

use serde::Serialize;

use super::statefulset_sync::{self, RENDER_FAILED_REASON, RenderFailure};
use crate::api::{Phase, PlanPhase, TaskStatus};
use crate::executor::lease::LeaseError;
use crate::ports::ClusterError;

/// Why the driver stopped before the plan ended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DriverError {
    #[error("SeiNode {namespace}/{name} not found")]
    NodeNotFound { namespace: String, name: String },
    #[error("{0}")]
    Cluster(#[from] ClusterError),
    #[error("{0}")]
    Lease(#[from] LeaseError),
    #[error("cannot build a plan: {0}")]
    Plan(String),
    #[error("status of {namespace}/{name} kept changing: {attempts} conflicting writes in a row")]
    TooManyConflicts {
        namespace: String,
        name: String,
        attempts: u32,
    },
    #[error("plan did not finish within {0:?}")]
    Deadline(Duration),
    #[error("cannot encode status: {0}")]
    Encode(String),
    /// The StatefulSet cannot be rendered and the driver was told to stop on it
    /// ([`DriverConfig::halt_on_render_failure`]); the failure's text is the event's message.
    #[error("{RENDER_FAILED_REASON}: {0}")]
    RenderFailed(RenderFailure),
    /// `spec.paused` was set while the plan was Active: as upstream's reconcile, the
    /// StatefulSet was synced (to zero replicas) and no task advanced.
    #[error(
        "spec.paused is true; reconciliation is frozen: the plan stays Active and no task runs until the node is resumed"
    )]
    Paused,
    /// The node carries fields the port does not know (`api::schema::node_unknown_field_paths`):
    /// the embedded executor runs no step of its plan (issue 36).
    #[error(
        "{namespace}/{name} carries fields sei-console does not know ({}): the embedded executor \
         does not run its plan; nothing was changed. Fix: let the controller run it (start it, \
         or use --executor controller), upgrade sei-console, or pass --allow-unknown-fields",
        paths.join(", ")
    )]
    UnknownFields {
        namespace: String,
        name: String,
        paths: Vec<String>,
    },
}

/// One line of progress, printed as text or as a JSON line.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Progress {
    /// A new plan was written to `status.plan`.
    PlanPersisted {
        plan_id: String,
        tasks: Vec<String>,
        phase: Option<String>,
    },
    /// An Active plan already existed; it is followed instead of replaced.
    PlanResumed {
        plan_id: String,
        complete: usize,
        total: usize,
    },
    /// Nothing to do for the node now.
    NoPlan { reason: String },
    /// A task was submitted for the first time (`submittedAt` stamped).
    TaskStarted {
        index: usize,
        task: String,
        id: String,
    },
    /// A task changed status (Complete, Failed) or was retried.
    TaskTransition {
        index: usize,
        task: String,
        id: String,
        from: TaskStatus,
        to: TaskStatus,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        retry_count: i64,
    },
    /// A task's submission or status read failed with an error the controller retries (the
    /// task stays Pending and nothing in `status.plan` says so, as upstream): said on the first
    /// failure and whenever the error changes, so a wait is never silent about why.
    TaskRetrying {
        index: usize,
        task: String,
        id: String,
        error: String,
    },
    /// A `StatefulSetRenderFailed` event was recorded (printed once per distinct message); the
    /// JSON line carries the event's message.
    RenderFailed {
        #[serde(
            rename = "message",
            serialize_with = "statefulset_sync::serialize_text"
        )]
        failure: RenderFailure,
    },
    /// The plan ended.
    PlanFinished {
        plan_id: String,
        phase: PlanPhase,
        node_phase: Option<Phase>,
        /// Status patches rejected by the resourceVersion precondition and redone.
        conflicts: u32,
    },
}

/// How a driven plan ended.
#[derive(Debug, Clone, PartialEq)]
pub struct DriveReport {
    pub plan_id: String,
    pub plan_phase: PlanPhase,
    pub node_phase: Option<Phase>,
    /// Status patches that were rejected by the resourceVersion precondition and redone.
    pub conflicts: u32,
    /// Status patches written.
    pub patches: u32,
    /// Steps (task advances) performed.
    pub steps: u32,
    /// A live controller took the plan over before it ended: its Lease holder. The driver
    /// stopped driving (one executor at a time); the caller follows the controller.
    pub handed_off_to: Option<String>,
}

/// Knobs; the defaults are the controller's cadence.
#[derive(Debug, Clone)]
pub struct DriverConfig {
    /// Lease holder identity.
    pub holder: String,
    /// Upper bound on any wait between passes (tests use a few ms).
    pub max_wait: Duration,
    /// Give up following the plan after this long.
    pub deadline: Duration,
    /// Consecutive conflicting patches tolerated in one step.
    pub max_conflicts_per_step: u32,
    /// Stop with [`DriverError::RenderFailed`] after recording the first
    /// `StatefulSetRenderFailed` event instead of retrying like the controller: an operator
    /// waiting on a command wants the fix now, not a retry loop.
    pub halt_on_render_failure: bool,
    /// Namespace of the controller's leader-election Lease, re-checked before every step: a
    /// controller that appears mid-plan gets the plan (the driver hands off). `None`: never
    /// checked (the controller stand-in, and tests without a controller).
    pub controller_namespace: Option<String>,
    /// Run the plan of a node that carries fields the port does not know (`--allow-unknown-fields`;
    /// the controller stand-in, which stands in for a controller that knows them).
    pub allow_unknown_fields: bool,
}

impl Default for DriverConfig {
    fn default() -> Self {
        Self {
            holder: default_holder(),
            max_wait: Duration::from_secs(30),
            deadline: Duration::from_secs(3600),
            max_conflicts_per_step: 50,
            halt_on_render_failure: false,
            controller_namespace: None,
            allow_unknown_fields: false,
        }
    }
}

/// Environment variable naming the executor's identity (its Lease holder). A restarted executor
/// with the same identity takes its node Leases back at once instead of waiting for expiry.
pub const ENV_EXECUTOR_ID: &str = "SEI_CONSOLE_EXECUTOR_ID";

/// `$SEI_CONSOLE_EXECUTOR_ID`, else `sei-console-<host>-<boot>-<pid>`.
pub fn default_holder() -> String {
    if let Ok(id) = std::env::var(ENV_EXECUTOR_ID)
        && !id.trim().is_empty()
    {
        return id.trim().to_owned();
    }
    format!("{}{}", local_holder_prefix(), std::process::id())
}

/// `sei-console-<host>-<boot>-`: the prefix of this machine's default executor identities. The
/// host is the kernel's host name (else `$HOSTNAME`, else `local`) and `<boot>` the first 8
/// characters of this boot's ID (`/proc/sys/kernel/random/boot_id`, left out where there is
/// none): a rerun takes over at once the Lease of a console of this machine whose process is
/// gone (`ports::LocalProcesses`), so the prefix must not match a console of another machine
/// that happens to have the same host name.
pub fn local_holder_prefix() -> String {
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    let host = read("/proc/sys/kernel/hostname")
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()))
        .unwrap_or_else(|| "local".into());
    match read("/proc/sys/kernel/random/boot_id") {
        Some(boot) => {
            let boot: String = boot.chars().filter(|c| *c != '-').take(8).collect();
            format!("sei-console-{host}-{boot}-")
        }
        None => format!("sei-console-{host}-"),
    }
}
