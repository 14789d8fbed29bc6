//! The watch tasks the console's effects spawn through the port (`KubeBackend::watch_scope`,
//! `watch_detail`): one cluster's scope watches (SeiNodes, their Events, the API server probe,
//! the controller's ConfigMap), and the open node's (its StatefulSet, Pods, their Events, the
//! seed's NodeID), each turning store deltas into `Msg`s on the loop's channel.
use std::collections::BTreeMap;
use std::path::PathBuf;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::Api;
use tokio::sync::{mpsc, watch};

use super::{Connections, connect};
use crate::api::SeiNode;
use crate::app::model::Msg;
use crate::config::read_only::MutationGuard;
use crate::fleet::FleetDelta;
use crate::fleet::store::ObjectKey;
use crate::fleet::watches::{WatchKind, WatchReport};
use crate::kube::client::Connection;
use crate::kube::crd_watch::watch_seinode_crd;
use crate::kube::lenient::Lenient;
use crate::kube::liveness::probe_server;
use crate::kube::platform_config::watch_default_sidecar_image;
use crate::kube::watch::{KubeSelection, run_watch, watch_config};

fn node_delta(delta: crate::fleet::store::Delta<SeiNode>) -> FleetDelta {
    FleetDelta::Node(delta)
}
fn node_event_delta(delta: crate::fleet::store::Delta<Event>) -> FleetDelta {
    FleetDelta::NodeEvent(delta)
}
fn pod_warning_delta(delta: crate::fleet::store::Delta<Event>) -> FleetDelta {
    FleetDelta::PodWarning(delta)
}
fn node_pod_delta(delta: crate::fleet::store::Delta<Pod>) -> FleetDelta {
    FleetDelta::NodePod(delta)
}
fn sts_delta(delta: crate::fleet::store::Delta<StatefulSet>) -> FleetDelta {
    FleetDelta::StatefulSet(delta)
}
fn pod_delta(delta: crate::fleet::store::Delta<Pod>) -> FleetDelta {
    FleetDelta::Pod(delta)
}
fn detail_event_delta(delta: crate::fleet::store::Delta<Event>) -> FleetDelta {
    FleetDelta::DetailEvent(delta)
}
fn statefulset_event_delta(delta: crate::fleet::store::Delta<Event>) -> FleetDelta {
    FleetDelta::StatefulSetEvent(delta)
}

/// The watch API of `K`, decoding items one by one (`kube::lenient`).
fn scoped<K>(client: kube::Client, namespace: Option<&str>) -> Api<Lenient<K>>
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
    K::DynamicType: Default,
{
    match namespace {
        Some(ns) => Api::namespaced(client, ns),
        None => Api::all(client),
    }
}

/// The context and namespace one cluster's scope watches cover.
pub(super) struct ClusterScope {
    pub(super) context: String,
    pub(super) namespace: Option<String>,
}

pub(super) async fn watch_scope(
    scope: ClusterScope,
    epoch: u64,
    tx: mpsc::Sender<Msg>,
    kubeconfig: Option<PathBuf>,
    guard: MutationGuard,
    connections: Connections,
    platform_config_map: Option<String>,
) {
    let current = connections.borrow().get(&scope.context).cloned();
    let conn = match current {
        Some(conn) => conn,
        None => match connect(kubeconfig.as_deref(), Some(&scope.context), guard).await {
            Ok(conn) => {
                connections.send_modify(|all| {
                    all.insert(scope.context.clone(), conn.clone());
                });
                conn
            }
            Err(error) => {
                // The watch's report is the ports' vocabulary: the error's words.
                let report = WatchReport::Failed {
                    error: error.to_string(),
                    forbidden: false,
                };
                let _ = tx
                    .send(Msg::Watch {
                        epoch,
                        kind: WatchKind::Nodes,
                        report,
                    })
                    .await;
                return;
            }
        },
    };
    let ns = scope.namespace.as_deref();
    let config = |kind: WatchKind| kind.spec().fleet_selection().watcher_config(watch_config());
    let nodes = run_watch(
        scoped::<SeiNode>(conn.client.clone(), ns),
        config(WatchKind::Nodes),
        WatchKind::Nodes,
        epoch,
        tx.clone(),
        node_delta,
    );
    let events = run_watch(
        scoped::<Event>(conn.client.clone(), ns),
        config(WatchKind::NodeEvents),
        WatchKind::NodeEvents,
        epoch,
        tx.clone(),
        node_event_delta,
    );
    // The pods' Warnings and the pods that judge them stale (the fleet's WARNING and verdict).
    let pod_warnings = run_watch(
        scoped::<Event>(conn.client.clone(), ns),
        config(WatchKind::PodWarnings),
        WatchKind::PodWarnings,
        epoch,
        tx.clone(),
        pod_warning_delta,
    );
    let node_pods = run_watch(
        scoped::<Pod>(conn.client.clone(), ns),
        config(WatchKind::NodePods),
        WatchKind::NodePods,
        epoch,
        tx.clone(),
        node_pod_delta,
    );
    let server = conn.kube_config.as_ref().map(|c| c.cluster_url.to_string());
    let probe = probe_server(conn.client.clone(), server, epoch, tx.clone());
    let crd = watch_seinode_crd(conn.client.clone(), epoch, tx.clone());
    let platform = async {
        if let Some(namespace) = platform_config_map {
            watch_default_sidecar_image(conn.client.clone(), namespace, epoch, tx).await;
        }
    };
    tokio::join!(nodes, events, pod_warnings, node_pods, probe, crd, platform);
}

