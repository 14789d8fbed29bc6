//! A pure, ordered store of one kind of watched object, fed by watch deltas.
//!
//! It mirrors what a kube-runtime reflector does, without a cluster: applies and deletes change
//! one object; during a relist (the watcher's initial list, or its resync after a lost watch)
//! listed objects are applied as they arrive, so the first page paints at once, and when the
//! relist is done every object it did not list is dropped: deletes missed while the watch was
//! down are honoured. No second copy of the fleet is buffered, so a relist costs no extra memory.
//!
//! Objects stay boxed as the deltas bring them: a `SeiNode` is about 5 KB inline (mostly unset
//! mode sub-specs), and a map holding it inline would leave half-full tree nodes of that size.
//! An apply whose `resourceVersion` equals the stored one (a relist after a reconnect, a watch
//! replaying what we have) changes nothing, so it reports `Change::Nothing` and nothing redraws.
//!
//! Any object with `k8s_openapi::Metadata` can be stored ([`Object`]), not kube-rs's `Resource`:
//! the core knows no client. An [`ObjectKey`] shares its strings (`Arc<str>`), so listings copy
//! keys without allocating; keys of several clusters carry their context, first in the order.
use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::sync::Arc;

use k8s_openapi::Metadata;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Any Kubernetes object with standard metadata (what kube-rs's `Resource` is for these types,
/// without kube-rs: the core has no Kubernetes client in its dependency tree).
pub trait Object: Metadata<Ty = ObjectMeta> {}
impl<K: Metadata<Ty = ObjectMeta>> Object for K {}

/// Kubeconfig context, namespace and name of an object; the store's key and the selection key
/// of the screens. The context is empty where only one cluster is read (`get` of one context,
/// tests); the console's stores stamp every key with the context they watch, so one fleet can
/// hold the same namespace/name from two clusters.
///
/// The strings are shared, so cloning a key allocates nothing: every re-listing of the fleet
/// copies one key per row, and a 10,000-row copy of owned strings cost more than the sort.
/// The context comes first, so keys order by cluster, then namespace, then name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObjectKey {
    pub context: Arc<str>,
    pub namespace: Arc<str>,
    pub name: Arc<str>,
}

/// The empty context shared by every key without one (no allocation per key).
fn no_context() -> Arc<str> {
    static EMPTY: std::sync::OnceLock<Arc<str>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| Arc::from("")).clone()
}

impl ObjectKey {
    pub fn new(namespace: impl Into<Arc<str>>, name: impl Into<Arc<str>>) -> ObjectKey {
        ObjectKey {
            context: no_context(),
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// Key of any namespaced Kubernetes object (no context).
    pub fn of<K: Object>(object: &K) -> ObjectKey {
        let meta = object.metadata();
        // kube-rs's `name_any`: the name, else the generateName.
        let name = meta.name.clone().or_else(|| meta.generate_name.clone());
        ObjectKey::new(
            meta.namespace.clone().unwrap_or_default(),
            name.unwrap_or_default(),
        )
    }

    /// This key in `context` (the context's string is shared, not copied).
    pub fn in_context(mut self, context: &Arc<str>) -> ObjectKey {
        self.context = context.clone();
        self
    }
}

impl fmt::Display for ObjectKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

/// One change reported by a watch, in the order the watch reported it.
#[derive(Debug, Clone, PartialEq)]
pub enum Delta<K> {
    /// Created or modified. Boxed: objects are large and travel through a channel.
    Applied(Box<K>),
    Deleted(Box<K>),
    /// A (re)list begins; the objects that follow replace the whole store at `RelistDone`.
    RelistStarted,
    RelistItem(Box<K>),
    RelistDone,
    /// An object the watch could not decode (too deep, wrong shape): kept out of the store,
    /// remembered by key and reason so the screens and `get` can name it.
    Skipped(Box<SkippedObject>),
    /// An object deleted whose body could not be decoded: only its key is known.
    DeletedKey(ObjectKey),
}

/// An object left out because it could not be decoded, and why (one short line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedObject {
    pub key: ObjectKey,
    pub reason: String,
}

/// What a delta changed, so derived views can update only what they must.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Nothing,
    One(ObjectKey),
    /// A relist ended: these objects were not listed and are gone. Also reported, empty, when
    /// the first sync completes (the screens show whether the store is synced).
    Dropped(Vec<ObjectKey>),
}

