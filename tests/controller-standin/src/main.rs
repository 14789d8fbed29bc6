//! `controller-standin`: a test-only stand-in for sei-k8s-controller's SeiNode reconcile, as far
//! as hand-off with the console needs, built on the console library's own planner and executor.
//!
//! - Leader election on Lease `bc1f5b0a.sei.io` in `--controller-namespace` (see `leader`); it
//!   reconciles only while leading and exits when leadership is lost.
//! - Every `--reconcile-every-ms` each SeiNode of the `--namespace`s is reconciled like the
//!   controller's `Reconcile`: Failed or paused nodes are skipped, `spec.peers` resolved into
//!   `status.resolvedPeers`, a terminal plan cleared (`handleTerminalPlan`), a drift plan built
//!   and persisted (`Driver::persist`), and an Active plan executed by one driver task per node
//!   (`Driver::drive_leased`; never two on one node). It never takes the console's node Lease.
//! - Stops cleanly (drivers dropped between steps, Lease released) on SIGTERM/SIGINT or when
//!   `--stop-file` appears; SIGKILL is a crash (the Lease then expires after 15 s).
//! - Sidecars are reached through `SEI_CONSOLE_SIDECAR_*`, as the console reaches them.
//!
//! Output: one line per event on stdout (`leading`, `persisted`, `driving`, task transitions,
//! `finished`, `cleared`), for the tests to read.
mod leader;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use sei_console::executor::driver::{Driver, DriverConfig, Persisted, Progress};
use sei_console::kube::cluster::KubeCluster;
use sei_console::platform::PlatformConfig;
use sei_console::ports::{Clock, ClusterApi, SidecarApi, SystemClock};
use sei_console::tasks::WorkloadRenderer;
use sei_console::tasks::platform_renderer::PlatformRenderer;

use leader::{Attempt, Elector, RENEW_DEADLINE, RETRY_PERIOD};

#[derive(Debug, Parser)]
#[command(name = "controller-standin", version)]
struct Args {
    #[arg(long, env = "KUBECONFIG", value_name = "FILE")]
    kubeconfig: PathBuf,
    /// Namespaces whose SeiNodes are reconciled (repeatable; the test control plane is shared).
    #[arg(long = "namespace", short = 'n', value_name = "NS", required = true)]
    namespaces: Vec<String>,
    /// Namespace of the leader-election Lease.
    #[arg(long, value_name = "NS", env = "SEI_CONSOLE_CONTROLLER_NAMESPACE")]
    controller_namespace: String,
    /// The controller's app-config (platform) file.
    #[arg(long, value_name = "FILE", env = "SEI_CONSOLE_PLATFORM_CONFIG")]
    platform_config: PathBuf,
    /// Leader identity (default `controller-standin-<host>_<uuid>`, as controller-runtime's
    /// `<hostname>_<uuid>`).
    #[arg(long)]
    identity: Option<String>,
    #[arg(long, default_value_t = 400)]
    reconcile_every_ms: u64,
    /// Upper bound on a driver's wait between passes (the controller polls tasks every 5 s).
    #[arg(long, default_value_t = 300)]
    max_wait_ms: u64,
    /// Stop cleanly once this file exists.
    #[arg(long, value_name = "FILE")]
    stop_file: Option<PathBuf>,
    /// Exit after this long whatever happens (bounds a stand-in a test forgot).
    #[arg(long, default_value_t = 600)]
    max_runtime_secs: u64,
}

/// The ports every driver task borrows for the life of the process.
struct Ports {
    cluster: &'static dyn ClusterApi,
    sidecar: &'static dyn SidecarApi,
    renderer: &'static dyn WorkloadRenderer,
    clock: &'static dyn Clock,
    config: DriverConfig,
}

impl Ports {
    fn driver(&self) -> Driver<'static> {
        Driver {
            cluster: self.cluster,
            sidecar: self.sidecar,
            renderer: self.renderer,
            clock: self.clock,
            config: self.config.clone(),
        }
    }
}

