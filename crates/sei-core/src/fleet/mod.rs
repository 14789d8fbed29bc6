//! The pure store of watched objects and the display-neutral view models built from it.
//!
//! `Fleet` owns one `Store` per watched kind and keeps one `FleetRow` per SeiNode up to date as
//! deltas arrive, so drawing and `get` never rebuild rows from scratch.
//!
//! Keeping the listing cheap: `Fleet` keeps its header counts (`sort::Counts`) and a log of the
//! rows it added, refreshed or removed (at most 256; a relist of every row, or more changes than
//! that, empties it). Before a frame, only when a row changed (`Fleets::row_marks`; the open node's
//! StatefulSet, pods and events rebuild the node detail alone), `Fleets::relist` moves just the
//! logged rows (`sort::relist_changed`: found by the addresses of their keys' shared strings,
//! placed by binary search in the order `sort::order` defines, the same key the full sort uses),
//! else lists every row again. The watched SeiNodes are decoded for display (managed fields skipped
//! unread) and slimmed (`slim_node`); the api types box what is usually unset (mode sub-specs, task
//! params, unknown fields), so a stored SeiNode with a 7-task plan is about 3.6 KB.
//!
//! The modules: `store` (`Store`, `Delta`, `ObjectKey`), `events` and
//! `pod_warnings`/`pod_warning_store` (the nodes' and their pods' Warning events),
//! `console_actions` (the node's `sei.io/console-actions` record), `rows` and `columns` (the fleet
//! row and its cells), `detail` and `describe` (the node detail), `health` and `health_store`
//! (chain health as the screens say it), `probe` (a seed's last outside probe), `verdict` (the one
//! health verdict), `filter`, `sort`, `fleets` (one fleet across clusters), `text` (cell texts
//! shared by screens and `get`), `symbols` (every mark, and the help's legend), `sample` (fixtures,
//! `testing` feature only).
pub mod columns;
pub mod console_actions;
pub mod describe;
pub mod detail;
pub mod events;
pub mod filter;
pub mod fleets;
pub mod health;
mod health_store;
pub mod names;
mod pod_warning_store;
pub use health_store::{chain_tops, verdict_of};
pub mod pod_warnings;
pub mod probe;
pub mod rows;
pub mod runners;
pub mod running;
/// Sample objects for the tests of every crate and the benches; not in the shipped binary.
#[cfg(any(test, feature = "testing"))]
pub mod sample;
pub mod sort;
pub mod store;
pub mod symbols;
pub mod text;
pub mod verdict;
pub mod watches;

#[cfg(test)]
mod pod_warning_tests;
#[cfg(test)]
mod relist_tests;
#[cfg(test)]
mod render_event_tests;
#[cfg(test)]
mod running_tests;
#[cfg(test)]
mod sort_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod verdict_tests;

use std::collections::{BTreeMap, VecDeque};

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
    /// Warning events whose involved object is a Pod (kept: those of the SeiNodes' pods).
    PodWarning(Delta<Event>),
    /// The SeiNodes' pods, fleet-wide (slimmed: what judges their Warnings stale).
    NodePod(Delta<Pod>),
    /// The selected node's StatefulSet.
    StatefulSet(Delta<StatefulSet>),
    /// The selected node's Pods.
    Pod(Delta<Pod>),
    /// Events about the selected node's Pod.
    DetailEvent(Delta<Event>),
    /// Events about the selected node's StatefulSet (a separate watch: field selectors cannot
    /// match two kinds, and each watch's relist must replace only its own events).
    StatefulSetEvent(Delta<Event>),
    /// The selected seed's NodeID (node-key Secret or sidecar), or why it is unknown.
    NodeId {
        key: ObjectKey,
        lookup: detail::NodeIdLookup,
    },
}

/// An object left out of the stores because it could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkippedEntry<'a> {
    /// The object's kind as Kubernetes names it (`SeiNode`, `Event`, …).
    pub kind: &'static str,
    pub key: &'a ObjectKey,
    pub reason: &'a str,
}

