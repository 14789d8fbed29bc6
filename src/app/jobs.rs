//! The console's action jobs, run by the effects in tokio tasks: the preview (the commands'
//! library code: planner previews, permission checks, executor choice) and the execution
//! (`operate::run::Runner`), whose notes and plan progress come back as messages.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use super::action::{
    ActionPreview, ActionRequest, Finished, LineTone, PermissionSummary, ProgressLine,
};
use super::model::Msg;
use crate::actions::node_key::NodeKey;
use crate::actions::permissions::{
    ExecutionScope, SeedKey, address_checks, rollout_checks, seed_create_checks, tasks_to_run,
};
use crate::actions::preview::{
    address_preview, address_text, addressed_node, image_pin_preview, image_pin_text, pinned_node,
};
use crate::actions::render_fix::PlatformSource;
use crate::actions::statefulset_diff::statefulset_preview;
use crate::actions::waves::{already_rolled, plan_waves};
use crate::api::{NodeMode, SeiNode};
use crate::config::{ExecutorMode, WaveDefaults};
use crate::executor::driver::{DriverConfig, Progress};
use crate::journal::{Journal, Outcome};
use crate::kube::access::{AccessError, PermissionCheck, check_permissions};
use crate::kube::cluster::KubeCluster;
use crate::kube::platform_config::load_platform_config;
use crate::operate::follow::{choose_executor, progress_text};
use crate::operate::run::{Report, RunEnd, Runner};
use crate::operate::steps::{SeedRequest, seed_node, seed_preview_text};
use crate::operate::{Recorder, journal_entry};
use crate::planner::{PlanContext, preview};
use crate::platform::PlatformConfig;
use crate::ports::{Clock, ClusterApi, SystemClock};
use crate::sidecar::http::HttpSidecar;
use crate::tasks::platform_renderer::PlatformRenderer;

/// What action jobs need besides the cluster connection.
#[derive(Clone)]
pub struct ActionEnv {
    /// The controller's namespace: its platform ConfigMap and leader-election Lease.
    pub controller_namespace: String,
    /// The platform config file, else the controller's ConfigMap is read.
    pub platform_file: Option<PathBuf>,
    /// How the sidecars are reached (`SEI_CONSOLE_SIDECAR_*`), or why that is misconfigured.
    pub sidecar: Result<HttpSidecar, String>,
    /// `user (context ctx)`, as Events and the journal name the operator.
    pub operator: String,
    pub journal: Option<Journal>,
    /// Deadline and pacing of followed plans.
    pub driver: DriverConfig,
}

/// Seed keys generated for a preview, kept until execution or cancel; never in the model.
pub type PendingKeys = Arc<Mutex<HashMap<u64, NodeKey>>>;

async fn platform(env: &ActionEnv, client: &kube::Client) -> (PlatformConfig, Option<String>) {
    match &env.platform_file {
        Some(path) => match read_platform(path) {
            Ok(platform) => (platform, None),
            Err(err) => (PlatformConfig::default(), Some(err)),
        },
        None => match load_platform_config(client, &env.controller_namespace).await {
            Ok(platform) => (platform, None),
            Err(err) => (
                PlatformConfig::default(),
                Some(format!("no platform config ({err}); using an empty one")),
            ),
        },
    }
}

fn read_platform(path: &Path) -> Result<PlatformConfig, String> {
    PlatformConfig::read_file(path).map_err(|e| format!("platform config {}: {e}", path.display()))
}

async fn read_node(cluster: &KubeCluster, namespace: &str, name: &str) -> Result<SeiNode, String> {
    cluster
        .get_seinode(namespace, name)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("SeiNode {namespace}/{name} not found"))
}

fn needs_typed_name(node: &SeiNode) -> bool {
    matches!(node.spec.mode(), Ok(NodeMode::Validator | NodeMode::Seed))
}

