//! The pure store of watched objects and the display-neutral view models built from it.
//!
//! `Fleet` owns one `Store` per watched kind and keeps one `FleetRow` per SeiNode up to date as
//! deltas arrive, so drawing and `get` never rebuild rows from scratch.
pub mod detail;
pub mod events;
pub mod filter;
pub mod rows;
pub mod sample;
pub mod sort;
pub mod store;
pub mod text;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Event, Pod};

use crate::api::SeiNode;
use events::{EventIndex, involved_key};
use rows::FleetRow;
use store::{Change, Delta, ObjectKey, Store};

/// A watch delta for one of the kinds the console watches.
#[derive(Debug, Clone)]
pub enum FleetDelta {
    Node(Delta<SeiNode>),
    /// Events whose involved object is a SeiNode.
    NodeEvent(Delta<Event>),
    /// The selected node's StatefulSet.
    StatefulSet(Delta<StatefulSet>),
    /// The selected node's Pods.
    Pod(Delta<Pod>),
    /// Events about the selected node's Pod.
    DetailEvent(Delta<Event>),
    /// Events about the selected node's StatefulSet (a separate watch: field selectors cannot
    /// match two kinds, and each watch's relist must replace only its own events).
    StatefulSetEvent(Delta<Event>),
}

/// Every watched object plus the derived fleet rows.
#[derive(Debug, Default)]
pub struct Fleet {
    pub nodes: Store<SeiNode>,
    pub node_events: Store<Event>,
    pub statefulsets: Store<StatefulSet>,
    pub pods: Store<Pod>,
    pub detail_events: Store<Event>,
    pub statefulset_events: Store<Event>,
    event_index: EventIndex,
    rows: BTreeMap<ObjectKey, FleetRow>,
    default_sidecar_image: Option<String>,
    revision: u64,
}

impl Fleet {
    /// `default_sidecar_image` is the platform config's `images.sidecar`, if known.
    pub fn new(default_sidecar_image: Option<String>) -> Fleet {
        Fleet {
            default_sidecar_image,
            ..Fleet::default()
        }
    }

    /// Applies one delta, updating only the rows it touches.
    pub fn apply(&mut self, delta: FleetDelta) {
        match delta {
            FleetDelta::Node(delta) => match self.nodes.apply(delta) {
                Change::Nothing => {}
                Change::One(key) => self.refresh_row(&key),
                Change::Everything => self.rebuild_rows(),
            },
            FleetDelta::NodeEvent(delta) => self.apply_node_event(delta),
            FleetDelta::StatefulSet(delta) => {
                let change = self.statefulsets.apply(delta);
                self.bump_if(change);
            }
            FleetDelta::Pod(delta) => {
                let change = self.pods.apply(delta);
                self.bump_if(change);
            }
            FleetDelta::DetailEvent(delta) => {
                let change = self.detail_events.apply(delta);
                self.bump_if(change);
            }
            FleetDelta::StatefulSetEvent(delta) => {
                let change = self.statefulset_events.apply(delta);
                self.bump_if(change);
            }
        }
    }

    fn bump_if(&mut self, change: Change) {
        if change != Change::Nothing {
            self.bump();
        }
    }

    fn bump(&mut self) {
        self.revision = self.revision.wrapping_add(1);
    }

    fn apply_node_event(&mut self, delta: Delta<Event>) {
        let mut touched = BTreeSet::new();
        match &delta {
            Delta::Applied(event) | Delta::RelistItem(event) => {
                let key = ObjectKey::of(event.as_ref());
                let object = involved_key(event);
                if let Some(old) = self.event_index.insert(key, object.clone()) {
                    touched.insert(old);
                }
                touched.insert(object);
            }
            Delta::Deleted(event) => {
                if let Some(object) = self.event_index.remove(&ObjectKey::of(event.as_ref())) {
                    touched.insert(object);
                }
            }
            Delta::RelistStarted | Delta::RelistDone => {}
        }
        let change = self.node_events.apply(delta);
        if change == Change::Everything {
            self.event_index.clear();
            for (key, event) in self.node_events.iter() {
                self.event_index.insert(key.clone(), involved_key(event));
            }
            self.rebuild_rows();
            return;
        }
        for key in touched {
            self.refresh_row(&key);
        }
    }

    fn build_row(&self, node: &SeiNode, key: &ObjectKey) -> FleetRow {
        let events = self
            .event_index
            .events_of(key)
            .filter_map(|event_key| self.node_events.get(event_key));
        FleetRow::build(node, events, self.default_sidecar_image.as_deref())
    }

    fn refresh_row(&mut self, key: &ObjectKey) {
        match self.nodes.get(key) {
            Some(node) => {
                let row = self.build_row(node, key);
                self.rows.insert(key.clone(), row);
            }
            None => {
                self.rows.remove(key);
            }
        }
        self.bump();
    }

    fn rebuild_rows(&mut self) {
        let rows = self
            .nodes
            .iter()
            .map(|(key, node)| (key.clone(), self.build_row(node, key)))
            .collect();
        self.rows = rows;
        self.bump();
    }

    /// Forgets the selected node's StatefulSet, Pods and their events (selection changed).
    pub fn clear_detail(&mut self) {
        self.statefulsets.clear();
        self.pods.clear();
        self.detail_events.clear();
        self.statefulset_events.clear();
        self.bump();
    }

    /// Forgets everything (namespace or context changed).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.node_events.clear();
        self.event_index.clear();
        self.rows.clear();
        self.clear_detail();
    }

    /// Rows in namespace/name order.
    pub fn rows(&self) -> impl Iterator<Item = &FleetRow> {
        self.rows.values()
    }

    pub fn row(&self, key: &ObjectKey) -> Option<&FleetRow> {
        self.rows.get(key)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Events whose involved object is the SeiNode `key`.
    pub fn events_of_node<'a>(&'a self, key: &ObjectKey) -> impl Iterator<Item = &'a Event> {
        self.event_index
            .events_of(key)
            .filter_map(|event_key| self.node_events.get(event_key))
    }

    /// Increases on every change to anything the screens show.
    pub fn revision(&self) -> u64 {
        self.revision
    }
}
