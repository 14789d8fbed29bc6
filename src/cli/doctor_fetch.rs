//! What `sei-console doctor` reads from one cluster: the SeiNodes, their Warning events, pods,
//! PVCs and executor Leases, the controller's Lease, the ServiceAccounts, the platform config,
//! a probe of each published seed, and the permission checks of the fixes. What cannot be read
//! is said (`unavailable`), never mistaken for "nothing wrong".
use std::collections::BTreeSet;
use std::time::Duration;

use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod, ServiceAccount};
use kube::api::{Api, ListParams};
use serde::Serialize;

use super::CliError;
use crate::actions::permissions::{ExecutionScope, rollout_checks, tasks_to_run};
use crate::actions::render_fix::PlatformSource;
use crate::api::SeiNode;
use crate::config::ExecutorMode;
use crate::executor::lease::{ControllerLiveness, controller_liveness};
use crate::kube::client::Connection;
use crate::kube::lenient::Lenient;
use crate::ops::doctor::{
    ClusterSnapshot, ExecutorLease, FixAction, FixDenials, NodeSnapshot, PlatformView,
    SeedProbeResult,
};
use crate::platform::PlatformConfig;
use crate::ports::access::{AccessError, check_permissions};

/// Bound on reading one list (an API server that hangs must not hang cron).
const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// A node and the tasks its plan would run (what its permission checks are about).
type NodeTasks = (String, Vec<crate::api::TaskKind>);

/// Something the doctor could not read, so its checks were not made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unavailable {
    pub context: String,
    pub what: String,
    pub reason: String,
}

/// One cluster's objects as read.
pub struct ClusterData {
    pub context: String,
    pub controller_namespace: String,
    pub nodes: Vec<SeiNode>,
    pub events: Vec<Event>,
    pub pods: Vec<Pod>,
    pub pvcs: Vec<PersistentVolumeClaim>,
    pub executor_leases: Vec<ExecutorLease>,
    pub controller: Option<ControllerLiveness>,
    pub platform: Option<(PlatformConfig, PlatformSource)>,
    pub service_accounts: Option<BTreeSet<(String, String)>>,
    /// (namespace, node, probe).
    pub probes: Vec<(String, String, SeedProbeResult)>,
    pub denials: Vec<FixDenials>,
    pub unavailable: Vec<Unavailable>,
    /// Pods and PVCs were both listed.
    pub workload_read: bool,
    /// The cluster's SeiNode CRD against the embedded one.
    pub crd: Option<crate::api::crd_compare::CrdView>,
}

/// What the reads need besides the connection.
pub struct ReadOptions<'a> {
    pub namespace: Option<&'a str>,
    pub controller_namespace: &'a str,
    pub platform_file: Option<&'a std::path::Path>,
    pub probe_seeds: bool,
    pub now: Timestamp,
}

fn api<K>(conn: &Connection, namespace: Option<&str>) -> Api<K>
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
    K::DynamicType: Default,
{
    match namespace {
        Some(ns) => Api::namespaced(conn.client.clone(), ns),
        None => Api::all(conn.client.clone()),
    }
}

/// Why one of the doctor's lists failed; its words are one line.
#[derive(Debug, thiserror::Error)]
enum ListError {
    #[error("{}", crate::kube::errors::describe_at(.0, None))]
    Api(kube::Error),
    #[error("no answer in {}s", READ_TIMEOUT.as_secs())]
    Timeout,
}

/// Lists `K`, bounded in time.
async fn list<K>(api: Api<K>, params: ListParams) -> Result<Vec<K>, ListError>
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    match tokio::time::timeout(READ_TIMEOUT, api.list(&params)).await {
        Ok(Ok(list)) => Ok(list.items),
        Ok(Err(error)) => Err(ListError::Api(error)),
        Err(_) => Err(ListError::Timeout),
    }
}

