//! `sei-console pause NODE` and `sei-console resume NODE`: `spec.paused` set or cleared (the
//! StatefulSet scales to zero and back), then a wait, bounded, for the pod to go or come back.
//! Both declare their own subcommand here ([`COMMANDS`]).
use std::process::ExitCode;

use clap::{Args, FromArgMatches};

use super::action::{ActionArgs, ActionCommand, CommandFuture, drive};
use super::{CliError, GlobalArgs};
use crate::ops::pause::PauseInput;

#[derive(Debug, Args)]
pub struct PauseArgs {
    /// The SeiNode (in `-n NS`, or the context's namespace).
    #[arg(value_name = "NODE")]
    pub node: String,
    #[command(flatten)]
    pub action: ActionArgs,
}

pub const COMMANDS: &[ActionCommand] = &[
    ActionCommand {
        name: "pause",
        order: 50,
        help_after: None,
        several_clusters: false,
        command: pause_command,
        run: run_pause,
    },
    ActionCommand {
        name: "resume",
        order: 60,
        help_after: None,
        several_clusters: false,
        command: resume_command,
        run: run_resume,
    },
];

// `about` after the flags: the flattened `ActionArgs` would put its own doc in its place.
fn pause_command() -> clap::Command {
    PauseArgs::augment_args(clap::Command::new("pause")).about(
        "Pause a SeiNode: spec.paused freezes its reconciliation and its StatefulSet scales to \
         zero (the pod terminates, the data stays); not on a Failed node",
    )
}

fn resume_command() -> clap::Command {
    PauseArgs::augment_args(clap::Command::new("resume")).about(
        "Resume a paused SeiNode: spec.paused cleared, its StatefulSet scales back and the pod \
         starts again",
    )
}

fn run_pause<'a>(global: &'a GlobalArgs, matches: &'a clap::ArgMatches) -> CommandFuture<'a> {
    Box::pin(run(global, matches, true))
}

fn run_resume<'a>(global: &'a GlobalArgs, matches: &'a clap::ArgMatches) -> CommandFuture<'a> {
    Box::pin(run(global, matches, false))
}

async fn run(
    global: &GlobalArgs,
    matches: &clap::ArgMatches,
    paused: bool,
) -> Result<ExitCode, CliError> {
    let args =
        PauseArgs::from_arg_matches(matches).map_err(|e| CliError::BadInput(e.to_string()))?;
    let input = PauseInput {
        node: args.node.clone(),
        paused,
        wait: !args.action.no_wait,
        dry_run: args.action.dry_run,
    };
    drive(global, &args.action, (&args.action).into(), &input).await
}
