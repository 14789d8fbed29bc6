//! Fleet columns, sorting, and the filtered, sorted list with its header counts.
use std::cmp::{Ordering, Reverse};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::Fleet;
use super::filter::Filter;
use super::rows::FleetRow;
use super::store::ObjectKey;
use crate::api::{NodeMode, Phase};

/// Columns of the fleet table, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    /// The kubeconfig context; shown only when more than one is watched.
    Cluster,
    Namespace,
    Name,
    Mode,
    Chain,
    Phase,
    /// Chain health of the node's RPC; shown once any node was read.
    Health,
    Image,
    Plan,
    Conditions,
    Warning,
    Age,
}

impl Column {
    pub const ALL: [Column; 12] = [
        Column::Cluster,
        Column::Namespace,
        Column::Name,
        Column::Mode,
        Column::Chain,
        Column::Phase,
        Column::Health,
        Column::Image,
        Column::Plan,
        Column::Conditions,
        Column::Warning,
        Column::Age,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Column::Cluster => "CLUSTER",
            Column::Namespace => "NAMESPACE",
            Column::Name => "NAME",
            Column::Mode => "MODE",
            Column::Chain => "CHAIN",
            Column::Phase => "PHASE",
            Column::Health => "HEIGHT/LAG",
            Column::Image => "IMAGE",
            Column::Plan => "PLAN",
            Column::Conditions => "CONDITIONS",
            Column::Warning => "LAST WARNING",
            Column::Age => "AGE",
        }
    }

    pub(crate) fn index(self) -> usize {
        Column::ALL.iter().position(|c| *c == self).unwrap_or(0)
    }

    pub fn next(self) -> Column {
        Column::ALL[(self.index() + 1) % Column::ALL.len()]
    }

    pub fn previous(self) -> Column {
        Column::ALL[(self.index() + Column::ALL.len() - 1) % Column::ALL.len()]
    }
}

/// Sort column and direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub column: Column,
    pub descending: bool,
}

impl Default for Sort {
    fn default() -> Self {
        Sort {
            column: Column::Namespace,
            descending: false,
        }
    }
}

fn phase_rank(phase: Option<Phase>) -> u8 {
    // Trouble first when sorting by phase.
    match phase {
        Some(Phase::Failed) => 0,
        Some(Phase::Terminating) => 1,
        Some(Phase::Initializing) => 2,
        Some(Phase::Pending) => 3,
        None => 4,
        Some(Phase::Running) => 5,
    }
}