impl ClusterData {
    /// Reads one cluster. Only the SeiNodes are required (without them there is nothing to
    /// judge); every other read that fails is listed as unavailable.
    pub async fn read(
        conn: &Connection,
        options: &ReadOptions<'_>,
    ) -> Result<ClusterData, CliError> {
        let ns = options.namespace;
        let nodes = list::<Lenient<SeiNode>>(api(conn, ns), ListParams::default())
            .await
            .map_err(|e| CliError::Failed(format!("cannot list seinodes: {e}")))?;
        let mut data = ClusterData {
            context: conn.context.clone(),
            controller_namespace: options.controller_namespace.to_owned(),
            nodes: Vec::new(),
            events: Vec::new(),
            pods: Vec::new(),
            pvcs: Vec::new(),
            executor_leases: Vec::new(),
            controller: None,
            platform: None,
            service_accounts: None,
            probes: Vec::new(),
            denials: Vec::new(),
            unavailable: Vec::new(),
            workload_read: false,
            crd: None,
        };
        for node in nodes {
            match node.into_result() {
                Ok(node) => data.nodes.push(node),
                Err((key, reason)) => data.missing(&format!("SeiNode {key}"), reason),
            }
        }
        let warnings = ListParams::default().fields("type=Warning");
        let pods = ListParams::default().labels("sei.io/node");
        let (events, pods, pvcs, leases, accounts) = tokio::join!(
            list::<Event>(api(conn, ns), warnings),
            list::<Pod>(api(conn, ns), pods),
            list::<PersistentVolumeClaim>(api(conn, ns), ListParams::default()),
            list::<Lease>(api(conn, ns), ListParams::default()),
            list::<ServiceAccount>(api(conn, ns), ListParams::default()),
        );
        match events {
            Ok(events) => data.events = events,
            Err(e) => data.missing("events", e.to_string()),
        }
        data.workload_read = pods.is_ok() && pvcs.is_ok();
        match pods {
            Ok(pods) => data.pods = pods,
            Err(e) => data.missing("pods", e.to_string()),
        }
        match pvcs {
            Ok(pvcs) => data.pvcs = pvcs,
            Err(e) => data.missing("persistentvolumeclaims", e.to_string()),
        }
        match leases {
            Ok(leases) => {
                data.executor_leases = crate::ops::runners::executor_leases(
                    &leases,
                    &crate::ops::runners::local_holders(),
                );
            }
            Err(e) => data.missing("leases (embedded executors)", e.to_string()),
        }
        match accounts {
            Ok(accounts) => {
                data.service_accounts = Some(
                    accounts
                        .iter()
                        .filter_map(|a| {
                            Some((a.metadata.namespace.clone()?, a.metadata.name.clone()?))
                        })
                        .collect(),
                );
            }
            Err(e) => data.missing("serviceaccounts", e.to_string()),
        }
        let cluster = crate::kube::cluster::KubeCluster::new(conn.client.clone());
        data.crd = Some(crate::ops::skew::read_crd(&cluster).await);
        match controller_liveness(&cluster, options.controller_namespace, options.now).await {
            Ok(liveness) => data.controller = Some(liveness),
            Err(e) => data.missing("the controller's Lease", e.to_string()),
        }
        data.read_platform(conn, options).await;
        if options.probe_seeds {
            data.probe_seeds(conn).await;
        }
        Ok(data)
    }

    fn missing(&mut self, what: &str, reason: String) {
        self.unavailable.push(Unavailable {
            context: self.context.clone(),
            what: what.to_owned(),
            reason,
        });
    }

    async fn read_platform(&mut self, conn: &Connection, options: &ReadOptions<'_>) {
        let server = conn.kube_config.as_ref().map(|c| c.cluster_url.to_string());
        let resolved = tokio::time::timeout(
            READ_TIMEOUT,
            crate::kube::platform_config::resolve_platform(
                &conn.client,
                server.as_deref(),
                options.platform_file,
                options.controller_namespace,
                true,
            ),
        )
        .await;
        match resolved {
            Ok(Ok(resolved)) => self.platform = Some((resolved.platform, resolved.source)),
            Ok(Err(e)) => self.missing(
                "the platform config (render and sidecar checks skipped)",
                e.to_string(),
            ),
            Err(_) => self.missing(
                "the platform config (render and sidecar checks skipped)",
                "no answer in time".to_owned(),
            ),
        }
    }

    /// Probes each published seed from here, all at once, each bounded (one that cannot be
    /// probed has no result: its finding says why from the node itself).
    async fn probe_seeds(&mut self, conn: &Connection) {
        let seeds: Vec<&SeiNode> = self
            .nodes
            .iter()
            .filter(|node| super::seed_probes::is_published_seed(node))
            .collect();
        let probed = super::seed_probes::probe_all(conn, &seeds).await;
        self.probes = seeds
            .iter()
            .zip(probed)
            .filter_map(|(node, (at, outcome))| {
                Some((
                    node.namespace().to_owned(),
                    node.name().to_owned(),
                    SeedProbeResult {
                        at,
                        outcome: outcome.ok()?,
                    },
                ))
            })
            .collect();
    }

