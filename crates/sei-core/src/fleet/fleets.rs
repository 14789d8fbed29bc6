//! One fleet across several clusters: a [`Fleet`] per kubeconfig context, keys stamped with
//! their context, read as one table (rows in cluster, namespace, name order).
//!
//! Each cluster keeps its own stores, so a relist of one cluster (its watch came back) drops
//! only that cluster's missing objects, and one cluster going silent leaves the others' rows.
use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Event;

use super::columns::CellWidths;
use super::filter::Filter;
use super::rows::FleetRow;
use super::sort::{Counts, Listing, Sort, listed_keys, listing_of, relist_changed};
use super::store::ObjectKey;
use super::{Fleet, FleetDelta, SkippedEntry};
use crate::api::SeiNode;

/// The fleets of every watched context, by context.
#[derive(Debug, Default)]
pub struct Fleets {
    fleets: BTreeMap<Arc<str>, Fleet>,
    /// The platform file's default sidecar image, given to every cluster's fleet at start (a
    /// cluster's controller ConfigMap then changes its own).
    default_sidecar_image: Option<String>,
    /// The platform config every cluster uses (a file), given to fleets added later too.
    platform: Option<crate::render::fix::PlatformInUse>,
    /// Moves when a cluster is added or removed (the fleets' own revisions cannot say so); a
    /// removed fleet's revisions are added to it, so `revision` and `rows_revision` never
    /// return to a value they had.
    membership: u64,
    /// The highest height of each chain ID at the last `judge_health`: one new reading is
    /// judged against it without a pass over the fleet (`health_store`).
    pub(super) health_tops: BTreeMap<String, crate::chain::ChainTop>,
    /// The chains' reference RPCs from the config file and their last reads.
    pub(super) references: crate::chain::References,
}

impl Fleets {
    /// Empty fleets of `contexts`.
    pub fn new(contexts: &[String], default_sidecar_image: Option<String>) -> Fleets {
        let mut fleets = Fleets {
            default_sidecar_image,
            ..Fleets::default()
        };
        fleets.set_contexts(contexts);
        fleets
    }

    /// Watches exactly `contexts` from now on: fleets of contexts no longer listed are dropped,
    /// new ones start empty, the others keep their rows.
    pub fn set_contexts(&mut self, contexts: &[String]) {
        let mut changed = false;
        let mut retired: u64 = 0;
        self.fleets.retain(|context, fleet| {
            let keep = contexts.iter().any(|c| c.as_str() == context.as_ref());
            if !keep {
                changed = true;
                // Counted on, so the sums below still only grow.
                retired = retired
                    .wrapping_add(fleet.revision())
                    .wrapping_add(fleet.rows_revision());
            }
            keep
        });
        self.membership = self.membership.wrapping_add(retired);
        for context in contexts {
            if !self.fleets.contains_key(context.as_str()) {
                let mut fleet = Fleet::in_context(context, self.default_sidecar_image.clone());
                if let Some(platform) = &self.platform {
                    fleet.set_platform_in_use(platform.clone());
                }
                self.fleets.insert(fleet.context().clone(), fleet);
                changed = true;
            }
        }
        if changed {
            self.membership = self.membership.wrapping_add(1);
        }
    }

    /// The platform config every cluster uses (a file given to the console): render failures
    /// of every fleet, and of those added later, are judged against it.
    pub fn set_platform_in_use(&mut self, platform: crate::render::fix::PlatformInUse) {
        for fleet in self.fleets.values_mut() {
            fleet.set_platform_in_use(platform.clone());
        }
        self.platform = Some(platform);
    }

    /// The watched contexts, in order.
    pub fn contexts(&self) -> impl Iterator<Item = &Arc<str>> {
        self.fleets.keys()
    }

    /// Whether more than one cluster is watched (the table then shows a CLUSTER column).
    pub fn is_multi(&self) -> bool {
        self.fleets.len() > 1
    }

    pub fn fleet(&self, context: &str) -> Option<&Fleet> {
        self.fleets.get(context)
    }

    pub fn fleet_mut(&mut self, context: &str) -> Option<&mut Fleet> {
        self.fleets.get_mut(context)
    }

    /// Every cluster's fleet, in context order.
    pub fn iter(&self) -> impl Iterator<Item = &Fleet> {
        self.fleets.values()
    }

    /// Applies a delta of `context`'s watches (a context not watched is ignored).
    pub fn apply(&mut self, context: &str, delta: FleetDelta) {
        if let Some(fleet) = self.fleets.get_mut(context) {
            fleet.apply(delta);
        }
    }

    /// Every row, in cluster, namespace, name order.
    pub fn rows(&self) -> impl Iterator<Item = &FleetRow> {
        self.fleets.values().flat_map(Fleet::rows)
    }

