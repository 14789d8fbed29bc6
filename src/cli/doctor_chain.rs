//! `doctor`'s chain health: every node serving RPC read through a port-forward as `get` reads it
//! (`chain_health::read_targets`), judged by the console's judgement (`chain::health`) against
//! the highest height of its chain over every context read and the chain's reference, and
//! turned into findings (`ops::doctor::chain::finding`) as the console's doctor turns them.
use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::api::SeiNode;
use crate::chain::{ChainTop, LagSource, NodeHealth};
use crate::kube::client::Connection;
use crate::ops::chain_health::serves_rpc;
use crate::ops::doctor::{Finding, chain};
use crate::ports::node_rpc::RpcTarget;

/// One node's readings (one, or a few when a read failed: `chain_health::read_targets`).
pub struct ChainRead {
    pub context: String,
    pub namespace: String,
    pub name: String,
    pub chain_id: String,
    pub health: NodeHealth,
}

/// Reads the RPC of every node of `nodes` that serves one (seeds bind none).
pub async fn read(conn: &Connection, context: &str, nodes: &[SeiNode]) -> Vec<ChainRead> {
    let targets: Vec<(usize, RpcTarget)> = nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| serves_rpc(node))
        .map(|(index, node)| (index, RpcTarget::new(node.namespace(), node.name())))
        .collect();
    super::chain_health::read_targets(conn, targets)
        .await
        .into_iter()
        .filter_map(|(index, readings)| {
            let node = nodes.get(index)?;
            let mut health = NodeHealth::default();
            readings
                .into_iter()
                .for_each(|reading| health.record(reading));
            Some(ChainRead {
                context: context.to_owned(),
                namespace: node.namespace().to_owned(),
                name: node.name().to_owned(),
                chain_id: node.spec.chain_id.clone(),
                health,
            })
        })
        .collect()
}

/// The findings of `reads`, each judged against the highest height of its chain among them.
pub fn findings(
    reads: &[ChainRead],
    references: &crate::chain::References,
    now: Timestamp,
) -> Vec<Finding> {
    let mut tops: BTreeMap<String, ChainTop> = BTreeMap::new();
    for read in reads {
        if let Some(height) = read.health.height() {
            let top = tops.entry(read.chain_id.clone()).or_default();
            if height > top.height {
                *top = ChainTop {
                    height,
                    source: Some(LagSource::Fleet),
                };
            }
        }
    }
    crate::chain::reference::apply_references(&mut tops, references);
    reads
        .iter()
        .filter_map(|read| {
            let top = tops.get(&read.chain_id).copied().unwrap_or_default();
            let verdict = read.health.verdict(now, top);
            let read_at = read.health.basis(now).map(|basis| basis.at);
            chain::finding(
                &read.context,
                &read.namespace,
                &read.name,
                &verdict,
                read_at,
            )
        })
        .collect()
}
