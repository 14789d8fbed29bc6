//! `sei-console exec NODE`: build the plan the planner would build for the node now, persist it
//! (only when no Active plan exists) and follow it to the end: executed by the embedded executor,
//! or handed off to a live controller. One progress line per task transition (`-o json`: JSON
//! lines).
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::render::{kube_config, read_platform_file};
use super::{CliError, GlobalArgs};
use crate::actions::permissions::{ExecutionScope, plan_checks};
use crate::api::{PlanPhase, TaskPlan};
use crate::config::ExecutorMode;
use crate::executor::driver::{Driver, DriverConfig, Persisted, Progress};
use crate::executor::lease::{ControllerLiveness, controller_liveness};
use crate::kube::access::{PermissionCheck, check_permissions};
use crate::kube::cluster::KubeCluster;
use crate::kube::platform_config::{DEFAULT_CONTROLLER_NAMESPACE, load_platform_config};
use crate::kube::read_only::MutationGuard;
use crate::planner::{self, PlanContext, Resolution};
use crate::ports::{Clock, SystemClock};
use crate::sidecar::http::{HttpSidecar, SidecarTransport, transport_from_env};
use crate::tasks::platform_renderer::PlatformRenderer;

/// Who executes the persisted plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExecutorChoice {
    /// The controller if its leader-election Lease is live, else embedded.
    Auto,
    /// Persist and watch; a live sei-k8s-controller executes.
    Controller,
    /// Execute here, with the controller's semantics.
    Embedded,
}

/// Output of progress lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExecOutput {
    Text,
    Json,
}

/// Arguments of `sei-console exec`.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// The SeiNode to act on (in `-n NS`, or the context's namespace).
    pub node: String,
    /// Who executes the plan.
    #[arg(long, value_enum, default_value_t = ExecutorChoice::Auto)]
    pub executor: ExecutorChoice,
    /// Do not ask for confirmation.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Progress format.
    #[arg(short = 'o', long, value_enum, default_value_t = ExecOutput::Text)]
    pub output: ExecOutput,
    /// The controller's app-config file; without it, the controller's ConfigMap is read.
    #[arg(long, value_name = "FILE", env = "SEI_CONSOLE_PLATFORM_CONFIG")]
    pub platform_config: Option<PathBuf>,
    /// Namespace of the controller: its ConfigMap and its leader-election Lease.
    #[arg(
        long,
        value_name = "NS",
        env = "SEI_CONSOLE_CONTROLLER_NAMESPACE",
        default_value = DEFAULT_CONTROLLER_NAMESPACE
    )]
    pub controller_namespace: String,
    /// Give up following the plan after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub timeout: u64,
    /// Upper bound on the wait between executor passes, in milliseconds (the controller's
    /// cadence is 5 s polls with up to 30 s backoff).
    #[arg(long, value_name = "MS", default_value_t = 30_000, hide = true)]
    pub max_wait_ms: u64,
}

/// Runs the command. Exit 0 when the plan completes (or nothing is to be done), 1 when it fails.
pub fn run(global: &GlobalArgs, args: &ExecArgs) -> Result<std::process::ExitCode, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Failed(format!("starting the runtime: {e}")))?;
    runtime.block_on(run_async(global, args))
}

