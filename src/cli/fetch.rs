//! One-shot reads for the non-interactive commands, fed through the same store as the TUI.
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::{Api, ListParams, ObjectList};

use super::{CliError, GlobalArgs};
use crate::api::SeiNode;
use crate::fleet::store::{Delta, ObjectKey};
use crate::fleet::watches::WatchKind;
use crate::fleet::{Fleet, FleetDelta};
use crate::kube::client::{Connection, connect};
use crate::kube::errors::describe_at;
use crate::kube::lenient::{self, DisplayDecode, Lenient};
use crate::kube::watch::KubeSelection;

/// Page size of one-shot lists (kubectl's default chunk size).
const CHUNK: u32 = 500;

pub async fn connection(global: &GlobalArgs) -> Result<Connection, CliError> {
    connect(global.kubeconfig.as_deref(), global.one_context())
        .await
        .map_err(|e| CliError::Failed(e.to_string()))
}

/// The contexts a read covers: every `--context` given, else the kubeconfig's current one
/// (`None`).
pub fn contexts(global: &GlobalArgs) -> Vec<Option<String>> {
    if global.context.is_empty() {
        vec![None]
    } else {
        global.context.iter().cloned().map(Some).collect()
    }
}

/// A connection to `context` (or the current context).
pub async fn connection_to(
    global: &GlobalArgs,
    context: Option<&str>,
) -> Result<Connection, CliError> {
    connect(global.kubeconfig.as_deref(), context)
        .await
        .map_err(|e| CliError::Failed(e.to_string()))
}

/// Prints on stderr each object left out because it could not be decoded: a warning line
/// each, or with `json` one JSON object per line (`{"skipped": {kind, namespace, name,
/// reason}}`), so stdout stays the document a script parses.
pub fn report_skipped(fleet: &Fleet, json: bool) {
    for entry in fleet.skipped() {
        if json {
            let line = serde_json::json!({"skipped": {
                "context": entry.key.context.as_ref(),
                "kind": entry.kind,
                "namespace": entry.key.namespace.as_ref(),
                "name": entry.key.name.as_ref(),
                "reason": entry.reason,
            }});
            eprintln!("{line}");
        } else {
            eprintln!(
                "warning: skipped {} {}: {}",
                entry.kind, entry.key, entry.reason
            );
        }
    }
}

/// The namespace to read: `None` for `-A`, else `-n`, else the context's.
pub fn namespace(global: &GlobalArgs, conn: &Connection) -> Option<String> {
    if global.all_namespaces {
        None
    } else {
        Some(
            global
                .namespace
                .clone()
                .unwrap_or_else(|| conn.default_namespace.clone()),
        )
    }
}

fn api<K>(conn: &Connection, namespace: Option<&str>) -> Api<Lenient<K>>
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
    K::DynamicType: Default,
{
    match namespace {
        Some(ns) => Api::namespaced(conn.client.clone(), ns),
        None => Api::all(conn.client.clone()),
    }
}

/// The API server's URL, for messages about reaching it.
fn server(conn: &Connection) -> Option<String> {
    conn.kube_config.as_ref().map(|c| c.cluster_url.to_string())
}

fn friendly(what: &str, error: kube::Error, server: Option<&str>) -> CliError {
    let line = describe_at(&error, server);
    match &error {
        // The API server's sentence already says what cannot be listed.
        kube::Error::Api(status) if status.code == 403 => CliError::Failed(line),
        kube::Error::Api(status) if status.code == 404 => CliError::Failed(format!(
            "cannot list {what} (is the SeiNode CRD installed?): {line}"
        )),
        _ => CliError::Failed(format!("cannot list {what}: {line}")),
    }
}

/// Lists every page, items decoded one by one: one that cannot be decoded is a skip, never
/// the failure of the list (`kube::lenient`).
async fn list_all<K>(
    api: &Api<Lenient<K>>,
    params: ListParams,
    what: &str,
    server: Option<&str>,
) -> Result<Vec<Lenient<K>>, CliError>
where
    K: Clone + DisplayDecode + std::fmt::Debug,
{
    let mut items = Vec::new();
    let mut params = params.limit(CHUNK);
    loop {
        let page: ObjectList<Lenient<K>> = api
            .list(&params)
            .await
            .map_err(|e| friendly(what, e, server))?;
        items.extend(page.items);
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => return Ok(items),
        }
    }
}

fn relist<K: kube::Resource>(
    fleet: &mut Fleet,
    items: Vec<Lenient<K>>,
    wrap: fn(Delta<K>) -> FleetDelta,
) {
    fleet.apply(wrap(Delta::RelistStarted));
    for item in items {
        fleet.apply(wrap(lenient::listed(item, true)));
    }
    fleet.apply(wrap(Delta::RelistDone));
}

