//! The published seeds of a listing, each probed once from here (`get -o wide|json`, `describe`,
//! `doctor`): all at once, each bounded, the NodeID looked up as the console does
//! (`ops::seed_probe`).
use std::time::Duration;

use jiff::Timestamp;

use crate::api::{NodeMode, SeiNode};
use crate::kube::client::Connection;
use crate::ops::seed_probe::{NotProbeable, probe_target, seed_node_id};
use crate::ports::probe::{ProbeOutcome, SeedProber};

/// How long one probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// A seed with an external address: one the outside can be asked to reach.
pub fn is_published_seed(node: &SeiNode) -> bool {
    node.spec.mode().ok() == Some(NodeMode::Seed) && !node.spec.external_address().is_empty()
}

/// Probes each of `seeds`; in their order, when each probe ended and its outcome, or why the
/// seed could not be probed.
pub async fn probe_all(
    conn: &Connection,
    seeds: &[&SeiNode],
) -> Vec<(Timestamp, Result<ProbeOutcome, NotProbeable>)> {
    if seeds.is_empty() {
        return Vec::new();
    }
    let prober = crate::p2p::prober::P2pProber::new(crate::p2p::tcp::TcpDialer);
    let sidecar = crate::sidecar::env::client_from_env(conn.kube_config.clone());
    let sidecar = match &sidecar {
        Ok(sidecar) => Ok(sidecar as &dyn crate::ports::SidecarApi),
        Err(why) => Err(why),
    };
    let cluster = crate::kube::cluster::KubeCluster::new(conn.client.clone());
    let probes = seeds.iter().map(|node| {
        let (prober, cluster) = (&prober, &cluster);
        async move {
            let lookup = seed_node_id(cluster, sidecar, node).await;
            let outcome = match probe_target(node, lookup.as_ref(), None) {
                Ok(target) => Ok(prober.probe(&target, PROBE_TIMEOUT).await),
                Err(why) => Err(why),
            };
            (Timestamp::now(), outcome)
        }
    });
    futures::future::join_all(probes).await
}
