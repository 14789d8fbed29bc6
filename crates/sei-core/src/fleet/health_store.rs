//! Where the fleet keeps each node's chain-health readings and judges them: the highest height
//! of each chain ID across every watched cluster is what a node's lag is measured against.
//!
//! A new verdict of the same state (only the height moved) updates the row's cell in place and
//! asks for a redraw; only a change of state counts as a changed row (the listing may move it:
//! filters and the HEIGHT/LAG sort look at the state only).
use std::collections::BTreeMap;

use jiff::Timestamp;

use super::fleets::Fleets;
use super::health::HealthBrief;
use super::store::ObjectKey;
use super::{Fleet, rows::FleetRow};
use crate::chain::{ChainTop, LagSource, NodeHealth, Reading, Reference, References, Verdict};

impl Fleet {
    /// The chain-health readings of `key`, if it was read.
    pub fn health(&self, key: &ObjectKey) -> Option<&NodeHealth> {
        self.health.get(key)
    }

    /// Whether any node of this cluster was read or is being read.
    pub fn has_health(&self) -> bool {
        !self.health.is_empty()
    }

    /// Every node's readings.
    pub fn health_entries(&self) -> impl Iterator<Item = (&ObjectKey, &NodeHealth)> {
        self.health.iter()
    }

    /// Notes that `key`'s RPC is being read (its first reading shows `…`).
    pub fn health_reading(&mut self, key: &ObjectKey) {
        if self.nodes.get(key).is_none() {
            return;
        }
        self.health.entry(key.clone()).or_default().reading = true;
    }

    /// Takes one reading of `key`'s RPC in (a node gone meanwhile is forgotten).
    pub fn record_health(&mut self, key: &ObjectKey, reading: Reading) {
        if self.nodes.get(key).is_none() {
            return;
        }
        self.health.entry(key.clone()).or_default().record(reading);
    }

    /// Sets the row's HEIGHT/LAG cell.
    fn set_health_brief(&mut self, key: &ObjectKey, brief: Option<HealthBrief>) {
        let Some(row) = self.rows.get_mut(key) else {
            return;
        };
        if row.health == brief {
            return;
        }
        // The verdict (and so the header counts and filters) reads the state and its concern.
        let judged = |b: HealthBrief| (b.state, b.concern());
        let state_changed = row.health.map(judged) != brief.map(judged);
        self.counts.remove(row);
        row.health = brief;
        row.rejudge();
        self.counts.add(row);
        self.widths.grow(row);
        if state_changed {
            let row_key = row.key.clone();
            self.log_row_change(row_key);
        } else {
            self.bump();
        }
    }
}

/// Reads the verdict of `key` with its chain's top as the last `Fleets::judge_health` (every
/// tick) or `judge_one` left it: the node screen draws it each frame, so the fleet's tops are not
/// gathered again here.
pub fn verdict_of(fleets: &Fleets, key: &ObjectKey, now: Timestamp) -> Option<Verdict> {
    let fleet = fleets.fleet(&key.context)?;
    let health = fleet.health(key)?;
    let chain = &fleet.row(key)?.chain_id;
    Some(health.verdict(now, top_for(&fleets.health_tops, chain)))
}

fn top_for(tops: &BTreeMap<String, ChainTop>, chain: &str) -> ChainTop {
    tops.get(chain).copied().unwrap_or_default()
}

/// The height of each chain ID a node's lag is measured against: the chain's reference when
/// the config names one and its last read answered (even below the fleet's highest node: the
/// operator chose it as the truth), else the fleet's highest reading, marked as a fallback when
/// the reference did not answer.
pub fn chain_tops<'a>(
    fleets: impl Iterator<Item = &'a Fleet>,
    references: &References,
) -> BTreeMap<String, ChainTop> {
    let mut tops: BTreeMap<String, ChainTop> = BTreeMap::new();
    for fleet in fleets {
        for (key, health) in fleet.health_entries() {
            let (Some(height), Some(row)) = (health.height(), fleet.row(key)) else {
                continue;
            };
            let top = tops.entry(row.chain_id.clone()).or_default();
            if height > top.height {
                *top = ChainTop {
                    height,
                    source: Some(LagSource::Fleet),
                };
            }
        }
    }
    crate::chain::reference::apply_references(&mut tops, references);
    tops
}

impl Fleets {
    /// Notes that `key`'s RPC is being read.
    pub fn health_reading(&mut self, key: &ObjectKey) {
        if let Some(fleet) = self.fleet_mut(&key.context) {
            fleet.health_reading(key);
        }
    }

    /// Takes one reading of `key`'s RPC in; [`Fleets::judge_health`] then updates the rows.
    pub fn record_health(&mut self, key: &ObjectKey, reading: Reading) {
        if let Some(fleet) = self.fleet_mut(&key.context) {
            fleet.record_health(key, reading);
        }
    }

    /// The readings of `key`.
    pub fn health(&self, key: &ObjectKey) -> Option<&NodeHealth> {
        self.fleet(&key.context)?.health(key)
    }

    /// The chains' reference RPCs (from the config file); their reads are kept until the
    /// next call.
    pub fn set_references(&mut self, references: References) {
        self.references = references;
    }

