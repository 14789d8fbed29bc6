//! What the console's action jobs need besides the cluster connection ([`ActionEnv`]), and each
//! cluster's jobs opened through `wiring` as the commands open theirs (`app::port::ActionCluster`).
use std::path::PathBuf;
use std::sync::Arc;

use crate::app::action_error::ActionError;
use crate::app::jobs::default_driver_config;
use crate::app::port::{ActionCluster, ClusterJob, JobOptions, PortFuture};
use crate::executor::driver::DriverConfig;
use crate::journal::Journal;
use crate::kube::client::Connection;
use crate::kube::identity::OperatorIdentity;
use crate::ops::{ActionLog, NoLog, Ops};
use crate::ports::node_rpc::NodeRpc;
use crate::ports::notify::Notifier;
use crate::ports::probe::SeedProber;
use crate::sidecar::http::HttpSidecar;
use crate::wiring::{Adapters, Wiring};

/// What action jobs need besides the cluster connection.
#[derive(Clone)]
pub struct ActionEnv {
    /// The API server's URL, named in errors of requests that cannot reach it.
    pub server: Option<String>,
    /// The controller's namespace: its platform ConfigMap and leader-election Lease.
    pub controller_namespace: String,
    /// The platform config file, else the controller's ConfigMap is read.
    pub platform_file: Option<PathBuf>,
    /// How the sidecars are reached (`SEI_CONSOLE_SIDECAR_*`), or why that is misconfigured.
    pub sidecar: Result<HttpSidecar, ActionError>,
    /// The `SEI_CONSOLE_SIDECAR_*` variables as read at start: another cluster's transport is
    /// made from them and that cluster's connection ([`ActionEnv::for_cluster`]).
    pub sidecar_vars: std::collections::BTreeMap<String, String>,
    /// `user (context ctx)`, as Events and the journal name the operator.
    pub operator: String,
    /// The kubeconfig context actions go to (the journal's `context`).
    pub context: String,
    pub journal: Option<Journal>,
    /// Deadline and pacing of followed plans.
    pub driver: DriverConfig,
    /// The seed probe (the P2P handshake adapter `cli` hands in).
    pub prober: Arc<dyn SeedProber>,
    /// The nodes' RPC of this cluster (a rollout's health gate).
    pub node_rpc: Arc<dyn NodeRpc>,
    /// The webhooks of `[notify]` (a rollout's end), else `ports::notify::NoNotifier`.
    pub notifier: Arc<dyn Notifier>,
    /// Read-only mode and where it was switched on (the preamble of every action asks it).
    pub read_only: Option<&'static str>,
    /// `require_journal` (the preamble of every action asks it).
    pub require_journal: bool,
}

impl ActionEnv {
    /// This environment for another cluster: its sidecar transport (the pod proxy and the
    /// port-forwards go through that cluster's API server) and the operator as its context
    /// names them.
    pub fn for_cluster(&self, conn: &Connection, identity: &OperatorIdentity) -> ActionEnv {
        ActionEnv {
            server: conn.kube_config.as_ref().map(|c| c.cluster_url.to_string()),
            sidecar: crate::sidecar::http::transport_from_env(
                |k| self.sidecar_vars.get(k).cloned(),
                conn.kube_config.clone(),
            )
            .map(HttpSidecar::new)
            .map_err(|e| ActionError::SidecarTransport(e.to_string())),
            operator: identity.to_string(),
            context: identity.context.clone(),
            node_rpc: crate::rpc::node_rpc_for(conn.kube_config.clone()),
            ..self.clone()
        }
    }
}

impl ActionEnv {
    /// This environment's actions in the cluster of `client`.
    pub(super) fn cluster(self, client: kube::Client) -> ClusterActions {
        ClusterActions { env: self, client }
    }

    /// The adapters of one job in `namespace` of `client`'s cluster (`wiring`, as the commands
    /// open theirs).
    async fn open(
        &self,
        client: &kube::Client,
        namespace: &str,
        options: JobOptions,
    ) -> Result<Adapters, ActionError> {
        let log: Box<dyn ActionLog> = match &self.journal {
            Some(journal) => Box::new(journal.clone()),
            None => Box::new(NoLog),
        };
        let wiring = Wiring {
            server: self.server.clone(),
            namespace: namespace.to_owned(),
            operator: self.operator.clone(),
            context: self.context.clone(),
            executor: options.executor,
            controller_namespace: self.controller_namespace.clone(),
            platform_file: self.platform_file.clone(),
            require_platform: false,
            sidecar: self.sidecar.clone()?,
            driver: self.driver.clone(),
            // Refused at the key already (`action_update::start`); the preamble asks again.
            read_only: self.read_only,
            require_journal: self.require_journal,
            // Typed in the dialog after a refusal (`app::action_update`), as the command
            // line's --allow-unknown-fields.
            allow_unknown_fields: options.allow_unknown_fields,
            log,
            prober: self.prober.clone(),
            node_rpc: self.node_rpc.clone(),
            notifier: self.notifier.clone(),
        };
        Adapters::open(client, wiring)
            .await
            .map_err(|e| ActionError::Platform(e.to_string()))
    }
}

/// The parts of the action environment known before connecting.
#[derive(Debug, Clone)]
pub struct ActionSetup {
    pub controller_namespace: String,
    pub platform_file: Option<PathBuf>,
    pub operator: String,
    /// The kubeconfig context of `operator` (the journal's `context`).
    pub context: String,
    pub journal: Option<Journal>,
    /// The seed probe (`seed create`'s last step, the screens' reachability).
    pub prober: Arc<dyn SeedProber>,
    /// The webhooks of `[notify]`.
    pub notifier: Arc<dyn Notifier>,
}

impl ActionSetup {
    /// The environment of actions once connected: the sidecar transport from
    /// `SEI_CONSOLE_SIDECAR_*` (the pod proxy needs the connection's config).
    pub fn env(self, config: Option<kube::Config>) -> ActionEnv {
        let server = config.as_ref().map(|c| c.cluster_url.to_string());
        let node_rpc = crate::rpc::node_rpc_for(config.clone());
        let sidecar = crate::sidecar::env::client_from_env(config)
            .map_err(|e| ActionError::SidecarTransport(e.to_string()));
        ActionEnv {
            server,
            controller_namespace: self.controller_namespace,
            platform_file: self.platform_file,
            sidecar,
            sidecar_vars: std::env::vars()
                .filter(|(k, _)| k.starts_with("SEI_CONSOLE_SIDECAR_"))
                .collect(),
            operator: self.operator,
            context: self.context,
            journal: self.journal,
            driver: default_driver_config(),
            prober: self.prober,
            node_rpc,
            notifier: self.notifier,
            read_only: None,
            require_journal: false,
        }
    }
}

/// One cluster's action jobs: the environment and that cluster's client.
pub(super) struct ClusterActions {
    env: ActionEnv,
    client: kube::Client,
}

impl ActionCluster for ClusterActions {
    fn open<'a>(
        &'a self,
        namespace: &'a str,
        options: JobOptions,
    ) -> PortFuture<'a, Result<Box<dyn ClusterJob>, ActionError>> {
        Box::pin(async move {
            let adapters = self.env.open(&self.client, namespace, options).await?;
            Ok(Box::new(Job(adapters)) as Box<dyn ClusterJob>)
        })
    }
}

/// One job's adapters behind the use cases.
struct Job(Adapters);

impl ClusterJob for Job {
    fn ops(&self) -> Ops<'_> {
        self.0.ops()
    }

    fn platform_note(&self) -> Option<&str> {
        self.0.settings.platform_note.as_deref()
    }
}