/// The User-Agent of its requests to the API server.
const USER_AGENT: &str = concat!("controller-standin/", env!("CARGO_PKG_VERSION"));

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("controller-standin: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<(), String> {
    let platform = PlatformConfig::read_file(&args.platform_config).map_err(|e| e.to_string())?;
    let sidecar_image = platform.images.sidecar.clone();
    let connection = sei_console::kube::client::connect(Some(&args.kubeconfig), None)
        .await
        .map_err(|e| e.to_string())?;
    // Its requests name this program, not the console whose library it runs on.
    let config = connection
        .kube_config
        .clone()
        .map(|c| sei_console::kube::client::with_agent(c, USER_AGENT))
        .ok_or("the connection has no kube config")?;
    let client =
        sei_console::kube::client::api_client(config.clone(), false).map_err(|e| e.to_string())?;
    let sidecar =
        sei_console::sidecar::env::client_from_env(Some(config)).map_err(|e| e.to_string())?;
    let identity = args.identity.clone().unwrap_or_else(|| {
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "local".into());
        format!("controller-standin-{host}_{}", uuid::Uuid::new_v4())
    });
    let ports: &'static Ports = Box::leak(Box::new(Ports {
        cluster: Box::leak(Box::new(KubeCluster::new(client))),
        sidecar: Box::leak(Box::new(sidecar)),
        renderer: Box::leak(Box::new(PlatformRenderer::new(platform))),
        clock: &SystemClock,
        config: DriverConfig {
            holder: identity.clone(),
            max_wait: Duration::from_millis(args.max_wait_ms),
            deadline: Duration::from_secs(args.max_runtime_secs),
            controller_namespace: None,
            // It stands in for a controller, which knows its own CRD's fields (issue 36: the
            // console hands such nodes off to it).
            allow_unknown_fields: true,
            ..DriverConfig::default()
        },
    }));
    let elector = Elector {
        cluster: ports.cluster,
        namespace: args.controller_namespace.clone(),
        identity: identity.clone(),
    };
    let started = Instant::now();
    let runtime = Duration::from_secs(args.max_runtime_secs);
    let stop_requested =
        || args.stop_file.as_ref().is_some_and(|f| f.exists()) || started.elapsed() > runtime;
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| format!("installing the SIGTERM handler: {e}"))?;

    // Wait to lead.
    let mut waiting_on: Option<String> = None;
    loop {
        if stop_requested() {
            return Ok(());
        }
        match elector.try_acquire_or_renew(ports.clock.now()).await {
            Ok(Attempt::Leading) => break,
            Ok(Attempt::HeldBy(holder)) => {
                if waiting_on.as_deref() != Some(holder.as_str()) {
                    say(&format!("waiting: Lease held by {holder}"));
                    waiting_on = Some(holder);
                }
            }
            Err(err) => say(&format!("waiting: {err}")),
        }
        tokio::select! {
            _ = tokio::time::sleep(RETRY_PERIOD) => {}
            _ = terminate.recv() => return Ok(()),
        }
    }
    say(&format!("leading as {identity}"));

    let reconcile_every = Duration::from_millis(args.reconcile_every_ms);
    let mut drivers: HashMap<(String, String), tokio::task::JoinHandle<()>> = HashMap::new();
    let mut last_renewal = Instant::now();
    let outcome = loop {
        if stop_requested() {
            break Ok(());
        }
        if last_renewal.elapsed() >= RETRY_PERIOD {
            match elector.try_acquire_or_renew(ports.clock.now()).await {
                Ok(Attempt::Leading) => last_renewal = Instant::now(),
                Ok(Attempt::HeldBy(holder)) => {
                    break Err(format!("leadership lost to {holder}"));
                }
                Err(err) if last_renewal.elapsed() > RENEW_DEADLINE => {
                    break Err(format!("leadership lost: {err}"));
                }
                Err(_) => {}
            }
        }
        drivers.retain(|_, task| !task.is_finished());
        for namespace in &args.namespaces {
            reconcile_namespace(ports, namespace, &sidecar_image, &mut drivers).await;
        }
        tokio::select! {
            _ = tokio::time::sleep(reconcile_every) => {}
            _ = terminate.recv() => break Ok(()),
        }
    };
    // Controller-runtime cancels the reconcilers' context: drivers stop where they are (a
    // step's status write is atomic, so the plan stays resumable).
    for (_, task) in drivers.drain() {
        task.abort();
    }
    if outcome.is_ok() {
        elector.release(ports.clock.now()).await;
        say("stopped; Lease released");
    }
    outcome
}

/// One reconcile of every SeiNode in `namespace` (the driver tasks step Active plans).
async fn reconcile_namespace(
    ports: &'static Ports,
    namespace: &str,
    sidecar_image: &str,
    drivers: &mut HashMap<(String, String), tokio::task::JoinHandle<()>>,
) {
    let nodes = match ports.cluster.list_seinodes(namespace, None).await {
        Ok(nodes) => nodes,
        Err(err) => {
            say(&format!("listing SeiNodes in {namespace}: {err}"));
            return;
        }
    };
    for node in nodes {
        let name = node.name().to_owned();
        let key = (namespace.to_owned(), name.clone());
        if drivers.contains_key(&key) {
            continue;
        }
        let terminal = node
            .status
            .as_ref()
            .and_then(|s| s.plan.as_ref())
            .filter(|p| !p.is_active())
            .map(|p| (p.id.clone(), p.phase));
        let driver = ports.driver();
        let persisted = match driver.persist(namespace, &name, sidecar_image).await {
            Ok(persisted) => persisted,
            Err(err) => {
                say(&format!("{namespace}/{name}: reconcile error: {err}"));
                continue;
            }
        };
        let failed_or_paused = matches!(&persisted, Persisted::None(reason)
            if reason.contains("Failed state") || reason.contains("paused"));
        if let Some((id, phase)) = terminal
            && !failed_or_paused
        {
            say(&format!("{namespace}/{name}: cleared plan {id} ({phase})"));
        }
        let plan = match persisted {
            Persisted::Built(plan) => {
                say(&format!(
                    "{namespace}/{name}: persisted plan {} ({} tasks)",
                    plan.id,
                    plan.tasks.len()
                ));
                plan
            }
            Persisted::Resumed(plan) => plan,
            Persisted::None(_) => continue,
        };
        say(&format!("{namespace}/{name}: driving plan {}", plan.id));
        let task_namespace = namespace.to_owned();
        drivers.insert(
            key,
            tokio::spawn(async move {
                let label = format!("{task_namespace}/{name}");
                let mut progress = |p: &Progress| say(&format!("{label}: {}", describe(p)));
                match driver
                    .drive_leased(&task_namespace, &name, &mut progress)
                    .await
                {
                    Ok(report) => say(&format!(
                        "{label}: finished plan {} {}",
                        report.plan_id, report.plan_phase
                    )),
                    Err(err) => say(&format!("{label}: driver error: {err}")),
                }
            }),
        );
    }
}

fn describe(progress: &Progress) -> String {
    match progress {
        Progress::TaskStarted { index, task, id } => format!("[{index}] {task} {id}: submitted"),
        Progress::TaskTransition {
            index,
            task,
            id,
            from,
            to,
            ..
        } => format!("[{index}] {task} {id}: {from} -> {to}"),
        other => format!("{other:?}"),
    }
}

fn say(line: &str) {
    println!("{} {line}", jiff::Timestamp::now());
}