pub(super) async fn watch_detail(
    node: ObjectKey,
    epoch: u64,
    tx: mpsc::Sender<Msg>,
    mut connections: watch::Receiver<BTreeMap<String, Connection>>,
) {
    // The node's own cluster: its scope watches connect it, maybe after this screen opened.
    let context = node.context.to_string();
    let Ok(conn) = connections
        .wait_for(|all| all.contains_key(&context))
        .await
        .map(|all| all.get(&context).cloned())
    else {
        return;
    };
    let Some(conn) = conn else { return };
    let ns = Some(node.namespace.as_ref());
    let config = |kind: WatchKind| {
        kind.spec()
            .node_selection(&node.name)
            .watcher_config(watch_config())
    };
    let statefulset = run_watch(
        scoped::<StatefulSet>(conn.client.clone(), ns),
        config(WatchKind::StatefulSet),
        WatchKind::StatefulSet,
        epoch,
        tx.clone(),
        sts_delta,
    );
    let pods = run_watch(
        scoped::<Pod>(conn.client.clone(), ns),
        config(WatchKind::Pods),
        WatchKind::Pods,
        epoch,
        tx.clone(),
        pod_delta,
    );
    let pod_events = run_watch(
        scoped::<Event>(conn.client.clone(), ns),
        config(WatchKind::DetailEvents),
        WatchKind::DetailEvents,
        epoch,
        tx.clone(),
        detail_event_delta,
    );
    let statefulset_events = run_watch(
        scoped::<Event>(conn.client.clone(), ns),
        config(WatchKind::StatefulSetEvents),
        WatchKind::StatefulSetEvents,
        epoch,
        tx.clone(),
        statefulset_event_delta,
    );
    let node_id = watch_node_id(conn, node, epoch, tx);
    tokio::join!(statefulset, pods, pod_events, statefulset_events, node_id);
}

/// The selected seed's NodeID from its node-key Secret or its sidecar, retried while unknown.
async fn watch_node_id(conn: Connection, node: ObjectKey, epoch: u64, tx: mpsc::Sender<Msg>) {
    use crate::ops::seed_probe::seed_node_id;
    use crate::sidecar::env::client_from_env;
    let sidecar = client_from_env(conn.kube_config.clone());
    let cluster = crate::kube::cluster::KubeCluster::new(conn.client.clone());
    let api: Api<SeiNode> = Api::namespaced(conn.client.clone(), &node.namespace);
    for _ in 0..NODE_ID_ATTEMPTS {
        if let Ok(Some(seinode)) = api.get_opt(&node.name).await {
            let sidecar = match &sidecar {
                Ok(sidecar) => Ok(sidecar as &dyn crate::ports::SidecarApi),
                Err(why) => Err(why),
            };
            let Some(lookup) = seed_node_id(&cluster, sidecar, &seinode).await else {
                return;
            };
            let found = matches!(lookup, crate::fleet::detail::NodeIdLookup::Found { .. });
            let delta = FleetDelta::NodeId {
                key: node.clone(),
                lookup,
            };
            if tx.send(Msg::Delta { epoch, delta }).await.is_err() || found {
                return;
            }
        }
        tokio::time::sleep(NODE_ID_RETRY).await;
    }
}

/// Pause between NodeID lookups of a seed while neither its Secret nor its sidecar gives one.
const NODE_ID_RETRY: std::time::Duration = std::time::Duration::from_secs(10);
/// Lookups per opened node screen (about ten minutes of retries).
const NODE_ID_ATTEMPTS: u32 = 60;
