//! What every operator action command shares: read-only refusal before any request, the
//! operator's identity, previews on stdout, permission checks, confirmation, the Event and the
//! journal line, then persisting and following the plan (DESIGN.md sections 5 and 6).
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::render::{kube_config, read_platform_file};
use super::{CliError, GlobalArgs};
use crate::actions::event::ActionKind;
use crate::config::{ExecutorMode, LoadedConfig};
use crate::journal::{Journal, JournalEntry, Outcome};
use crate::kube::access::{PermissionCheck, check_permissions};
use crate::kube::identity::{self, OperatorIdentity};
use crate::kube::platform_config::{DEFAULT_CONTROLLER_NAMESPACE, load_platform_config};
use crate::kube::read_only::MutationGuard;
use crate::ports::{Clock, ClusterApi, SystemClock};

/// Output of previews and results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ActionOutput {
    #[default]
    Text,
    /// One JSON object per line; the last line is the result.
    Json,
}

/// Flags every action command takes.
#[derive(Debug, Clone, Args)]
pub struct ActionArgs {
    /// Show the preview and stop; nothing is changed.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Return once the change and its plan are persisted, without following the plan.
    #[arg(long)]
    pub no_wait: bool,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ActionOutput::Text)]
    pub output: ActionOutput,
    /// Who executes the plan (default: the config file's `executor`, else auto).
    #[arg(long, value_enum)]
    pub executor: Option<ExecutorMode>,
    /// The controller's app-config file; without it, the controller's ConfigMap is read.
    #[arg(long, value_name = "FILE", env = "SEI_CONSOLE_PLATFORM_CONFIG")]
    pub platform_config: Option<PathBuf>,
    /// Namespace of the controller: its ConfigMap and its leader-election Lease.
    #[arg(long, value_name = "NS", env = "SEI_CONSOLE_CONTROLLER_NAMESPACE", default_value = DEFAULT_CONTROLLER_NAMESPACE)]
    pub controller_namespace: String,
    /// Give up following the plan after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub timeout: u64,
    /// Upper bound on the wait between executor passes, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 30_000, hide = true)]
    pub max_wait_ms: u64,
}

/// Everything an action needs once the pre-flight steps passed.
pub struct Session {
    pub kind: ActionKind,
    pub output: ActionOutput,
    pub operator: OperatorIdentity,
    pub client: kube::Client,
    pub namespace: String,
    pub guard: MutationGuard,
    pub journal: Option<Journal>,
    pub config: LoadedConfig,
    pub kube: kube::Config,
}

impl Session {
    /// Loads the console config, refuses in read-only mode (before any request, recording the
    /// refusal), then builds the guarded client and the operator identity.
    pub async fn open(
        global: &GlobalArgs,
        args: &ActionArgs,
        kind: ActionKind,
        nodes: &[String],
        detail: &str,
    ) -> Result<Session, CliError> {
        let config = crate::config::load(global.config.as_deref())
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        for problem in &config.problems {
            eprintln!("warning: {problem}");
        }
        let guard = MutationGuard::new(global.read_only, config.config.read_only);
        let journal = Journal::default_location().ok();
        let operator = operator_identity(global);
        let namespace_hint = global.namespace.clone().unwrap_or_default();
        if !args.dry_run
            && let Err(refused) =
                guard.check(&format!("run {} on {}", kind.name(), nodes.join(", ")))
        {
            let entry = JournalEntry {
                time: SystemClock.now(),
                operator: operator.to_string(),
                action: kind,
                nodes: nodes
                    .iter()
                    .map(|n| format!("{namespace_hint}/{n}"))
                    .collect(),
                detail: detail.to_owned(),
                outcome: Outcome::Refused,
                reason: Some(refused.to_string()),
            };
            if let Some(journal) = &journal {
                let _ = journal.append(&entry);
            }
            return Err(CliError::Failed(refused.to_string()));
        }
        let kube = kube_config(global).await?;
        let namespace = global
            .namespace
            .clone()
            .unwrap_or_else(|| kube.default_namespace.clone());
        let client = guard
            .client(kube.clone())
            .map_err(|e| CliError::Failed(format!("cannot create Kubernetes client: {e}")))?;
        Ok(Session {
            kind,
            output: args.output,
            operator,
            client,
            namespace,
            guard,
            journal,
            config,
            kube,
        })
    }

    /// The platform's default sidecar image: from `--platform-config`, else the controller's
    /// ConfigMap; `None` when neither can be read (previews then assume no sidecar drift).
    pub async fn platform_sidecar_image(
        &self,
        args: &ActionArgs,
    ) -> Result<Option<String>, CliError> {
        match &args.platform_config {
            Some(path) => Ok(Some(read_platform_file(path)?.images.sidecar)),
            None => Ok(
                load_platform_config(&self.client, &args.controller_namespace)
                    .await
                    .ok()
                    .map(|p| p.images.sidecar),
            ),
        }
    }

