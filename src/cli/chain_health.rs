//! Chain health for `get -o wide|json` and `describe`: every node serving RPC in the fleet read
//! once through a port-forward to its pod (the console's adapter, `rpc::KubeNodeRpc`), at most
//! `rpc::MAX_FORWARDS` at a time, each read bounded by `ops::chain_health::READ_TIMEOUT`.
use crate::chain::{Reading, RpcFailure};
use crate::fleet::Fleet;
use crate::fleet::store::ObjectKey;
use crate::kube::client::Connection;
use crate::ops::chain_health::{READ_TIMEOUT, read_all, serves_rpc};
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
    if targets.is_empty() {
        return;
    }
    let rpc = match conn.kube_config.clone().map(KubeNodeRpc::new) {
        Some(Ok(rpc)) => rpc,
        other => {
            let why = match other {
                Some(Err(err)) => format!("cannot create a client: {err}"),
                _ => "no kubeconfig to open port-forwards with".to_owned(),
            };
            let at = jiff::Timestamp::now();
            for (key, _) in targets {
                let outcome = Err(RpcFailure::Unreachable(why.clone()));
                fleet.record_health(&key, Reading { at, outcome });
            }
            return;
        }
    };
    let readings = read_all(&rpc, &SystemClock, targets, MAX_FORWARDS, READ_TIMEOUT).await;
    for (key, reading) in readings {
        fleet.record_health(&key, reading);
    }
}
