//! The console's port (`app::port::ConsolePort`) filled with the adapters: kube-rs for the
//! watches, logs, namespaces and the action jobs' cluster, the sidecar's HTTP for NodeIDs and
//! actions, port-forwards for the nodes' RPC, hyper for the chains' reference RPCs and the P2P
//! handshake for the seed probe. The console itself (`sei-tui`) knows none of them.
//!
//! [`KubeBackend`] holds the connections of the watched contexts: the first is made before the
//! terminal opens ([`connect`]), the others by their scope watches (`watch_tasks`), as the
//! console's first connection was (the read-only layer included).
mod actions;
mod watch_tasks;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use kube::api::Api;
use tokio::sync::{mpsc, watch};

pub use actions::{ActionEnv, ActionSetup};

use crate::api::SeiNode;
use crate::app::action_error::ActionError;
use crate::app::effects::Effects;
use crate::app::errors::NamespacesError;
use crate::app::model::Msg;
use crate::app::port::{ActionCluster, ActionJournal, ConsolePort, PortFuture};
use crate::chain::{ReferenceRead, ReferenceUrl, RpcFailure};
use crate::config::read_only::MutationGuard;
use crate::fleet::detail::NodeIdLookup;
use crate::fleet::runners::Runners;
use crate::fleet::store::ObjectKey;
use crate::kube::client::{ConnectError, Connection};
use crate::kube::cluster::KubeCluster;
use crate::kube::logs::KubeLogs;
use crate::ops::rollout_view::RolloutView;
use crate::ports::logs::PodLogs;
use crate::ports::node_rpc::NodeRpc;
use crate::ports::probe::SeedProber;
use crate::ports::{ClusterApi, ClusterError};
use crate::rpc::reference::ReferenceReader;

/// Why a cluster could not be connected to as the console's first connection was.
#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    #[error("{0}")]
    Connect(#[from] ConnectError),
    /// The client with the read-only layer could not be made.
    #[error("cannot create Kubernetes client: {0}")]
    Client(kube::Error),
}

/// Connects to `context` (else the kubeconfig's current one) under `guard`: with read-only
/// mode on, no request that changes anything can leave (besides the refusal in `update`).
pub async fn connect(
    kubeconfig: Option<&std::path::Path>,
    context: Option<&str>,
    guard: MutationGuard,
) -> Result<Connection, ConnectionError> {
    let mut conn = crate::kube::client::connect(kubeconfig, context).await?;
    if guard.is_read_only()
        && let Some(config) = conn.kube_config.clone()
    {
        conn.client =
            crate::kube::client::api_client(config, true).map_err(ConnectionError::Client)?;
    }
    Ok(conn)
}

/// The connections of the watched contexts, by context; shared with the tasks that wait for
/// one (a node screen opened before its cluster connected).
type Connections = watch::Sender<BTreeMap<String, Connection>>;

/// The console's port over kube-rs and the other adapters.
pub struct KubeBackend {
    kubeconfig: Option<PathBuf>,
    /// Wraps every connection made here (read-only mode refuses mutating requests).
    guard: MutationGuard,
    connections: Connections,
    /// The context the console connected to first: the action environment was built for it.
    primary_context: String,
    /// Operator actions; `None` when the console was started without them (tests of the
    /// read views).
    actions: Option<ActionEnv>,
    /// The controller's namespace when the platform's default sidecar image comes from its
    /// ConfigMap (no platform file given): the scope watches then follow that ConfigMap too.
    platform_config_map: Option<String>,
    /// The seeds' outside probe; `None`: probes answer that they are not available.
    prober: Option<Arc<dyn SeedProber>>,
    /// The chains' reference RPCs are read with it (made on the first read).
    reference_reader: OnceLock<ReferenceReader>,
}

impl KubeBackend {
    /// The port over `connection` (the first context); `kubeconfig` connects the others.
    pub fn new(connection: Connection, kubeconfig: Option<PathBuf>) -> KubeBackend {
        let primary_context = connection.context.clone();
        let connections = BTreeMap::from([(connection.context.clone(), connection)]);
        KubeBackend {
            kubeconfig,
            guard: MutationGuard::default(),
            connections: watch::Sender::new(connections),
            primary_context,
            actions: None,
            platform_config_map: None,
            prober: None,
            reference_reader: OnceLock::new(),
        }
    }

