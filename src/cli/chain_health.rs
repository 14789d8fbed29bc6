//! Chain health for `get`, `describe` and `doctor`: every node serving RPC in the fleet read
//! through a port-forward to its pod (the console's adapter, `rpc::KubeNodeRpc`), at most
//! `rpc::MAX_FORWARDS` at a time, each read bounded by `ops::chain_health::READ_TIMEOUT`; a
//! failed read is read again as `ops::chain_health::read_until_judged` says, so the verdict
//! (`chain::health`, the console's judgement) is the console's from the same readings.
use crate::chain::{Reading, RpcFailure};
use crate::fleet::Fleet;
use crate::fleet::store::ObjectKey;
use crate::kube::client::Connection;
use crate::ops::chain_health::{READ_TIMEOUT, RETRY_PAUSE, read_until_judged, serves_rpc};
use crate::ports::SystemClock;
use crate::ports::node_rpc::RpcTarget;
use crate::rpc::{KubeNodeRpc, MAX_FORWARDS};

/// Reads the RPC of `fleet`'s nodes (all, or only `only`) into the fleet.
pub async fn read_into(conn: &Connection, fleet: &mut Fleet, only: Option<&ObjectKey>) {
    let targets: Vec<(ObjectKey, RpcTarget)> = fleet
        .nodes
        .iter()
        .filter(|(key, node)| only.is_none_or(|only| only == *key) && serves_rpc(node))
        .map(|(key, _)| (key.clone(), RpcTarget::new(&key.namespace, &key.name)))
        .collect();
    for (key, readings) in read_targets(conn, targets).await {
        for reading in readings {
            fleet.record_health(&key, reading);
        }
    }
}

/// Reads every target until its reading can be judged as the console judges it
/// (`ops::chain_health::read_until_judged`: a failed read is read again, up to
/// `chain::health::UNREACHABLE_AFTER` times); each target's readings in the order taken.
pub async fn read_targets<K: Send>(
    conn: &Connection,
    targets: Vec<(K, RpcTarget)>,
) -> Vec<(K, Vec<Reading>)> {
    if targets.is_empty() {
        return Vec::new();
    }
    match conn.kube_config.clone().map(KubeNodeRpc::new) {
        Some(Ok(rpc)) => {
            let times = (READ_TIMEOUT, RETRY_PAUSE);
            read_until_judged(&rpc, &SystemClock, targets, MAX_FORWARDS, times).await
        }
        other => {
            let why = match other {
                Some(Err(err)) => format!("cannot create a client: {err}"),
                _ => "no kubeconfig to open port-forwards with".to_owned(),
            };
            let at = jiff::Timestamp::now();
            targets
                .into_iter()
                .map(|(key, _)| {
                    let outcome = Err(RpcFailure::Unreachable(why.clone()));
                    (key, vec![Reading { at, outcome }])
                })
                .collect()
        }
    }
}

/// The config file's reference RPCs of the chains in `chains` (`[chains."ID"] reference_rpc`),
/// each read once, all at the same time; the config's problems are warnings on stderr. A chain
/// with no reference configured is measured against the fleet top.
pub async fn references(
    config: Option<&std::path::Path>,
    chains: impl Iterator<Item = &str>,
) -> crate::chain::References {
    let loaded = match crate::config::load(config, &crate::app::console_actions::config_names()) {
        Ok(loaded) => loaded,
        Err(err) => {
            eprintln!("warning: {err}; no chain reference RPCs");
            return Default::default();
        }
    };
    for problem in loaded.problems.iter().filter(|p| p.contains("chains.")) {
        eprintln!("warning: {problem}");
    }
    read_references(&loaded.config.reference_rpc, chains).await
}

/// The references of `urls` (the config's) of the chains in `chains`, each read once, all at
/// the same time.
pub async fn read_references(
    urls: &std::collections::BTreeMap<String, crate::chain::ReferenceUrl>,
    chains: impl Iterator<Item = &str>,
) -> crate::chain::References {
    let wanted: std::collections::BTreeSet<&str> = chains.collect();
    let mut references = crate::chain::reference::references_of(urls);
    references.retain(|chain, _| wanted.contains(chain.as_str()));
    if references.is_empty() {
        return references;
    }
    let reader = crate::rpc::reference::ReferenceReader::new();
    let reads = references
        .iter()
        .map(|(chain, reference)| {
            let reader = &reader;
            async move {
                (
                    chain.clone(),
                    reader.read(&reference.url, READ_TIMEOUT).await,
                )
            }
        })
        .collect::<Vec<_>>();
    for (chain, read) in futures::future::join_all(reads).await {
        if let Some(reference) = references.get_mut(&chain) {
            reference.last = Some(read);
        }
    }
    references
}

/// Probes the published seeds of `fleet` (all, or only `only`) once from here and keeps each
/// outcome as the seed's last probe: its HEIGHT/LAG cell (reachable and how many peers it
/// knows) and `seedProbe` in JSON. Seeds serve no RPC: this is their health.
pub async fn probe_seeds_into(conn: &Connection, fleet: &mut Fleet, only: Option<&ObjectKey>) {
    let seeds: Vec<(ObjectKey, crate::api::SeiNode)> = fleet
        .nodes
        .iter()
        .filter(|(key, node)| {
            only.is_none_or(|only| only == *key) && super::seed_probes::is_published_seed(node)
        })
        .map(|(key, node)| (key.clone(), (*node).clone()))
        .collect();
    let nodes: Vec<&crate::api::SeiNode> = seeds.iter().map(|(_, node)| node).collect();
    let probed = super::seed_probes::probe_all(conn, &nodes).await;
    for ((key, _), (at, outcome)) in seeds.iter().zip(probed) {
        let probe = crate::fleet::probe::SeedProbe {
            last: Some(crate::ops::seed_probe::record(at, outcome)),
            running: false,
        };
        fleet.set_seed_probe(key, probe);
    }
}
