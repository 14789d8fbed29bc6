//! Chain health in the console: which nodes' RPC to read on each tick, and the readings coming
//! back. Pure: `update` decides, the effects read through the `NodeRpc` port in a task and
//! answer with `Msg::HealthRead`; the render path never waits on a read.
//!
//! Nodes on screen (the visible rows, the open node, the marked nodes an action takes) and the
//! nodes of the running action (a rollout's, an address change's, a restart's) are read every
//! [`HOT_EVERY`]; every other node serving RPC in a background sweep every
//! [`SWEEP_EVERY`], oldest reading first; at most [`MAX_IN_FLIGHT`] reads asked for at once (the
//! adapter runs 8 at a time over as many port-forwards). A reading is judged alone as it
//! arrives, by the judgement every surface uses (`chain::health`: one reading says stalled or
//! lagging; a failed read is never a stall and flips a verdict only after
//! `UNREACHABLE_AFTER` in a row); every node is judged again on the tick (a held reading goes
//! stale), which then asks for the reads due. Each chain's
//! reference RPC (config file) is read every [`REFERENCE_EVERY`], one read in flight per chain,
//! straight to its URL (`rpc::reference`, not a port-forward). Seeds serve no RPC: their health
//! is the P2P probe (`probes`).
use std::collections::BTreeSet;
use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};

use super::action::Stage;
use super::model::{Cmd, Model, Screen};
use crate::chain::Reading;
use crate::fleet::store::ObjectKey;
use crate::ops::chain_health::serves_rpc;

/// How often a node on screen is read.
pub const HOT_EVERY: SignedDuration = SignedDuration::from_secs(5);
/// How often each chain's reference RPC (config file) is read.
pub const REFERENCE_EVERY: SignedDuration = SignedDuration::from_secs(5);
/// How often every other node is read.
pub const SWEEP_EVERY: SignedDuration = SignedDuration::from_secs(60);
/// Reads asked for and not answered yet. The adapter runs at most `rpc::MAX_FORWARDS` (8) at
/// once and queues the rest, so one tick asks for enough to keep it busy for a second (a
/// 1,000-node sweep every 60 s needs about 17 a second, the rows on screen about 10 more).
pub const MAX_IN_FLIGHT: usize = 48;

/// The nodes read every [`HOT_EVERY`]: the rows on screen, the open node, the marked ones and
/// those of the action running.
fn hot_keys(model: &Model) -> BTreeSet<ObjectKey> {
    let mut hot: BTreeSet<ObjectKey> = model.marked.iter().cloned().collect();
    if let Some(flow) = &model.action
        && let Stage::Running {
            request,
            finished: None,
            ..
        } = &flow.stage
    {
        for part in &request.parts {
            let context: Arc<str> = Arc::from(part.context.as_str());
            hot.extend(
                part.operation
                    .nodes()
                    .into_iter()
                    .map(|node| ObjectKey::new(part.namespace.as_str(), node).in_context(&context)),
            );
        }
    }
    match &model.screen {
        Screen::Node(key) => {
            hot.insert(key.clone());
        }
        Screen::Fleet => {
            let page = model.page_rows();
            // As `ui::fleet::window_start` scrolls the table.
            let start = model.selected.saturating_sub(page.saturating_sub(1));
            hot.extend(model.listing.keys.iter().skip(start).take(page).cloned());
        }
    }
    hot
}

/// On the tick: judge every reading at `now` (a stall shows without a new reading), then ask
/// for the reads that are due while fewer than [`MAX_IN_FLIGHT`] run.
pub fn due(model: &mut Model) -> Vec<Cmd> {
    if !model.settings.chain_health {
        return Vec::new();
    }
    let now = model.now;
    model.fleet.judge_health(now);
    let mut cmds: Vec<Cmd> = model
        .fleet
        .references_due(now, REFERENCE_EVERY)
        .into_iter()
        .map(|(chain, url)| Cmd::ReadReference { chain, url })
        .collect();
    let in_flight = model
        .fleet
        .iter()
        .flat_map(|fleet| fleet.health_entries())
        .filter(|(_, health)| health.reading)
        .count();
    let free = MAX_IN_FLIGHT.saturating_sub(in_flight);
    if free == 0 {
        return cmds;
    }
    let hot = hot_keys(model);
    let last_read = |key: &ObjectKey| -> Option<Option<Timestamp>> {
        match model.fleet.health(key) {
            Some(health) if health.reading => None,
            Some(health) => Some(health.last.as_ref().map(|r| r.at)),
            None => Some(None),
        }
    };
    let older_than = |at: Option<Timestamp>, every: SignedDuration| {
        at.is_none_or(|at| now.duration_since(at) >= every)
    };
    let mut picked: Vec<ObjectKey> = hot
        .iter()
        .filter(|key| model.fleet.node(key).is_some_and(serves_rpc))
        .filter_map(|key| Some((key, last_read(key)?)))
        .filter(|(_, at)| older_than(*at, HOT_EVERY))
        .map(|(key, _)| key.clone())
        .take(free)
        .collect();
    if picked.len() < free {
        let mut sweep: Vec<(Option<Timestamp>, &ObjectKey)> = model
            .fleet
            .iter()
            .flat_map(|fleet| fleet.nodes.iter())
            .filter(|(key, node)| !hot.contains(*key) && serves_rpc(node))
            .filter_map(|(key, _)| Some((last_read(key)?, key)))
            .filter(|(at, _)| older_than(*at, SWEEP_EVERY))
            .collect();
        sweep.sort();
        let room = free - picked.len();
        picked.extend(sweep.into_iter().take(room).map(|(_, key)| key.clone()));
    }
    if picked.is_empty() {
        return cmds;
    }
    for key in &picked {
        model.fleet.health_reading(key);
    }
    cmds.push(Cmd::ReadHealth { keys: picked });
    cmds
}

/// The chains' reference RPCs of the config file, none read yet (`Model::configure`).
pub fn configure(model: &mut Model) {
    let references = crate::chain::reference::references_of(&model.settings.reference_rpc);
    model.fleet.set_references(references);
}

/// A read of a chain's reference ended: take it in and judge every node again (the reference
/// is the top of its whole chain).
pub fn on_reference_read(model: &mut Model, chain: &str, read: crate::chain::ReferenceRead) {
    model.fleet.record_reference(chain, read);
    model.fleet.judge_health(model.now);
    model.dirty = true;
}

/// A read ended: take it in and judge that node alone (the row shows it on the next frame);
/// the next tick judges every node and asks for more.
pub fn on_read(model: &mut Model, key: &ObjectKey, reading: Reading) {
    let before = model.fleet.revision();
    model.fleet.record_health(key, reading);
    model.fleet.judge_one(key, model.now);
    // A reading that changes no cell (the same failure again, the same verdict and height)
    // draws nothing, unless the node screen shows it whole.
    let open = matches!(&model.screen, Screen::Node(open) if open == key);
    model.dirty |= open || model.fleet.revision() != before;
}
