//! Traits through which the pure domain core reaches the world.
//!
//! The core (`api`, `planner`, `render`, `tasks`, `executor`, `fleet`) never talks to a cluster,
//! a socket or the wall clock directly; it receives one of these.
use jiff::Timestamp;

/// Source of "now". Tests pass a fixed clock so plans, ages and snapshots are reproducible.
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;
}

/// The wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// A clock frozen at one instant.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub Timestamp);

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        self.0
    }
}

/// Which node's sidecar a call goes to: the SeiNode's namespace and name. The transport turns
/// it into an address (pod `<node>-0` behind the headless Service `<node>`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SidecarTarget {
    pub namespace: String,
    pub node: String,
}

impl SidecarTarget {
    pub fn new(namespace: impl Into<String>, node: impl Into<String>) -> Self {
        Self {
            namespace: namespace.into(),
            node: node.into(),
        }
    }

    /// The one pod of the node's StatefulSet, which runs the sidecar.
    pub fn pod_name(&self) -> String {
        format!("{}-0", self.node)
    }
}

impl std::fmt::Display for SidecarTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.node)
    }
}

/// Outcome of `DELETE /v0/tasks/{id}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteOutcome {
    Deleted,
    NotFound,
}

/// Whether retrying the same call later can succeed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Connection refused, DNS failure, timeout, 5xx: keep the step's state and retry later,
    /// as the controller does.
    Transient,
    /// A rejection (400), missing authorization, an unexpected status or an undecodable answer:
    /// retrying the same request will not help.
    Terminal,
}

/// Why a sidecar call failed. Messages name the node so one line on a screen is enough.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SidecarError {
    /// No answer: connection refused or reset, name not resolved, pod not there (yet).
    #[error("sidecar of {target} unreachable: {detail}")]
    Unreachable {
        target: SidecarTarget,
        detail: String,
    },
    /// No complete answer within the call's deadline.
    #[error("sidecar of {target} did not answer within {after:?}")]
    Timeout {
        target: SidecarTarget,
        after: std::time::Duration,
    },
    /// A 5xx answer (from the sidecar or from the API server's pod proxy).
    #[error("sidecar of {target} answered HTTP {status}: {body}")]
    ServerError {
        target: SidecarTarget,
        status: u16,
        body: String,
        /// The `Retry-After` advice, when given (failed DELETE).
        retry_after: Option<std::time::Duration>,
    },
    /// `GET /v0/node-id` answered 500: the node key does not exist yet.
    #[error("node ID of {target} not yet available: {message}")]
    NodeIdUnavailable {
        target: SidecarTarget,
        message: String,
    },
    /// `POST /v0/tasks` answered 400 (unknown type, malformed body, bad ID).
    #[error("sidecar of {target} rejected {task_type} task: {message}")]
    Rejected {
        target: SidecarTarget,
        task_type: crate::api::sidecar::SidecarTaskType,
        message: String,
    },
    /// 401 or 403, from kube-rbac-proxy, the API server or a trusted-header sidecar.
    #[error("not authorized to call the sidecar of {target} (HTTP {status}): {body}")]
    Unauthorized {
        target: SidecarTarget,
        status: u16,
        body: String,
    },
    /// Any other status the API does not define for this call.
    #[error("sidecar of {target} answered unexpected HTTP {status} to {call}: {body}")]
    UnexpectedStatus {
        target: SidecarTarget,
        call: &'static str,
        status: u16,
        body: String,
    },
    /// The answer had the right status but a body that breaks the protocol.
    #[error("sidecar of {target} sent a bad answer to {call}: {detail}")]
    Protocol {
        target: SidecarTarget,
        call: &'static str,
        detail: String,
    },
    /// The transport cannot even build the request (no token file, bad override template).
    #[error("cannot call the sidecar of {target}: {detail}")]
    Config {
        target: SidecarTarget,
        detail: String,
    },
}

impl SidecarError {
    pub fn class(&self) -> ErrorClass {
        match self {
            Self::Unreachable { .. }
            | Self::Timeout { .. }
            | Self::ServerError { .. }
            | Self::NodeIdUnavailable { .. } => ErrorClass::Transient,
            Self::Rejected { .. }
            | Self::Unauthorized { .. }
            | Self::UnexpectedStatus { .. }
            | Self::Protocol { .. }
            | Self::Config { .. } => ErrorClass::Terminal,
        }
    }

    pub fn is_transient(&self) -> bool {
        self.class() == ErrorClass::Transient
    }
}

/// A boxed, `Send` future: keeps [`SidecarApi`] object-safe so one `Arc<dyn SidecarApi>` can be
/// shared by the executor and the UI, and fakes can be swapped in tests.
pub type SidecarFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, SidecarError>> + Send + 'a>>;

/// The seictl sidecar's HTTP API (spec/sidecar.md section 2), one call per endpoint.
///
/// Implementations apply their own per-call deadlines (health 2 s, submit 30 s, the rest 15 s by
/// default) and map every failure to a [`SidecarError`] whose [`ErrorClass`] tells the executor
/// whether to retry.
pub trait SidecarApi: Send + Sync {
    /// `POST /v0/tasks`. `Ok` only for 201/202 whose echoed ID equals the request's ID.
    fn submit_task<'a>(
        &'a self,
        target: &'a SidecarTarget,
        request: &'a crate::api::sidecar::TaskRequest,
    ) -> SidecarFuture<'a, crate::api::sidecar::TaskSubmitResponse>;

    /// `GET /v0/tasks/{id}`; `Ok(None)` when the sidecar has no such task (404).
    fn get_task<'a>(
        &'a self,
        target: &'a SidecarTarget,
        id: uuid::Uuid,
    ) -> SidecarFuture<'a, Option<crate::api::sidecar::TaskResult>>;

    /// `GET /v0/tasks`: up to 100 recent tasks, newest first.
    fn list_tasks<'a>(
        &'a self,
        target: &'a SidecarTarget,
    ) -> SidecarFuture<'a, Vec<crate::api::sidecar::TaskResult>>;

    /// `DELETE /v0/tasks/{id}`: removes a result or cancels a running task.
    fn delete_task<'a>(
        &'a self,
        target: &'a SidecarTarget,
        id: uuid::Uuid,
    ) -> SidecarFuture<'a, DeleteOutcome>;

    /// `GET /v0/healthz`: `Ok(true)` on 200 (ready), `Ok(false)` on 503 (not ready).
    fn healthz<'a>(&'a self, target: &'a SidecarTarget) -> SidecarFuture<'a, bool>;

    /// `GET /v0/status`: the readiness flag as text.
    fn status<'a>(
        &'a self,
        target: &'a SidecarTarget,
    ) -> SidecarFuture<'a, crate::api::sidecar::SidecarStatus>;

    /// `GET /v0/node-id`: the CometBFT node ID (40 lowercase hex characters).
    fn node_id<'a>(&'a self, target: &'a SidecarTarget) -> SidecarFuture<'a, String>;
}