    /// Prints a preview (text, or one JSON line).
    pub fn print_preview(&self, text: &str, json: &serde_json::Value) {
        let mut out = std::io::stdout().lock();
        let _ = match self.output {
            ActionOutput::Text => write!(out, "{text}"),
            ActionOutput::Json => writeln!(out, "{json}"),
        };
        let _ = out.flush();
    }

    /// The last line: text (errors on stderr), or a JSON result object.
    pub fn finish(&self, ok: bool, message: &str, failed_node: Option<&str>) {
        match self.output {
            ActionOutput::Text if ok => println!("{message}"),
            ActionOutput::Text => eprintln!("error: {message}"),
            ActionOutput::Json => println!(
                "{}",
                serde_json::json!({"event": "result", "ok": ok, "message": message, "failedNode": failed_node})
            ),
        }
    }

    /// A note: stderr in text mode, a JSON line in JSON mode.
    pub fn note(&self, message: &str) {
        match self.output {
            ActionOutput::Text => eprintln!("{message}"),
            ActionOutput::Json => {
                println!(
                    "{}",
                    serde_json::json!({"event": "note", "message": message})
                )
            }
        }
    }

    /// Every check must pass before the first change.
    pub async fn check(&self, checks: &[PermissionCheck]) -> Result<(), CliError> {
        check_permissions(&self.client, checks)
            .await
            .map_err(|e| CliError::Failed(e.to_string()))
    }

    /// `--yes`, or an interactive yes on a terminal; refuses without a terminal.
    pub fn confirm(&self, args: &ActionArgs, question: &str) -> Result<(), CliError> {
        if args.yes {
            return Ok(());
        }
        ask_on_terminal(question)
    }

    /// Records the `Console*` Event on the node (a failure to record is a warning, not a stop:
    /// the change itself already happened).
    pub async fn record_event(&self, node: &str, uid: &str, what: &str) {
        if let Err(err) = self.recorder().event(node, uid, what, &SystemClock).await {
            self.note(&format!("warning: {err}"));
        }
    }

    /// The shared recorder of Events and journal lines.
    pub fn recorder(&self) -> crate::operate::Recorder {
        crate::operate::Recorder {
            client: self.client.clone(),
            namespace: self.namespace.clone(),
            operator: self.operator.to_string(),
            kind: self.kind,
            journal: self.journal.clone(),
        }
    }

    /// Appends a journal line (a failure is reported, not fatal).
    pub fn journal(
        &self,
        nodes: &[String],
        detail: &str,
        outcome: Outcome,
        reason: Option<String>,
    ) {
        if let Err(err) = self
            .recorder()
            .journal(nodes, detail, outcome, reason, &SystemClock)
        {
            self.note(&format!("warning: {err}"));
        }
    }

    /// The executor mode: flag, else config.
    pub fn executor(&self, args: &ActionArgs) -> ExecutorMode {
        args.executor.unwrap_or(self.config.config.executor)
    }

    pub fn follow_timeout(args: &ActionArgs) -> Duration {
        Duration::from_secs(args.timeout)
    }
}

/// The operator from the kubeconfig; `unknown` when it cannot be read (the action goes on, the
/// API server authenticates anyway).
pub(crate) fn operator_identity(global: &GlobalArgs) -> OperatorIdentity {
    let kubeconfig = match &global.kubeconfig {
        Some(path) => kube::config::Kubeconfig::read_from(path),
        None => kube::config::Kubeconfig::read(),
    };
    kubeconfig
        .ok()
        .and_then(|k| identity::from_kubeconfig(&k, global.context.as_deref()).ok())
        .unwrap_or_else(|| OperatorIdentity {
            context: global.context.clone().unwrap_or_else(|| "unknown".into()),
            user: "unknown".into(),
            certificate_cn: None,
        })
}

/// The pieces the executor driver needs, owned here so a command can borrow a [`Driver`].
pub struct Execution {
    pub cluster: crate::kube::cluster::KubeCluster,
    pub sidecar: crate::sidecar::http::HttpSidecar,
    pub renderer: crate::tasks::platform_renderer::PlatformRenderer,
    pub platform: crate::platform::PlatformConfig,
    /// Where `platform` came from, named in the fix of a render failure.
    pub platform_source: crate::actions::render_fix::PlatformSource,
    pub clock: SystemClock,
    pub timeout: Duration,
    pub max_wait: Duration,
}

