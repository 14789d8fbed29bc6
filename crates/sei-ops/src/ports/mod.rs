//! Traits through which the pure domain core reaches the world.
//!
//! The core (`api`, `planner`, `render`, `tasks`, `executor`, `fleet`) never talks to a cluster,
//! a socket or the wall clock directly; it receives one of these.
//!
//! The modules: this one (`Clock`, `SidecarApi` with `SidecarError` classed transient or terminal,
//! `PeerDialer` for the seed probe's TCP dial), `cluster_port` (`ClusterApi` with `ClusterError`
//! kinds: server-side dry-run apply, the console's own SeiNode writes as field manager
//! `sei-console`, Events, `list_events_for`, `service_account_exists`; `StatusPatch`, `NodeEvent`),
//! `probe` (the seed probe: `ProbeTarget`, `ProbeOutcome` with its seven checks, `SeedProber`),
//! `access` (`PermissionCheck`, `AccessReview`, `check_permissions`: namespace-wide first, names
//! only where denied, 8 in flight), `node_rpc`, `notify` (the webhook payload, `Notifier`,
//! `WebhookPost`), `logs` (`PodLogs`, typed `LogError`), and `testing`
//! (in-memory `FakeCluster` and `FakeSidecar`, behind `cfg(any(test, feature = "testing"))`: never
//! in the shipped binary).
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

/// Whether the process that holds a Lease is gone: a console that crashed left its node Lease
/// behind, and a rerun takes it over instead of refusing.
pub trait HolderProbe: Send + Sync {
    /// The holder's process is known gone: exited, or a zombie (`HolderProcess::is_gone`).
    fn is_gone(&self, holder: &str) -> bool;

    /// What this machine can tell of the holder's process. The default knows only `is_gone`.
    fn process(&self, holder: &str) -> HolderProcess {
        if self.is_gone(holder) {
            HolderProcess::Exited
        } else {
            HolderProcess::Unknown
        }
    }
}

/// What this machine can tell of a Lease holder's process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HolderProcess {
    /// Not a console of this machine (another machine, a chosen `SEI_CONSOLE_EXECUTOR_ID`), or
    /// no `/proc` to look in: only its Lease's renewals tell.
    Unknown,
    /// A process of this machine has the holder's pid and runs.
    Running,
    /// No process of this machine has the holder's pid: it exited or was killed.
    Exited,
    /// Killed or exited, not yet reaped by its parent (`/proc/<pid>/stat` state `Z` or `X`):
    /// it runs no more code.
    Zombie,
}

impl HolderProcess {
    /// Exited or a zombie: its Lease can be taken over at once.
    pub fn is_gone(self) -> bool {
        matches!(self, HolderProcess::Exited | HolderProcess::Zombie)
    }
}

/// Lease holders of this machine's consoles (`<prefix><pid>`, the executor's default identity):
/// gone when no process has that pid or it is a zombie (as the control plane's watchdog counts
/// one). Holders from elsewhere are never judged by their process.
#[derive(Debug, Clone)]
pub struct LocalProcesses {
    /// `sei-console-<host>-<boot>-` (`executor::driver::local_holder_prefix`).
    pub prefix: String,
}

impl HolderProbe for LocalProcesses {
    fn is_gone(&self, holder: &str) -> bool {
        self.process(holder).is_gone()
    }

    fn process(&self, holder: &str) -> HolderProcess {
        let Some(pid) = holder
            .strip_prefix(&self.prefix)
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            return HolderProcess::Unknown;
        };
        if pid == std::process::id() {
            return HolderProcess::Running;
        }
        process_state(pid)
    }
}