/// Something done with the sort key of a column: sorting a slice of rows by it, or comparing
/// two rows. [`by_column`] names each column's key once for both, so the listing built whole and
/// the listing kept up to date row by row cannot disagree on the order.
trait SortKeyUse<'a> {
    type Out;
    /// Uses `key`, reversed when `descending`; ties keep cluster, namespace, name order.
    fn key<K: Ord>(self, descending: bool, key: impl Fn(&'a FleetRow) -> K) -> Self::Out;
    /// The column orders as the rows' keys do (cluster, namespace, name).
    fn key_order(self) -> Self::Out;
}

fn by_column<'a, U: SortKeyUse<'a>>(sort: Sort, on: U) -> U::Out {
    let descending = sort.descending;
    match sort.column {
        // Rows arrive in cluster, namespace, name order.
        Column::Namespace => on.key_order(),
        Column::Cluster => on.key(descending, |r: &'a FleetRow| r.key.context.as_ref()),
        Column::Name => on.key(descending, |r: &'a FleetRow| r.key.name.as_ref()),
        Column::Mode => on.key(descending, |r: &'a FleetRow| r.mode),
        Column::Chain => on.key(descending, |r: &'a FleetRow| r.chain_id.as_str()),
        // Within a phase, the nodes whose verdict is not healthy first.
        Column::Phase => on.key(descending, |r: &'a FleetRow| {
            (phase_rank(r.phase), !r.is_sick())
        }),
        // Trouble first, nodes not read last; the height does not move a row.
        Column::Health => on.key(descending, |r: &'a FleetRow| {
            (r.health.is_none(), r.health.map(|h| h.state))
        }),
        // Drifted first, then by image.
        Column::Image => on.key(descending, |r: &'a FleetRow| {
            (Reverse(r.drift.any()), r.image.as_str())
        }),
        // Furthest along first.
        Column::Plan => on.key(descending, |r: &'a FleetRow| {
            Reverse(r.plan.as_ref().map(|p| (p.phase as u8, p.done, p.total)))
        }),
        // Most trouble first.
        Column::Conditions => on.key(!descending, |r: &'a FleetRow| r.bad_condition_count()),
        // Latest warning first.
        Column::Warning => on.key(descending, |r: &'a FleetRow| {
            Reverse(r.warning().map(|w| w.last_seen))
        }),
        // Oldest first, like kubectl's AGE reading top-down.
        Column::Age => on.key(descending, |r: &'a FleetRow| r.created),
    }
}

/// Sorts rows that arrive in key order, stably: ties stay in key order without comparing keys,
/// and the namespace column needs no sort at all.
struct SortRows<'r, 'a>(&'r mut [&'a FleetRow]);

impl<'a> SortKeyUse<'a> for SortRows<'_, 'a> {
    type Out = ();

    fn key<K: Ord>(self, descending: bool, key: impl Fn(&'a FleetRow) -> K) {
        // `sort_by_cached_key` keeps equal keys in order and reads each row once: comparing
        // keys cached side by side costs fewer cache misses than reaching into two rows per
        // comparison.
        if descending {
            self.0.sort_by_cached_key(|row| Reverse(key(row)));
        } else {
            self.0.sort_by_cached_key(|row| key(row));
        }
    }

    fn key_order(self) {}
}

/// Where `self.0` goes relative to `self.1` in a listing.
struct CompareRows<'a>(&'a FleetRow, &'a FleetRow);

impl<'a> SortKeyUse<'a> for CompareRows<'a> {
    type Out = Ordering;

    fn key<K: Ord>(self, descending: bool, key: impl Fn(&'a FleetRow) -> K) -> Ordering {
        let by_key = key(self.0).cmp(&key(self.1));
        let by_key = if descending { by_key.reverse() } else { by_key };
        by_key.then_with(|| self.0.key.cmp(&self.1.key))
    }

    fn key_order(self) -> Ordering {
        self.0.key.cmp(&self.1.key)
    }
}

/// Whether the column orders rows as their keys do (no row need be read to place one).
struct KeyOrderOnly;

impl<'a> SortKeyUse<'a> for KeyOrderOnly {
    type Out = bool;

    fn key<K: Ord>(self, _: bool, _: impl Fn(&'a FleetRow) -> K) -> bool {
        false
    }

    fn key_order(self) -> bool {
        true
    }
}

fn sort_rows(rows: &mut [&FleetRow], sort: Sort) {
    by_column(sort, SortRows(rows));
}

/// The order of two rows in a listing sorted by `sort`.
pub fn order(a: &FleetRow, b: &FleetRow, sort: Sort) -> Ordering {
    by_column(sort, CompareRows(a, b))
}

/// Header counts of the whole scope, and how many rows the filter shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    pub shown: usize,
    /// Keyed by phase; `None` = no phase yet.
    pub by_phase: BTreeMap<PhaseKey, usize>,
    pub by_mode: BTreeMap<Option<NodeMode>, usize>,
    pub drifted: usize,
    pub warnings: usize,
    /// Nodes not healthy by their verdict while their phase does not say so; they are left out
    /// of `by_phase` (a sick Running node is not counted Running).
    pub sick: usize,
    /// Rows per kubeconfig context (one entry when one cluster is watched).
    pub by_context: BTreeMap<std::sync::Arc<str>, usize>,
}

impl Counts {
    /// Counts `row` in.
    pub fn add(&mut self, row: &FleetRow) {
        self.total += 1;
        match self.by_context.get_mut(&row.key.context) {
            Some(count) => *count += 1,
            None => {
                self.by_context.insert(row.key.context.clone(), 1);
            }
        }
        if row.is_sick() {
            self.sick += 1;
        } else {
            *self.by_phase.entry(PhaseKey::of(row.phase)).or_default() += 1;
        }
        *self.by_mode.entry(row.mode).or_default() += 1;
        self.drifted += usize::from(row.drift.any());
        self.warnings += usize::from(row.warning().is_some());
    }

    /// Counts `row` out again (as it was when counted in); a group it leaves empty disappears,
    /// so the counts equal those of the remaining rows counted afresh.
    pub fn remove(&mut self, row: &FleetRow) {
        fn decrement<K: Ord>(map: &mut BTreeMap<K, usize>, key: &K) {
            if let Some(count) = map.get_mut(key) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    map.remove(key);
                }
            }
        }
        self.total = self.total.saturating_sub(1);
        decrement(&mut self.by_context, &row.key.context);
        if row.is_sick() {
            self.sick = self.sick.saturating_sub(1);
        } else {
            decrement(&mut self.by_phase, &PhaseKey::of(row.phase));
        }
        decrement(&mut self.by_mode, &row.mode);
        self.drifted = self.drifted.saturating_sub(usize::from(row.drift.any()));
        self.warnings = self
            .warnings
            .saturating_sub(usize::from(row.warning().is_some()));
    }

    /// Adds the counts of other rows (another cluster's); `shown` is left alone.
    pub fn merge(&mut self, other: &Counts) {
        fn sum<K: Ord + Clone>(into: &mut BTreeMap<K, usize>, from: &BTreeMap<K, usize>) {
            for (key, count) in from {
                *into.entry(key.clone()).or_default() += count;
            }
        }
        self.total += other.total;
        sum(&mut self.by_context, &other.by_context);
        sum(&mut self.by_phase, &other.by_phase);
        sum(&mut self.by_mode, &other.by_mode);
        self.drifted += other.drifted;
        self.warnings += other.warnings;
        self.sick += other.sick;
    }
}

