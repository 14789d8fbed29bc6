//! Kubernetes Events reduced to what the screens show, and the index from involved object to
//! its events (so a row finds its latest Warning without scanning every event).
use std::collections::{BTreeSet, HashMap};

use jiff::Timestamp;
use k8s_openapi::api::core::v1::Event;

use super::store::{Change, Delta, ObjectKey, Store};

/// Reason of the Event the controller emits when it cannot sync the StatefulSet. It is written
/// before the status flush, so it is often the only trace of the failure.
pub const RENDER_FAILED_REASON: &str = "StatefulSetRenderFailed";

/// The latest Warning about an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarningBrief {
    pub reason: String,
    pub message: String,
    pub count: i32,
    pub last_seen: Option<Timestamp>,
    /// The pod it is about (`full-1-0`) when it is a Warning of the node's pod, not of the
    /// SeiNode itself.
    pub pod: Option<String>,
}

/// One event line of the node screen and `describe`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventBrief {
    pub warning: bool,
    pub reason: String,
    pub message: String,
    pub count: i32,
    pub last_seen: Option<Timestamp>,
    /// `Kind/name` of the involved object (the node, its StatefulSet or a Pod).
    pub object: String,
    /// Who reported it: the reporting controller or `source.component` (`-` when neither).
    pub source: String,
}

impl EventBrief {
    pub fn of(event: &Event) -> EventBrief {
        let involved = &event.involved_object;
        EventBrief {
            warning: is_warning(event),
            reason: event.reason.clone().unwrap_or_default(),
            message: event.message.clone().unwrap_or_default(),
            count: event.count.unwrap_or(1).max(1),
            last_seen: last_seen(event),
            object: format!(
                "{}/{}",
                involved.kind.as_deref().unwrap_or("?"),
                involved.name.as_deref().unwrap_or("?")
            ),
            source: event_source(event).to_owned(),
        }
    }

    pub fn is_render_failure(&self) -> bool {
        self.reason == RENDER_FAILED_REASON
    }
}

/// The component that reported `event`: `reportingController` (events.k8s.io), else
/// `source.component` (core/v1), else `-`.
pub fn event_source(event: &Event) -> &str {
    event
        .reporting_component
        .as_deref()
        .filter(|s| !s.is_empty())
        .or_else(|| event.source.as_ref().and_then(|s| s.component.as_deref()))
        .filter(|s| !s.is_empty())
        .unwrap_or("-")
}

/// Every event of `events`, oldest first (as `kubectl get events` reads), ties by reason.
pub fn in_time_order<'a>(events: impl IntoIterator<Item = &'a Event>) -> Vec<EventBrief> {
    let mut briefs: Vec<EventBrief> = events.into_iter().map(EventBrief::of).collect();
    briefs.sort_by(|a, b| a.last_seen.cmp(&b.last_seen).then(a.reason.cmp(&b.reason)));
    briefs
}

pub fn is_warning(event: &Event) -> bool {
    event.type_.as_deref() == Some("Warning")
}

/// When the event last happened: series/lastTimestamp, else eventTime, else creation.
pub fn last_seen(event: &Event) -> Option<Timestamp> {
    event
        .series
        .as_ref()
        .and_then(|s| s.last_observed_time.as_ref())
        .map(|t| t.0)
        .or_else(|| event.last_timestamp.as_ref().map(|t| t.0))
        .or_else(|| event.event_time.as_ref().map(|t| t.0))
        .or_else(|| event.first_timestamp.as_ref().map(|t| t.0))
        .or_else(|| event.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// The most recent Warning event among `events`.
pub fn latest_warning_event<'a>(events: impl IntoIterator<Item = &'a Event>) -> Option<&'a Event> {
    events
        .into_iter()
        .filter(|e| is_warning(e))
        .max_by_key(|e| last_seen(e))
}

impl WarningBrief {
    pub fn of(event: &Event) -> WarningBrief {
        WarningBrief {
            reason: event.reason.clone().unwrap_or_default(),
            message: event.message.clone().unwrap_or_default(),
            count: event.count.unwrap_or(1).max(1),
            last_seen: last_seen(event),
            pod: None,
        }
    }