    /// Asks the access checks of the rollout previews the findings point to, per namespace.
    pub async fn check_fix_permissions(
        &mut self,
        conn: &Connection,
        findings: &[crate::ops::doctor::Finding],
    ) {
        let reach = crate::sidecar::env::transport_from_env(
            |name| std::env::var(name).ok(),
            conn.kube_config.clone(),
        )
        .map(|t| t.reach())
        .unwrap_or(crate::ports::SidecarReach::PortForward);
        let scope = ExecutionScope {
            executor: ExecutorMode::Auto,
            sidecar_reach: reach,
            controller_namespace: self.controller_namespace.clone(),
            reads_platform_config_map: matches!(
                self.platform,
                Some((_, PlatformSource::ConfigMap { .. }))
            ),
        };
        // Per namespace, the nodes a rollout fix names and the tasks their plans would run.
        let mut per_namespace: std::collections::BTreeMap<String, Vec<NodeTasks>> =
            std::collections::BTreeMap::new();
        for finding in findings.iter().filter(|f| {
            f.object.context == self.context
                && matches!(f.fix.action, Some(FixAction::Rollout { .. }))
        }) {
            let Some(node) = finding.object.node.as_deref().and_then(|name| {
                self.nodes
                    .iter()
                    .find(|n| n.name() == name && n.namespace() == finding.object.namespace)
            }) else {
                continue;
            };
            let nodes = per_namespace
                .entry(node.namespace().to_owned())
                .or_default();
            if !nodes.iter().any(|(n, _)| n == node.name()) {
                nodes.push((node.name().to_owned(), tasks_to_run(node, None)));
            }
        }
        let access = crate::kube::access::KubeAccess::new(conn.client.clone());
        for (namespace, nodes) in per_namespace {
            let checks = rollout_checks(&scope, &namespace, &nodes, false, true);
            match check_permissions(&access, checks.as_slice()).await {
                Ok(()) => {}
                Err(AccessError::Denied(denials)) => self.denials.push(FixDenials {
                    namespace,
                    action: "rollout".to_owned(),
                    denials,
                }),
                Err(AccessError::Review(why)) => {
                    self.missing(&format!("permission checks in {namespace}"), why);
                }
            }
        }
    }

    /// The doctor's view of this cluster (borrowing from it).
    pub fn snapshot(&self) -> ClusterSnapshot<'_> {
        let nodes = self
            .nodes
            .iter()
            .map(|node| {
                let name = node.name();
                let namespace = node.namespace();
                let pod_of = |pod: &Pod| {
                    pod.metadata.namespace.as_deref() == Some(namespace)
                        && pod
                            .metadata
                            .labels
                            .as_ref()
                            .and_then(|l| l.get("sei.io/node"))
                            .is_some_and(|n| n == name)
                };
                let pods: Vec<&Pod> = self.pods.iter().filter(|p| pod_of(p)).collect();
                let pvc_name = crate::render::data_pvc_name(node);
                let pvcs: Vec<&PersistentVolumeClaim> = self
                    .pvcs
                    .iter()
                    .filter(|p| {
                        p.metadata.namespace.as_deref() == Some(namespace)
                            && p.metadata.name.as_deref() == Some(pvc_name.as_str())
                    })
                    .collect();
                let mine = |event: &Event| {
                    let object = &event.involved_object;
                    let object_name = object.name.as_deref().unwrap_or("");
                    event.metadata.namespace.as_deref() == Some(namespace)
                        && match object.kind.as_deref() {
                            Some("SeiNode" | "StatefulSet") => object_name == name,
                            Some("Pod") => {
                                pods.iter()
                                    .any(|p| p.metadata.name.as_deref() == Some(object_name))
                                    || object_name == format!("{name}-0")
                            }
                            Some("PersistentVolumeClaim") => object_name == pvc_name,
                            _ => false,
                        }
                };
                NodeSnapshot {
                    node,
                    events: self.events.iter().filter(|e| mine(e)).collect(),
                    pods,
                    pvcs,
                    probe: self
                        .probes
                        .iter()
                        .find(|(ns, n, _)| ns == namespace && n == name)
                        .map(|(_, _, probe)| probe),
                    workload_known: self.workload_read,
                }
            })
            .collect();
        ClusterSnapshot {
            context: self.context.clone(),
            controller_namespace: self.controller_namespace.clone(),
            controller: self.controller.clone(),
            platform: self
                .platform
                .as_ref()
                .map(|(config, source)| PlatformView { config, source }),
            platform_source: self.platform.as_ref().map(|(_, source)| source),
            sidecar_image: self
                .platform
                .as_ref()
                .map(|(config, _)| config.images.sidecar.as_str())
                .filter(|image| !image.is_empty()),
            service_accounts: self.service_accounts.as_ref(),
            nodes,
            executor_leases: self.executor_leases.clone(),
            denials: self.denials.clone(),
            crd: self.crd.as_ref(),
        }
    }
}

