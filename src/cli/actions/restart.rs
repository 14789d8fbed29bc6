//! `sei-console restart NODE`: delete the node's pod `<node>-0` so that its StatefulSet creates
//! it again, then wait (bounded) until the new pod is Running and Ready. Its flags are only those
//! that apply: no plan is persisted or followed and no
//! StatefulSet rendered, so `--executor` and `--platform-config` are not offered, and
//! `--timeout` bounds the wait for the new pod.
//!
//! The preview shows the pod's state (phase, Ready, restarts) and checks `get`/`delete pods`,
//! `create events` and the node Lease; the pod `<node>-0` is deleted under the node's Lease, a
//! `ConsolePodRestart` Event and journal lines recorded, and the wait (300 s by default) names each
//! state the new pod (another UID) passes through until it is Running and Ready; exit 1 when it is
//! not.
use std::process::ExitCode;

use clap::Args;

use crate::cli::action::{ActionArgs, ActionOutput, drive};
use crate::cli::{CliError, GlobalArgs};
use crate::kube::platform_config::DEFAULT_CONTROLLER_NAMESPACE;
use crate::ops::actions::restart::RestartInput;

#[derive(Debug, Args)]
pub struct RestartArgs {
    /// The SeiNode whose pod to restart (in `-n NS`, or the context's namespace).
    #[arg(value_name = "NODE")]
    pub node: String,
    /// Show the preview and stop; nothing is changed.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask for confirmation (required when stdin is not a terminal).
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Return once the pod is deleted, without waiting for the new one.
    #[arg(long)]
    pub no_wait: bool,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ActionOutput::Text)]
    pub output: ActionOutput,
    /// Give up waiting for the new pod after this long (at most 5m; 90s, or seconds).
    #[arg(long, value_name = "DURATION", value_parser = crate::cli::durations::restart_timeout, default_value = "5m")]
    pub timeout: std::time::Duration,
    /// Upper bound on the wait between executor passes, in milliseconds (the shared flag).
    #[arg(long, value_name = "MS", default_value_t = 30_000, hide = true)]
    pub max_wait_ms: u64,
    /// Namespace of the controller (its ConfigMap, read as for every action).
    #[arg(long, value_name = "NS", env = "SEI_CONSOLE_CONTROLLER_NAMESPACE", default_value = DEFAULT_CONTROLLER_NAMESPACE, hide = true)]
    pub controller_namespace: String,
    /// Restart even a node with fields sei-console does not know (journaled, and recorded on
    /// the node); without it the restart is refused before any change.
    #[arg(long)]
    pub allow_unknown_fields: bool,
}

pub async fn run(global: &GlobalArgs, args: &RestartArgs) -> Result<ExitCode, CliError> {
    // The shared flags, with the defaults of those that do not apply.
    let action = ActionArgs {
        dry_run: args.dry_run,
        yes: args.yes,
        no_wait: args.no_wait,
        output: args.output,
        executor: None,
        platform_config: None,
        controller_namespace: args.controller_namespace.clone(),
        timeout: args.timeout,
        max_wait_ms: args.max_wait_ms,
        allow_unknown_fields: args.allow_unknown_fields,
    };
    let input = RestartInput {
        node: args.node.clone(),
        wait: !args.no_wait,
        dry_run: args.dry_run,
    };
    drive(global, &action, (&action).into(), &input).await
}