    /// The chains' reference RPCs and their last reads.
    pub fn references(&self) -> &References {
        &self.references
    }

    /// The reference of `chain`, if the config names one.
    pub fn reference(&self, chain: &str) -> Option<&Reference> {
        self.references.get(chain)
    }

    /// Takes one read of `chain`'s reference in; [`Fleets::judge_health`] then judges again.
    pub fn record_reference(&mut self, chain: &str, read: crate::chain::ReferenceRead) {
        if let Some(reference) = self.references.get_mut(chain)
            && reference
                .last
                .as_ref()
                .is_none_or(|last| last.at <= read.at)
        {
            reference.last = Some(read);
        }
        if let Some(reference) = self.references.get_mut(chain) {
            reference.reading = false;
        }
    }

    /// The references due for a read at `now` (none in flight, the last one `every` ago or
    /// more), noted as being read.
    pub fn references_due(
        &mut self,
        now: Timestamp,
        every: jiff::SignedDuration,
    ) -> Vec<(String, crate::chain::ReferenceUrl)> {
        let mut due = Vec::new();
        for (chain, reference) in &mut self.references {
            let stale = reference
                .last
                .as_ref()
                .is_none_or(|last| now.duration_since(last.at) >= every);
            if !reference.reading && stale {
                reference.reading = true;
                due.push((chain.clone(), reference.url.clone()));
            }
        }
        due
    }

    /// The top `key`'s lag is measured against at the last judgement, with its reference.
    pub fn top_of(&self, key: &ObjectKey) -> (ChainTop, Option<&Reference>) {
        let chain = self
            .fleet(&key.context)
            .and_then(|fleet| fleet.row(key))
            .map(|row| row.chain_id.as_str())
            .unwrap_or_default();
        (
            top_for(&self.health_tops, chain),
            self.references.get(chain),
        )
    }

    /// Whether any node was read (the fleet then shows its HEIGHT/LAG column).
    pub fn has_health(&self) -> bool {
        self.iter().any(Fleet::has_health)
    }

    /// Judges every node read at `now` against the highest height of its chain ID (or the
    /// chain's reference, [`Fleets::set_references`]) and updates the rows' cells. Cheap
    /// enough for every tick: a stall shows without a new reading.
    pub fn judge_health(&mut self, now: Timestamp) {
        let tops = chain_tops(self.iter(), &self.references);
        let contexts: Vec<_> = self.contexts().cloned().collect();
        for context in contexts {
            if let Some(fleet) = self.fleet_mut(&context) {
                fleet.judge_health(now, &tops);
            }
        }
        self.health_tops = tops;
    }

    /// Judges `key` alone at `now` against the tops of the last [`Fleets::judge_health`]
    /// (raised to its own height when higher): what a new reading costs, whatever the fleet's
    /// size; the tick judges everyone again.
    pub fn judge_one(&mut self, key: &ObjectKey, now: Timestamp) {
        let Some(fleet) = self.fleet(&key.context) else {
            return;
        };
        let (Some(row), Some(health)) = (fleet.row(key), fleet.health(key)) else {
            return;
        };
        let chain = row.chain_id.clone();
        if let Some(height) = health.height() {
            let top = self.health_tops.entry(chain.clone()).or_default();
            // A reference that answered stays the measure, whatever the fleet's heights; a
            // fallback stays said as one.
            if height > top.height && top.source != Some(LagSource::Reference) {
                let source = top.source.or(Some(LagSource::Fleet));
                *top = ChainTop { height, source };
            }
        }
        let top = top_for(&self.health_tops, &chain);
        let Some(fleet) = self.fleet_mut(&key.context) else {
            return;
        };
        let Some(brief) = fleet
            .health(key)
            .map(|health| HealthBrief::of(&health.verdict(now, top), health, top, now))
        else {
            return;
        };
        fleet.set_health_brief(key, Some(brief));
    }
}

impl Fleet {
    /// Judges this cluster's readings at `now` against `tops` (from [`chain_tops`] over every
    /// cluster) and updates the rows' cells.
    pub fn judge_health(&mut self, now: Timestamp, tops: &BTreeMap<String, ChainTop>) {
        let briefs: Vec<(ObjectKey, Option<HealthBrief>)> = self
            .health_entries()
            .filter_map(|(key, health)| {
                let row: &FleetRow = self.row(key)?;
                let top = top_for(tops, &row.chain_id);
                let verdict = health.verdict(now, top);
                let brief = HealthBrief::of(&verdict, health, top, now);
                (row.health != Some(brief)).then(|| (key.clone(), Some(brief)))
            })
            .collect();
        for (key, brief) in briefs {
            self.set_health_brief(&key, brief);
        }
    }

    /// The verdict of `key` against `tops`.
    pub fn health_verdict(
        &self,
        key: &ObjectKey,
        now: Timestamp,
        tops: &BTreeMap<String, ChainTop>,
    ) -> Option<Verdict> {
        let chain = &self.row(key)?.chain_id;
        Some(self.health(key)?.verdict(now, top_for(tops, chain)))
    }
}
