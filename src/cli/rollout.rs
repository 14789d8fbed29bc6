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
use crate::actions::waves::plan_waves;
use crate::api::SeiNode;
use crate::executor::driver::Persisted;
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

    let executor = session.executor(&args.action);
    let defaults = session.config.config.waves;
    let waves = plan_waves(
        &nodes,
        args.canary.unwrap_or(defaults.canary),
        args.batch.unwrap_or(defaults.batch),
    );
    if args.action.no_wait && waves.len() > 1 {
        session.note("--no-wait: every node is changed now; waves need waiting");
    }
    let mut done = 0;
    for (index, wave) in waves.iter().enumerate() {
        let names: Vec<&str> = wave.iter().map(SeiNode::name).collect();
        session.note(&format!(
            "wave {} of {}: {}",
            index + 1,
            waves.len(),
            names.join(", ")
        ));
        let mut to_follow = Vec::new();
        for node in wave {
            let name = node.name();
            let persisted = crate::operate::steps::pin_image(
                &session.client,
                &execution.driver(),
                &session.namespace,
                name,
                &image,
                &execution.platform.images.sidecar,
            )
            .await
            .map_err(|e| CliError::Failed(e.to_string()))?;
            let uid = node.metadata.uid.as_deref().unwrap_or("");
            session
                .record_event(name, uid, &format!("image {} -> {image}", node.spec.image))
                .await;
            match &persisted {
                Persisted::Built(plan) | Persisted::Resumed(plan) => {
                    session.note(&format!("{name}: plan {} persisted", plan.id));
                    to_follow.push(name);
                }
                Persisted::None(reason) => session.note(&format!("{name}: no plan: {reason}")),
            }
            session.journal(&[name.to_owned()], &detail, Outcome::Started, None);
        }
        if args.action.no_wait {
            continue;
        }
        let controller_namespace = args.action.controller_namespace.as_str();
        let results = futures::future::join_all(
            to_follow
                .iter()
                .map(|name| execution.follow_plan(&session, executor, controller_namespace, name)),
        )
        .await;
        let mut halted = None;
        for (name, result) in to_follow.iter().zip(results) {
            let one = [(*name).to_owned()];
            match result {
                Ok(None) => session.journal(&one, &detail, Outcome::Succeeded, None),
                Ok(Some(reason)) => {
                    session.journal(&one, &detail, Outcome::Failed, Some(reason.clone()));
                    halted.get_or_insert((*name, reason));
                }
                Err(err) => {
                    session.journal(&one, &detail, Outcome::Failed, Some(err.to_string()));
                    halted.get_or_insert((*name, err.to_string()));
                }
            }
        }
        done += wave.len();
        if let Some((name, reason)) = halted {
            let left = nodes.len() - done;
            let message = format!(
                "rollout halted at {}/{name}: {reason}; {left} node(s) not started; run the same command again to resume",
                session.namespace
            );
            session.finish(false, &message, Some(name));
            return Ok(ExitCode::FAILURE);
        }
    }
    let message = if args.action.no_wait {
        "image pinned and plans persisted; not waiting (--no-wait)"
    } else {
        "rollout complete"
    };
    session.finish(true, message, None);
    Ok(ExitCode::SUCCESS)
}
