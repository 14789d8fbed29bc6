//! The one place the adapters are put behind the ops layer's ports for a cluster connection:
//! the commands (`cli::action`) and the console's action jobs both open an [`Adapters`] from a
//! kube client, its sidecar transport and the action's settings, and hand its [`Ports`] to the
//! use cases.
//!
//! `Adapters::open(client, Wiring)` resolves the platform config
//! (`kube::platform_config::resolve_platform`) and builds `ops::Settings`, `KubeCluster`,
//! `KubeAccess`, the `HttpSidecar`, the `PlatformRenderer`, the clock, the journal, the Lease
//! holders, the prober, the node RPC and the notifier; `Adapters::ops()` hands them to the use cases.
use std::path::PathBuf;
use std::sync::Arc;

use crate::config::ExecutorMode;
use crate::executor::driver::{DriverConfig, local_holder_prefix};
use crate::kube::access::KubeAccess;
use crate::kube::cluster::KubeCluster;
use crate::kube::platform_config::{ResolvePlatformError, resolve_platform};
use crate::ops::{ActionLog, Ops, Ports, Settings};
use crate::ports::node_rpc::NodeRpc;
use crate::ports::notify::Notifier;
use crate::ports::probe::SeedProber;
use crate::ports::{LocalProcesses, SystemClock};
use crate::sidecar::http::HttpSidecar;
use crate::tasks::platform_renderer::PlatformRenderer;

/// What an action's settings are made of, besides the cluster connection.
pub struct Wiring {
    /// The API server's URL, named in errors of requests that cannot reach it.
    pub server: Option<String>,
    pub namespace: String,
    /// `user (context ctx)`, as Events and the journal name the operator.
    pub operator: String,
    /// The kubeconfig context acted in (the journal's `context`).
    pub context: String,
    pub executor: ExecutorMode,
    /// The controller's namespace: its platform ConfigMap and leader-election Lease.
    pub controller_namespace: String,
    /// The platform config file, else the controller's ConfigMap is read.
    pub platform_file: Option<PathBuf>,
    /// An unreadable platform ConfigMap is an error (else an empty config stands in).
    pub require_platform: bool,
    pub sidecar: HttpSidecar,
    pub driver: DriverConfig,
    /// Read-only mode and where it was switched on.
    pub read_only: Option<&'static str>,
    /// `require_journal` in the config file.
    pub require_journal: bool,
    /// `--allow-unknown-fields` (`ops::skew`).
    pub allow_unknown_fields: bool,
    pub log: Box<dyn ActionLog>,
    pub prober: Arc<dyn SeedProber>,
    /// The nodes' RPC (`rpc::KubeNodeRpc` with the operator's kubeconfig): a rollout's health
    /// gate.
    pub node_rpc: Arc<dyn NodeRpc>,
    /// The webhooks of `[notify]` (`ops::notify::Dispatcher`, one per process), else
    /// `ports::notify::NoNotifier`.
    pub notifier: Arc<dyn Notifier>,
}

/// The adapters behind the ports of one cluster, and the settings resolved for it.
pub struct Adapters {
    pub settings: Settings,
    cluster: KubeCluster,
    access: KubeAccess,
    sidecar: HttpSidecar,
    renderer: PlatformRenderer,
    clock: SystemClock,
    log: Box<dyn ActionLog>,
    holders: LocalProcesses,
    prober: Arc<dyn SeedProber>,
    node_rpc: Arc<dyn NodeRpc>,
    notifier: Arc<dyn Notifier>,
    registry: crate::registry::HttpRegistry,
}

impl Adapters {
    /// Resolves the platform config (file or the controller's ConfigMap) and wires the adapters.
    pub async fn open(
        client: &kube::Client,
        wiring: Wiring,
    ) -> Result<Adapters, ResolvePlatformError> {
        let resolved = resolve_platform(
            client,
            wiring.server.as_deref(),
            wiring.platform_file.as_deref(),
            &wiring.controller_namespace,
            wiring.require_platform,
        )
        .await?;
        let settings = Settings {
            namespace: wiring.namespace,
            operator: wiring.operator,
            context: wiring.context,
            executor: wiring.executor,
            controller_namespace: wiring.controller_namespace,
            platform: resolved.platform.clone(),
            platform_source: resolved.source,
            platform_note: resolved.note,
            sidecar_reach: wiring.sidecar.transport().reach(),
            sidecar_credential: wiring.sidecar.transport().credential(),
            driver: wiring.driver,
            read_only: wiring.read_only,
            require_journal: wiring.require_journal,
            allow_unknown_fields: wiring.allow_unknown_fields,
        };
        Ok(Adapters {
            settings,
            cluster: KubeCluster::new(client.clone()).with_server(wiring.server),
            access: KubeAccess::new(client.clone()),
            sidecar: wiring.sidecar,
            renderer: PlatformRenderer::new(resolved.platform),
            clock: SystemClock,
            log: wiring.log,
            holders: LocalProcesses {
                prefix: local_holder_prefix(),
            },
            prober: wiring.prober,
            node_rpc: wiring.node_rpc,
            notifier: wiring.notifier,
            registry: crate::registry::HttpRegistry::new(),
        })
    }

    /// The use cases over these adapters.
    pub fn ops(&self) -> Ops<'_> {
        Ops::new(
            Ports {
                cluster: &self.cluster,
                access: &self.access,
                sidecar: &self.sidecar,
                renderer: &self.renderer,
                clock: &self.clock,
                log: self.log.as_ref(),
                holders: &self.holders,
                prober: self.prober.as_ref(),
                node_rpc: self.node_rpc.as_ref(),
                notifier: self.notifier.as_ref(),
                registry: &self.registry,
            },
            &self.settings,
        )
    }
}
