//! `sei-console address NODE --external-address HOST:PORT`: change a node's external address
//! and persist the update plan that carries it into config.toml — the controller alone builds
//! no plan for an address change.
use std::process::ExitCode;

use clap::Args;
use kube::api::{Api, Patch, PatchParams};

use super::action::{ActionArgs, Execution, Session};
use super::{CliError, GlobalArgs};
use crate::actions::address::ExternalAddress;
use crate::actions::event::ActionKind;
use crate::actions::permissions::{address_checks, tasks_to_run};
use crate::actions::preview::{address_preview, address_text, addressed_node};
use crate::actions::statefulset_diff::statefulset_preview;
use crate::api::SeiNode;
use crate::journal::Outcome;
use crate::planner::PlanContext;
use crate::ports::{Clock, ClusterApi, StatusPatch};

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
    let read = || async {
        execution
            .cluster
            .get_seinode(&session.namespace, name)
            .await
            .map_err(|e| CliError::Failed(e.to_string()))?
            .ok_or_else(|| {
                CliError::BadInput(format!("SeiNode {}/{name} not found", session.namespace))
            })
    };
    let node = read().await?;
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

    let api: Api<SeiNode> = Api::namespaced(session.client.clone(), &session.namespace);
    let patch = serde_json::json!({"spec": {"externalAddress": address.to_string()}});
    let patched = api
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| CliError::Failed(format!("patching spec.externalAddress of {name}: {e}")))?;
    let uid = patched.metadata.uid.clone().unwrap_or_default();
    session
        .record_event(
            name,
            &uid,
            &format!(
                "external address {} -> {address}",
                if node.spec.external_address().is_empty() {
                    "(unset)"
                } else {
                    node.spec.external_address()
                }
            ),
        )
        .await;
    // The plan is built from the stored node and written under its resourceVersion, so a
    // concurrent writer (the controller persisting its own plan) makes this fail, not clobber.
    let plan = address_preview(&patched, &address, &ctx())
        .map_err(|e| CliError::Failed(e.to_string()))?
        .plan
        .plan
        .ok_or_else(|| CliError::Failed(format!("{name}: the update plan vanished")))?;
    let status_patch = StatusPatch {
        resource_version: patched
            .metadata
            .resource_version
            .clone()
            .unwrap_or_default(),
        status: serde_json::json!({"plan": plan}),
    };
    execution
        .cluster
        .patch_seinode_status(&session.namespace, name, &status_patch)
        .await
        .map_err(|e| {
            CliError::Failed(format!(
                "spec.externalAddress is set but the update plan could not be persisted: {e}"
            ))
        })?;
    session.note(&format!("{name}: plan {} persisted", plan.id));
    session.journal(&nodes, &detail, Outcome::Started, None);
    if args.action.no_wait {
        session.finish(
            true,
            "address set and update plan persisted; not waiting (--no-wait)",
            None,
        );
        return Ok(ExitCode::SUCCESS);
    }
    let executor = session.executor(&args.action);
    match execution
        .follow_plan(&session, executor, &args.action.controller_namespace, name)
        .await?
    {
        Some(reason) => {
            session.journal(&nodes, &detail, Outcome::Failed, Some(reason.clone()));
            session.finish(
                false,
                &format!("{}/{name}: {reason}", session.namespace),
                Some(name),
            );
            Ok(ExitCode::FAILURE)
        }
        None => {
            session.journal(&nodes, &detail, Outcome::Succeeded, None);
            session.finish(true, "external address propagated", None);
            Ok(ExitCode::SUCCESS)
        }
    }
}
