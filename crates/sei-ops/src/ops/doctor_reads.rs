//! What the doctor reads of one cluster besides the SeiNodes and their events (issue 33: the
//! console's doctor left Leases, PVCs and permissions to the command line): the controller's
//! and the executors' Leases, every pod and PVC of the scope, the Warning events of pods, PVCs
//! and StatefulSets, the ServiceAccounts and the permission checks of the fixes found. The
//! command line reads it for `sei-console doctor`; the console asks a [`DoctorReader`] (the
//! same reads, handed in by the composition root) off the render path and keeps the result
//! indexed ([`IndexedReads`]) so a refresh of the findings looks each node's part up.
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;

use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod};

use super::doctor::{ExecutorLease, FixDenials};
use crate::api::SeiNode;
use crate::executor::lease::ControllerLiveness;

/// One cluster's reads, owned.
#[derive(Debug, Clone, Default)]
pub struct DoctorReads {
    pub read_at: Option<Timestamp>,
    pub controller_namespace: String,
    /// The controller's Lease; `None` when it could not be read.
    pub controller: Option<ControllerLiveness>,
    pub executor_leases: Vec<ExecutorLease>,
    pub pods: Vec<Pod>,
    pub pvcs: Vec<PersistentVolumeClaim>,
    /// Warning events of the scope.
    pub events: Vec<Event>,
    /// ServiceAccounts that exist, as (namespace, name); `None` when not read.
    pub service_accounts: Option<BTreeSet<(String, String)>>,
    pub denials: Vec<FixDenials>,
    /// Pods and PVCs were both read.
    pub workload_read: bool,
    /// What could not be read, one line each (`persistentvolumeclaims: forbidden`).
    pub unavailable: Vec<String>,
}

/// Why a cluster could not be read for the doctor (one line: not connected, SeiNodes not
/// listed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DoctorReadError(pub String);

/// A boxed future of a read.
pub type ReadFuture<'a> =
    Pin<Box<dyn Future<Output = Result<DoctorReads, DoctorReadError>> + Send + 'a>>;

/// Reads [`DoctorReads`] of the cluster of kubeconfig `context` in `namespace` (every
/// namespace when `None`); the error is one line.
pub trait DoctorReader: Send + Sync {
    fn read<'a>(&'a self, context: &'a str, namespace: Option<&'a str>) -> ReadFuture<'a>;
}

type NodeKey = (String, String);

/// [`DoctorReads`] indexed by node: its pods (label `sei.io/node`), its data PVC, the Warning
/// events of its StatefulSet, pods and PVC.
#[derive(Debug, Clone, Default)]
pub struct IndexedReads {
    pub reads: DoctorReads,
    pods: BTreeMap<NodeKey, Vec<usize>>,
    pvcs: BTreeMap<NodeKey, Vec<usize>>,
    /// By (namespace, kind, name) of the involved object.
    events: BTreeMap<(String, String, String), Vec<usize>>,
}

impl IndexedReads {
    pub fn of(reads: DoctorReads) -> IndexedReads {
        let mut pods: BTreeMap<NodeKey, Vec<usize>> = BTreeMap::new();
        for (i, pod) in reads.pods.iter().enumerate() {
            let namespace = pod.metadata.namespace.clone().unwrap_or_default();
            if let Some(node) = pod
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("sei.io/node"))
            {
                pods.entry((namespace, node.clone())).or_default().push(i);
            }
        }
        let mut pvcs: BTreeMap<NodeKey, Vec<usize>> = BTreeMap::new();
        for (i, pvc) in reads.pvcs.iter().enumerate() {
            let namespace = pvc.metadata.namespace.clone().unwrap_or_default();
            if let Some(name) = pvc.metadata.name.clone() {
                pvcs.entry((namespace, name)).or_default().push(i);
            }
        }
        let mut events: BTreeMap<(String, String, String), Vec<usize>> = BTreeMap::new();
        for (i, event) in reads.events.iter().enumerate() {
            let object = &event.involved_object;
            let key = (
                event.metadata.namespace.clone().unwrap_or_default(),
                object.kind.clone().unwrap_or_default(),
                object.name.clone().unwrap_or_default(),
            );
            events.entry(key).or_default().push(i);
        }
        IndexedReads {
            reads,
            pods,
            pvcs,
            events,
        }
    }

    /// The pods of `node`.
    pub fn pods_of(&self, node: &SeiNode) -> Vec<&Pod> {
        let key = (node.namespace().to_owned(), node.name().to_owned());
        self.pods
            .get(&key)
            .into_iter()
            .flatten()
            .filter_map(|i| self.reads.pods.get(*i))
            .collect()
    }

    /// The data PVC of `node` (`data-<node>`).
    pub fn pvcs_of(&self, node: &SeiNode) -> Vec<&PersistentVolumeClaim> {
        let key = (
            node.namespace().to_owned(),
            crate::render::data_pvc_name(node),
        );
        self.pvcs
            .get(&key)
            .into_iter()
            .flatten()
            .filter_map(|i| self.reads.pvcs.get(*i))
            .collect()
    }

    /// The Warning events of `node`'s StatefulSet, pods (`pods`, and `<node>-0`) and PVC: what
    /// the console does not watch for every node (its SeiNode's events it does).
    pub fn workload_events_of(&self, node: &SeiNode, pods: &[&Pod]) -> Vec<&Event> {
        let namespace = node.namespace();
        let mut objects = vec![
            ("StatefulSet", node.name().to_owned()),
            ("PersistentVolumeClaim", crate::render::data_pvc_name(node)),
            ("Pod", format!("{}-0", node.name())),
        ];
        for pod in pods {
            if let Some(name) = pod.metadata.name.clone()
                && !objects.iter().any(|(k, n)| *k == "Pod" && *n == name)
            {
                objects.push(("Pod", name));
            }
        }
        objects
            .into_iter()
            .flat_map(|(kind, name)| {
                self.events
                    .get(&(namespace.to_owned(), kind.to_owned(), name))
                    .into_iter()
                    .flatten()
            })
            .filter_map(|i| self.reads.events.get(*i))
            .collect()
    }
}

impl std::fmt::Debug for dyn DoctorReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DoctorReader")
    }
}