async fn permissions(client: &kube::Client, checks: &[PermissionCheck]) -> PermissionSummary {
    let checked = checks.len();
    match check_permissions(client, checks).await {
        Ok(()) => PermissionSummary {
            checked,
            denied: Vec::new(),
            error: None,
        },
        Err(AccessError::Denied(denials)) => PermissionSummary {
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
        Err(err) => PermissionSummary {
            checked,
            denied: Vec::new(),
            error: Some(err.to_string()),
        },
    }
}

/// The preview of `request`: the same planner previews and texts as the commands, the
/// permission checks of every call the action will make, and who will execute.
pub async fn prepare(
    env: &ActionEnv,
    client: &kube::Client,
    id: u64,
    request: &ActionRequest,
    executor: ExecutorMode,
    waves: WaveDefaults,
    keys: &PendingKeys,
) -> Result<ActionPreview, String> {
    let cluster = KubeCluster::new(client.clone());
    let (platform, platform_note) = platform(env, client).await;
    let ctx = PlanContext::from_platform(&platform, SystemClock.now());
    // The StatefulSet diff is a server-side dry run of the rendered workload.
    let renderer = PlatformRenderer::new(platform.clone());
    let mut text = String::new();
    if let Some(note) = platform_note {
        text.push_str(&format!("note: {note}\n"));
    }
    let mut blocked = None;
    let mut confirm_names = Vec::new();
    let scope = execution_scope(env, executor);
    let (checks, question) = match request {
        ActionRequest::Rollout {
            namespace,
            nodes,
            image,
        } => {
            let mut work = Vec::new();
            for name in nodes {
                let node = read_node(&cluster, namespace, name).await?;
                if let Some(note) = already_rolled(&node, &image.to_string()) {
                    text.push_str(&note);
                    text.push('\n');
                    continue;
                }
                let mut preview =
                    image_pin_preview(&node, image, &ctx).map_err(|e| e.to_string())?;
                preview.statefulset = Some(
                    statefulset_preview(&cluster, &renderer, &pinned_node(&node, image)).await,
                );
                text.push_str(&image_pin_text(&preview));
                if needs_typed_name(&node) {
                    confirm_names.push(name.clone());
                }
                work.push((
                    name.clone(),
                    tasks_to_run(&node, preview.plan.plan.as_ref()),
                ));
            }
            let planned = plan_waves(nodes, waves.canary, waves.batch);
            if planned.len() > 1 {
                text.push_str(&format!(
                    "Waves (canary {}, batch {}; each starts when the previous completed, the first failure halts):\n",
                    waves.canary, waves.batch
                ));
                for (index, wave) in planned.iter().enumerate() {
                    text.push_str(&format!("  {}. {}\n", index + 1, wave.join(", ")));
                }
            }
            let checks = rollout_checks(&scope, namespace, &work, false, true);
            (checks, format!("roll {} node(s) to {image}?", nodes.len()))
        }
        ActionRequest::Address { node, address } => {
            let stored = read_node(&cluster, &node.namespace, &node.name).await?;
            let mut preview = address_preview(&stored, address, &ctx).map_err(|e| e.to_string())?;
            preview.statefulset = Some(
                statefulset_preview(&cluster, &renderer, &addressed_node(&stored, address)).await,
            );
            text.push_str(&address_text(&preview));
            if let Some(reason) = &preview.plan.no_plan {
                blocked = Some(format!(
                    "no update plan can be persisted for {}/{}: {reason}",
                    node.namespace, node.name
                ));
            }
            if needs_typed_name(&stored) {
                confirm_names.push(node.name.to_string());
            }
            let tasks = tasks_to_run(&stored, preview.plan.plan.as_ref());
            (
                address_checks(&scope, &node.namespace, &node.name, &tasks),
                format!("set the external address of {} to {address}?", node.name),
            )
        }
        ActionRequest::Seed { node, .. } => {
            if cluster
                .get_seinode(&node.namespace, &node.name)
                .await
                .map_err(|e| e.to_string())?
                .is_some()
            {
                blocked = Some(format!(
                    "SeiNode {}/{} already exists",
                    node.namespace, node.name
                ));
            }
            let key = NodeKey::generate().map_err(|e| e.to_string())?;
            let seed = seed_request(request).ok_or("not a seed request")?;
            let init = preview(&seed_node(&seed), None, &ctx).map_err(|e| e.to_string())?;
            text.push_str(&seed_preview_text(
                &seed,
                true,
                &key.node_id(),
                init.outcome.as_ref().ok(),
            ));
            if let Ok(mut pending) = keys.lock() {
                pending.insert(id, key);
            }
            confirm_names.push(node.name.to_string());
            let tasks = plan_tasks(init.outcome.as_ref().ok());
            (
                seed_create_checks(
                    &scope,
                    &node.namespace,
                    &node.name,
                    SeedKey::Generated,
                    &tasks,
                ),
                format!("create seed {}?", node.name),
            )
        }
    };
    let permissions = permissions(client, checks.as_slice()).await;
    if blocked.is_none() && !permissions.allowed() {
        blocked = Some("the permission checks did not pass; nothing would be changed".into());
    }
    let executor = match choose_executor(
        executor,
        &cluster,
        &env.controller_namespace,
        SystemClock.now(),
    )
    .await
    {
        Ok(choice) => choice
            .note
            .unwrap_or_else(|| format!("executor: {}", executor.name())),
        Err(err) => format!("executor: {} (Lease unreadable: {err})", executor.name()),
    };
    Ok(ActionPreview {
        text,
        permissions,
        executor,
        blocked,
        confirm_names,
        question,
    })
}

/// Who executes and how the sidecar is reached decide the calls beyond the action's own.
fn execution_scope(env: &ActionEnv, executor: ExecutorMode) -> ExecutionScope {
    let sidecar_via_pod_proxy = match &env.sidecar {
        Ok(sidecar) => matches!(
            sidecar.transport(),
            crate::sidecar::http::SidecarTransport::PodProxy { .. }
        ),
        Err(_) => false,
    };
    ExecutionScope {
        executor,
        sidecar_via_pod_proxy,
        controller_namespace: env.controller_namespace.clone(),
        reads_platform_config_map: env.platform_file.is_none(),
    }
}

fn plan_tasks(plan: Option<&crate::api::TaskPlan>) -> Vec<crate::api::TaskKind> {
    plan.map(|p| p.tasks.iter().map(|t| t.kind.clone()).collect())
        .unwrap_or_default()
}

fn seed_request(request: &ActionRequest) -> Option<SeedRequest> {
    match request {
        ActionRequest::Seed {
            node,
            chain_id,
            image,
            external_address,
        } => Some(SeedRequest {
            namespace: node.namespace.to_string(),
            name: node.name.to_string(),
            chain_id: chain_id.clone(),
            image: image.clone(),
            external_address: external_address.clone(),
            secret_name: format!("{}-node-key", node.name),
        }),
        _ => None,
    }
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
    fn note(&self, message: &str) {
        let tone = if message.starts_with("warning") {
            LineTone::Bad
        } else {
            LineTone::Info
        };
        self.send(ProgressLine {
            node: None,
            text: message.to_owned(),
            tone,
        });
    }

    fn progress(&self, node: &str, progress: &Progress, total: usize) {
        self.send(ProgressLine {
            node: Some(node.to_owned()),
            text: progress_text(progress, total),
            tone: tone_of(progress),
        });
    }
}

fn tone_of(progress: &Progress) -> LineTone {
    match progress {
        Progress::TaskTransition { to, .. } if to == "Failed" => LineTone::Bad,
        Progress::TaskTransition { to, .. } if to == "Complete" => LineTone::Good,
        Progress::RenderFailed { .. } => LineTone::Bad,
        Progress::PlanFinished { phase, .. } if phase == "Complete" => LineTone::Good,
        Progress::PlanFinished { .. } => LineTone::Bad,
        _ => LineTone::Info,
    }
}

/// Executes a confirmed action and reports its end.
#[allow(clippy::too_many_arguments)]
pub async fn run(
    env: ActionEnv,
    client: kube::Client,
    id: u64,
    request: ActionRequest,
    executor: ExecutorMode,
    waves: WaveDefaults,
    keys: PendingKeys,
    tx: mpsc::Sender<Msg>,
) {
    let report = ChannelReport { id, tx: tx.clone() };
    let end = match execute(&env, &client, id, &request, executor, waves, &keys, &report).await {
        Ok(end) => end,
        Err(message) => RunEnd {
            ok: false,
            message,
            failed_node: None,
        },
    };
    let finished = Finished {
        ok: end.ok,
        message: end.message,
    };
    let _ = tx.send(Msg::ActionFinished { id, finished }).await;
}

#[allow(clippy::too_many_arguments)]
async fn execute(
    env: &ActionEnv,
    client: &kube::Client,
    id: u64,
    request: &ActionRequest,
    executor: ExecutorMode,
    waves: WaveDefaults,
    keys: &PendingKeys,
    report: &ChannelReport,
) -> Result<RunEnd, String> {
    let sidecar = env.sidecar.clone()?;
    let (platform, platform_note) = platform(env, client).await;
    if let Some(note) = platform_note {
        report.note(&format!("note: {note}"));
    }
    let cluster = KubeCluster::new(client.clone());
    let renderer = PlatformRenderer::new(platform.clone());
    let clock = SystemClock;
    let platform_source = match &env.platform_file {
        Some(path) => PlatformSource::File(path.display().to_string()),
        None => PlatformSource::ConfigMap {
            namespace: env.controller_namespace.clone(),
        },
    };
    let runner = Runner {
        client,
        cluster: &cluster,
        sidecar: &sidecar,
        renderer: &renderer,
        platform: &platform,
        clock: &clock,
        driver_config: env.driver.clone(),
        recorder: Recorder {
            client: client.clone(),
            namespace: request.namespace().to_owned(),
            operator: env.operator.clone(),
            kind: request.kind(),
            journal: env.journal.clone(),
        },
        executor,
        controller_namespace: &env.controller_namespace,
        platform_source: &platform_source,
    };
    let step = |e: crate::operate::steps::StepError| e.to_string();
    match request {
        ActionRequest::Rollout {
            namespace,
            nodes,
            image,
        } => {
            let mut stored = Vec::new();
            for name in nodes {
                let node = read_node(&cluster, namespace, name).await?;
                // Resuming: a node already on the image is left alone, as the command does.
                if let Some(note) = already_rolled(&node, &image.to_string()) {
                    report.note(&note);
                    continue;
                }
                stored.push(node);
            }
            if stored.is_empty() {
                return Ok(RunEnd {
                    ok: true,
                    message: format!("every node is already on {image}"),
                    failed_node: None,
                });
            }
            runner
                .rollout(&stored, image, waves, true, report)
                .await
                .map_err(step)
        }
        ActionRequest::Address { node, address } => {
            let stored = read_node(&cluster, &node.namespace, &node.name).await?;
            let ctx = PlanContext::from_platform(&platform, clock.now());
            runner
                .address(&stored, address, &ctx, true, report)
                .await
                .map_err(step)
        }
        ActionRequest::Seed { .. } => {
            let key = keys
                .lock()
                .ok()
                .and_then(|mut pending| pending.remove(&id))
                .ok_or("the previewed seed key is gone; start the seed bring-up again")?;
            let seed = seed_request(request).ok_or("not a seed request")?;
            runner
                .seed(&seed, &key, true, true, report)
                .await
                .map(|(end, _verified)| end)
                .map_err(step)
        }
    }
}

/// Journals an action refused before any request (read-only mode).
pub fn record_refusal(
    env: &ActionEnv,
    kind: crate::actions::event::ActionKind,
    namespace: &str,
    nodes: &[String],
    reason: String,
) -> Result<(), String> {
    let Some(journal) = &env.journal else {
        return Ok(());
    };
    let entry = journal_entry(
        &env.operator,
        kind,
        namespace,
        nodes,
        "refused in the console",
        Outcome::Refused,
        Some(reason),
        &SystemClock,
    );
    journal.append(&entry).map_err(|e| e.to_string())
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
