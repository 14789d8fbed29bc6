//! The console's port: what the effects (`app::effects`) ask of the clusters and of the world
//! beyond the terminal — the watches, the container logs, the namespaces, the nodes' and the
//! chains' reference RPCs, the seed probe, the action jobs and who runs the Active plans. The composition root
//! (`sei-console`'s `backend`, the only place that knows kube-rs, hyper and the sidecar's HTTP)
//! fills it with the adapters and hands it to the loop at start ([`Connected`]); the console
//! names no adapter (`tests/crate_graph.rs`: no kube-rs, hyper or tower in `sei-tui`'s tree).
//!
//! The watches send on the loop's own bounded channel (`Msg`s, the store deltas and health
//! reports of `fleet::watches`), so its bound stays the only buffer between a watch and the loop.
use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::action_error::ActionError;
use super::errors::NamespacesError;
use super::model::Msg;
use crate::chain::{ReferenceRead, ReferenceUrl, RpcFailure};
use crate::config::ExecutorMode;
use crate::fleet::detail::NodeIdLookup;
use crate::fleet::runners::Runners;
use crate::fleet::store::ObjectKey;
use crate::journal::Journal;
use crate::ops::Ops;
use crate::ports::ClusterApi;
use crate::ports::logs::PodLogs;
use crate::ports::node_rpc::NodeRpc;
use crate::ports::probe::SeedProber;

/// A future of the port, to be awaited in one of the effects' tasks.
pub type PortFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Everything the console's effects need beyond the terminal and the config file.
pub trait ConsolePort: Send + Sync {
    /// Runs the scope watches of `context`'s cluster (SeiNodes, their Events, the pods'
    /// Warnings and the pods judging them, the API server probe, the controller's ConfigMap),
    /// connecting to it first when it is not yet, until the future is dropped or `tx` closes.
    /// Deltas and reports are tagged with `epoch`; a cluster that cannot be connected to is a
    /// failed `Nodes` watch.
    fn watch_scope(
        &self,
        context: String,
        namespace: Option<String>,
        epoch: u64,
        tx: mpsc::Sender<Msg>,
    ) -> PortFuture<'static, ()>;

    /// Runs the watches of the open node (its StatefulSet, pods, their Events, the seed's
    /// NodeID) once its cluster is connected, until the future is dropped or `tx` closes.
    fn watch_detail(
        &self,
        node: ObjectKey,
        epoch: u64,
        tx: mpsc::Sender<Msg>,
    ) -> PortFuture<'static, ()>;

    /// The container logs of `context`'s cluster; `None` while it is not connected.
    fn logs(&self, context: &str) -> Option<Arc<dyn PodLogs>>;

    /// The namespaces of `context`'s cluster, sorted; `None` while it is not connected.
    fn list_namespaces(
        &self,
        context: &str,
    ) -> Option<PortFuture<'static, Result<Vec<String>, NamespacesError>>>;

    /// A reader of the nodes' RPC in `context`'s cluster (the effects keep one per cluster).
    fn node_rpc(&self, context: &str) -> Result<Arc<dyn NodeRpc>, RpcFailure>;

    /// Reads a chain's reference RPC within `timeout`.
    fn read_reference(
        &self,
        url: ReferenceUrl,
        timeout: Duration,
    ) -> PortFuture<'static, ReferenceRead>;

    /// The seeds' outside probe; `None`: probes answer that it is not available.
    fn prober(&self) -> Option<Arc<dyn SeedProber>>;

    /// Looks seed `key`'s NodeID up (its node-key Secret, else its sidecar), in its cluster as
    /// connected now; `None` while that cluster is not connected. The lookup gives `None` when
    /// the node cannot be read or is no seed.
    fn seed_node_id(&self, key: &ObjectKey) -> Option<PortFuture<'static, Option<NodeIdLookup>>>;

    /// Where console actions are journaled and who acts; `None` when the console runs without
    /// operator actions.
    fn action_journal(&self) -> Option<ActionJournal>;

    /// The action jobs of `context`'s cluster: its own client (permission checks, Leases and
    /// the platform ConfigMap are that cluster's), sidecar transport and operator identity.
    fn action_cluster(&self, context: &str) -> Result<Arc<dyn ActionCluster>, ActionError>;

    /// Reads the Leases that say who runs the Active plans of `namespace` (every namespace
    /// when `None`) in `context`'s cluster, and the controller's, and judges them
    /// (`ops::runners`, `checked`: the plans already checked); `None` while that cluster is not
    /// connected.
    fn read_runners(
        &self,
        context: &str,
        namespace: Option<String>,
        checked: BTreeSet<(String, String, String)>,
    ) -> Option<PortFuture<'static, Runners>>;

    /// The connected clusters by context, as the use cases reach them (the journal's runs of
    /// consoles that died are closed against them, `ops::interrupted`).
    fn clusters(&self) -> Vec<(String, Arc<dyn ClusterApi>)>;
}

/// The journal of console actions and the operator they are recorded under.
#[derive(Debug, Clone)]
pub struct ActionJournal {
    /// `None`: there is no journal location (neither XDG_STATE_HOME nor HOME is set).
    pub journal: Option<Journal>,
    /// `user (context ctx)`, as Events and the journal name the operator.
    pub operator: String,
    /// The kubeconfig context actions go to (the journal's `context`).
    pub context: String,
    /// This console's executor holder (its runs are not another console's interrupted ones).
    pub holder: String,
}

/// One cluster an action goes to.
pub trait ActionCluster: Send + Sync {
    /// The adapters of one job in `namespace` of this cluster, the platform config resolved
    /// as the commands resolve theirs (`wiring`).
    fn open<'a>(
        &'a self,
        namespace: &'a str,
        options: JobOptions,
    ) -> PortFuture<'a, Result<Box<dyn ClusterJob>, ActionError>>;
}

/// How one action job runs: who executes it, and whether the operator overrode the guard
/// against fields the port does not know (typed in the dialog: the command line's
/// `--allow-unknown-fields`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobOptions {
    pub executor: ExecutorMode,
    pub allow_unknown_fields: bool,
}

/// The use cases of one action job, over that cluster's adapters.
pub trait ClusterJob: Send + Sync {
    fn ops(&self) -> Ops<'_>;
    /// What the preview and the run say about the platform config first (a stand-in config).
    fn platform_note(&self) -> Option<&str>;
}

/// The console's first cluster as the composition root connected it before the terminal
/// opened (a bad kubeconfig is one line on stderr), and the port over all of them.
pub struct Connected {
    /// The first context (the kubeconfig's current one when none was named).
    pub context: String,
    /// That context's namespace, else `default`: the scope when none was named.
    pub default_namespace: String,
    /// The kubeconfig's context names, for completing and checking `:ctx`.
    pub context_names: Vec<String>,
    pub port: Arc<dyn ConsolePort>,
}
