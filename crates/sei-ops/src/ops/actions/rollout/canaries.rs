//! The rollout's canary wave: the canaries chosen by name first, else the first nodes healthy by
//! `fleet::verdict` (the unhealthy ones passed over are said in `canary_notes`).
use super::{NodeToRoll, RolloutPrepared};

/// Chosen canaries still to roll go first, in the order chosen, and make the canary wave.
/// Without a chosen one, the automatic canaries are the first healthy nodes to roll.
pub(super) fn put_canaries_first(prepared: &mut RolloutPrepared) {
    let chosen = &prepared.input.canary_nodes;
    if chosen.is_empty() {
        pick_healthy_canaries(prepared);
        return;
    }
    let position = |node: &NodeToRoll| chosen.iter().position(|c| c == node.node.name());
    // Stable: the others keep the operator's order.
    prepared
        .nodes
        .sort_by_key(|node| position(node).unwrap_or(usize::MAX));
    let canaries = prepared
        .nodes
        .iter()
        .filter(|n| position(n).is_some())
        .count();
    prepared.sizes.canary = u32::try_from(canaries).unwrap_or(u32::MAX);
}

/// The automatic canary is never a node already unhealthy by the verdict every screen shows
/// (`fleet::verdict::judge` over what the SeiNode says: phase, plan, conditions): the first
/// `waves.canary` healthy nodes go first, the others keep their order, and each unhealthy node
/// passed over is said. With fewer healthy nodes, the canary wave is smaller (or none).
fn pick_healthy_canaries(prepared: &mut RolloutPrepared) {
    let wanted = prepared.sizes.canary as usize;
    if wanted == 0 || prepared.nodes.is_empty() {
        return;
    }
    let verdicts: Vec<crate::fleet::verdict::NodeVerdict> = prepared
        .nodes
        .iter()
        .map(|n| {
            let key = crate::fleet::store::ObjectKey::new(n.node.namespace(), n.node.name());
            crate::fleet::rows::FleetRow::build(key, &n.node, std::iter::empty(), None).verdict
        })
        .collect();
    let mut canaries = Vec::new();
    for (i, verdict) in verdicts.iter().enumerate() {
        if canaries.len() == wanted {
            break;
        }
        if verdict.is_healthy() {
            canaries.push(i);
        } else {
            prepared.canary_notes.push(format!(
                "canary: {} passed over: not healthy ({}); name it as the canary to roll it first",
                prepared.nodes[i].node.name(),
                verdict.summary()
            ));
        }
    }
    if canaries.len() < wanted.min(prepared.nodes.len()) {
        prepared.canary_notes.push(match canaries.len() {
            0 => "canary: no healthy node to be the canary: no canary wave".to_owned(),
            n => format!("canary: only {n} healthy node(s) to be the canary"),
        });
    }
    let order: Vec<usize> = canaries
        .iter()
        .copied()
        .chain((0..prepared.nodes.len()).filter(|i| !canaries.contains(i)))
        .collect();
    let mut slots: Vec<Option<NodeToRoll>> = prepared.nodes.drain(..).map(Some).collect();
    prepared.nodes = order.iter().filter_map(|i| slots[*i].take()).collect();
    prepared.sizes.canary = u32::try_from(canaries.len()).unwrap_or(u32::MAX);
}
