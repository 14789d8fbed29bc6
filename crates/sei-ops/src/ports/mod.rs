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

/// Whether the process that holds a Lease is gone: a console that crashed left its node Lease
/// behind, and a rerun waits for it to expire instead of refusing.
pub trait HolderProbe: Send + Sync {
    fn is_gone(&self, holder: &str) -> bool;
}

/// Lease holders of this machine's consoles (`<prefix><pid>`, the executor's default identity):
/// gone when no process has that pid. Holders from elsewhere are never judged gone.
#[derive(Debug, Clone)]
pub struct LocalProcesses {
    /// `sei-console-<host>-`.
    pub prefix: String,
}

impl HolderProbe for LocalProcesses {
    fn is_gone(&self, holder: &str) -> bool {
        holder
            .strip_prefix(&self.prefix)
            .and_then(|pid| pid.parse::<u32>().ok())
            .is_some_and(|pid| {
                pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists()
            })
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

// ---------------------------------------------------------------------------------------------
// Kubernetes API port used by the controller-side tasks and the executor driver.
// ---------------------------------------------------------------------------------------------

pub mod access;
pub mod logs;
pub mod node_rpc;
pub mod probe;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use cluster_port::*;

mod cluster_port {
    use std::collections::BTreeMap;

    use k8s_openapi::api::apps::v1::StatefulSet;
    use k8s_openapi::api::batch::v1::Job;
    use k8s_openapi::api::coordination::v1::Lease;
    use k8s_openapi::api::core::v1::{
        ConfigMap, Event, PersistentVolume, PersistentVolumeClaim, Pod, Secret, Service,
    };

    use crate::api::SeiNode;

    /// SSA field manager of every node resource the tasks apply (upstream `fieldOwner`).
    pub const FIELD_MANAGER: &str = "seinode-controller";

    /// Field manager of the console's own SeiNode writes (spec patches, created seeds), so the
    /// audit log and `managedFields` tell the console from anyone else.
    pub const CONSOLE_FIELD_MANAGER: &str = "sei-console";

    /// What kind of failure an API call met; tasks branch on it, never on message text.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ClusterErrorKind {
        NotFound,
        AlreadyExists,
        /// A resourceVersion precondition failed (HTTP 409 Conflict).
        Conflict,
        Forbidden,
        /// Anything else: other HTTP statuses, transport failures, undecodable answers.
        Other,
    }

    /// A failed API call. `Display` is the API server's own message (as Go's `%w` would print
    /// it), e.g. `persistentvolumeclaims "data-a" not found`.
    #[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
    #[error("{message}")]
    pub struct ClusterError {
        pub kind: ClusterErrorKind,
        pub message: String,
    }

    impl ClusterError {
        pub fn new(kind: ClusterErrorKind, message: impl Into<String>) -> Self {
            Self {
                kind,
                message: message.into(),
            }
        }

        pub fn is_not_found(&self) -> bool {
            self.kind == ClusterErrorKind::NotFound
        }

        pub fn is_conflict(&self) -> bool {
            self.kind == ClusterErrorKind::Conflict
        }

        pub fn is_already_exists(&self) -> bool {
            self.kind == ClusterErrorKind::AlreadyExists
        }
    }

    /// The namespaced object kinds the tasks read, create, apply or delete.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum ObjectKind {
        StatefulSet,
        Service,
        PersistentVolumeClaim,
        ConfigMap,
        Job,
        Secret,
        Pod,
    }

    impl ObjectKind {
        /// Lower-case plural resource name, as the API server words its messages.
        pub fn plural(self) -> &'static str {
            match self {
                ObjectKind::StatefulSet => "statefulsets",
                ObjectKind::Service => "services",
                ObjectKind::PersistentVolumeClaim => "persistentvolumeclaims",
                ObjectKind::ConfigMap => "configmaps",
                ObjectKind::Job => "jobs",
                ObjectKind::Secret => "secrets",
                ObjectKind::Pod => "pods",
            }
        }