/// SeiNodes and their Events in `namespace` (all when `None`).
pub async fn fleet(
    conn: &Connection,
    namespace: Option<&str>,
    default_sidecar_image: Option<String>,
    selector: Option<&str>,
) -> Result<Fleet, CliError> {
    let (node_api, event_api) = (
        api::<SeiNode>(conn, namespace),
        api::<Event>(conn, namespace),
    );
    let server = server(conn);
    let url = server.as_deref();
    let fleet_params = |kind: WatchKind| kind.spec().fleet_selection().list_params();
    // `-l`: the API server selects, added to the watch table's own selector (if any).
    let mut node_params = fleet_params(WatchKind::Nodes);
    if let Some(selector) = selector {
        node_params.label_selector = Some(match node_params.label_selector.take() {
            Some(own) => format!("{own},{selector}"),
            None => selector.to_owned(),
        });
    }
    let nodes = list_all(&node_api, node_params, "seinodes", url);
    let events = list_all(
        &event_api,
        fleet_params(WatchKind::NodeEvents),
        "events",
        url,
    );
    let pod_warnings = list_all(
        &event_api,
        fleet_params(WatchKind::PodWarnings),
        "events",
        url,
    );
    let pod_api = api::<Pod>(conn, namespace);
    let pods = list_all(&pod_api, fleet_params(WatchKind::NodePods), "pods", url);
    let (nodes, events, pod_warnings, pods) = tokio::join!(nodes, events, pod_warnings, pods);
    let mut fleet = Fleet::in_context(&conn.context, default_sidecar_image);
    relist(&mut fleet, nodes?, FleetDelta::Node);
    // Events and pods are context, not the subject: without permission, show nodes anyway.
    match events {
        Ok(events) => relist(&mut fleet, events, FleetDelta::NodeEvent),
        Err(err) => tracing::warn!(error = %err, "events not listed"),
    }
    match pod_warnings {
        Ok(events) => relist(&mut fleet, events, FleetDelta::PodWarning),
        Err(err) => tracing::warn!(error = %err, "pod Warning events not listed"),
    }
    match pods {
        Ok(pods) => relist(&mut fleet, pods, FleetDelta::NodePod),
        Err(err) => tracing::warn!(error = %err, "pods not listed"),
    }
    judge_orphans(conn, namespace, &mut fleet).await;
    Ok(fleet)
}

/// Names the orphans among the fleet's Active plans (`fleet::runners`): the executors' Leases
/// and the controller's, read after the plans were (an executor takes its Lease before it
/// persists a plan, so every plan listed Active has its Lease visible now).
async fn judge_orphans(conn: &Connection, namespace: Option<&str>, fleet: &mut Fleet) {
    let checked = fleet.active_plans();
    if checked.is_empty() {
        return;
    }
    let controller_namespace = super::platform_image::controller_namespace();
    let read = crate::kube::runners::read_leases(
        &conn.client,
        namespace,
        &controller_namespace,
        crate::executor::lease::CONTROLLER_LEASE_NAME,
    )
    .await;
    let now = jiff::Timestamp::now();
    let runners = crate::ops::runners::judge(
        read.scope.as_deref(),
        read.controller.as_ref().map(Option::as_ref),
        &controller_namespace,
        checked,
        &crate::ops::runners::local_holders(),
        now,
    );
    fleet.set_runners(runners, now);
}

pub use crate::fleet::describe::Unavailable;

/// The decoded items of a list (an undecodable one is named once, by the list that shows it).
fn decoded<K: Clone>(items: &[Lenient<K>]) -> Vec<Lenient<K>> {
    items
        .iter()
        .filter(|item| matches!(item, Lenient::Decoded(_)))
        .cloned()
        .collect()
}

/// One node's objects as `describe` reads them, with the sections it could not read.
#[derive(Debug)]
pub struct NodeFetch {
    pub fleet: Fleet,
    pub unavailable: Vec<Unavailable>,
}

/// Keeps the items of a related list, or records why that section is missing.
fn related<K>(
    result: Result<Vec<Lenient<K>>, CliError>,
    kind: WatchKind,
    unavailable: &mut Vec<Unavailable>,
) -> Vec<Lenient<K>> {
    result.unwrap_or_else(|error| {
        unavailable.push(Unavailable {
            resource: kind.resource(),
            reason: error.to_string(),
        });
        Vec::new()
    })
}