    /// The brief of a Warning `event` about the node's pod (`Pod full-1-0: …` on the screens).
    pub fn of_pod(event: &Event) -> WarningBrief {
        WarningBrief {
            pod: event.involved_object.name.clone(),
            ..WarningBrief::of(event)
        }
    }

    /// `Pod full-1-0: ` before a pod's Warning, nothing before the node's own.
    pub fn object_prefix(&self) -> String {
        self.pod
            .as_deref()
            .map(|pod| format!("Pod {pod}: "))
            .unwrap_or_default()
    }

    /// Re-reads `event` into this brief, keeping the strings' allocations.
    pub fn refresh(&mut self, event: &Event) {
        self.reason.clear();
        self.reason
            .push_str(event.reason.as_deref().unwrap_or_default());
        self.message.clear();
        self.message
            .push_str(event.message.as_deref().unwrap_or_default());
        self.count = event.count.unwrap_or(1).max(1);
        self.last_seen = last_seen(event);
    }
}

/// Key of the object an event is about (namespace falls back to the event's own).
pub fn involved_key(event: &Event) -> ObjectKey {
    let involved = &event.involved_object;
    let namespace = involved
        .namespace
        .clone()
        .or_else(|| event.metadata.namespace.clone())
        .unwrap_or_default();
    ObjectKey::new(namespace, involved.name.clone().unwrap_or_default())
}

/// What an event delta changed: the objects whose events changed, and whether a relist ended
/// (the store's order moved).
#[derive(Debug)]
pub struct IndexedChange {
    pub touched: BTreeSet<ObjectKey>,
    pub relist_ended: bool,
}

/// Which events are about which object. Kept in step with the event store.
#[derive(Debug, Default, Clone)]
pub struct EventIndex {
    by_object: HashMap<ObjectKey, BTreeSet<ObjectKey>>,
    object_of: HashMap<ObjectKey, ObjectKey>,
}

impl EventIndex {
    /// Records that event `event_key` is about `object`; returns the object it was about before
    /// if that changed (an event never moves in practice, but stay correct).
    pub fn insert(&mut self, event_key: ObjectKey, object: ObjectKey) -> Option<ObjectKey> {
        let previous = self.object_of.insert(event_key.clone(), object.clone());
        if let Some(old) = previous.as_ref().filter(|old| **old != object) {
            self.detach(old, &event_key);
        }
        self.by_object.entry(object).or_default().insert(event_key);
        previous
    }

    /// Forgets an event; returns the object it was about.
    pub fn remove(&mut self, event_key: &ObjectKey) -> Option<ObjectKey> {
        let object = self.object_of.remove(event_key)?;
        self.detach(&object, event_key);
        Some(object)
    }

    fn detach(&mut self, object: &ObjectKey, event_key: &ObjectKey) {
        if let Some(set) = self.by_object.get_mut(object) {
            set.remove(event_key);
            if set.is_empty() {
                self.by_object.remove(object);
            }
        }
    }

    /// Applies an event delta to `store`, keeping this index in step: `about` is the object an
    /// applied or relisted event is about. `None` when the store did not change.
    pub fn apply_delta(
        &mut self,
        store: &mut Store<Event>,
        delta: Delta<Event>,
        about: Option<ObjectKey>,
    ) -> Option<IndexedChange> {
        let mut touched = BTreeSet::new();
        if let (Delta::Applied(event) | Delta::RelistItem(event), Some(about)) = (&delta, about) {
            if let Some(old) = self.insert(store.key_of(event.as_ref()), about.clone()) {
                touched.insert(old);
            }
            touched.insert(about);
        }
        let (dropped, relist_ended) = match store.apply(delta) {
            Change::Nothing => return None,
            Change::One(key) => (vec![key], false),
            Change::Dropped(keys) => (keys, true),
        };
        // Deleted events (and events a relist no longer lists) leave the index here.
        for event_key in dropped {
            if store.get(&event_key).is_none()
                && let Some(object) = self.remove(&event_key)
            {
                touched.insert(object);
            }
        }
        Some(IndexedChange {
            touched,
            relist_ended,
        })
    }

    /// Keys of the events about `object`.
    pub fn events_of(&self, object: &ObjectKey) -> impl Iterator<Item = &ObjectKey> {
        self.by_object.get(object).into_iter().flatten()
    }

    pub fn clear(&mut self) {
        self.by_object.clear();
        self.object_of.clear();
    }
}