/// The state of this machine's process `pid`, from `/proc/<pid>/stat` (`Unknown` without a
/// `/proc`, as on macOS: never judged gone there).
pub fn process_state(pid: u32) -> HolderProcess {
    if !std::path::Path::new("/proc/self/stat").exists() {
        return HolderProcess::Unknown;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return if std::path::Path::new(&format!("/proc/{pid}")).exists() {
            HolderProcess::Running
        } else {
            HolderProcess::Exited
        };
    };
    // `pid (comm) S ...`: the command may hold spaces and parentheses; the state follows the
    // last `)`.
    let state = stat
        .rfind(')')
        .and_then(|at| stat[at + 1..].split_whitespace().next());
    match state {
        Some("Z" | "X" | "x") => HolderProcess::Zombie,
        _ => HolderProcess::Running,
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

/// How the console reaches the nodes' sidecars, which decides what its sidecar calls need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SidecarReach {
    /// Explicit addresses (tests, the demo's direct stand-ins): no Kubernetes permission.
    Direct,
    /// The API server's pod proxy: `pods/proxy`, verb from the HTTP method.
    PodProxy,
    /// A port-forward to kube-rbac-proxy as the operator: `create pods/portforward`, then the
    /// proxy's SubjectAccessReview on `seinodetasks` of the node (verb from the HTTP method).
    PortForward,
    /// kube-rbac-proxy dialled in the cluster with the pod's token: the proxy's review only.
    InCluster,
}

/// Whether the console's sidecar calls can carry the credential their path authenticates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SidecarCredential {
    /// The path takes what the identity has (a token, the pod proxy's own auth, an override).
    #[default]
    Usable,
    /// A port-forward to kube-rbac-proxy, which authenticates bearer tokens only, with an
    /// identity that has none (a client certificate): only the proxy's health paths answer.
    NoBearerToken,
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
    /// The answer's body was over the console's size bound (`limits::SIDECAR_BODY`): reading
    /// stopped at the limit and nothing of it was used.
    #[error(
        "sidecar of {target} answered {path} with at least {size} bytes, over the console's \
         limit of {limit}; the answer was not used"
    )]
    TooLarge {
        target: SidecarTarget,
        path: String,
        /// What was read or declared (`Content-Length`) when reading stopped.
        size: usize,
        limit: usize,
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
            | Self::Config { .. }
            | Self::TooLarge { .. } => ErrorClass::Terminal,
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

// ---------------------------------------------------------------------------------------------
// P2P dialer port used by the seed probe (`p2p::probe`).
// ---------------------------------------------------------------------------------------------

/// A byte stream to a peer: a TCP socket in production, an in-memory pipe in tests.
pub trait PeerStream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send> PeerStream for T {}

/// A connected stream and the two ends of it (for "dialled from where, to which IP").
pub struct DialedPeer {
    pub stream: Box<dyn PeerStream>,
    pub local: Option<std::net::SocketAddr>,
    pub remote: std::net::SocketAddr,
}

/// Why no connection was made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DialError {
    #[error("cannot resolve {host}: {reason}")]
    Resolve { host: String, reason: String },
    #[error("{host} resolves to no address")]
    NoAddress { host: String },
    /// Only loopback may be dialled here (`SEI_CONSOLE_P2P_LOOPBACK_ONLY`, set under the tests).
    #[error(
        "{host}: not dialled: only 127.0.0.0/8 is dialled here (SEI_CONSOLE_P2P_LOOPBACK_ONLY)"
    )]
    NotLoopback { host: String },
    #[error("connecting to {remote}: {reason}")]
    Connect {
        remote: std::net::SocketAddr,
        reason: String,
    },
}

pub type DialFuture<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<DialedPeer, DialError>> + Send + 'a>>;

/// Opens a connection to `host:port`; the caller bounds it in time.
pub trait PeerDialer: Send + Sync {
    fn dial<'a>(&'a self, host: &'a str, port: u16) -> DialFuture<'a>;
}

pub mod access;
pub mod logs;
pub mod node_rpc;
pub mod notify;
pub mod probe;
pub mod registry;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// The Kubernetes API port used by the controller-side tasks and the executor driver.
mod cluster_port;
pub use cluster_port::*;

/// Why Leases could not be read (forbidden, no answer in time…), in the API server's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LeaseReadError(pub String);
