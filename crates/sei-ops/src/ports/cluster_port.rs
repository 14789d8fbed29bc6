//! The Kubernetes API port used by the controller-side tasks and the executor driver.
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
    fn apply_dry_run<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject>;

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

    /// `GET customresourcedefinitions/seinodes.sei.io` as JSON (the skew guard compares its
    /// schema with the embedded one); `Ok(None)` when no such CRD is installed,
    /// [`ClusterErrorKind::Forbidden`] when the operator may not read it.
    fn get_seinode_crd(&self) -> ClusterFuture<'_, Option<serde_json::Value>>;

    /// `PUT` a Lease; its `metadata.resourceVersion` is the precondition
    /// ([`ClusterErrorKind::Conflict`] when another holder wrote first).
    fn replace_lease<'a>(&'a self, lease: &'a Lease) -> ClusterFuture<'a, Lease>;

    /// `LIST` the Leases of a namespace matching an equality `label_selector` (the rollout
    /// records, `ops::rollout_record`).
    fn list_leases<'a>(
        &'a self,
        namespace: &'a str,
        label_selector: &'a str,
    ) -> ClusterFuture<'a, Vec<Lease>>;

    /// `DELETE` a Lease (a pruned rollout record). `Ok(false)` when it was already gone.
    fn delete_lease<'a>(&'a self, namespace: &'a str, name: &'a str) -> ClusterFuture<'a, bool>;
}
