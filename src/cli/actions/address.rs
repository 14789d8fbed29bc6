//! `sei-console address NODE --external-address HOST:PORT`: change a node's external address
//! and persist the update plan that carries it into config.toml — the controller alone builds
//! no plan for an address change.
//!
//! It validates HOST:PORT, previews the `external-address` change in the config-patch (and says the
//! controller alone would not propagate it until the next image roll), checks the permissions,
//! patches `spec.externalAddress` with the node's `sei.io/console-actions` record, persists the
//! update plan under the node's resourceVersion (never over an Active plan), records a
//! `ConsoleExternalAddress` Event and a journal line, then follows the plan.
use std::process::ExitCode;

use clap::Args;

use crate::actions::address::ExternalAddress;
use crate::cli::action::{ActionArgs, drive};
use crate::cli::{CliError, GlobalArgs};
use crate::ops::actions::address::AddressInput;

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

pub async fn run(global: &GlobalArgs, args: &AddressArgs) -> Result<ExitCode, CliError> {
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