    pub fn row(&self, key: &ObjectKey) -> Option<&FleetRow> {
        self.fleets.get(&key.context)?.row(key)
    }

    /// The stored (slimmed) SeiNode of `key`.
    pub fn node(&self, key: &ObjectKey) -> Option<&SeiNode> {
        self.fleets.get(&key.context)?.nodes.get(key)
    }

    /// The stored Pod `key` (in `key`'s cluster).
    pub fn pod(&self, key: &ObjectKey) -> Option<&k8s_openapi::api::core::v1::Pod> {
        self.fleets.get(&key.context)?.pods.get(key)
    }

    /// The NodeID lookup of the seed `key`, from the detail effects.
    pub fn node_id(&self, key: &ObjectKey) -> Option<&super::detail::NodeIdLookup> {
        self.fleets.get(&key.context)?.node_ids.get(key)
    }

    /// The seeds' outside probes of every cluster.
    pub fn seed_probes(&self) -> impl Iterator<Item = (&ObjectKey, &super::probe::SeedProbe)> {
        self.fleets.values().flat_map(Fleet::seed_probes)
    }

    pub fn seed_probe(&self, key: &ObjectKey) -> Option<&super::probe::SeedProbe> {
        self.fleets.get(&key.context)?.seed_probe(key)
    }

    /// Records `key`'s probe in its cluster's fleet (a cluster no longer watched is ignored).
    pub fn set_seed_probe(&mut self, key: &ObjectKey, probe: super::probe::SeedProbe) {
        if let Some(fleet) = self.fleets.get_mut(&key.context) {
            fleet.set_seed_probe(key, probe);
        }
    }

    /// The Events about the SeiNode `key`.
    pub fn events_of_node<'a>(&'a self, key: &ObjectKey) -> Vec<&'a Event> {
        self.fleets
            .get(&key.context)
            .map(|fleet| fleet.events_of_node(key).collect())
            .unwrap_or_default()
    }

    /// The widest cells over every cluster.
    pub fn widths(&self) -> CellWidths {
        let mut widths = CellWidths::default();
        for fleet in self.fleets.values() {
            widths.widen(fleet.widths());
        }
        widths
    }

    pub fn len(&self) -> usize {
        self.fleets.values().map(Fleet::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.fleets.values().all(Fleet::is_empty)
    }

    /// Objects left out as undecodable, with their cluster.
    pub fn skipped(&self) -> Vec<(&Arc<str>, SkippedEntry<'_>)> {
        self.fleets
            .iter()
            .flat_map(|(context, fleet)| fleet.skipped().into_iter().map(move |e| (context, e)))
            .collect()
    }

    /// Whether every cluster's SeiNodes have been listed once.
    pub fn nodes_synced(&self) -> bool {
        self.fleets.values().all(|fleet| fleet.nodes.is_synced())
    }

    /// Forgets every cluster's node-screen objects.
    pub fn clear_detail(&mut self) {
        for fleet in self.fleets.values_mut() {
            fleet.clear_detail();
        }
    }

    /// Forgets everything (the namespace changed).
    pub fn clear(&mut self) {
        for fleet in self.fleets.values_mut() {
            fleet.clear();
        }
    }

    /// Moves on every change anything shows.
    pub fn revision(&self) -> u64 {
        self.fleets
            .values()
            .fold(self.membership, |sum, f| sum.wrapping_add(f.revision()))
    }

    /// Moves when a row of any cluster changes.
    pub fn rows_revision(&self) -> u64 {
        self.fleets.values().fold(self.membership, |sum, f| {
            sum.wrapping_add(f.rows_revision())
        })
    }

    /// The filtered, sorted rows of every cluster.
    pub fn listing(&self, filter: &Filter, sort: Sort) -> Listing {
        listing_of(self.rows(), filter, sort)
    }

    /// Where every cluster's rows stand now, to bring a listing up to date from later.
    pub fn row_marks(&self) -> RowMarks {
        RowMarks {
            membership: self.membership,
            clusters: self.fleets.values().map(Fleet::rows_revision).collect(),
        }
    }

    /// The header counts of every cluster's rows.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for fleet in self.fleets.values() {
            counts.merge(fleet.counts());
        }
        counts
    }

    /// Brings `listing` up to date: made by `filter` and `sort` when the rows stood at `since`,
    /// only the rows added, refreshed or removed since then move; with no `since`, or when a
    /// cluster came or went or a fleet changed every row or too many, every row is listed
    /// again. The counts are always the fleets' own.
    pub fn relist(
        &self,
        listing: &mut Listing,
        since: Option<&RowMarks>,
        filter: &Filter,
        sort: Sort,
    ) {
        match since.and_then(|marks| self.rows_changed_since(marks)) {
            Some(changed) => {
                relist_changed(&mut listing.keys, &changed, filter, sort, |key| {
                    self.row(key)
                });
            }
            None => listing.keys = listed_keys(self.rows(), filter, sort),
        }
        listing.counts = self.counts();
        listing.counts.shown = listing.keys.len();
    }

    /// The keys of the rows changed since `marks`, or `None` when that cannot be told.
    fn rows_changed_since(&self, marks: &RowMarks) -> Option<Vec<&ObjectKey>> {
        if marks.membership != self.membership || marks.clusters.len() != self.fleets.len() {
            return None;
        }
        let mut changed = Vec::new();
        for (fleet, since) in self.fleets.values().zip(&marks.clusters) {
            changed.extend(fleet.rows_changed_since(*since)?);
        }
        Some(changed)
    }
}

