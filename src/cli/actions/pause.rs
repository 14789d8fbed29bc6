//! `sei-console pause NODE` and `sei-console resume NODE`: `spec.paused` set or cleared (the
//! StatefulSet scales to zero and back), then a wait, bounded, for the pod to go or come back.
//! Both take the same flags ([`PauseArgs`]): `cli::Command::Pause` and `Command::Resume`.
//!
//! The preview shows the StatefulSet diff (server-side dry run: `spec.replicas: 1 -> 0`), the pod
//! now and who applies the StatefulSet (the live controller, else the console once itself). A
//! Failed node is refused with upstream's reason (`spec.paused has no effect on nodes in
//! PhaseFailed; delete and recreate to recover from a failed node`); an already paused (or resumed)
//! node is said and nothing is asked. Events `ConsoleNodePause`/`ConsoleNodeResume`, journal lines
//! `pause`/`resume`; the wait is at most 300 s.
use std::process::ExitCode;

use clap::Args;

use crate::cli::action::{ActionArgs, drive};
use crate::cli::{CliError, GlobalArgs};
use crate::ops::actions::pause::PauseInput;

#[derive(Debug, Args)]
pub struct PauseArgs {
    /// The SeiNode (in `-n NS`, or the context's namespace).
    #[arg(value_name = "NODE")]
    pub node: String,
    #[command(flatten)]
    pub action: ActionArgs,
}

/// Pauses (`paused`) or resumes the node.
pub async fn run(
    global: &GlobalArgs,
    args: &PauseArgs,
    paused: bool,
) -> Result<ExitCode, CliError> {
    let input = PauseInput {
        node: args.node.clone(),
        paused,
        wait: !args.action.no_wait,
        dry_run: args.action.dry_run,
    };
    drive(global, &args.action, (&args.action).into(), &input).await
}
