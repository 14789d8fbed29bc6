//! The console's action jobs, run by the effects in tokio tasks: the preview (`ops::<action>::
//! prepare`, the same use case as the commands) and the execution (`ops::<action>::run`) of
//! the prepared action, whose notes and plan progress come back as messages. The prepared
//! action (a seed's generated key included) waits here between preview and confirmation,
//! never in the model.
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use super::action::{
    ActionPreview, ActionRequest, Finished, LineTone, PermissionSummary, ProgressLine,
};
use super::model::Msg;
use crate::api::{PlanPhase, TaskStatus};
use crate::config::ExecutorMode;
use crate::executor::driver::{DriverConfig, Progress};
use crate::journal::{Journal, Outcome};
use crate::kube::access::KubeAccess;
use crate::kube::cluster::KubeCluster;
use crate::kube::platform_config::resolve_platform;
use crate::ops::address::{self, AddressInput, AddressPrepared};
use crate::ops::follow::progress_text;
use crate::ops::rollout::{self, RolloutInput, RolloutPrepared, Selection};
use crate::ops::seed::{self, SeedInput, SeedPrepared};
use crate::ops::{
    ActionLog, NoLog, Note, Ops, OpsError, PermissionVerdict, Ports, Report, RunEnd, Settings,
    journal_entry,
};
use crate::ports::access::AccessError;
use crate::ports::probe::SeedProber;
use crate::ports::{LocalProcesses, SystemClock};
use crate::sidecar::http::HttpSidecar;
use crate::tasks::platform_renderer::PlatformRenderer;

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
    pub sidecar: Result<HttpSidecar, String>,
    /// `user (context ctx)`, as Events and the journal name the operator.
    pub operator: String,
    /// The kubeconfig context actions go to (the journal's `context`).
    pub context: String,
    pub journal: Option<Journal>,
    /// Deadline and pacing of followed plans.
    pub driver: DriverConfig,
    /// The seed probe (the P2P handshake adapter `cli` hands in).
    pub prober: Arc<dyn SeedProber>,
}

impl ActionEnv {
    /// This environment for another cluster: its sidecar transport (the pod proxy and the
    /// port-forwards go through that cluster's API server) and the operator as its context
    /// names them.
    pub fn for_cluster(
        &self,
        conn: &crate::kube::client::Connection,
        identity: &crate::kube::identity::OperatorIdentity,
    ) -> ActionEnv {
        ActionEnv {
            server: conn.kube_config.as_ref().map(|c| c.cluster_url.to_string()),
            sidecar: crate::sidecar::env::client_from_env(conn.kube_config.clone()),
            operator: identity.to_string(),
            context: identity.context.clone(),
            ..self.clone()
        }
    }
}

/// A prepared action waiting for confirmation.
pub enum Prepared {
    Rollout(Box<RolloutPrepared>),
    Address(Box<AddressPrepared>),
    Seed(Box<SeedPrepared>),
}

impl Prepared {
    /// What the preview shows first: a rollout's waves and the nodes it leaves alone.
    fn head(&self) -> String {
        match self {
            Prepared::Rollout(p) => p.head_text(),
            Prepared::Address(_) | Prepared::Seed(_) => String::new(),
        }
    }

    fn text(&self) -> String {
        match self {
            Prepared::Rollout(p) => p.body_text(),
            Prepared::Address(p) => p.text(),
            Prepared::Seed(p) => p.text(),
        }
    }

    fn refusal(&self) -> Option<OpsError> {
        match self {
            Prepared::Rollout(p) => p.refusal(),
            Prepared::Address(p) => p.refusal(),
            Prepared::Seed(p) => p.refusal(),
        }
    }

    fn permissions(&self) -> &PermissionVerdict {
        match self {
            Prepared::Rollout(p) => &p.permissions,
            Prepared::Address(p) => &p.permissions,
            Prepared::Seed(p) => &p.permissions,
        }
    }

    fn confirm_names(&self) -> Vec<String> {
        match self {
            Prepared::Rollout(p) => p.confirm_names.clone(),
            Prepared::Address(p) => p.confirm_names.clone(),
            Prepared::Seed(p) => p.confirm_names(),
        }
    }

    fn question(&self) -> &str {
        match self {
            Prepared::Rollout(p) => &p.question,
            Prepared::Address(p) => &p.question,
            Prepared::Seed(p) => &p.question,
        }
    }
}

/// Prepared actions by dialog id, kept until execution or cancel; never in the model.
pub type PendingActions = Arc<Mutex<HashMap<u64, Prepared>>>;

/// The adapters behind the ports for one job, and the settings of its namespace.
struct Job {
    settings: Settings,
    cluster: KubeCluster,
    access: KubeAccess,
    sidecar: HttpSidecar,
    renderer: PlatformRenderer,
    clock: SystemClock,
    log: Box<dyn ActionLog>,
    holders: LocalProcesses,
    prober: Arc<dyn SeedProber>,
}