    /// Follows the controller's ConfigMap in `namespace` for the default sidecar image.
    pub fn with_platform_config_map(mut self, namespace: String) -> KubeBackend {
        self.platform_config_map = Some(namespace);
        self
    }

    /// Wraps the connections made later (other contexts) as the first one was.
    pub fn with_guard(mut self, guard: MutationGuard) -> KubeBackend {
        self.guard = guard;
        self
    }

    /// Enables operator actions (and the seed probe they carry).
    pub fn with_actions(mut self, env: ActionEnv) -> KubeBackend {
        self.prober = Some(env.prober.clone());
        self.actions = Some(env);
        self
    }

    /// Enables the seeds' outside probes alone.
    pub fn with_prober(mut self, prober: Arc<dyn SeedProber>) -> KubeBackend {
        self.prober = Some(prober);
        self
    }

    /// The console's effects over this port, sending on `tx`.
    pub fn effects(self, tx: mpsc::Sender<Msg>) -> Effects {
        Effects::new(Arc::new(self), tx)
    }

    fn connection(&self, context: &str) -> Option<Connection> {
        self.connections.borrow().get(context).cloned()
    }
}

impl ConsolePort for KubeBackend {
    fn watch_scope(
        &self,
        context: String,
        namespace: Option<String>,
        epoch: u64,
        tx: mpsc::Sender<Msg>,
    ) -> PortFuture<'static, ()> {
        Box::pin(watch_tasks::watch_scope(
            watch_tasks::ClusterScope { context, namespace },
            epoch,
            tx,
            self.kubeconfig.clone(),
            self.guard,
            self.connections.clone(),
            self.platform_config_map.clone(),
        ))
    }

    fn watch_detail(
        &self,
        node: ObjectKey,
        epoch: u64,
        tx: mpsc::Sender<Msg>,
    ) -> PortFuture<'static, ()> {
        Box::pin(watch_tasks::watch_detail(
            node,
            epoch,
            tx,
            self.connections.subscribe(),
        ))
    }

    fn logs(&self, context: &str) -> Option<Arc<dyn PodLogs>> {
        let connection = self.connection(context)?;
        Some(Arc::new(KubeLogs::new(connection.client)))
    }

    fn list_namespaces(
        &self,
        context: &str,
    ) -> Option<PortFuture<'static, Result<Vec<String>, NamespacesError>>> {
        let client = self.connection(context)?.client;
        Some(Box::pin(list_namespaces(client)))
    }

    fn node_rpc(&self, context: &str) -> Result<Arc<dyn NodeRpc>, RpcFailure> {
        let config = self
            .connection(context)
            .and_then(|conn| conn.kube_config)
            .ok_or_else(|| {
                RpcFailure::Unreachable(format!("not connected to cluster {context:?} yet"))
            })?;
        let rpc = crate::rpc::KubeNodeRpc::new(config)
            .map_err(|e| RpcFailure::Unreachable(format!("cannot create a client: {e}")))?;
        Ok(Arc::new(rpc))
    }

    fn read_reference(
        &self,
        url: ReferenceUrl,
        timeout: Duration,
    ) -> PortFuture<'static, ReferenceRead> {
        let reader = self
            .reference_reader
            .get_or_init(ReferenceReader::new)
            .clone();
        Box::pin(async move { reader.read(&url, timeout).await })
    }

    fn prober(&self) -> Option<Arc<dyn SeedProber>> {
        self.prober.clone()
    }

    fn seed_node_id(&self, key: &ObjectKey) -> Option<PortFuture<'static, Option<NodeIdLookup>>> {
        let conn = self.connection(&key.context)?;
        let key = key.clone();
        Some(Box::pin(async move { look_up_node_id(&conn, &key).await }))
    }

    fn action_journal(&self) -> Option<ActionJournal> {
        self.actions.as_ref().map(|env| ActionJournal {
            journal: env.journal.clone(),
            operator: env.operator.clone(),
            context: env.context.clone(),
            holder: env.driver.holder.clone(),
        })
    }

    fn action_cluster(&self, context: &str) -> Result<Arc<dyn ActionCluster>, ActionError> {
        let Some(env) = self.actions.clone() else {
            return Err(ActionError::NotAvailable);
        };
        let Some(conn) = self.connection(context) else {
            return Err(ActionError::NotConnected(context.to_owned()));
        };
        if context == self.primary_context {
            return Ok(Arc::new(env.cluster(conn.client)));
        }
        let identity = crate::kube::identity::operator(self.kubeconfig.as_deref(), Some(context));
        Ok(Arc::new(
            env.for_cluster(&conn, &identity).cluster(conn.client),
        ))
    }

    fn read_runners(
        &self,
        context: &str,
        namespace: Option<String>,
        checked: BTreeSet<(String, String, String)>,
    ) -> Option<PortFuture<'static, Runners>> {
        let client = self.connection(context)?.client;
        let controller_namespace = self.actions.as_ref().map_or_else(
            || crate::kube::platform_config::DEFAULT_CONTROLLER_NAMESPACE.to_owned(),
            |env| env.controller_namespace.clone(),
        );
        Some(Box::pin(async move {
            let read = crate::kube::runners::read_leases(
                &client,
                namespace.as_deref(),
                &controller_namespace,
                crate::executor::lease::CONTROLLER_LEASE_NAME,
            )
            .await;
            // The holders' processes are looked up off the loop too (`/proc`).
            crate::ops::runners::judge(
                read.scope.as_deref(),
                read.controller.as_ref().map(Option::as_ref),
                &controller_namespace,
                checked,
                &crate::ops::runners::local_holders(),
                jiff::Timestamp::now(),
            )
        }))
    }

    fn read_rollouts(
        &self,
        context: &str,
        namespaces: Vec<String>,
    ) -> Option<PortFuture<'static, Result<Vec<RolloutView>, ClusterError>>> {
        let cluster = KubeCluster::new(self.connection(context)?.client);
        Some(Box::pin(async move {
            // The holders' processes are looked up off the loop too (`/proc`).
            let holders = crate::ops::runners::local_holders();
            let mut views = Vec::new();
            for namespace in &namespaces {
                views.extend(
                    crate::ops::rollout_view::read(
                        &cluster,
                        namespace,
                        &holders,
                        jiff::Timestamp::now(),
                    )
                    .await?,
                );
            }
            Ok(views)
        }))
    }

    fn clusters(&self) -> Vec<(String, Arc<dyn ClusterApi>)> {
        self.connections
            .borrow()
            .iter()
            .map(|(context, conn)| {
                let cluster: Arc<dyn ClusterApi> = Arc::new(KubeCluster::new(conn.client.clone()));
                (context.clone(), cluster)
            })
            .collect()
    }
}