impl ClusterData {
    /// What the console's doctor keeps of this read (`ops::doctor_reads`), owned.
    pub fn into_reads(self, now: Timestamp) -> crate::ops::doctor_reads::DoctorReads {
        crate::ops::doctor_reads::DoctorReads {
            read_at: Some(now),
            controller_namespace: self.controller_namespace,
            controller: self.controller,
            executor_leases: self.executor_leases,
            pods: self.pods,
            pvcs: self.pvcs,
            events: self.events,
            service_accounts: self.service_accounts,
            denials: self.denials,
            workload_read: self.workload_read,
            unavailable: self
                .unavailable
                .into_iter()
                .map(|gap| format!("{}: {}", gap.what, gap.reason))
                .collect(),
        }
    }
}

/// The console's doctor reads, made as `sei-console doctor` makes them (the composition root
/// hands it to the console): [`ClusterData::read`] without the seed probes (the console has
/// its own), then the permission checks of the fixes its findings name.
pub struct ConsoleDoctorReader {
    pub kubeconfig: Option<std::path::PathBuf>,
    pub controller_namespace: String,
    pub platform_file: Option<std::path::PathBuf>,
    pub thresholds: crate::config::DoctorThresholds,
    /// One connection per context, made on first use.
    connections: std::sync::Mutex<std::collections::BTreeMap<String, Connection>>,
}

impl ConsoleDoctorReader {
    pub fn new(
        kubeconfig: Option<std::path::PathBuf>,
        controller_namespace: String,
        platform_file: Option<std::path::PathBuf>,
        thresholds: crate::config::DoctorThresholds,
    ) -> ConsoleDoctorReader {
        ConsoleDoctorReader {
            kubeconfig,
            controller_namespace,
            platform_file,
            thresholds,
            connections: std::sync::Mutex::default(),
        }
    }

    async fn connection(
        &self,
        context: &str,
    ) -> Result<Connection, crate::ops::doctor_reads::DoctorReadError> {
        let known = self
            .connections
            .lock()
            .ok()
            .and_then(|c| c.get(context).cloned());
        if let Some(conn) = known {
            return Ok(conn);
        }
        let wanted = (!context.is_empty()).then_some(context);
        let conn = crate::kube::client::connect(self.kubeconfig.as_deref(), wanted)
            .await
            .map_err(|e| crate::ops::doctor_reads::DoctorReadError(e.to_string()))?;
        if let Ok(mut connections) = self.connections.lock() {
            connections.insert(context.to_owned(), conn.clone());
        }
        Ok(conn)
    }
}

impl crate::ops::doctor_reads::DoctorReader for ConsoleDoctorReader {
    fn read<'a>(
        &'a self,
        context: &'a str,
        namespace: Option<&'a str>,
    ) -> crate::ops::doctor_reads::ReadFuture<'a> {
        Box::pin(async move {
            let conn = self.connection(context).await?;
            let now = Timestamp::now();
            let options = ReadOptions {
                namespace,
                controller_namespace: &self.controller_namespace,
                platform_file: self.platform_file.as_deref(),
                probe_seeds: false,
                now,
            };
            let mut data = ClusterData::read(&conn, &options)
                .await
                .map_err(|e| crate::ops::doctor_reads::DoctorReadError(e.to_string()))?;
            let first = crate::ops::doctor::diagnose(crate::ops::doctor::DoctorInput {
                now,
                thresholds: &self.thresholds,
                clusters: vec![data.snapshot()],
                more: Vec::new(),
            });
            data.check_fix_permissions(&conn, &first).await;
            Ok(data.into_reads(now))
        })
    }
}