/// Objects of one kind of one cluster, ordered by namespace then name.
#[derive(Debug, Clone)]
pub struct Store<K> {
    /// The kubeconfig context every key of this store carries (empty: none).
    context: Arc<str>,
    objects: BTreeMap<ObjectKey, Box<K>>,
    /// Objects that could not be decoded, by key (never also in `objects`).
    skipped: BTreeMap<ObjectKey, String>,
    /// Keys listed so far by the relist in progress (skipped ones included).
    relist: Option<HashSet<ObjectKey>>,
    revision: u64,
    synced: bool,
}

impl<K> Default for Store<K> {
    fn default() -> Self {
        Store {
            context: no_context(),
            objects: BTreeMap::new(),
            skipped: BTreeMap::new(),
            relist: None,
            revision: 0,
            synced: false,
        }
    }
}

impl<K> Delta<K> {
    pub fn applied(object: K) -> Delta<K> {
        Delta::Applied(Box::new(object))
    }

    pub fn deleted(object: K) -> Delta<K> {
        Delta::Deleted(Box::new(object))
    }

    pub fn relist_item(object: K) -> Delta<K> {
        Delta::RelistItem(Box::new(object))
    }

    pub fn skipped(key: ObjectKey, reason: impl Into<String>) -> Delta<K> {
        Delta::Skipped(Box::new(SkippedObject {
            key,
            reason: reason.into(),
        }))
    }
}

impl<K: Object> Store<K> {
    /// An empty store of the objects of `context`.
    pub fn in_context(context: &Arc<str>) -> Store<K> {
        Store {
            context: context.clone(),
            ..Store::default()
        }
    }

    /// The key of `object` in this store's context.
    pub fn key_of(&self, object: &K) -> ObjectKey {
        ObjectKey::of(object).in_context(&self.context)
    }

    /// Applies one delta and says what changed.
    pub fn apply(&mut self, delta: Delta<K>) -> Change {
        match delta {
            Delta::Applied(object) => self.insert(object),
            Delta::Deleted(object) => self.remove(self.key_of(object.as_ref())),
            // The watch knows no context: keys it made are stamped with this store's.
            Delta::DeletedKey(key) => self.remove(key.in_context(&self.context)),
            Delta::Skipped(skipped) => {
                let SkippedObject { key, reason } = *skipped;
                let key = key.in_context(&self.context);
                if let Some(listed) = self.relist.as_mut() {
                    listed.insert(key.clone());
                }
                let removed = self.objects.remove(&key).is_some();
                let known = self.skipped.get(&key) == Some(&reason);
                if known && !removed {
                    return Change::Nothing;
                }
                self.skipped.insert(key.clone(), reason);
                self.bump();
                Change::One(key)
            }
            Delta::RelistStarted => {
                self.relist = Some(HashSet::new());
                Change::Nothing
            }
            Delta::RelistItem(object) => {
                let key = self.key_of(object.as_ref());
                self.relist.get_or_insert_with(HashSet::new).insert(key);
                self.insert(object)
            }
            Delta::RelistDone => {
                let listed = self.relist.take().unwrap_or_default();
                let mut dropped = Vec::new();
                let skipped_before = self.skipped.len();
                self.skipped.retain(|key, _| listed.contains(key));
                if self.skipped.len() != skipped_before {
                    self.bump();
                }
                self.objects.retain(|key, _| {
                    let keep = listed.contains(key);
                    if !keep {
                        dropped.push(key.clone());
                    }
                    keep
                });
                let first_sync = !self.synced;
                self.synced = true;
                if first_sync || !dropped.is_empty() {
                    self.bump();
                    Change::Dropped(dropped)
                } else {
                    Change::Nothing
                }
            }
        }
    }

    fn remove(&mut self, key: ObjectKey) -> Change {
        let skipped = self.skipped.remove(&key).is_some();
        if self.objects.remove(&key).is_some() || skipped {
            self.bump();
            Change::One(key)
        } else {
            Change::Nothing
        }
    }

