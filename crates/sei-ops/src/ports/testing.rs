//! In-memory fakes of [`ClusterApi`] and (in `sidecar`) of [`crate::ports::SidecarApi`] for
//! unit tests and the executor benchmark. The cluster fake enforces resourceVersion
//! preconditions like the API server (conflict on a stale version), counts calls and can inject
//! failures.
use std::collections::BTreeMap;
use std::sync::Mutex;

use jiff::Timestamp;
use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, PersistentVolume, Pod, Secret};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde_json::Value;

use crate::api::SeiNode;
use crate::ports::{
    ClusterApi, ClusterError, ClusterErrorKind, ClusterFuture, ClusterObject, NodeEvent,
    ObjectKind, Propagation, StatusPatch,
};

mod cluster_api;
mod sidecar;
pub use sidecar::{FakeSidecar, SidecarBehaviour};

type Key = (ObjectKind, String, String);

/// The fake API server's state.
#[derive(Default)]
pub struct FakeState {
    pub objects: BTreeMap<Key, ClusterObject>,
    pub nodes: BTreeMap<(String, String), SeiNode>,
    pub volumes: BTreeMap<String, PersistentVolume>,
    pub events: Vec<NodeEvent>,
    /// Events recorded as given ([`ClusterApi::record_event`]: the console's own).
    pub recorded_events: Vec<Event>,
    pub leases: BTreeMap<(String, String), Lease>,
    /// ServiceAccounts (namespace, name) that do not exist; every other one does.
    pub missing_service_accounts: Vec<(String, String)>,
    /// Every call, as `verb kind name` (e.g. `get persistentvolumeclaims data-a`).
    pub calls: Vec<String>,
    /// Errors to return, once each, for calls whose log line starts with the key.
    pub failures: Vec<(String, ClusterError)>,
    pub next_uid: u64,
    pub next_version: u64,
    /// Status patches still to be preceded by another writer's change (a conflict each).
    pub interfering_writes: u32,
    /// Each plan as first written to a status (by plan ID): what was persisted, even once
    /// it ran and was cleared.
    pub plans_written: Vec<crate::api::TaskPlan>,
    /// The SeiNode CRD the fake serves; `None`: the embedded one.
    pub crd: Option<Value>,
}

