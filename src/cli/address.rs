//! `sei-console address NODE --external-address HOST:PORT`: change a node's external address
//! and persist the update plan that carries it into config.toml — the controller alone builds
//! no plan for an address change.
use std::process::ExitCode;

use clap::Args;

use super::action::{ActionArgs, Execution, Session};
use super::{CliError, GlobalArgs};
use crate::actions::address::ExternalAddress;
use crate::actions::event::ActionKind;
use crate::actions::permissions::{address_checks, tasks_to_run};
use crate::actions::preview::{address_preview, address_text, addressed_node};
use crate::actions::statefulset_diff::statefulset_preview;
use crate::journal::Outcome;
use crate::planner::PlanContext;
use crate::ports::Clock;

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

pub fn run(global: &GlobalArgs, args: &AddressArgs) -> Result<ExitCode, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Failed(format!("starting the runtime: {e}")))?
        .block_on(run_async(global, args))
}

async fn run_async(global: &GlobalArgs, args: &AddressArgs) -> Result<ExitCode, CliError> {
    let address = ExternalAddress::parse(&args.external_address)
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let detail = format!("external address {address}");
    let nodes = vec![args.node.clone()];
    let session = Session::open(global, &args.action, ActionKind::Address, &nodes, &detail).await?;
    let execution = Execution::new(&session, &args.action).await?;
    let name = args.node.as_str();
    let node = execution.read_node(&session, name).await?;
    let ctx = || PlanContext::from_platform(&execution.platform, execution.clock.now());
    let mut preview =
        address_preview(&node, &address, &ctx()).map_err(|e| CliError::Failed(e.to_string()))?;
    preview.statefulset = Some(
        statefulset_preview(
            &execution.cluster,
            &execution.renderer,
            &addressed_node(&node, &address),
        )
        .await,
    );
    let json = serde_json::json!({"event": "preview", "preview": preview});
    session.print_preview(&address_text(&preview), &json);
    if args.action.dry_run {
        session.journal(&nodes, &detail, Outcome::DryRun, None);
        session.finish(true, "dry run: nothing was changed", None);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(reason) = &preview.plan.no_plan {
        return Err(CliError::Failed(format!(
            "no update plan can be persisted for {}/{name}: {reason}; nothing was changed",
            session.namespace
        )));
    }
    let ns = session.namespace.as_str();
    let checks = address_checks(
        &execution.scope(&session, &args.action),
        ns,
        name,
        &tasks_to_run(&node, preview.plan.plan.as_ref()),
    );
    if let Err(err) = session.check(checks.as_slice()).await {
        session.journal(&nodes, &detail, Outcome::Refused, Some(err.to_string()));
        return Err(err);
    }
    session.confirm(
        &args.action,
        &format!("set the external address of {name} to {address}?"),
    )?;

    let end = execution
        .runner(&session, &args.action)
        .address(&node, &address, &ctx(), !args.action.no_wait, &session)
        .await
        .map_err(|e| CliError::Failed(e.to_string()))?;
    session.finish(end.ok, &end.message, end.failed_node.as_deref());
    Ok(if end.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
