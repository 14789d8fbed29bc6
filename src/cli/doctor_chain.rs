//! `doctor`'s chain health: every node serving RPC read once through a port-forward (as `get -o
//! wide` reads it), judged against the highest height of its chain over every context read, and
//! turned into findings (`ops::doctor::chain::finding`).
use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::api::SeiNode;
use crate::chain::{ChainTop, LagSource, NodeHealth, Reading, RpcFailure};
use crate::kube::client::Connection;
use crate::ops::chain_health::{READ_TIMEOUT, read_all, serves_rpc};
use crate::ops::doctor::{Finding, chain};
use crate::ports::SystemClock;
use crate::ports::node_rpc::RpcTarget;
use crate::rpc::{KubeNodeRpc, MAX_FORWARDS};

/// One node's single reading.
pub struct ChainRead {
    pub context: String,
    pub namespace: String,
    pub name: String,
    pub chain_id: String,
    pub health: NodeHealth,
    pub at: Timestamp,
}

/// Reads the RPC of every node of `nodes` that serves one (seeds bind none).
pub async fn read(conn: &Connection, context: &str, nodes: &[SeiNode]) -> Vec<ChainRead> {
    let targets: Vec<(usize, RpcTarget)> = nodes
        .iter()
        .enumerate()
        .filter(|(_, node)| serves_rpc(node))
        .map(|(index, node)| (index, RpcTarget::new(node.namespace(), node.name())))
        .collect();
    if targets.is_empty() {
        return Vec::new();
    }
    let readings: Vec<(usize, Reading)> = match conn.kube_config.clone().map(KubeNodeRpc::new) {
        Some(Ok(rpc)) => read_all(&rpc, &SystemClock, targets, MAX_FORWARDS, READ_TIMEOUT).await,
        other => {
            let why = match other {
                Some(Err(err)) => format!("cannot create a client: {err}"),
                _ => "no kubeconfig to open port-forwards with".to_owned(),
            };
            let at = Timestamp::now();
            targets
                .into_iter()
                .map(|(index, _)| {
                    let outcome = Err(RpcFailure::Unreachable(why.clone()));
                    (index, Reading { at, outcome })
                })
                .collect()
        }
    };
    readings
        .into_iter()
        .filter_map(|(index, reading)| {
            let node = nodes.get(index)?;
            let at = reading.at;
            let mut health = NodeHealth::default();
            health.record(reading);
            Some(ChainRead {
                context: context.to_owned(),
                namespace: node.namespace().to_owned(),
                name: node.name().to_owned(),
                chain_id: node.spec.chain_id.clone(),
                health,
                at,
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
            chain::finding(
                &read.context,
                &read.namespace,
                &read.name,
                &verdict,
                Some(read.at),
            )
        })
        .collect()
}
