//! `sei-console rollout NODE... --image REF`: pin an image in waves (a canary, then batches);
//! each wave starts when the previous one completed, the first failure halts the rollout and
//! names the node and task. Running the same command again resumes: nodes already on the image
//! have nothing to do, a failed node gets a fresh update plan.
use std::process::ExitCode;

use clap::Args;
use kube::api::{Api, ListParams};

use super::action::{ActionArgs, Execution, Session};
use super::{CliError, GlobalArgs};
use crate::actions::event::ActionKind;
use crate::actions::image_ref::ImageRef;
use crate::actions::permissions::{rollout_checks, tasks_to_run};
use crate::actions::preview::{image_pin_preview, image_pin_text, pinned_node};
use crate::actions::statefulset_diff::statefulset_preview;
use crate::actions::waves::already_rolled;
use crate::api::{NodeMode, SeiNode};
use crate::journal::Outcome;
use crate::planner::PlanContext;
use crate::ports::Clock;

#[derive(Debug, Args)]
pub struct RolloutArgs {
    /// SeiNodes to roll, in this order (in `-n NS`, or the context's namespace).
    #[arg(value_name = "NODE", required_unless_present_any = ["selector", "mode"])]
    pub nodes: Vec<String>,
    /// Roll every SeiNode matching this label selector instead, in name order (`-l tier=rpc`).
    #[arg(short = 'l', long, value_name = "SELECTOR", conflicts_with = "nodes")]
    pub selector: Option<String>,
    /// Roll the SeiNodes of this mode (full, archive, replayer, validator, seed), in name order;
    /// with `--selector`, those matching both.
    #[arg(long, value_name = "MODE", value_parser = parse_mode, conflicts_with = "nodes")]
    pub mode: Option<NodeMode>,
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

fn parse_mode(text: &str) -> Result<NodeMode, String> {
    NodeMode::ALL
        .into_iter()
        .find(|mode| mode.as_str() == text)
        .ok_or_else(|| format!("{text:?} is not one of full, archive, replayer, validator, seed"))
}

/// What the operator asked to roll, for the journal and messages before the nodes are known.
fn selection_words(args: &RolloutArgs) -> Vec<String> {
    if !args.nodes.is_empty() {
        return args.nodes.clone();
    }
    let mut words = Vec::new();
    if let Some(selector) = &args.selector {
        words.push(format!("-l {selector}"));
    }
    if let Some(mode) = args.mode {
        words.push(format!("--mode {mode}"));
    }
    vec![words.join(" ")]
}

/// The named nodes in order, or the selected ones in name order.
async fn select_nodes(
    session: &Session,
    execution: &Execution,
    args: &RolloutArgs,
) -> Result<Vec<SeiNode>, CliError> {
    if args.nodes.is_empty() {
        let api: Api<SeiNode> = Api::namespaced(session.client.clone(), &session.namespace);
        let mut params = ListParams::default();
        if let Some(selector) = &args.selector {
            params = params.labels(selector);
        }
        let mut nodes: Vec<SeiNode> = api
            .list(&params)
            .await
            .map_err(|e| CliError::Failed(format!("listing SeiNodes: {e}")))?
            .items
            .into_iter()
            .filter(|n| {
                args.mode
                    .is_none_or(|mode| n.spec.first_mode() == Some(mode))
            })
            .collect();
        nodes.sort_by(|a, b| a.name().cmp(b.name()));
        if nodes.is_empty() {
            return Err(CliError::BadInput(format!(
                "no SeiNode in namespace {} matches {}",
                session.namespace,
                selection_words(args).join(" ")
            )));
        }
        return Ok(nodes);
    }
    let mut nodes = Vec::new();
    for name in &args.nodes {
        nodes.push(execution.read_node(session, name).await?);
    }
    Ok(nodes)
}

async fn run_async(global: &GlobalArgs, args: &RolloutArgs) -> Result<ExitCode, CliError> {
    let image = ImageRef::parse(&args.image).map_err(|e| CliError::BadInput(e.to_string()))?;
    let detail = format!("image {image}");
    let session = Session::open(
        global,
        &args.action,
        ActionKind::Rollout,
        &selection_words(args),
        &detail,
    )
    .await?;
    let execution = Execution::new(&session, &args.action).await?;
    let ctx = PlanContext::from_platform(&execution.platform, execution.clock.now());

    let selected = select_nodes(&session, &execution, args).await?;
    let mut nodes = Vec::new();
    let mut planned_tasks = Vec::new();
    for node in selected {
        if let Some(note) = already_rolled(&node, &image.to_string()) {
            session.note(&note);
            continue;
        }
        let mut preview =
            image_pin_preview(&node, &image, &ctx).map_err(|e| CliError::Failed(e.to_string()))?;
        preview.statefulset = Some(
            statefulset_preview(
                &execution.cluster,
                &execution.renderer,
                &pinned_node(&node, &image),
            )
            .await,
        );
        let json = serde_json::json!({"event": "preview", "preview": preview});
        session.print_preview(&image_pin_text(&preview), &json);
        planned_tasks.push(tasks_to_run(&node, preview.plan.plan.as_ref()));
        nodes.push(node);
    }
    let names: Vec<String> = nodes.iter().map(|n| n.name().to_owned()).collect();
    if nodes.is_empty() {
        session.finish(true, &format!("every node is already on {image}"), None);
        return Ok(ExitCode::SUCCESS);
    }
    if args.action.dry_run {
        session.journal(&names, &detail, Outcome::DryRun, None);
        session.finish(true, "dry run: nothing was changed", None);
        return Ok(ExitCode::SUCCESS);
    }
    let ns = session.namespace.as_str();
    let work: Vec<_> = names.iter().cloned().zip(planned_tasks).collect();
    let checks = rollout_checks(
        &execution.scope(&session, &args.action),
        ns,
        &work,
        args.nodes.is_empty(),
        !args.action.no_wait,
    );
    if let Err(err) = session.check(checks.as_slice()).await {
        session.journal(&names, &detail, Outcome::Refused, Some(err.to_string()));
        return Err(err);
    }
    session.confirm(
        &args.action,
        &format!("roll {} node(s) to {image}?", names.len()),
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

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Harness {
        #[command(flatten)]
        rollout: RolloutArgs,
    }

    fn parse(args: &[&str]) -> Result<RolloutArgs, clap::Error> {
        Harness::try_parse_from(std::iter::once("rollout").chain(args.iter().copied()))
            .map(|h| h.rollout)
    }

    #[test]
    fn nodes_are_named_or_selected_never_both() {
        let named = parse(&["a", "b", "--image", "x"]).expect("named");
        assert_eq!(named.nodes, ["a", "b"]);
        let selected =
            parse(&["-l", "tier=rpc", "--mode", "validator", "--image", "x"]).expect("selected");
        assert_eq!(selected.selector.as_deref(), Some("tier=rpc"));
        assert_eq!(selected.mode, Some(NodeMode::Validator));
        assert_eq!(selection_words(&selected), ["-l tier=rpc --mode validator"]);
        assert!(parse(&["--image", "x"]).is_err(), "nothing to roll");
        assert!(parse(&["a", "-l", "x=y", "--image", "x"]).is_err());
        let bad = parse(&["--mode", "rpc", "--image", "x"]).expect_err("unknown mode");
        assert!(
            bad.to_string().contains("not one of full, archive"),
            "{bad}"
        );
    }
}