/// Where the rows of every cluster stood (their revisions, and which clusters were watched).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowMarks {
    membership: u64,
    clusters: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::sample;
    use crate::fleet::sort::Column;
    use crate::fleet::store::Delta;

    fn two() -> Fleets {
        let mut fleets = Fleets::new(&["prod".into(), "arctic".into()], None);
        for context in ["prod", "arctic"] {
            fleets.apply(context, FleetDelta::Node(Delta::RelistStarted));
            for name in ["rpc-0", "seed-0"] {
                let node = sample::node("sei", name, crate::api::NodeMode::Full, 60);
                fleets.apply(context, FleetDelta::Node(Delta::relist_item(node)));
            }
            fleets.apply(context, FleetDelta::Node(Delta::RelistDone));
        }
        fleets
    }

    #[test]
    fn the_same_name_in_two_clusters_is_two_rows_in_cluster_order() {
        let fleets = two();
        let listing = fleets.listing(&Filter::default(), Sort::default());
        let keys: Vec<String> = listing
            .keys
            .iter()
            .map(|k| format!("{}:{k}", k.context))
            .collect();
        assert_eq!(
            keys,
            [
                "arctic:sei/rpc-0",
                "arctic:sei/seed-0",
                "prod:sei/rpc-0",
                "prod:sei/seed-0"
            ]
        );
        assert_eq!(listing.counts.total, 4);
        assert_eq!(listing.counts.by_context.len(), 2);
        assert!(listing.counts.by_context.values().all(|n| *n == 2));
        assert!(fleets.is_multi());
        let key = &listing.keys[2];
        assert_eq!(
            fleets.row(key).map(|r| r.key.context.as_ref()),
            Some("prod")
        );
        assert!(fleets.node(key).is_some());
    }

    #[test]
    fn ctx_filters_and_cluster_sorts() {
        let fleets = two();
        let filter = Filter::parse("ctx:prod").expect("filter");
        let listing = fleets.listing(&filter, Sort::default());
        assert_eq!(listing.counts.shown, 2);
        assert!(listing.keys.iter().all(|k| k.context.as_ref() == "prod"));
        assert_eq!(listing.counts.total, 4, "counts are of every cluster");
        let sort = Sort {
            column: Column::Cluster,
            descending: true,
        };
        let listing = fleets.listing(&Filter::default(), sort);
        assert_eq!(listing.keys[0].context.as_ref(), "prod");
        assert_eq!(
            listing.keys[0].name.as_ref(),
            "rpc-0",
            "ties keep name order"
        );
    }

    #[test]
    fn one_cluster_relisting_leaves_the_other_alone() {
        let mut fleets = two();
        let before = fleets.rows_revision();
        fleets.apply("prod", FleetDelta::Node(Delta::RelistStarted));
        fleets.apply("prod", FleetDelta::Node(Delta::RelistDone));
        assert!(fleets.rows_revision() != before);
        assert_eq!(fleets.fleet("prod").map(Fleet::len), Some(0));
        assert_eq!(fleets.fleet("arctic").map(Fleet::len), Some(2));
        let (revision, rows) = (fleets.revision(), fleets.rows_revision());
        fleets.set_contexts(&["arctic".into()]);
        assert!(fleets.revision() > revision && fleets.rows_revision() > rows);
        assert!(!fleets.is_multi());
        assert_eq!(fleets.len(), 2);
    }

    #[test]
    fn contexts_abbreviate_for_80_columns() {
        use crate::fleet::text::context_short;
        assert_eq!(context_short("prod"), "prod");
        assert_eq!(
            context_short("arn:aws:eks:us-east-2:1:cluster/pacific-1"),
            "pacific…"
        );
        assert_eq!(context_short("kind-arctic-1"), "kind-ar…");
    }
}
