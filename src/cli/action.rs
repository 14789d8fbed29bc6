//! What every operator action command shares: flags, env and config resolved once into the
//! ops layer's [`Settings`] and ports (read-only refusal first, before any request), previews
//! and notes printed as text or JSON lines, terminal confirmation. The use cases themselves
//! are `crate::ops`.
//!
//! `ActionContext` resolves the config, the read-only refusal (`ops::action::read_only_refusal`,
//! before any request, journaled), the identity, the kube config, the namespace and the sidecar
//! transport, then opens `wiring::Adapters` (the platform config, `ops::Settings`, the adapters
//! behind `ops::Ports`). `drive` runs any `ops::action::Operation` the same way: the preview
//! printed from its `PreviewLine`s, `--dry-run` journaled and ended there, what cannot run refused,
//! the confirmation, `ops::action::execute` with `ActionContext` as the `Report`, and the result
//! line with the action's own JSON fields and exit code. The action commands are their flags and a
//! call of `drive`.
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::render::kube_config;
use super::{CliError, GlobalArgs};
use crate::actions::event::ActionKind;
use crate::config::read_only::MutationGuard;
use crate::config::{ExecutorMode, LoadedConfig};
use crate::executor::driver::{DriverConfig, Progress};
use crate::journal::{Journal, Outcome};
use crate::kube::identity::{self, OperatorIdentity};
use crate::kube::platform_config::{DEFAULT_CONTROLLER_NAMESPACE, ResolvePlatformError};
use crate::ops::action::{self as contract, Operation, PreviewLine, Previewed};
use crate::ops::follow::progress_text;
use crate::ops::notify::Dispatcher;
use crate::ops::{ActionLog, NoLog, Note, Ops, OpsError, Report, RunEnd, journal_entry};
use crate::ports::SystemClock;
use crate::ports::notify::NoNotifier;
use crate::sidecar::http::{HttpSidecar, transport_from_env};
use crate::wiring::{Adapters, Wiring};

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
    #[arg(long, value_parser = super::choices::executor())]
    pub executor: Option<ExecutorMode>,
    /// The controller's app-config file; without it, the controller's ConfigMap is read.
    #[arg(long, value_name = "FILE", env = "SEI_CONSOLE_PLATFORM_CONFIG")]
    pub platform_config: Option<PathBuf>,
    /// Namespace of the controller: its ConfigMap and its leader-election Lease.
    #[arg(long, value_name = "NS", env = "SEI_CONSOLE_CONTROLLER_NAMESPACE", default_value = DEFAULT_CONTROLLER_NAMESPACE)]
    pub controller_namespace: String,
    /// Give up following the plan after this long (1h, 90m, or seconds).
    #[arg(long, value_name = "DURATION", value_parser = super::durations::follow_timeout, default_value = "1h")]
    pub timeout: Duration,
    /// Upper bound on the wait between executor passes, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 30_000, hide = true)]
    pub max_wait_ms: u64,
    /// Act even on a node or CRD with fields sei-console does not know (journaled, and
    /// recorded on the node); without it such an action is refused before any change.
    #[arg(long)]
    pub allow_unknown_fields: bool,
}

/// How a command wants its context built (the action flags, or `exec`'s own).
pub struct ContextOptions {
    pub output: ActionOutput,
    /// `None`: the config file's `executor`.
    pub executor: Option<ExecutorMode>,
    pub platform_config: Option<PathBuf>,
    pub controller_namespace: String,
    pub timeout: Duration,
    pub max_wait: Duration,
    /// An unreadable platform ConfigMap stops the command (else an empty config stands in).
    pub require_platform: bool,
    /// Stop at a `StatefulSetRenderFailed` with its fix instead of retrying like the controller.
    pub halt_on_render_failure: bool,
    /// Progress lines name their node (waves follow several nodes at once).
    pub name_nodes: bool,
    /// Every JSON line carries `"context": NAME` (a command over several clusters).
    pub json_context: Option<String>,
    /// `--allow-unknown-fields`.
    pub allow_unknown_fields: bool,
}

