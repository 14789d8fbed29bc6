//! `sei-console address NODE --external-address HOST:PORT`: change a node's external address
//! and persist the update plan that carries it into config.toml — the controller alone builds
//! no plan for an address change.
use std::process::ExitCode;

use clap::Args;

use super::action::{ActionArgs, ActionContext, Refusal, exit_code};
use super::{CliError, GlobalArgs};
use crate::actions::address::ExternalAddress;
use crate::actions::event::ActionKind;
use crate::ops::address::{self, AddressInput};

#[derive(Debug, Args)]
pub struct AddressArgs {
    /// The SeiNode (in `-n NS`, or the context's namespace).
    #[arg(value_name = "NODE")]
    pub node: String,
    /// The routable P2P address other nodes dial, `HOST:PORT`.
    #[arg(long, value_name = "HOST:PORT")]
    pub external_address: String,
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
    };
    let nodes = vec![args.node.clone()];
    let detail = input.detail();
    let refusal = (!args.action.dry_run).then(|| Refusal {
        kind: Some(ActionKind::Address),
        nodes: &nodes,
        detail: &detail,
        action: format!("run address on {}", args.node),
    });
    let context = ActionContext::open(global, (&args.action).into(), refusal).await?;
    let ops = context.ops();
    let prepared = address::prepare(&ops, input).await?;
    let json = serde_json::json!({"event": "preview", "preview": prepared.preview});
    context.print_preview(&prepared.text(), &json);
    if args.action.dry_run {
        context.journal_dry_run(ActionKind::Address, &nodes, &detail);
        if let Some(reason) = &prepared.blocked {
            context.finish(
                false,
                &format!("dry run: the run would be refused: {reason}; nothing was changed"),
                Some(&args.node),
            );
            return Ok(exit_code(false));
        }
        context.finish(true, "dry run: nothing was changed", None);
        return Ok(ExitCode::SUCCESS);
    }
    address::refuse(&ops, &prepared)?;
    context.confirm(&args.action, &prepared.question)?;
    let end = address::run(&ops, &prepared, &context).await?;
    context.finish(end.ok, &end.message, end.failed_node.as_deref());
    Ok(exit_code(end.ok))
}
