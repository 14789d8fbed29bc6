//! `sei-console restart NODE`: delete the node's pod `<node>-0` so that its StatefulSet creates
//! it again, then wait (bounded) until the new pod is Running and Ready.
use std::process::ExitCode;

use clap::Args;

use super::action::{ActionArgs, drive};
use super::{CliError, GlobalArgs};
use crate::ops::restart::RestartInput;

#[derive(Debug, Args)]
pub struct RestartArgs {
    /// The SeiNode whose pod to restart (in `-n NS`, or the context's namespace).
    #[arg(value_name = "NODE")]
    pub node: String,
    #[command(flatten)]
    pub action: ActionArgs,
}

pub async fn run(global: &GlobalArgs, args: &RestartArgs) -> Result<ExitCode, CliError> {
    let input = RestartInput {
        node: args.node.clone(),
        wait: !args.action.no_wait,
        dry_run: args.action.dry_run,
    };
    drive(global, &args.action, (&args.action).into(), &input).await
}