impl From<&ActionArgs> for ContextOptions {
    fn from(args: &ActionArgs) -> Self {
        ContextOptions {
            output: args.output,
            executor: args.executor,
            platform_config: args.platform_config.clone(),
            controller_namespace: args.controller_namespace.clone(),
            timeout: args.timeout,
            max_wait: Duration::from_millis(args.max_wait_ms),
            require_platform: false,
            halt_on_render_failure: true,
            name_nodes: true,
            json_context: None,
            allow_unknown_fields: args.allow_unknown_fields,
        }
    }
}

/// The adapters behind the ops layer's ports (`wiring::Adapters`, the one place they are put
/// together) and how this command prints; built once per command.
pub struct ActionContext {
    pub output: ActionOutput,
    pub config: LoadedConfig,
    name_nodes: bool,
    /// Set when one command acts in several clusters: every JSON line names its `context`.
    json_context: Option<String>,
    adapters: Adapters,
    /// Live lines (a health gate's) printed last, per node: what they said and when.
    live: std::sync::Mutex<std::collections::HashMap<String, (String, std::time::Instant)>>,
    /// The webhooks of `[notify]`; `None`: none configured.
    notifier: Option<std::sync::Arc<Dispatcher>>,
}

/// The notifier of `[notify]` (none without webhooks), its failures journaled as `operator`'s.
pub(crate) fn notifier_for(
    config: &LoadedConfig,
    operator: &str,
) -> Option<std::sync::Arc<Dispatcher>> {
    let log: std::sync::Arc<dyn ActionLog> = match Journal::default_location() {
        Ok(journal) => std::sync::Arc::new(journal),
        Err(_) => std::sync::Arc::new(NoLog),
    };
    Dispatcher::for_config(
        &config.config.notify,
        std::sync::Arc::new(crate::webhook::HttpWebhook::new()),
        log,
        operator.to_owned(),
    )
}

/// A node's live line is printed again after this long even when it says the same.
const LIVE_LINE_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// What a refusal before the context exists is about.
pub struct Refusal<'a> {
    /// `None`: nothing is journaled.
    pub kind: Option<ActionKind>,
    pub nodes: &'a [String],
    pub detail: &'a str,
    /// What would have been done (`run rollout on a, b`).
    pub action: String,
}