impl Job {
    async fn open(
        env: &ActionEnv,
        client: &kube::Client,
        namespace: &str,
        executor: ExecutorMode,
    ) -> Result<Job, String> {
        let sidecar = env.sidecar.clone()?;
        let resolved = resolve_platform(
            client,
            env.server.as_deref(),
            env.platform_file.as_deref(),
            &env.controller_namespace,
            false,
        )
        .await
        .map_err(|e| e.to_string())?;
        let log: Box<dyn ActionLog> = match &env.journal {
            Some(journal) => Box::new(journal.clone()),
            None => Box::new(NoLog),
        };
        let settings = Settings {
            namespace: namespace.to_owned(),
            operator: env.operator.clone(),
            context: env.context.clone(),
            executor,
            controller_namespace: env.controller_namespace.clone(),
            platform: resolved.platform.clone(),
            platform_source: resolved.source,
            platform_note: resolved.note,
            sidecar_reach: sidecar.transport().reach(),
            sidecar_credential: sidecar.transport().credential(),
            driver: env.driver.clone(),
            // The console refuses in read-only mode before any job starts (`action_update`),
            // and its client refuses every mutating request anyway.
            read_only: None,
        };
        Ok(Job {
            settings,
            cluster: KubeCluster::new(client.clone()).with_server(env.server.clone()),
            access: KubeAccess::new(client.clone()),
            sidecar,
            renderer: PlatformRenderer::new(resolved.platform),
            clock: SystemClock,
            log,
            holders: LocalProcesses {
                prefix: crate::executor::driver::local_holder_prefix(),
            },
            prober: env.prober.clone(),
        })
    }

    fn ops(&self) -> Ops<'_> {
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
            },
            &self.settings,
        )
    }
}

fn summary(verdict: &PermissionVerdict) -> PermissionSummary {
    let checked = verdict.checks.len();
    match verdict.error() {
        None => PermissionSummary {
            checked,
            denied: Vec::new(),
            error: None,
        },
        Some(AccessError::Denied(denials)) => PermissionSummary {
            checked,
            denied: denials
                .iter()
                .map(|d| match d.reason.as_str() {
                    "" => d.check.to_string(),
                    reason => format!("{} ({reason})", d.check),
                })
                .collect(),
            error: None,
        },
        Some(err) => PermissionSummary {
            checked,
            denied: Vec::new(),
            error: Some(err.to_string()),
        },
    }
}

/// The preview of `request` through the same use cases as the commands; the prepared action
/// is kept under `id` for [`run`].
pub async fn prepare(
    env: &ActionEnv,
    client: &kube::Client,
    id: u64,
    request: &ActionRequest,
    executor: ExecutorMode,
    pending: &PendingActions,
) -> Result<ActionPreview, String> {
    let job = Job::open(env, client, request.namespace(), executor).await?;
    let ops = job.ops();
    let mut text = String::new();
    if let Some(note) = &job.settings.platform_note {
        text.push_str(&format!("note: {note}\n"));
    }
    let failed = |e: OpsError| e.to_string();
    let prepared = match request {
        ActionRequest::Rollout {
            nodes,
            image,
            waves,
            canaries,
            ..
        } => {
            let input = RolloutInput {
                selection: Selection::Named(nodes.clone()),
                image: image.clone(),
                waves: *waves,
                canary_nodes: canaries.clone(),
                wait: true,
                dry_run: false,
            };
            Prepared::Rollout(Box::new(
                rollout::prepare(&ops, input).await.map_err(failed)?,
            ))
        }
        ActionRequest::Address { node, address } => {
            let input = AddressInput {
                node: node.name.to_string(),
                address: address.clone(),
                wait: true,
                dry_run: false,
            };
            Prepared::Address(Box::new(
                address::prepare(&ops, input).await.map_err(failed)?,
            ))
        }
        ActionRequest::Seed {
            node,
            chain_id,
            image,
            external_address,
        } => {
            let input = SeedInput {
                name: node.name.to_string(),
                chain_id: chain_id.clone(),
                image: image.clone(),
                external_address: external_address.clone(),
                node_key_secret: None,
                wait: true,
                dry_run: false,
            };
            Prepared::Seed(Box::new(seed::prepare(&ops, input).await.map_err(failed)?))
        }
    };
    text.push_str(&prepared.text());
    let head = prepared.head();
    let (refusal, permissions) = (prepared.refusal(), summary(prepared.permissions()));
    let (confirm_names, question) = (prepared.confirm_names(), prepared.question().to_owned());
    let blocked = match refusal {
        Some(OpsError::Access(_)) => {
            Some("the permission checks did not pass; nothing would be changed".to_owned())
        }
        Some(other) => Some(other.to_string()),
        None => None,
    };
    let executor = match ops.executor_choice().await {
        Ok(choice) => choice
            .note
            .unwrap_or_else(|| format!("executor: {}", executor.name())),
        Err(err) => format!("executor: {} (Lease unreadable: {err})", executor.name()),
    };
    if let Ok(mut pending) = pending.lock() {
        pending.insert(id, prepared);
    }
    Ok(ActionPreview {
        head,
        text,
        permissions,
        executor,
        blocked,
        confirm_names,
        question,
    })
}