async fn run_async(
    global: &GlobalArgs,
    args: &ExecArgs,
) -> Result<std::process::ExitCode, CliError> {
    // Executing a plan writes the node's status, its workload and Events: refused in read-only
    // mode before any request, and the client refuses mutations anyway.
    let console_config = crate::config::load(global.config.as_deref())
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let guard = MutationGuard::new(global.read_only, console_config.config.read_only);
    guard
        .check(&format!("execute the plan of {}", args.node))
        .map_err(|e| CliError::Failed(e.to_string()))?;
    let config = kube_config(global).await?;
    let namespace = global
        .namespace
        .clone()
        .unwrap_or_else(|| config.default_namespace.clone());
    let client = guard
        .client(config.clone())
        .map_err(|e| CliError::Failed(format!("cannot create Kubernetes client: {e}")))?;
    let platform = match &args.platform_config {
        Some(path) => read_platform_file(path)?,
        None => load_platform_config(&client, &args.controller_namespace)
            .await
            .map_err(|e| CliError::Failed(e.to_string()))?,
    };
    let transport = transport_from_env(|k| std::env::var(k).ok(), Some(config))
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let access_client = client.clone();
    let cluster = KubeCluster::new(client);
    let sidecar = HttpSidecar::new(transport);
    let renderer = PlatformRenderer::new(platform.clone());
    let clock = SystemClock;
    let driver = Driver {
        cluster: &cluster,
        sidecar: &sidecar,
        renderer: &renderer,
        clock: &clock,
        config: DriverConfig {
            deadline: Duration::from_secs(args.timeout),
            max_wait: Duration::from_millis(args.max_wait_ms),
            ..DriverConfig::default()
        },
    };
    let mut printer = Printer::new(args.output);
    let node = args.node.as_str();

    let embedded = match args.executor {
        ExecutorChoice::Embedded => true,
        ExecutorChoice::Controller => false,
        ExecutorChoice::Auto => {
            let liveness = controller_liveness(&cluster, &args.controller_namespace, clock.now())
                .await
                .map_err(|e| CliError::Failed(format!("reading the controller's Lease: {e}")))?;
            let (embedded, why) = match liveness {
                ControllerLiveness::Live { holder } => {
                    (false, format!("controller is live ({holder})"))
                }
                ControllerLiveness::NotLive { reason } => (true, reason),
            };
            printer.note(&format!(
                "executor: {} ({why})",
                if embedded { "embedded" } else { "controller" }
            ));
            embedded
        }
    };

    let plan = planned(&driver, &namespace, node, &platform.images.sidecar).await?;
    let scope = ExecutionScope {
        executor: if embedded {
            ExecutorMode::Embedded
        } else {
            ExecutorMode::Controller
        },
        sidecar_via_pod_proxy: matches!(sidecar.transport(), SidecarTransport::PodProxy { .. }),
        controller_namespace: args.controller_namespace.clone(),
        reads_platform_config_map: args.platform_config.is_none(),
    };
    check_permissions(
        &access_client,
        &exec_checks(&scope, &namespace, node, plan.as_ref()),
    )
    .await
    .map_err(|e| CliError::Failed(e.to_string()))?;
    if !args.yes {
        confirm(&namespace, node, plan.as_ref(), &mut printer)?;
    }
    let persisted = driver
        .persist(&namespace, node, &platform.images.sidecar)
        .await
        .map_err(|e| CliError::Failed(e.to_string()))?;
    match &persisted {
        Persisted::Built(plan) => printer.line(&Progress::PlanPersisted {
            plan_id: plan.id.clone(),
            tasks: plan.tasks.iter().map(|t| t.kind.to_string()).collect(),
            phase: None,
        }),
        Persisted::Resumed(plan) => printer.line(&Progress::PlanResumed {
            plan_id: plan.id.clone(),
            complete: plan.completed_count(),
            total: plan.tasks.len(),
        }),
        Persisted::None(reason) => {
            printer.line(&Progress::NoPlan {
                reason: reason.clone(),
            });
            return Ok(std::process::ExitCode::SUCCESS);
        }
    }
    let mut emit = |p: &Progress| printer.line(p);
    let report = if embedded {
        driver.drive(&namespace, node, &mut emit).await
    } else {
        driver
            .follow(&namespace, node, Duration::from_secs(2), &mut emit)
            .await
    }
    .map_err(|e| CliError::Failed(e.to_string()))?;
    Ok(match report.plan_phase {
        PlanPhase::Failed => std::process::ExitCode::FAILURE,
        _ => std::process::ExitCode::SUCCESS,
    })
}