impl ActionContext {
    /// Loads the console config and refuses in read-only mode (before any request, recording
    /// the refusal); then resolves the kube config, namespace, platform config and sidecar
    /// transport once.
    pub async fn open(
        global: &GlobalArgs,
        options: ContextOptions,
        refusal: Option<Refusal<'_>>,
    ) -> Result<ActionContext, CliError> {
        let config = crate::config::load(
            global.config.as_deref(),
            &crate::app::console_actions::config_names(),
        )
        .map_err(|e| CliError::BadInput(e.to_string()))?;
        for problem in &config.problems {
            eprintln!("warning: {problem}");
        }
        let guard = MutationGuard::new(global.read_only, config.config.read_only);
        let log: Box<dyn ActionLog> = match Journal::default_location() {
            Ok(journal) => Box::new(journal),
            Err(_) => Box::new(NoLog),
        };
        // Said once, before anything happens: an operator must not believe an action is
        // recorded when it is not (with require_journal it is refused instead).
        if let Err(err) = log.ready()
            && !config.config.require_journal
        {
            eprintln!(
                "warning: the journal of console actions cannot be written ({err}); this action \
                 will not be recorded there"
            );
        }
        let identity = operator_identity(global);
        let operator = identity.to_string();
        let notifier = notifier_for(&config, &operator);
        if let Some(refusal) = refusal
            && let Some(refused) = contract::read_only_refusal(guard.hint(), refusal.action)
        {
            if let Some(kind) = refusal.kind {
                let namespace = global.namespace.clone().unwrap_or_default();
                let entry = journal_entry(
                    &operator,
                    &identity.context,
                    kind,
                    &namespace,
                    refusal.nodes,
                    refusal.detail,
                    Outcome::Refused,
                    Some(refused.to_string()),
                    &SystemClock,
                );
                let _ = log.append(&entry);
            }
            return Err(CliError::Failed(refused.to_string()));
        }
        let kube = kube_config(global).await?;
        let namespace = global
            .namespace
            .clone()
            .unwrap_or_else(|| kube.default_namespace.clone());
        let server = kube.cluster_url.to_string();
        let client =
            crate::kube::client::api_client(kube.clone(), guard.is_read_only()).map_err(|e| {
                CliError::Failed(format!(
                    "cannot create Kubernetes client: {}",
                    crate::kube::errors::describe(&e)
                ))
            })?;
        let node_rpc = crate::rpc::node_rpc_for(Some(kube.clone()));
        let transport = transport_from_env(|k| std::env::var(k).ok(), Some(kube))
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        let wiring = Wiring {
            server: Some(server),
            namespace,
            operator,
            context: identity.context,
            executor: options.executor.unwrap_or(config.config.executor),
            controller_namespace: options.controller_namespace,
            platform_file: options.platform_config,
            require_platform: options.require_platform,
            sidecar: HttpSidecar::new(transport),
            driver: DriverConfig {
                deadline: options.timeout,
                max_wait: options.max_wait,
                halt_on_render_failure: options.halt_on_render_failure,
                ..DriverConfig::default()
            },
            read_only: guard.hint(),
            require_journal: config.config.require_journal,
            allow_unknown_fields: options.allow_unknown_fields,
            log,
            prober: std::sync::Arc::new(crate::p2p::prober::P2pProber::new(
                crate::p2p::tcp::TcpDialer,
            )),
            node_rpc,
            notifier: match &notifier {
                Some(dispatcher) => dispatcher.clone(),
                None => std::sync::Arc::new(NoNotifier),
            },
        };
        let adapters = Adapters::open(&client, wiring).await.map_err(|e| match e {
            ResolvePlatformError::File(message) => CliError::BadInput(message),
            ResolvePlatformError::ConfigMap(err) => CliError::Failed(err.to_string()),
        })?;
        let context = ActionContext {
            output: options.output,
            config,
            name_nodes: options.name_nodes,
            json_context: options.json_context,
            adapters,
            live: Default::default(),
            notifier,
        };
        if let Some(note) = &context.adapters.settings.platform_note {
            context.note(&Note::Platform(note.clone()));
        }
        Ok(context)
    }

    /// The use cases over this command's adapters.
    pub fn ops(&self) -> Ops<'_> {
        self.adapters.ops()
    }

    /// One JSON line, with the context when one is named.
    fn json_line(&self, mut value: serde_json::Value) -> String {
        if let (Some(context), Some(object)) = (&self.json_context, value.as_object_mut()) {
            object.insert("context".into(), context.as_str().into());
        }
        value.to_string()
    }

    /// Prints any action's preview: text or JSON lines, and its notes.
    pub fn print_previewed(&self, prepared: &dyn Previewed) {
        for line in prepared.preview_lines() {
            match line {
                PreviewLine::TextOnly(text) if self.output == ActionOutput::Text => {
                    print!("{text}")
                }
                PreviewLine::TextOnly(_) => {}
                PreviewLine::Note(note) => self.note(&note),
                PreviewLine::Preview { text, json } => self.print_preview(&text, &json),
            }
        }
    }

    /// Prints a preview (text, or one JSON line).
    pub fn print_preview(&self, text: &str, json: &serde_json::Value) {
        let mut out = std::io::stdout().lock();
        let _ = match self.output {
            ActionOutput::Text => write!(out, "{text}"),
            ActionOutput::Json => writeln!(out, "{}", self.json_line(json.clone())),
        };
        let _ = out.flush();
    }

    /// The last line of an ended action (with its own JSON result fields) and its exit code.
    pub fn finish_end(&self, end: &RunEnd) -> std::process::ExitCode {
        match self.output {
            ActionOutput::Text if end.ok => println!("{}", end.message),
            ActionOutput::Text => eprintln!("error: {}", end.message),
            ActionOutput::Json => {
                let mut line = serde_json::json!({"event": "result", "ok": end.ok,
                    "message": end.message, "failedNode": end.failed_node});
                if let Some(object) = line.as_object_mut() {
                    object.extend(end.result.clone());
                }
                println!("{}", self.json_line(line));
            }
        }
        match end.exit_code {
            Some(code) => std::process::ExitCode::from(code),
            None => exit_code(end.ok),
        }
    }

    /// The last line: text (errors on stderr), or a JSON result object.
    pub fn finish(&self, ok: bool, message: &str, failed_node: Option<&str>) {
        match self.output {
            ActionOutput::Text if ok => println!("{message}"),
            ActionOutput::Text => eprintln!("error: {message}"),
            ActionOutput::Json => println!(
                "{}",
                self.json_line(serde_json::json!({"event": "result", "ok": ok, "message": message, "failedNode": failed_node}))
            ),
        }
    }

    /// Journals a dry run of `nodes` (a failure to journal is a warning).
    pub fn journal_dry_run(&self, kind: ActionKind, nodes: &[String], detail: &str) {
        self.ops()
            .journal(kind, nodes, detail, Outcome::DryRun, None, self);
    }

    /// `--yes`, or an interactive yes on a terminal; refuses without a terminal.
    pub fn confirm(&self, args: &ActionArgs, question: &str) -> Result<(), CliError> {
        if args.yes {
            return Ok(());
        }
        ask_on_terminal(question)
    }
}