/// Sends notes and progress to the dialog. A full channel drops the line rather than block
/// the executor (the watch still shows the plan).
struct ChannelReport {
    id: u64,
    tx: mpsc::Sender<Msg>,
}

impl ChannelReport {
    fn send(&self, line: ProgressLine) {
        let _ = self.tx.try_send(Msg::ActionProgress { id: self.id, line });
    }
}

impl Report for ChannelReport {
    fn note(&self, note: &Note) {
        let tone = if note.is_warning() {
            LineTone::Bad
        } else {
            LineTone::Info
        };
        self.send(ProgressLine {
            node: None,
            text: note.to_string(),
            tone,
            at: None,
        });
    }

    fn progress(&self, node: &str, progress: &Progress, total: usize) {
        self.send(ProgressLine {
            node: Some(node.to_owned()),
            text: progress_text(progress, total),
            tone: tone_of(progress),
            at: None,
        });
    }
}

fn tone_of(progress: &Progress) -> LineTone {
    match progress {
        Progress::TaskTransition { to, .. } if *to == TaskStatus::Failed => LineTone::Bad,
        Progress::TaskTransition { to, .. } if *to == TaskStatus::Complete => LineTone::Good,
        Progress::RenderFailed { .. } | Progress::TaskRetrying { .. } => LineTone::Bad,
        Progress::PlanFinished { phase, .. } if *phase == PlanPhase::Complete => LineTone::Good,
        Progress::PlanFinished { .. } => LineTone::Bad,
        _ => LineTone::Info,
    }
}

/// Executes the action prepared under `id` and reports its end.
#[allow(
    clippy::too_many_arguments,
    reason = "the action's environment, client and request, and the effects' shared state and channel"
)]
pub async fn run(
    env: ActionEnv,
    client: kube::Client,
    id: u64,
    request: ActionRequest,
    executor: ExecutorMode,
    pending: PendingActions,
    tx: mpsc::Sender<Msg>,
) {
    let report = ChannelReport { id, tx: tx.clone() };
    let prepared = pending.lock().ok().and_then(|mut p| p.remove(&id));
    let end = match prepared {
        Some(prepared) => execute(&env, &client, &request, executor, &prepared, &report).await,
        None => Err("the preview of this action is gone; start it again".to_owned()),
    };
    let end = end.unwrap_or_else(|message| RunEnd {
        ok: false,
        message,
        failed_node: None,
    });
    let finished = Finished {
        ok: end.ok,
        message: end.message,
    };
    let _ = tx.send(Msg::ActionFinished { id, finished }).await;
}

async fn execute(
    env: &ActionEnv,
    client: &kube::Client,
    request: &ActionRequest,
    executor: ExecutorMode,
    prepared: &Prepared,
    report: &ChannelReport,
) -> Result<RunEnd, String> {
    let job = Job::open(env, client, request.namespace(), executor).await?;
    if let Some(note) = &job.settings.platform_note {
        report.note(&Note::Platform(note.clone()));
    }
    let ops = job.ops();
    let end = match prepared {
        Prepared::Rollout(prepared) => rollout::run(&ops, prepared, report).await,
        Prepared::Address(prepared) => address::run(&ops, prepared, report).await,
        Prepared::Seed(prepared) => seed::run(&ops, prepared, report).await.map(|s| s.end),
    };
    end.map_err(|e| e.to_string())
}

/// Journals an action refused before any request (read-only mode).
pub fn record_refusal(
    env: &ActionEnv,
    kind: crate::actions::event::ActionKind,
    namespace: &str,
    nodes: &[String],
    reason: String,
) -> Result<(), crate::journal::JournalError> {
    let Some(journal) = &env.journal else {
        return Ok(());
    };
    let entry = journal_entry(
        &env.operator,
        &env.context,
        kind,
        namespace,
        nodes,
        "refused in the console",
        Outcome::Refused,
        Some(reason),
        &SystemClock,
    );
    ActionLog::append(journal, &entry)
}

/// Default pacing of followed plans in the console.
pub fn default_driver_config() -> DriverConfig {
    DriverConfig {
        deadline: Duration::from_secs(3600),
        // The operator is watching: stop with the fix rather than retry like the controller.
        halt_on_render_failure: true,
        ..DriverConfig::default()
    }
}