        /// The kind as an Event's `involvedObject.kind` names it.
        pub fn kind_name(self) -> &'static str {
            match self {
                ObjectKind::StatefulSet => "StatefulSet",
                ObjectKind::Service => "Service",
                ObjectKind::PersistentVolumeClaim => "PersistentVolumeClaim",
                ObjectKind::ConfigMap => "ConfigMap",
                ObjectKind::Job => "Job",
                ObjectKind::Secret => "Secret",
                ObjectKind::Pod => "Pod",
            }
        }
    }

    /// One namespaced object of a kind in [`ObjectKind`]. Variants stay unboxed: a handful
    /// live at a time, one per API call.
    #[allow(
        clippy::large_enum_variant,
        reason = "a handful live at a time, one per API call; boxing buys nothing"
    )]
    #[derive(Debug, Clone, PartialEq)]
    pub enum ClusterObject {
        StatefulSet(StatefulSet),
        Service(Service),
        PersistentVolumeClaim(PersistentVolumeClaim),
        ConfigMap(ConfigMap),
        Job(Job),
        Secret(Secret),
        Pod(Pod),
    }

    impl ClusterObject {
        pub fn kind(&self) -> ObjectKind {
            match self {
                ClusterObject::StatefulSet(_) => ObjectKind::StatefulSet,
                ClusterObject::Service(_) => ObjectKind::Service,
                ClusterObject::PersistentVolumeClaim(_) => ObjectKind::PersistentVolumeClaim,
                ClusterObject::ConfigMap(_) => ObjectKind::ConfigMap,
                ClusterObject::Job(_) => ObjectKind::Job,
                ClusterObject::Secret(_) => ObjectKind::Secret,
                ClusterObject::Pod(_) => ObjectKind::Pod,
            }
        }

        pub fn metadata(&self) -> &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            match self {
                ClusterObject::StatefulSet(o) => &o.metadata,
                ClusterObject::Service(o) => &o.metadata,
                ClusterObject::PersistentVolumeClaim(o) => &o.metadata,
                ClusterObject::ConfigMap(o) => &o.metadata,
                ClusterObject::Job(o) => &o.metadata,
                ClusterObject::Secret(o) => &o.metadata,
                ClusterObject::Pod(o) => &o.metadata,
            }
        }

        pub fn metadata_mut(
            &mut self,
        ) -> &mut k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            match self {
                ClusterObject::StatefulSet(o) => &mut o.metadata,
                ClusterObject::Service(o) => &mut o.metadata,
                ClusterObject::PersistentVolumeClaim(o) => &mut o.metadata,
                ClusterObject::ConfigMap(o) => &mut o.metadata,
                ClusterObject::Job(o) => &mut o.metadata,
                ClusterObject::Secret(o) => &mut o.metadata,
                ClusterObject::Pod(o) => &mut o.metadata,
            }
        }

        pub fn name(&self) -> &str {
            self.metadata().name.as_deref().unwrap_or("")
        }

        pub fn namespace(&self) -> &str {
            self.metadata().namespace.as_deref().unwrap_or("")
        }
    }

    /// How a delete cascades to dependents.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Propagation {
        /// The server's default for the kind (background for most).
        Default,
        Foreground,
    }

    /// A JSON merge patch of a SeiNode's `status` subresource with an optimistic lock: the
    /// server rejects it with [`ClusterErrorKind::Conflict`] unless the stored object still has
    /// `resource_version` (controller-runtime `MergeFromWithOptimisticLock`).
    #[derive(Debug, Clone, PartialEq)]
    pub struct StatusPatch {
        pub resource_version: String,
        /// The merge patch of `status` alone (keys set to `null` are removed).
        pub status: serde_json::Value,
    }

    impl StatusPatch {
        /// The full request body: the status patch plus the `metadata.resourceVersion` precondition.
        pub fn body(&self) -> serde_json::Value {
            serde_json::json!({
                "metadata": {"resourceVersion": self.resource_version},
                "status": self.status,
            })
        }
    }

    /// Event type of a Kubernetes Event.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum EventType {
        Normal,
        Warning,
    }

    impl EventType {
        pub fn as_str(self) -> &'static str {
            match self {
                EventType::Normal => "Normal",
                EventType::Warning => "Warning",
            }
        }
    }

    /// An Event recorded on a SeiNode, as the controller's recorder (`seinode-controller`) does.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct NodeEvent {
        pub namespace: String,
        pub node: String,
        pub node_uid: String,
        pub event_type: EventType,
        pub reason: String,
        pub message: String,
    }

    /// A boxed `Send` future, keeping [`ClusterApi`] object-safe (`Arc<dyn ClusterApi>`).
    pub type ClusterFuture<'a, T> =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, ClusterError>> + Send + 'a>>;

    /// Exactly the Kubernetes calls the controller-side tasks and the executor driver make.
    ///
    /// Reads of absent objects return `Ok(None)`; every other failure is a [`ClusterError`]
    /// whose kind the caller branches on.
    pub trait ClusterApi: Send + Sync {
        /// `GET` a SeiNode.
        fn get_seinode<'a>(
            &'a self,
            namespace: &'a str,
            name: &'a str,
        ) -> ClusterFuture<'a, Option<SeiNode>>;

        /// Merge-patch the SeiNode's status subresource under a resourceVersion precondition.
        /// Returns the stored node (with its new resourceVersion).
        fn patch_seinode_status<'a>(
            &'a self,
            namespace: &'a str,
            name: &'a str,
            patch: &'a StatusPatch,
        ) -> ClusterFuture<'a, SeiNode>;

        /// JSON merge patch of a SeiNode's spec or metadata: the console's own change of a node
        /// (field manager [`CONSOLE_FIELD_MANAGER`]). Returns the stored node.
        fn patch_seinode<'a>(
            &'a self,
            namespace: &'a str,
            name: &'a str,
            patch: &'a serde_json::Value,
        ) -> ClusterFuture<'a, SeiNode>;

        /// `CREATE` a SeiNode (a seed bring-up); [`ClusterErrorKind::AlreadyExists`] when taken.
        fn create_seinode<'a>(&'a self, node: &'a SeiNode) -> ClusterFuture<'a, SeiNode>;

        /// `LIST` the SeiNodes of a namespace, those matching `label_selector` when given.
        fn list_seinodes<'a>(
            &'a self,
            namespace: &'a str,
            label_selector: Option<&'a str>,
        ) -> ClusterFuture<'a, Vec<SeiNode>>;

        /// `CREATE` an Event exactly as given (the console's `Console*` Events, which name the
        /// operator and their own source component).
        fn record_event<'a>(&'a self, event: &'a Event) -> ClusterFuture<'a, ()>;

        /// Server-side apply (field manager [`FIELD_MANAGER`], force). Returns the live object.
        fn apply<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject>;

        /// Server-side apply as [`Self::apply`] with `dryRun=All`: the object the API server would
        /// store (defaults, admission, merge with the live object), nothing persisted.
        fn apply_dry_run<'a>(
            &'a self,
            object: &'a ClusterObject,
        ) -> ClusterFuture<'a, ClusterObject>;

        /// Plain `CREATE` (ensure-data-pvc and the bootstrap tasks do not use SSA).
        fn create<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject>;

        /// `GET` a namespaced object.
        fn get<'a>(
            &'a self,
            kind: ObjectKind,
            namespace: &'a str,
            name: &'a str,
        ) -> ClusterFuture<'a, Option<ClusterObject>>;

        /// `GET` a (cluster-scoped) PersistentVolume.
        fn get_persistent_volume<'a>(
            &'a self,
            name: &'a str,
        ) -> ClusterFuture<'a, Option<PersistentVolume>>;

        /// `LIST` pods in a namespace matching every label of `selector`.
        fn list_pods<'a>(
            &'a self,
            namespace: &'a str,
            selector: &'a BTreeMap<String, String>,
        ) -> ClusterFuture<'a, Vec<Pod>>;

        /// `DELETE` a namespaced object. `Ok(false)` when it was already gone.
        fn delete<'a>(
            &'a self,
            kind: ObjectKind,
            namespace: &'a str,
            name: &'a str,
            propagation: Propagation,
        ) -> ClusterFuture<'a, bool>;

        /// Whether ServiceAccount `name` exists (`GET`; not found is `Ok(false)`): a pod that
        /// runs as a missing one is never created.
        fn service_account_exists<'a>(
            &'a self,
            namespace: &'a str,
            name: &'a str,
        ) -> ClusterFuture<'a, bool>;

        /// `LIST` the Events about one object (field selectors on `involvedObject.kind` and
        /// `involvedObject.name`): why a StatefulSet creates no pod, why a pod is not scheduled.
        fn list_events_for<'a>(
            &'a self,
            namespace: &'a str,
            kind: ObjectKind,
            name: &'a str,
        ) -> ClusterFuture<'a, Vec<Event>>;

        /// Record an Event on a SeiNode.
        fn create_event<'a>(&'a self, event: &'a NodeEvent) -> ClusterFuture<'a, ()>;

        /// `GET` a coordination.k8s.io Lease.
        fn get_lease<'a>(
            &'a self,
            namespace: &'a str,
            name: &'a str,
        ) -> ClusterFuture<'a, Option<Lease>>;

        /// `CREATE` a Lease; [`ClusterErrorKind::AlreadyExists`] when someone else was first.
        fn create_lease<'a>(&'a self, lease: &'a Lease) -> ClusterFuture<'a, Lease>;

        /// `PUT` a Lease; its `metadata.resourceVersion` is the precondition
        /// ([`ClusterErrorKind::Conflict`] when another holder wrote first).
        fn replace_lease<'a>(&'a self, lease: &'a Lease) -> ClusterFuture<'a, Lease>;
    }
}