/// The plan `persist` would build or resume for the node now, without writing anything.
async fn planned(
    driver: &Driver<'_>,
    namespace: &str,
    name: &str,
    sidecar_image: &str,
) -> Result<Option<TaskPlan>, CliError> {
    let mut node = driver
        .cluster
        .get_seinode(namespace, name)
        .await
        .map_err(|e| CliError::Failed(e.to_string()))?
        .ok_or_else(|| CliError::BadInput(format!("SeiNode {namespace}/{name} not found")))?;
    let ctx = PlanContext::new(sidecar_image, driver.clock.now());
    match planner::resolve_plan(&mut node, &ctx) {
        Ok(Resolution::Built) | Ok(Resolution::Resumed { .. }) => {
            Ok(node.status.as_ref().and_then(|s| s.plan.clone()))
        }
        Ok(_) => Ok(None),
        Err(err) => Err(CliError::Failed(format!("cannot build a plan: {err}"))),
    }
}

/// The permission checks of persisting and executing `plan` (only reading and the status
/// write when there is nothing to execute).
fn exec_checks(
    scope: &ExecutionScope,
    namespace: &str,
    name: &str,
    plan: Option<&TaskPlan>,
) -> Vec<PermissionCheck> {
    match plan {
        Some(plan) => {
            let tasks: Vec<_> = plan.tasks.iter().map(|t| t.kind.clone()).collect();
            plan_checks(scope, namespace, name, &tasks)
        }
        None => vec![
            PermissionCheck::new("get", "sei.io", "seinodes", namespace, name),
            PermissionCheck::new("patch", "sei.io", "seinodes", namespace, name)
                .subresource("status"),
        ],
    }
}

/// Shows the plan that would be built (without persisting) and asks before acting.
fn confirm(
    namespace: &str,
    name: &str,
    plan: Option<&TaskPlan>,
    printer: &mut Printer,
) -> Result<(), CliError> {
    let Some(plan) = plan else {
        return Ok(());
    };
    let tasks: Vec<String> = plan.tasks.iter().map(|t| t.kind.to_string()).collect();
    printer.note(&format!(
        "plan for {namespace}/{name}: {} tasks: {}",
        tasks.len(),
        tasks.join(", ")
    ));
    super::action::ask_on_terminal("proceed?")
}

/// Prints progress lines as text or JSON lines on stdout; notes go to stderr in text mode.
struct Printer {
    output: ExecOutput,
    total: usize,
}

impl Printer {
    fn new(output: ExecOutput) -> Self {
        Self { output, total: 0 }
    }

    fn note(&mut self, text: &str) {
        match self.output {
            ExecOutput::Text => eprintln!("{text}"),
            ExecOutput::Json => {
                self.write(&serde_json::json!({"event": "note", "message": text}).to_string())
            }
        }
    }

    fn write(&self, line: &str) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }

    fn line(&mut self, progress: &Progress) {
        if let Progress::PlanPersisted { tasks, .. } = progress {
            self.total = tasks.len();
        }
        if let Progress::PlanResumed { total, .. } = progress {
            self.total = *total;
        }
        let text = match self.output {
            ExecOutput::Json => serde_json::to_string(progress).unwrap_or_default(),
            ExecOutput::Text => format_text(progress, self.total),
        };
        self.write(&text);
    }
}

pub use crate::operate::follow::progress_text as format_text;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lines_number_tasks_and_show_errors() {
        let line = format_text(
            &Progress::TaskTransition {
                index: 2,
                task: "apply-statefulset".into(),
                id: "x".into(),
                from: "Pending".into(),
                to: "Failed".into(),
                error: Some("boom".into()),
                retry_count: 0,
            },
            8,
        );
        assert_eq!(line, "[3/8] apply-statefulset: Pending -> Failed: boom");
        let json = serde_json::to_value(Progress::TaskStarted {
            index: 0,
            task: "t".into(),
            id: "i".into(),
        })
        .expect("json");
        assert_eq!(
            json,
            serde_json::json!({"event": "task-started", "index": 0, "task": "t", "id": "i"})
        );
    }
}