/// Orderable phase key for the header (Running first, then progress, then trouble).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct PhaseKey(pub u8, pub PhaseOrd);

/// `Option<Phase>` with an order (the api enum has none); only the rank orders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhaseOrd(pub Option<Phase>);

impl PartialOrd for PhaseOrd {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PhaseOrd {
    fn cmp(&self, other: &Self) -> Ordering {
        phase_rank(self.0).cmp(&phase_rank(other.0))
    }
}

impl PhaseKey {
    fn of(phase: Option<Phase>) -> PhaseKey {
        PhaseKey(5 - phase_rank(phase), PhaseOrd(phase))
    }
}

/// The filtered, sorted keys and their counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub keys: Vec<ObjectKey>,
    pub counts: Counts,
}

/// Filters and sorts the fleet's rows. Ties break by namespace then name, so the order is stable.
/// The counts are of the whole scope, so a filter never hides a Failed node from the header;
/// `shown` is how many rows pass the filter.
pub fn listing(fleet: &Fleet, filter: &Filter, sort: Sort) -> Listing {
    listing_of(fleet.rows(), filter, sort)
}

/// [`listing`] over rows of any number of clusters, in key order (cluster, namespace, name).
pub fn listing_of<'a>(
    all_rows: impl Iterator<Item = &'a FleetRow>,
    filter: &Filter,
    sort: Sort,
) -> Listing {
    let mut counts = Counts::default();
    let keys = listed_keys(all_rows.inspect(|row| counts.add(row)), filter, sort);
    counts.shown = keys.len();
    Listing { keys, counts }
}

/// The keys of [`listing_of`], without the counts (a fleet keeps those as its rows change).
pub fn listed_keys<'a>(
    all_rows: impl Iterator<Item = &'a FleetRow>,
    filter: &Filter,
    sort: Sort,
) -> Vec<ObjectKey> {
    let mut rows: Vec<&FleetRow> = all_rows.filter(|row| filter.matches(row)).collect();
    sort_rows(&mut rows, sort);
    rows.into_iter().map(|row| row.key.clone()).collect()
}

/// Brings `keys` (a listing by `filter` and `sort`) up to date after the rows of `changed` (a
/// key may repeat) were added, refreshed or removed, without re-listing the others: each
/// changed row leaves its old place and, if it still exists and passes the filter, goes where
/// the order puts it. `row_of` reads the current row of a key.
///
/// `changed` holds clones of the rows' own keys, as `keys` does, so a changed row's old entry
/// is found by the addresses of its key's strings, without reading the strings of every
/// listed key.
pub fn relist_changed<'a>(
    keys: &mut Vec<ObjectKey>,
    changed: &[&ObjectKey],
    filter: &Filter,
    sort: Sort,
    row_of: impl Fn(&ObjectKey) -> Option<&'a FleetRow>,
) {
    let mut gone: Vec<KeyIdentity> = changed.iter().map(|key| identity(key)).collect();
    gone.sort_unstable();
    keys.retain(|key| gone.binary_search(&identity(key)).is_err());
    // A row removed and added again comes twice, under two keys of equal value.
    let mut fresh: Vec<&ObjectKey> = changed.to_vec();
    fresh.sort_unstable();
    fresh.dedup();
    let key_order = by_column(sort, KeyOrderOnly);
    for row in fresh.into_iter().filter_map(&row_of) {
        if !filter.matches(row) {
            continue;
        }
        let at = if key_order {
            keys.partition_point(|key| *key < row.key)
        } else {
            keys.partition_point(|key| {
                row_of(key).is_some_and(|listed| order(listed, row, sort) == Ordering::Less)
            })
        };
        keys.insert(at, row.key.clone());
    }
}

/// The addresses of a key's shared strings: equal for a key and its clones, never for two keys
/// of different values (and a listed key's strings stay allocated while it is listed).
type KeyIdentity = (usize, usize, usize);

fn identity(key: &ObjectKey) -> KeyIdentity {
    (
        Arc::as_ptr(&key.context).cast::<u8>() as usize,
        Arc::as_ptr(&key.namespace).cast::<u8>() as usize,
        Arc::as_ptr(&key.name).cast::<u8>() as usize,
    )
}