/// Every watched object plus the derived fleet rows.
#[derive(Debug, Default)]
pub struct Fleet {
    /// The kubeconfig context these objects come from (empty: one unnamed cluster).
    context: std::sync::Arc<str>,
    /// The watched SeiNodes, slimmed by [`slim_node`]: read them for display, never write
    /// them back or print them as the object (fetch it from the API server for that).
    pub nodes: Store<SeiNode>,
    pub node_events: Store<Event>,
    /// The Warning events of the SeiNodes' pods (`<node>-0`), slimmed by
    /// `pod_warnings::slim_pod_event`.
    pub pod_warnings: Store<Event>,
    /// Every SeiNode's pod, slimmed by `pod_warnings::slim_pod` (the node screen's full pods
    /// are `pods`).
    pub node_pods: Store<Pod>,
    pub statefulsets: Store<StatefulSet>,
    pub pods: Store<Pod>,
    pub detail_events: Store<Event>,
    pub statefulset_events: Store<Event>,
    /// NodeIDs of the selected seed, from the detail effects.
    pub node_ids: BTreeMap<ObjectKey, detail::NodeIdLookup>,
    /// The outside probes of seeds (last result, one running), kept across screens.
    seed_probes: BTreeMap<ObjectKey, probe::SeedProbe>,
    /// Each node's readings of its RPC (chain health), kept across screens (`health_store`).
    health: BTreeMap<ObjectKey, crate::chain::NodeHealth>,
    event_index: EventIndex,
    /// Which pod Warning is about which node (by the pod's name `<node>-0`).
    pod_warning_index: EventIndex,
    /// Boxed: the map's nodes are often half full, and a row is 424 bytes.
    rows: BTreeMap<ObjectKey, Box<FleetRow>>,
    widths: columns::CellWidths,
    default_sidecar_image: Option<String>,
    /// The cluster's SeiNode CRD against the embedded one (`None`: not read yet).
    crd: Option<Box<crate::api::crd_compare::CrdView>>,
    /// The platform config in use, which render-failure events are judged against.
    platform: Option<Box<crate::render::fix::PlatformInUse>>,
    /// Who runs this cluster's Active plans, as last read (`runners`), and the clock their
    /// Leases were last judged at (orphans are named against it).
    runners: Option<runners::Runners>,
    runners_judged_at: Option<jiff::Timestamp>,
    /// The header counts of `rows`, kept as rows change (a frame never recounts the fleet).
    counts: sort::Counts,
    /// The keys of the rows added, refreshed or removed since `rows_revision` was
    /// `row_log_from`, each with the revision it made; a change to every row, or too many
    /// changes, empties it and moves `row_log_from` (a listing older than that is built again).
    row_log: VecDeque<(u64, ObjectKey)>,
    row_log_from: u64,
    revision: u64,
    rows_revision: u64,
}

/// The most row changes kept for listings to catch up on; past it, re-listing every row costs
/// less than moving each changed one.
const ROW_LOG_CAPACITY: usize = 256;

impl Fleet {
    /// `default_sidecar_image` is the platform config's `images.sidecar`, if known.
    pub fn new(default_sidecar_image: Option<String>) -> Fleet {
        Fleet {
            default_sidecar_image,
            ..Fleet::default()
        }
    }

    /// The fleet of one cluster: every key it makes carries `context`.
    pub fn in_context(context: &str, default_sidecar_image: Option<String>) -> Fleet {
        let context: std::sync::Arc<str> = context.into();
        Fleet {
            nodes: Store::in_context(&context),
            node_events: Store::in_context(&context),
            pod_warnings: Store::in_context(&context),
            node_pods: Store::in_context(&context),
            statefulsets: Store::in_context(&context),
            pods: Store::in_context(&context),
            detail_events: Store::in_context(&context),
            statefulset_events: Store::in_context(&context),
            context,
            default_sidecar_image,
            ..Fleet::default()
        }
    }

    /// The kubeconfig context of this fleet (empty when unnamed).
    pub fn context(&self) -> &std::sync::Arc<str> {
        &self.context
    }

    /// Applies one delta, updating only the rows it touches. A delta that changes nothing (an
    /// object re-sent with the same `resourceVersion`) leaves the revision alone: no redraw.
    pub fn apply(&mut self, delta: FleetDelta) {
        match delta {
            FleetDelta::Node(mut delta) => {
                if let Delta::Applied(node) | Delta::RelistItem(node) = &mut delta {
                    slim_node(node);
                }
                self.apply_node(delta);
            }
            FleetDelta::NodeEvent(delta) => self.apply_node_event(delta),
            FleetDelta::PodWarning(delta) => self.apply_pod_warning(delta),
            FleetDelta::NodePod(delta) => self.apply_node_pod(delta),
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
            FleetDelta::NodeId { key, lookup } => {
                if self.node_ids.get(&key) != Some(&lookup) {
                    self.node_ids.insert(key, lookup);
                    self.bump();
                }
            }
        }
    }