/// Any action on the command line, the same way for every one: its context opened (refused
/// first in read-only mode, before any request), the preview printed, a dry run journaled and
/// ended, what cannot run refused, the operator asked, then [`contract::execute`].
pub async fn drive<A: Operation>(
    global: &GlobalArgs,
    args: &ActionArgs,
    options: ContextOptions,
    action: &A,
) -> Result<std::process::ExitCode, CliError> {
    let (nodes, detail) = (action.nodes(), action.detail());
    let refusal = (!args.dry_run).then(|| Refusal {
        kind: Some(action.kind()),
        nodes: &nodes,
        detail: &detail,
        action: contract::action_words(action.kind(), &nodes),
    });
    let context = ActionContext::open(global, options, refusal).await?;
    let ops = context.ops();
    let prepared = contract::prepare(&ops, action).await?;
    context.drive_prepared(args, &prepared).await
}

impl ActionContext {
    /// A prepared action from its preview on (see [`drive`]).
    pub async fn drive_prepared(
        &self,
        args: &ActionArgs,
        prepared: &dyn Previewed,
    ) -> Result<std::process::ExitCode, CliError> {
        let ops = self.ops();
        self.print_previewed(prepared);
        if let Some(message) = prepared.nothing_to_do() {
            self.finish(true, &message, None);
            return Ok(std::process::ExitCode::SUCCESS);
        }
        if args.dry_run {
            self.journal_dry_run(prepared.kind(), &prepared.nodes(), &prepared.detail());
            return Ok(self.finish_end(&prepared.dry_run_end()));
        }
        contract::refuse(&ops, prepared)?;
        self.confirm(args, &prepared.question())?;
        let end = match contract::execute(&ops, prepared, self).await {
            Ok(end) => end,
            Err(err) => {
                self.notified().await;
                return Err(err.into());
            }
        };
        // The result line first: the rollout ended, whatever the webhooks do.
        let code = self.finish_end(&end);
        self.notified().await;
        Ok(code)
    }

    /// Waits for the notifications queued (a rollout's end) to be delivered or given up on, at
    /// most their worst case and a slack (`ops::notify`), and says on stderr what was not
    /// delivered.
    pub async fn notified(&self) {
        let Some(notifier) = &self.notifier else {
            return;
        };
        let bound = notifier.worst_case() + crate::ops::notify::DRAIN_SLACK;
        if !notifier.drain(bound).await {
            eprintln!(
                "warning: notifications still pending after {}s; not delivered",
                bound.as_secs()
            );
        }
        for line in notifier.status().failures {
            eprintln!("warning: notification failed: {line} (journaled)");
        }
    }
}

