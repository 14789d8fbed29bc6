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
use crate::executor::lease::{ControllerLiveness, controller_liveness, node_lease_name};
use crate::kube::client::Connection;
use crate::kube::lenient::Lenient;
use crate::ops::doctor::{
    ClusterSnapshot, ExecutorLease, FixAction, FixDenials, NodeSnapshot, PlatformView,
    SeedProbeResult,
};
use crate::platform::PlatformConfig;
use crate::ports::access::{AccessError, check_permissions};
use crate::ports::{HolderProbe, LocalProcesses};

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

/// Lists `K`, bounded in time; the error is one line.
async fn list<K>(api: Api<K>, params: ListParams) -> Result<Vec<K>, String>
where
    K: Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    match tokio::time::timeout(READ_TIMEOUT, api.list(&params)).await {
        Ok(Ok(list)) => Ok(list.items),
        Ok(Err(error)) => Err(crate::kube::errors::describe_at(&error, None)),
        Err(_) => Err(format!("no answer in {}s", READ_TIMEOUT.as_secs())),
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
            Err(e) => data.missing("events", e),
        }
        data.workload_read = pods.is_ok() && pvcs.is_ok();
        match pods {
            Ok(pods) => data.pods = pods,
            Err(e) => data.missing("pods", e),
        }
        match pvcs {
            Ok(pvcs) => data.pvcs = pvcs,
            Err(e) => data.missing("persistentvolumeclaims", e),
        }
        match leases {
            Ok(leases) => data.executor_leases = executor_leases(&leases),
            Err(e) => data.missing("leases (embedded executors)", e),
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
            Err(e) => data.missing("serviceaccounts", e),
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

/// The embedded executors' node Leases among `leases`, with whether their holder is a console
/// of this machine that is gone.
fn executor_leases(leases: &[Lease]) -> Vec<ExecutorLease> {
    let holders = LocalProcesses {
        prefix: crate::executor::driver::local_holder_prefix(),
    };
    leases
        .iter()
        .filter_map(|lease| {
            let name = lease.metadata.name.as_deref()?;
            let node = name.strip_prefix("sei-console-exec-")?;
            debug_assert_eq!(node_lease_name(node), name);
            let spec = lease.spec.as_ref();
            let holder = spec
                .and_then(|s| s.holder_identity.clone())
                .unwrap_or_default();
            Some(ExecutorLease {
                namespace: lease.metadata.namespace.clone().unwrap_or_default(),
                node: node.to_owned(),
                holder_gone: !holder.is_empty() && holders.is_gone(&holder),
                holder,
                renewed: spec
                    .and_then(|s| s.renew_time.as_ref().or(s.acquire_time.as_ref()))
                    .map(|t| t.0),
                duration_seconds: spec
                    .and_then(|s| s.lease_duration_seconds)
                    .map_or(15, i64::from),
            })
        })
        .collect()
}