/// One SeiNode with its Events, StatefulSet, Pods and the Events of both.
pub async fn node(
    conn: &Connection,
    key: &ObjectKey,
    default_sidecar_image: Option<String>,
) -> Result<NodeFetch, CliError> {
    let ns = Some(key.namespace.as_ref());
    let server = server(conn);
    let url = server.as_deref();
    let node = api::<SeiNode>(conn, ns)
        .get_opt(&key.name)
        .await
        .map_err(|e| {
            CliError::Failed(format!(
                "cannot read SeiNode {key}: {}",
                describe_at(&e, url)
            ))
        })?
        // kubectl exits 1 for a missing object (NotFound), 2 only for bad usage.
        .ok_or_else(|| CliError::Failed(format!("SeiNode {key} not found")))?
        .into_result()
        .map_err(|(_, reason)| {
            CliError::Failed(format!("SeiNode {key} cannot be shown: {reason}"))
        })?;
    let event_api = api::<Event>(conn, ns);
    let (sts_api, pod_api) = (api::<StatefulSet>(conn, ns), api::<Pod>(conn, ns));
    // The node screen's watches, listed once (the SeiNode's events narrowed to this node).
    let params = |kind: WatchKind| kind.spec().node_selection(&key.name).list_params();
    let events = list_all(&event_api, params(WatchKind::NodeEvents), "events", url);
    let statefulsets = list_all(
        &sts_api,
        params(WatchKind::StatefulSet),
        "statefulsets",
        url,
    );
    let pods = list_all(&pod_api, params(WatchKind::Pods), "pods", url);
    let sts_events = list_all(
        &event_api,
        params(WatchKind::StatefulSetEvents),
        "events",
        url,
    );
    let pod_events = list_all(&event_api, params(WatchKind::DetailEvents), "events", url);
    let (events, statefulsets, pods, sts_events, pod_events) =
        tokio::join!(events, statefulsets, pods, sts_events, pod_events);
    // Related objects are context: what cannot be read is reported, not fatal.
    let mut unavailable = Vec::new();
    let events = related(events, WatchKind::NodeEvents, &mut unavailable);
    let statefulsets = related(statefulsets, WatchKind::StatefulSet, &mut unavailable);
    let pods = related(pods, WatchKind::Pods, &mut unavailable);
    let sts_events = related(sts_events, WatchKind::StatefulSetEvents, &mut unavailable);
    let pod_events = related(pod_events, WatchKind::DetailEvents, &mut unavailable);
    let node_id = {
        use crate::ops::seed_probe::seed_node_id;
        use crate::sidecar::env::client_from_env;
        let sidecar = client_from_env(conn.kube_config.clone());
        let sidecar = match &sidecar {
            Ok(sidecar) => Ok(sidecar as &dyn crate::ports::SidecarApi),
            Err(why) => Err(why),
        };
        let cluster = crate::kube::cluster::KubeCluster::new(conn.client.clone());
        seed_node_id(&cluster, sidecar, &node).await
    };
    let mut fleet = Fleet::in_context(&conn.context, default_sidecar_image);
    relist(&mut fleet, vec![Lenient::Decoded(node)], FleetDelta::Node);
    if let Some(lookup) = node_id {
        fleet.apply(FleetDelta::NodeId {
            key: key.clone().in_context(fleet.context()),
            lookup,
        });
    }
    // The row's pod Warning (WARNING, verdict) from the same lists, as the fleet's watches
    // would give it: the pod's Warnings, judged against the pod.
    relist(&mut fleet, decoded(&pods), FleetDelta::NodePod);
    relist(&mut fleet, decoded(&pod_events), FleetDelta::PodWarning);
    relist(&mut fleet, events, FleetDelta::NodeEvent);
    relist(&mut fleet, statefulsets, FleetDelta::StatefulSet);
    relist(&mut fleet, pods, FleetDelta::Pod);
    relist(&mut fleet, pod_events, FleetDelta::DetailEvent);
    relist(&mut fleet, sts_events, FleetDelta::StatefulSetEvent);
    judge_orphans(conn, ns, &mut fleet).await;
    Ok(NodeFetch { fleet, unavailable })
}

/// One cluster's fleet and the namespace read (`None`: all).
pub async fn read_cluster(
    global: &GlobalArgs,
    context: Option<&str>,
    selector: Option<&str>,
) -> Result<(Fleet, Option<String>, Connection), CliError> {
    let conn = connection_to(global, context).await?;
    let sidecar = super::platform_image::resolve_default_sidecar_image(&conn.client).await?;
    let namespace = namespace(global, &conn);
    let fleet = fleet(&conn, namespace.as_deref(), sidecar, selector).await?;
    Ok((fleet, namespace, conn))
}
