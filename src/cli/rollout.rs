//! `sei-console rollout NODE... --image REF`: pin an image in waves (a canary, then batches);
//! each wave starts when the previous one completed, the first failure halts the rollout and
//! names the node and task. Running the same command again resumes: nodes already on the image
//! have nothing to do, a failed node gets a fresh update plan.
use std::process::ExitCode;

use clap::Args;

use super::action::{ActionArgs, Execution, Session, node_change_checks};
use super::{CliError, GlobalArgs};
use crate::actions::event::ActionKind;
use crate::actions::image_ref::ImageRef;
use crate::actions::preview::{image_pin_preview, image_pin_text};
use crate::journal::Outcome;
use crate::planner::PlanContext;
use crate::ports::{Clock, ClusterApi};

#[derive(Debug, Args)]
pub struct RolloutArgs {
    /// SeiNodes to roll, in this order (in `-n NS`, or the context's namespace).
    #[arg(required = true, value_name = "NODE")]
    pub nodes: Vec<String>,
    /// The image to pin (`name[:tag][@sha256:...]`; a digest pin is recommended).
    #[arg(long, value_name = "REF")]
    pub image: String,
    /// Nodes rolled alone first (default: `waves.canary` in the config, 1).
    #[arg(long, value_name = "N")]
    pub canary: Option<u32>,
    /// Nodes per wave after the canary (default: `waves.batch` in the config, 3).
    #[arg(long, value_name = "N")]
    pub batch: Option<u32>,
    #[command(flatten)]
    pub action: ActionArgs,
}

pub fn run(global: &GlobalArgs, args: &RolloutArgs) -> Result<ExitCode, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Failed(format!("starting the runtime: {e}")))?
        .block_on(run_async(global, args))
}

async fn run_async(global: &GlobalArgs, args: &RolloutArgs) -> Result<ExitCode, CliError> {
    let image = ImageRef::parse(&args.image).map_err(|e| CliError::BadInput(e.to_string()))?;
    let detail = format!("image {image}");
    let session = Session::open(
        global,
        &args.action,
        ActionKind::Rollout,
        &args.nodes,
        &detail,
    )
    .await?;
    let execution = Execution::new(&session, &args.action).await?;
    let ctx = PlanContext::from_platform(&execution.platform, execution.clock.now());

    let mut nodes = Vec::new();
    for name in &args.nodes {
        let node = execution
            .cluster
            .get_seinode(&session.namespace, name)
            .await
            .map_err(|e| CliError::Failed(e.to_string()))?
            .ok_or_else(|| {
                CliError::BadInput(format!("SeiNode {}/{name} not found", session.namespace))
            })?;
        let preview =
            image_pin_preview(&node, &image, &ctx).map_err(|e| CliError::Failed(e.to_string()))?;
        let json = serde_json::json!({"event": "preview", "preview": preview});
        session.print_preview(&image_pin_text(&preview), &json);
        nodes.push(node);
    }
    if args.action.dry_run {
        session.journal(&args.nodes, &detail, Outcome::DryRun, None);
        session.finish(true, "dry run: nothing was changed", None);
        return Ok(ExitCode::SUCCESS);
    }
    let checks: Vec<_> = args
        .nodes
        .iter()
        .flat_map(|n| node_change_checks(&session.namespace, n))
        .collect();
    if let Err(err) = session.check(&checks).await {
        session.journal(
            &args.nodes,
            &detail,
            Outcome::Refused,
            Some(err.to_string()),
        );
        return Err(err);
    }
    session.confirm(
        &args.action,
        &format!("roll {} node(s) to {image}?", args.nodes.len()),
    )?;

    let defaults = session.config.config.waves;
    let waves = crate::config::WaveDefaults {
        canary: args.canary.unwrap_or(defaults.canary),
        batch: args.batch.unwrap_or(defaults.batch),
    };
    let end = execution
        .runner(&session, &args.action)
        .rollout(&nodes, &image, waves, !args.action.no_wait, &session)
        .await
        .map_err(|e| CliError::Failed(e.to_string()))?;
    session.finish(end.ok, &end.message, end.failed_node.as_deref());
    Ok(if end.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