/// The exit code of an ended action.
pub fn exit_code(ok: bool) -> std::process::ExitCode {
    if ok {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

impl From<OpsError> for CliError {
    fn from(err: OpsError) -> Self {
        match err {
            OpsError::BadInput(message) => CliError::BadInput(message),
            other => CliError::Failed(other.to_string()),
        }
    }
}

/// Notes on stderr (or JSON lines); progress lines on stdout, naming their node for actions.
impl ActionContext {
    /// Whether to print `note`: every note but a live line, which is printed when its state
    /// changes (caught up, what holds it back) or [`LIVE_LINE_EVERY`] after the last.
    fn live_line_due(&self, note: &Note) -> bool {
        let Note::Gate { node, line } = note else {
            return true;
        };
        let state = format!(
            "{} {:?}",
            line.caught_up,
            line.problem.as_ref().map(std::mem::discriminant)
        );
        let Ok(mut live) = self.live.lock() else {
            return true;
        };
        let now = std::time::Instant::now();
        match live.get(node) {
            Some((last, at)) if *last == state && now.duration_since(*at) < LIVE_LINE_EVERY => {
                false
            }
            _ => {
                live.insert(node.clone(), (state, now));
                true
            }
        }
    }
}

impl Report for ActionContext {
    fn note(&self, note: &Note) {
        if !self.live_line_due(note) {
            return;
        }
        let message = note.to_string();
        match self.output {
            ActionOutput::Text => eprintln!("{message}"),
            ActionOutput::Json => {
                println!(
                    "{}",
                    self.json_line(serde_json::json!({"event": "note", "message": message}))
                )
            }
        }
    }

    fn progress(&self, node: &str, progress: &Progress, total: usize) {
        let line = match self.output {
            ActionOutput::Json => {
                let mut value = serde_json::to_value(progress).unwrap_or_default();
                if self.name_nodes
                    && let Some(object) = value.as_object_mut()
                {
                    object.insert("node".into(), node.into());
                }
                self.json_line(value)
            }
            ActionOutput::Text if self.name_nodes => {
                format!("{node}: {}", progress_text(progress, total))
            }
            ActionOutput::Text => progress_text(progress, total),
        };
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

/// The operator from the kubeconfig; `unknown` when it cannot be read (the action goes on, the
/// API server authenticates anyway).
pub(crate) fn operator_identity(global: &GlobalArgs) -> OperatorIdentity {
    identity::operator(global.kubeconfig.as_deref(), global.one_context())
}

/// `--yes`; else the names typed on a terminal when `names` is not empty (validators and
/// seeds), else an interactive yes; refuses without a terminal.
pub fn confirm_with_names(
    args: &ActionArgs,
    question: &str,
    names: &[String],
) -> Result<(), CliError> {
    if args.yes {
        return Ok(());
    }
    if names.is_empty() {
        return ask_on_terminal(question);
    }
    let expected = names.join(" ");
    let answer = read_answer(&format!("{question}\nType {expected:?} to confirm:"))?;
    if typed_names_match(&answer, names) {
        Ok(())
    } else {
        Err(CliError::Failed(format!(
            "the names typed do not match {expected:?}; aborted, nothing was changed"
        )))
    }
}

/// Whether `answer` is the names, in order, separated by any whitespace.
pub fn typed_names_match(answer: &str, names: &[String]) -> bool {
    answer
        .split_whitespace()
        .eq(names.iter().map(String::as_str))
}

/// Asks `question [y/N]` on the terminal; refuses outright when stdin is not a terminal, so a
/// script never acts without `--yes`.
pub fn ask_on_terminal(question: &str) -> Result<(), CliError> {
    let answer = read_answer(&format!("{question} [y/N]"))?;
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        Ok(())
    } else {
        Err(CliError::Failed("aborted; nothing was changed".into()))
    }
}

/// Prints `prompt` on stderr and reads one line from the terminal; refuses when stdin is not a
/// terminal.
fn read_answer(prompt: &str) -> Result<String, CliError> {
    if !std::io::stdin().is_terminal() {
        return Err(CliError::BadInput(
            "refusing to act without confirmation: pass --yes (stdin is not a terminal)".into(),
        ));
    }
    eprint!("{prompt} ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| CliError::Failed(format!("reading the answer: {e}")))?;
    Ok(answer)
}

#[cfg(test)]
mod tests;