impl Execution {
    /// Platform config from `--platform-config` or the controller's ConfigMap (empty when
    /// neither is there: previews still work, rendering tasks then fail with the controller's
    /// own messages).
    pub async fn new(session: &Session, args: &ActionArgs) -> Result<Execution, CliError> {
        use crate::actions::render_fix::PlatformSource;
        let platform_source = match &args.platform_config {
            Some(path) => PlatformSource::File(path.display().to_string()),
            None => PlatformSource::ConfigMap {
                namespace: args.controller_namespace.clone(),
            },
        };
        let platform = match &args.platform_config {
            Some(path) => read_platform_file(path)?,
            None => match load_platform_config(&session.client, &args.controller_namespace).await {
                Ok(platform) => platform,
                Err(err) => {
                    session.note(&format!(
                        "note: no platform config ({err}); using an empty one"
                    ));
                    crate::platform::PlatformConfig::default()
                }
            },
        };
        let transport = crate::sidecar::http::transport_from_env(
            |k| std::env::var(k).ok(),
            Some(session.kube.clone()),
        )
        .map_err(|e| CliError::BadInput(e.to_string()))?;
        Ok(Execution {
            cluster: crate::kube::cluster::KubeCluster::new(session.client.clone()),
            sidecar: crate::sidecar::http::HttpSidecar::new(transport),
            renderer: crate::tasks::platform_renderer::PlatformRenderer::new(platform.clone()),
            platform,
            platform_source,
            clock: SystemClock,
            timeout: Session::follow_timeout(args),
            max_wait: Duration::from_millis(args.max_wait_ms),
        })
    }

    /// Who executes the plan and how the sidecar is reached, for the permission checks.
    pub fn scope(
        &self,
        session: &Session,
        args: &ActionArgs,
    ) -> crate::actions::permissions::ExecutionScope {
        crate::actions::permissions::ExecutionScope {
            executor: session.executor(args),
            sidecar_via_pod_proxy: matches!(
                self.sidecar.transport(),
                crate::sidecar::http::SidecarTransport::PodProxy { .. }
            ),
            controller_namespace: args.controller_namespace.clone(),
            reads_platform_config_map: args.platform_config.is_none(),
        }
    }

    pub fn driver(&self) -> crate::executor::driver::Driver<'_> {
        crate::executor::driver::Driver {
            cluster: &self.cluster,
            sidecar: &self.sidecar,
            renderer: &self.renderer,
            clock: &self.clock,
            config: crate::executor::driver::DriverConfig {
                deadline: self.timeout,
                max_wait: self.max_wait,
                halt_on_render_failure: true,
                ..crate::executor::driver::DriverConfig::default()
            },
        }
    }
}

impl Execution {
    /// The SeiNode `name` in the action's namespace; a missing one is the user's mistake.
    pub async fn read_node(
        &self,
        session: &Session,
        name: &str,
    ) -> Result<crate::api::SeiNode, CliError> {
        self.cluster
            .get_seinode(&session.namespace, name)
            .await
            .map_err(|e| CliError::Failed(e.to_string()))?
            .ok_or_else(|| {
                CliError::BadInput(format!("SeiNode {}/{name} not found", session.namespace))
            })
    }

    /// The shared runner of actions over this execution's ports.
    pub fn runner<'a>(
        &'a self,
        session: &'a Session,
        args: &'a ActionArgs,
    ) -> crate::operate::run::Runner<'a> {
        crate::operate::run::Runner {
            client: &session.client,
            cluster: &self.cluster,
            sidecar: &self.sidecar,
            renderer: &self.renderer,
            platform: &self.platform,
            clock: &self.clock,
            driver_config: self.driver().config,
            recorder: session.recorder(),
            executor: session.executor(args),
            controller_namespace: &args.controller_namespace,
            platform_source: &self.platform_source,
        }
    }
}

/// Notes on stderr (or JSON lines); progress lines name their node, since waves follow
/// several nodes at once.
impl crate::operate::run::Report for Session {
    fn note(&self, message: &str) {
        Session::note(self, message);
    }

    fn progress(&self, node: &str, progress: &crate::executor::driver::Progress, total: usize) {
        let line = match self.output {
            ActionOutput::Json => {
                let mut value = serde_json::to_value(progress).unwrap_or_default();
                if let Some(object) = value.as_object_mut() {
                    object.insert("node".into(), node.into());
                }
                value.to_string()
            }
            ActionOutput::Text => {
                format!("{node}: {}", super::exec::format_text(progress, total))
            }
        };
        println!("{line}");
    }
}

/// Asks `question [y/N]` on the terminal; refuses outright when stdin is not a terminal, so a
/// script never acts without `--yes`.
pub fn ask_on_terminal(question: &str) -> Result<(), CliError> {
    if !std::io::stdin().is_terminal() {
        return Err(CliError::BadInput(
            "refusing to act without confirmation: pass --yes (stdin is not a terminal)".into(),
        ));
    }
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::Failed(format!("reading the answer: {e}")))?;
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        Ok(())
    } else {
        Err(CliError::Failed("aborted; nothing was changed".into()))
    }
}
