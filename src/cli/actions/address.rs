//! `sei-console address NODE --external-address HOST:PORT`: change a node's external address
//! and persist the update plan that carries it into config.toml — the controller alone builds
//! no plan for an address change.
use std::process::ExitCode;

use clap::{Args, FromArgMatches};

use super::action::{ActionArgs, ActionCommand, CommandFuture, drive};
use super::{CliError, GlobalArgs};
use crate::actions::address::ExternalAddress;
use crate::ops::address::AddressInput;

#[derive(Debug, Args)]
pub struct AddressArgs {
    /// The SeiNode (in `-n NS`, or the context's namespace).
    #[arg(value_name = "NODE")]
    pub node: String,
    /// The routable P2P address other nodes dial, `HOST:PORT`.
    #[arg(long, value_name = "HOST:PORT")]
    pub external_address: String,
    /// Leave seid running after the plan: config.toml gets the new address, but seid reads it
    /// only at start, so the address is not live until its pod restarts.
    #[arg(long)]
    pub no_restart: bool,
    #[command(flatten)]
    pub action: ActionArgs,
}

pub const COMMANDS: &[ActionCommand] = &[ActionCommand {
    name: "address",
    order: 20,
    help_after: Some("rollout"),
    several_clusters: false,
    command: address_command,
    run: run_address,
}];

fn address_command() -> clap::Command {
    AddressArgs::augment_args(clap::Command::new("address")).about(
        "Set a SeiNode's external address: persist the update plan that writes it to \
         config.toml, restart seid (it reads config.toml only at start) and read the address \
         it advertises back through the P2P handshake",
    )
}

fn run_address<'a>(global: &'a GlobalArgs, matches: &'a clap::ArgMatches) -> CommandFuture<'a> {
    Box::pin(async move {
        let args = AddressArgs::from_arg_matches(matches)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
        run(global, &args).await
    })
}

async fn run(global: &GlobalArgs, args: &AddressArgs) -> Result<ExitCode, CliError> {
    let address = ExternalAddress::parse(&args.external_address)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let input = AddressInput {
        node: args.node.clone(),
        address,
        wait: !args.action.no_wait,
        dry_run: args.action.dry_run,
        restart: !args.no_restart,
    };
    drive(global, &args.action, (&args.action).into(), &input).await
}