/// The namespaces' names, sorted; the error says why not (forbidden, unreachable).
async fn list_namespaces(client: kube::Client) -> Result<Vec<String>, NamespacesError> {
    let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(client);
    let listed = tokio::time::timeout(
        Duration::from_secs(10),
        api.list_metadata(&kube::api::ListParams::default()),
    )
    .await
    .map_err(|_| NamespacesError::TimedOut(10))?
    .map_err(|e| NamespacesError::List(Arc::new(e)))?;
    let mut names: Vec<String> = listed
        .items
        .into_iter()
        .filter_map(|n| n.metadata.name)
        .collect();
    names.sort();
    Ok(names)
}

/// A seed's NodeID from its node-key Secret or its sidecar; `None` when the SeiNode cannot be
/// read or is no seed.
async fn look_up_node_id(conn: &Connection, key: &ObjectKey) -> Option<NodeIdLookup> {
    let api: Api<SeiNode> = Api::namespaced(conn.client.clone(), &key.namespace);
    let Ok(Some(node)) = api.get_opt(&key.name).await else {
        return None;
    };
    let sidecar = crate::sidecar::env::client_from_env(conn.kube_config.clone());
    let sidecar = match &sidecar {
        Ok(sidecar) => Ok(sidecar as &dyn crate::ports::SidecarApi),
        Err(why) => Err(why),
    };
    let cluster = crate::kube::cluster::KubeCluster::new(conn.client.clone());
    crate::ops::seed_probe::seed_node_id(&cluster, sidecar, &node).await
}