    fn apply_node(&mut self, delta: Delta<SeiNode>) {
        match self.nodes.apply(delta) {
            Change::Nothing => {}
            Change::One(key) => self.refresh_row(&key),
            Change::Dropped(keys) => {
                for key in &keys {
                    self.refresh_row(key);
                }
                self.bump_rows();
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

    /// Rows were added, removed or all changed: listings are built again.
    fn bump_rows(&mut self) {
        self.rows_revision = self.rows_revision.wrapping_add(1);
        self.row_log.clear();
        self.row_log_from = self.rows_revision;
        self.bump();
    }

    fn apply_node_event(&mut self, delta: Delta<Event>) {
        let about = match &delta {
            Delta::Applied(event) | Delta::RelistItem(event) => {
                Some(involved_key(event).in_context(&self.context))
            }
            _ => None,
        };
        let Some(change) = self
            .event_index
            .apply_delta(&mut self.node_events, delta, about)
        else {
            return;
        };
        if change.relist_ended {
            self.bump();
        }
        for key in change.touched {
            self.refresh_row(&key);
        }
    }

    /// Rebuilds the row of `key` from the stored node and its events, in place when the row
    /// exists (its strings keep their allocations).
    fn refresh_row(&mut self, key: &ObjectKey) {
        match self.nodes.get(key) {
            Some(node) => {
                let events = self
                    .event_index
                    .events_of(key)
                    .filter_map(|event_key| self.node_events.get(event_key));
                let default_sidecar_image = self.default_sidecar_image.as_deref();
                let probe = self.seed_probes.get(key);
                let mark = probe.and_then(probe::SeedProbe::mark);
                let seed_cell = probe.and_then(probe::SeedProbe::cell);
                let pod_warning = pod_warning_store::live_pod_warning_of(
                    key,
                    &self.pod_warning_index,
                    &self.pod_warnings,
                    &self.node_pods,
                );
                let row = match self.rows.get_mut(key) {
                    Some(row) => {
                        self.counts.remove(row);
                        row.refresh(node, events, default_sidecar_image);
                        row
                    }
                    None => {
                        let row = FleetRow::build(key.clone(), node, events, default_sidecar_image);
                        self.rows.entry(key.clone()).or_insert(Box::new(row))
                    }
                };
                row.set_pod_warning(pod_warning);
                row.set_orphan(runners::orphan_of_node(
                    self.runners.as_ref(),
                    self.runners_judged_at,
                    node,
                    &self.context,
                ));
                let pod_key = ObjectKey {
                    name: pod_warnings::pod_of_node(&key.name).into(),
                    ..key.clone()
                };
                row.set_running(
                    self.node_pods
                        .get(&pod_key)
                        .and_then(running::RunningImage::of),
                );
                if row.probe_mark != mark {
                    row.probe_mark = mark;
                    row.rejudge();
                }
                row.seed_cell = seed_cell;
                self.counts.add(row);
                self.widths.grow(row);
                let row_key = row.key.clone();
                self.log_row_change(row_key);
            }
            None => {
                self.health.remove(key);
                if let Some(row) = self.rows.remove(key) {
                    self.counts.remove(&row);
                    self.log_row_change(row.key);
                }
            }
        }
    }

    /// Records that the row of `key` (the row's own key, whose clones listings hold) was added,
    /// refreshed or removed, so a listing can move just that row.
    fn log_row_change(&mut self, key: ObjectKey) {
        self.rows_revision = self.rows_revision.wrapping_add(1);
        self.bump();
        if self.row_log.len() == ROW_LOG_CAPACITY {
            self.row_log.clear();
            self.row_log_from = self.rows_revision;
        } else {
            self.row_log.push_back((self.rows_revision, key));
        }
    }

    /// The keys of the rows added, refreshed or removed since `rows_revision` was `revision`
    /// (a key may repeat), or `None` when the fleet no longer remembers (every row changed, or
    /// too many did).
    pub fn rows_changed_since(&self, revision: u64) -> Option<impl Iterator<Item = &ObjectKey>> {
        if revision < self.row_log_from || revision > self.rows_revision {
            return None;
        }
        let changed = self
            .row_log
            .iter()
            .filter(move |(at, _)| *at > revision)
            .map(|(_, key)| key);
        Some(changed)
    }

    /// The header counts of every row.
    pub fn counts(&self) -> &sort::Counts {
        &self.counts
    }

    /// The probes of seed `key`, if any ran or runs.
    pub fn seed_probe(&self, key: &ObjectKey) -> Option<&probe::SeedProbe> {
        self.seed_probes.get(key)
    }

    /// Every seed's probes.
    pub fn seed_probes(&self) -> impl Iterator<Item = (&ObjectKey, &probe::SeedProbe)> {
        self.seed_probes.iter()
    }

    /// Records the probes of seed `key` and refreshes its row's mark.
    pub fn set_seed_probe(&mut self, key: &ObjectKey, probe: probe::SeedProbe) {
        if self.seed_probes.get(key) == Some(&probe) {
            return;
        }
        self.seed_probes.insert(key.clone(), probe);
        if self.rows.contains_key(key) {
            self.refresh_row(key);
        } else {
            self.bump();
        }
    }

    /// The platform config in use (its source; its content once read).
    pub fn platform_in_use(&self) -> Option<&crate::render::fix::PlatformInUse> {
        self.platform.as_deref()
    }

    /// The platform config in use was read (or its source named): render failures are judged
    /// against it from now on.
    pub fn set_platform_in_use(&mut self, platform: crate::render::fix::PlatformInUse) {
        self.platform = Some(Box::new(platform));
        self.bump();
    }

    /// The cluster's SeiNode CRD as last compared with the embedded one.
    pub fn crd(&self) -> Option<&crate::api::crd_compare::CrdView> {
        self.crd.as_deref()
    }

    /// Keeps the cluster's CRD comparison (read on connecting, again when the CRD changes);
    /// the same one changes nothing.
    pub fn set_crd(&mut self, crd: crate::api::crd_compare::CrdView) {
        if self.crd.as_deref() != Some(&crd) {
            self.crd = Some(Box::new(crd));
            self.bump();
        }
    }

    /// The platform's default sidecar image (`images.sidecar`), if known.
    pub fn default_sidecar_image(&self) -> Option<&str> {
        self.default_sidecar_image.as_deref()
    }

    /// Changes the platform's default sidecar image (the controller's ConfigMap changed) and
    /// rebuilds every row's sidecar drift; the same image changes nothing.
    pub fn set_default_sidecar_image(&mut self, image: Option<String>) {
        if self.default_sidecar_image == image {
            return;
        }
        self.default_sidecar_image = image;
        let keys: Vec<ObjectKey> = self.rows.keys().cloned().collect();
        for key in &keys {
            self.refresh_row(key);
        }
        self.bump_rows();
    }

    /// Forgets the selected node's StatefulSet, Pods and their events (selection changed).
    pub fn clear_detail(&mut self) {
        self.statefulsets.clear();
        self.pods.clear();
        self.detail_events.clear();
        self.statefulset_events.clear();
        self.node_ids.clear();
        self.bump();
    }

    /// Forgets everything (namespace or context changed).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.node_events.clear();
        self.event_index.clear();
        self.pod_warnings.clear();
        self.node_pods.clear();
        self.pod_warning_index.clear();
        self.rows.clear();
        self.counts = sort::Counts::default();
        self.seed_probes.clear();
        self.health.clear();
        self.runners = None;
        self.widths = columns::CellWidths::default();
        self.bump_rows();
        self.clear_detail();
    }

    /// Rows in namespace/name order.
    pub fn rows(&self) -> impl Iterator<Item = &FleetRow> {
        self.rows.values().map(Box::as_ref)
    }

    pub fn row(&self, key: &ObjectKey) -> Option<&FleetRow> {
        self.rows.get(key).map(Box::as_ref)
    }

    /// Widths of the table's columns over every row this scope has shown (they never shrink
    /// while the scope stays, so the columns keep still).
    pub fn widths(&self) -> &columns::CellWidths {
        &self.widths
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

    /// Every object a watch or list left out because it could not be decoded, SeiNodes first.
    pub fn skipped(&self) -> Vec<SkippedEntry<'_>> {
        let stores = [
            ("SeiNode", self.nodes.skipped().collect::<Vec<_>>()),
            ("Event", self.node_events.skipped().collect()),
            ("Event", self.pod_warnings.skipped().collect()),
            ("Pod", self.node_pods.skipped().collect()),
            ("StatefulSet", self.statefulsets.skipped().collect()),
            ("Pod", self.pods.skipped().collect()),
            ("Event", self.detail_events.skipped().collect()),
            ("Event", self.statefulset_events.skipped().collect()),
        ];
        stores
            .into_iter()
            .flat_map(|(kind, entries)| {
                entries
                    .into_iter()
                    .map(move |(key, reason)| SkippedEntry { kind, key, reason })
            })
            .collect()
    }

    /// Increases on every change to anything the screens show.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Increases when a fleet row changes; the selected node's StatefulSet, Pods and their
    /// events leave it alone, so they never cost a re-listing of the whole fleet.
    pub fn rows_revision(&self) -> u64 {
        self.rows_revision
    }
}

/// Drops from a SeiNode what neither the fleet rows nor the node screen read and what costs the
/// most memory across a large fleet: managed fields, the last-applied annotation (a copy of the
/// whole spec) and the plan tasks' params (task inputs such as config patches). The spec is
/// kept whole.
pub fn slim_node(node: &mut SeiNode) {
    node.metadata.managed_fields = None;
    if let Some(annotations) = node.metadata.annotations.as_mut() {
        annotations.remove(LAST_APPLIED_ANNOTATION);
        if annotations.is_empty() {
            node.metadata.annotations = None;
        }
    }
    if let Some(plan) = node.status.as_mut().and_then(|s| s.plan.as_mut()) {
        for task in &mut plan.tasks {
            task.params = None;
        }
    }
}

/// Written by `kubectl apply`: the whole last applied object, as JSON.
pub const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";