/// In-memory [`ClusterApi`].
#[derive(Default)]
pub struct FakeCluster {
    pub state: Mutex<FakeState>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl FakeCluster {
    pub fn new() -> Self {
        Self::default()
    }

    fn record(&self, line: String) -> Result<(), ClusterError> {
        let mut s = lock(&self.state);
        s.calls.push(line.clone());
        if let Some(pos) = s
            .failures
            .iter()
            .position(|(p, _)| line.starts_with(p.as_str()))
        {
            return Err(s.failures.remove(pos).1);
        }
        Ok(())
    }

    /// Makes the next call whose log line starts with `prefix` fail with `kind`/`message`.
    pub fn fail_next(&self, prefix: &str, kind: ClusterErrorKind, message: &str) {
        lock(&self.state)
            .failures
            .push((prefix.into(), ClusterError::new(kind, message)));
    }

    pub fn calls(&self) -> Vec<String> {
        lock(&self.state).calls.clone()
    }

    /// Every plan as first persisted, in order (see [`FakeState::plans_written`]).
    pub fn plans_written(&self) -> Vec<crate::api::TaskPlan> {
        lock(&self.state).plans_written.clone()
    }

    pub fn count_calls(&self, prefix: &str) -> usize {
        lock(&self.state)
            .calls
            .iter()
            .filter(|c| c.starts_with(prefix))
            .count()
    }

    pub fn events(&self) -> Vec<NodeEvent> {
        lock(&self.state).events.clone()
    }

    fn stamp(s: &mut FakeState, meta: &mut ObjectMeta) {
        if meta.uid.is_none() {
            s.next_uid += 1;
            meta.uid = Some(format!("uid-{}", s.next_uid));
        }
        s.next_version += 1;
        meta.resource_version = Some(s.next_version.to_string());
    }

    /// Stores an object as is (test setup), giving it a UID when it has none.
    pub fn put(&self, mut object: ClusterObject) -> ClusterObject {
        let mut s = lock(&self.state);
        Self::stamp(&mut s, object.metadata_mut());
        let key = (
            object.kind(),
            object.namespace().to_owned(),
            object.name().to_owned(),
        );
        s.objects.insert(key, object.clone());
        object
    }

    pub fn object(&self, kind: ObjectKind, ns: &str, name: &str) -> Option<ClusterObject> {
        lock(&self.state)
            .objects
            .get(&(kind, ns.to_owned(), name.to_owned()))
            .cloned()
    }

    pub fn remove(&self, kind: ObjectKind, ns: &str, name: &str) {
        lock(&self.state)
            .objects
            .remove(&(kind, ns.to_owned(), name.to_owned()));
    }

    pub fn put_secret(&self, ns: &str, name: &str, data: &[(&str, &str)]) {
        let secret = Secret {
            metadata: meta(ns, name),
            data: Some(
                data.iter()
                    .map(|(k, v)| ((*k).to_owned(), ByteString(v.as_bytes().to_vec())))
                    .collect(),
            ),
            ..Secret::default()
        };
        self.put(ClusterObject::Secret(secret));
    }

    pub fn mark_secret_deleting(&self, ns: &str, name: &str) {
        let mut s = lock(&self.state);
        if let Some(ClusterObject::Secret(secret)) =
            s.objects
                .get_mut(&(ObjectKind::Secret, ns.to_owned(), name.to_owned()))
        {
            secret.metadata.deletion_timestamp = Some(Time(Timestamp::UNIX_EPOCH));
        }
    }

    pub fn put_volume(&self, pv: PersistentVolume) {
        let name = pv.metadata.name.clone().unwrap_or_default();
        lock(&self.state).volumes.insert(name, pv);
    }

    /// Stores a SeiNode (test setup), giving it a UID, generation 1 and a resourceVersion.
    pub fn put_node(&self, mut node: SeiNode) -> SeiNode {
        let mut s = lock(&self.state);
        Self::stamp(&mut s, &mut node.metadata);
        node.metadata.generation.get_or_insert(1);
        s.nodes.insert(
            (node.namespace().to_owned(), node.name().to_owned()),
            node.clone(),
        );
        node
    }

    pub fn node(&self, ns: &str, name: &str) -> Option<SeiNode> {
        lock(&self.state)
            .nodes
            .get(&(ns.to_owned(), name.to_owned()))
            .cloned()
    }

    /// Another writer changes the stored node (bumps its resourceVersion).
    /// The next `count` status patches each lose a race with another writer.
    pub fn interfere_with_next_patches(&self, count: u32) {
        lock(&self.state).interfering_writes = count;
    }

    pub fn mutate_node(&self, ns: &str, name: &str, change: impl FnOnce(&mut SeiNode)) {
        let mut s = lock(&self.state);
        s.next_version += 1;
        let version = s.next_version.to_string();
        if let Some(node) = s.nodes.get_mut(&(ns.to_owned(), name.to_owned())) {
            change(node);
            node.metadata.resource_version = Some(version);
        }
    }
}

/// JSON merge patch (RFC 7386).
pub fn merge_patch(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(fields) => {
            if !target.is_object() {
                *target = Value::Object(serde_json::Map::new());
            }
            if let Value::Object(map) = target {
                for (key, value) in fields {
                    if value.is_null() {
                        map.remove(key);
                    } else {
                        merge_patch(map.entry(key.clone()).or_insert(Value::Null), value);
                    }
                }
            }
        }
        other => *target = other.clone(),
    }
}

impl FakeCluster {
    /// Serves `crd` as the cluster's SeiNode CRD (a newer or older one than the embedded).
    pub fn set_crd(&self, crd: Value) {
        lock(&self.state).crd = Some(crd);
    }
}

/// Metadata with a name and namespace.
pub fn meta(ns: &str, name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        namespace: Some(ns.to_owned()),
        ..ObjectMeta::default()
    }
}
