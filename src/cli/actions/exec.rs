//! `sei-console exec NODE`: build the plan the planner would build for the node now, persist it
//! (only when no Active plan exists) and follow it to the end: executed by the embedded executor,
//! or handed off to a live controller. One progress line per task transition (`-o json`: JSON
//! lines). An action like the others (`ops::actions::exec`): its own flags, driven by
//! `cli::action::drive` (preview, read-only refusal, permission
//! checks, confirmation, Lease, Console Event and journal lines).
//!
//! `--executor auto` picks from the controller's Lease `bc1f5b0a.sei.io` in
//! `--controller-namespace` and says which; `embedded` executes here with the controller's
//! semantics (one optimistic-locked status patch per step, resumable after a crash, per-node Lease
//! `sei-console-exec-<node>`, `StatefulSetRenderFailed` events); `controller` watches a live
//! controller execute it. Exit 1 if the plan fails.
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::cli::action::{ActionArgs, ActionOutput, ContextOptions, drive};
use crate::cli::{CliError, GlobalArgs};
use crate::config::ExecutorMode;
use crate::kube::platform_config::DEFAULT_CONTROLLER_NAMESPACE;
use crate::ops::actions::exec::ExecInput;

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
    /// Show the plan it would persist and stop; nothing is changed.
    #[arg(long)]
    pub dry_run: bool,
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
    /// Give up following the plan after this long (1h, 90m, or seconds).
    #[arg(long, value_name = "DURATION", value_parser = crate::cli::durations::follow_timeout, default_value = "1h")]
    pub timeout: Duration,
    /// Upper bound on the wait between executor passes, in milliseconds (the controller's
    /// cadence is 5 s polls with up to 30 s backoff).
    #[arg(long, value_name = "MS", default_value_t = 30_000, hide = true)]
    pub max_wait_ms: u64,
    /// Run the plan even of a node with fields sei-console does not know (journaled, and
    /// recorded on the node); without it the command is refused before any change.
    #[arg(long)]
    pub allow_unknown_fields: bool,
}

/// Runs the command. Exit 0 when the plan completes (or nothing is to be done), 1 when it fails.
pub async fn run(global: &GlobalArgs, args: &ExecArgs) -> Result<ExitCode, CliError> {
    let output = match args.output {
        ExecOutput::Text => ActionOutput::Text,
        ExecOutput::Json => ActionOutput::Json,
    };
    let executor = match args.executor {
        ExecutorChoice::Auto => ExecutorMode::Auto,
        ExecutorChoice::Controller => ExecutorMode::Controller,
        ExecutorChoice::Embedded => ExecutorMode::Embedded,
    };
    // The shared flags, with the defaults of those exec does not take (it always follows).
    let action = ActionArgs {
        dry_run: args.dry_run,
        yes: args.yes,
        no_wait: false,
        output,
        executor: Some(executor),
        platform_config: args.platform_config.clone(),
        controller_namespace: args.controller_namespace.clone(),
        timeout: args.timeout,
        max_wait_ms: args.max_wait_ms,
        allow_unknown_fields: args.allow_unknown_fields,
    };
    // Its own context: the platform config is required, a render failure is retried as the
    // controller does (never halted), and progress lines do not name the one node.
    let options = ContextOptions {
        output,
        executor: Some(executor),
        platform_config: args.platform_config.clone(),
        controller_namespace: args.controller_namespace.clone(),
        timeout: args.timeout,
        max_wait: Duration::from_millis(args.max_wait_ms),
        require_platform: true,
        halt_on_render_failure: false,
        name_nodes: false,
        json_context: None,
        allow_unknown_fields: args.allow_unknown_fields,
    };
    let input = ExecInput {
        node: args.node.clone(),
        dry_run: args.dry_run,
    };
    drive(global, &action, options, &input).await
}

pub use crate::ops::follow::progress_text as format_text;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lines_number_tasks_and_show_errors() {
        let line = format_text(
            &crate::executor::driver::Progress::TaskTransition {
                index: 2,
                task: "apply-statefulset".into(),
                id: "x".into(),
                from: crate::api::TaskStatus::Pending,
                to: crate::api::TaskStatus::Failed,
                error: Some("boom".into()),
                retry_count: 0,
            },
            8,
        );
        assert_eq!(line, "[3/8] apply-statefulset: Pending -> Failed: boom");
        let json = serde_json::to_value(crate::executor::driver::Progress::TaskStarted {
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