    /// Stores `object` unless the stored copy has the same `resourceVersion`.
    fn insert(&mut self, object: Box<K>) -> Change {
        let key = self.key_of(object.as_ref());
        if self.skipped.remove(&key).is_some() {
            self.bump();
        }
        let version = object.metadata().resource_version.as_deref();
        match self.objects.get_mut(&key) {
            Some(stored)
                if version.is_some_and(|v| !v.is_empty())
                    && stored.metadata().resource_version.as_deref() == version =>
            {
                return Change::Nothing;
            }
            Some(stored) => *stored = object,
            None => {
                self.objects.insert(key.clone(), object);
            }
        }
        self.bump();
        Change::One(key)
    }

    /// Removes everything (the scope changed: other namespace or context).
    pub fn clear(&mut self) {
        self.objects.clear();
        self.skipped.clear();
        self.relist = None;
        self.synced = false;
        self.bump();
    }
}

impl<K> Store<K> {
    fn bump(&mut self) {
        self.revision = self.revision.wrapping_add(1);
    }

    pub fn get(&self, key: &ObjectKey) -> Option<&K> {
        self.objects.get(key).map(Box::as_ref)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&ObjectKey, &K)> {
        self.objects
            .iter()
            .map(|(key, object)| (key, object.as_ref()))
    }

    pub fn values(&self) -> impl Iterator<Item = &K> {
        self.objects.values().map(Box::as_ref)
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// The objects left out because they could not be decoded, with why, in key order.
    pub fn skipped(&self) -> impl Iterator<Item = (&ObjectKey, &str)> {
        self.skipped
            .iter()
            .map(|(key, reason)| (key, reason.as_str()))
    }

    /// Increases on every visible change; views cache on it.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Whether a full list has completed at least once.
    pub fn is_synced(&self) -> bool {
        self.synced
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Pod;

    use super::*;

    fn pod(ns: &str, name: &str, phase: &str) -> Pod {
        Pod {
            metadata: ObjectMeta {
                namespace: Some(ns.into()),
                name: Some(name.into()),
                ..ObjectMeta::default()
            },
            status: Some(k8s_openapi::api::core::v1::PodStatus {
                phase: Some(phase.into()),
                ..Default::default()
            }),
            ..Pod::default()
        }
    }

    fn phase_of(store: &Store<Pod>, ns: &str, name: &str) -> Option<String> {
        store
            .get(&ObjectKey::new(ns, name))
            .and_then(|p| p.status.as_ref()?.phase.clone())
    }

    #[test]
    fn apply_inserts_and_replaces() {
        let mut store = Store::default();
        assert_eq!(
            store.apply(Delta::applied(pod("a", "x", "Pending"))),
            Change::One(ObjectKey::new("a", "x"))
        );
        store.apply(Delta::applied(pod("a", "x", "Running")));
        assert_eq!(store.len(), 1);
        assert_eq!(phase_of(&store, "a", "x").as_deref(), Some("Running"));
        assert_eq!(store.revision(), 2);
    }

    #[test]
    fn delete_removes_and_unknown_delete_changes_nothing() {
        let mut store = Store::default();
        store.apply(Delta::applied(pod("a", "x", "Running")));
        let before = store.revision();
        assert_eq!(
            store.apply(Delta::deleted(pod("a", "missing", "Running"))),
            Change::Nothing
        );
        assert_eq!(store.revision(), before);
        assert_eq!(
            store.apply(Delta::deleted(pod("a", "x", "Running"))),
            Change::One(ObjectKey::new("a", "x"))
        );
        assert!(store.is_empty());
    }

    #[test]
    fn relist_shows_items_at_once_and_drops_unlisted_when_done() {
        let mut store = Store::default();
        store.apply(Delta::applied(pod("a", "gone", "Running")));
        store.apply(Delta::applied(pod("a", "kept", "Pending")));
        store.apply(Delta::RelistStarted);
        assert_eq!(
            store.apply(Delta::relist_item(pod("a", "kept", "Running"))),
            Change::One(ObjectKey::new("a", "kept"))
        );
        store.apply(Delta::relist_item(pod("b", "new", "Running")));
        // Listed objects show at once; the unlisted one waits for the end of the relist.
        assert_eq!(store.len(), 3);
        assert!(!store.is_synced());
        assert_eq!(
            store.apply(Delta::RelistDone),
            Change::Dropped(vec![ObjectKey::new("a", "gone")])
        );
        assert!(store.is_synced());
        let keys: Vec<String> = store.iter().map(|(k, _)| k.to_string()).collect();
        assert_eq!(keys, ["a/kept", "b/new"]);
        assert_eq!(phase_of(&store, "a", "kept").as_deref(), Some("Running"));
    }

    fn versioned(ns: &str, name: &str, phase: &str, version: &str) -> Pod {
        let mut pod = pod(ns, name, phase);
        pod.metadata.resource_version = Some(version.into());
        pod
    }

    #[test]
    fn reapplying_the_same_resource_version_changes_nothing() {
        let mut store = Store::default();
        store.apply(Delta::applied(versioned("a", "x", "Running", "7")));
        let before = store.revision();
        assert_eq!(
            store.apply(Delta::applied(versioned("a", "x", "Running", "7"))),
            Change::Nothing
        );
        assert_eq!(store.revision(), before);
        assert_eq!(
            store.apply(Delta::applied(versioned("a", "x", "Failed", "8"))),
            Change::One(ObjectKey::new("a", "x"))
        );
        assert_eq!(phase_of(&store, "a", "x").as_deref(), Some("Failed"));
    }

    #[test]
    fn a_relist_that_finds_everything_unchanged_changes_nothing() {
        let mut store = Store::default();
        store.apply(Delta::RelistStarted);
        store.apply(Delta::relist_item(versioned("a", "x", "Running", "7")));
        assert_eq!(store.apply(Delta::RelistDone), Change::Dropped(vec![]));
        let before = store.revision();
        // The watcher reconnected and relisted: same objects, same versions.
        assert_eq!(store.apply(Delta::RelistStarted), Change::Nothing);
        assert_eq!(
            store.apply(Delta::relist_item(versioned("a", "x", "Running", "7"))),
            Change::Nothing
        );
        assert_eq!(store.apply(Delta::RelistDone), Change::Nothing);
        assert_eq!(store.revision(), before);
        assert!(store.is_synced());
    }

    #[test]
    fn clear_forgets_objects_and_sync() {
        let mut store = Store::default();
        store.apply(Delta::RelistStarted);
        store.apply(Delta::relist_item(pod("a", "x", "Running")));
        store.apply(Delta::RelistDone);
        store.clear();
        assert!(store.is_empty());
        assert!(!store.is_synced());
    }

    #[test]
    fn an_undecodable_object_is_kept_out_named_and_forgotten_when_fixed_deleted_or_unlisted() {
        let mut store = Store::default();
        store.apply(Delta::applied(pod("a", "x", "Running")));
        let key = ObjectKey::new("a", "x");
        // The object turns undecodable: it leaves the store and is named with why.
        assert_eq!(
            store.apply(Delta::skipped(key.clone(), "nested too deep")),
            Change::One(key.clone())
        );
        assert!(store.get(&key).is_none());
        let skipped: Vec<_> = store.skipped().collect();
        assert_eq!(skipped, [(&key, "nested too deep")]);
        // The same report again changes nothing (no redraw).
        assert_eq!(
            store.apply(Delta::skipped(key.clone(), "nested too deep")),
            Change::Nothing
        );
        // Fixed: back in the store, no longer skipped.
        store.apply(Delta::applied(pod("a", "x", "Pending")));
        assert_eq!(phase_of(&store, "a", "x").as_deref(), Some("Pending"));
        assert_eq!(store.skipped().count(), 0);
        // Skipped again, then deleted by key: gone from both.
        store.apply(Delta::skipped(key.clone(), "bad"));
        assert_eq!(
            store.apply(Delta::DeletedKey(key.clone())),
            Change::One(key.clone())
        );
        assert_eq!(store.skipped().count(), 0);
        // A relist forgets skipped objects it no longer lists, keeps those it lists again.
        store.apply(Delta::skipped(key.clone(), "bad"));
        store.apply(Delta::skipped(ObjectKey::new("a", "y"), "bad"));
        store.apply(Delta::RelistStarted);
        store.apply(Delta::skipped(key.clone(), "bad"));
        store.apply(Delta::RelistDone);
        let skipped: Vec<_> = store.skipped().map(|(k, _)| k.clone()).collect();
        assert_eq!(skipped, [key]);
    }
}
