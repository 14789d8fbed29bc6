//! `sei-console rollout NODE... --image REF`: pin an image in waves (a canary, then batches);
//! each wave starts when the previous one completed, the first failure halts the rollout and
//! names the node and task. Running the same command again resumes: nodes already on the image
//! have nothing to do, a failed node gets a fresh update plan.
use std::process::ExitCode;

use clap::Args;

use super::action::{ActionArgs, ActionContext, ActionOutput, Refusal, exit_code};
use super::{CliError, GlobalArgs};
use crate::actions::event::ActionKind;
use crate::actions::image_ref::ImageRef;
use crate::actions::preview::image_pin_text;
use crate::api::NodeMode;
use crate::config::WaveDefaults;
use crate::ops::rollout::{self, RolloutInput, Selection};
use crate::ops::{Note, Report};

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
    /// With several `--context`: roll out in each cluster in turn, in the order given (each
    /// cluster's own preview, waves and confirmation); the first cluster that fails halts the
    /// rest. Without it a rollout naming several clusters is refused before any request.
    #[arg(long)]
    pub across_clusters: bool,
    #[command(flatten)]
    pub action: ActionArgs,
}

/// The clusters a rollout goes to, in order: one (the first `--context` or the current
/// context), or every `--context` when the operator asked with `--across-clusters`.
pub fn clusters(global: &GlobalArgs, args: &RolloutArgs) -> Result<Vec<Option<String>>, CliError> {
    match global.context.as_slice() {
        [] => Ok(vec![None]),
        [one] => Ok(vec![Some(one.clone())]),
        several if args.across_clusters => Ok(several.iter().cloned().map(Some).collect()),
        several => Err(CliError::BadInput(format!(
            "the rollout names {} clusters ({}): pass --across-clusters to roll out in each in \
             turn, or give one --context; nothing was changed",
            several.len(),
            several.join(", ")
        ))),
    }
}

/// `rollout` over every cluster [`clusters`] names, one after the other; the first cluster
/// that does not succeed halts the rest (named on stderr).
pub async fn run_clusters(global: &GlobalArgs, args: &RolloutArgs) -> Result<ExitCode, CliError> {
    let clusters = clusters(global, args)?;
    if clusters.len() == 1 {
        return run(global, args).await;
    }
    let names: Vec<String> = clusters.iter().flatten().cloned().collect();
    for (index, context) in names.iter().enumerate() {
        eprintln!(
            "== cluster {context} ({} of {}: {}) ==",
            index + 1,
            names.len(),
            names.join(", ")
        );
        let mut one = global.clone();
        one.context = vec![context.clone()];
        let code = run(&one, args).await;
        let failed = !matches!(&code, Ok(code) if *code == ExitCode::SUCCESS);
        if failed {
            let rest = &names[index + 1..];
            if !rest.is_empty() {
                eprintln!(
                    "rollout halted at cluster {context}: {} left untouched",
                    rest.join(", ")
                );
            }
            return code;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn run(global: &GlobalArgs, args: &RolloutArgs) -> Result<ExitCode, CliError> {
    let image = ImageRef::parse(&args.image).map_err(|e| CliError::BadInput(e.to_string()))?;
    let selection = selection(args);
    let detail = format!("image {image}");
    let words = selection.words();
    let refusal = (!args.action.dry_run).then(|| Refusal {
        kind: Some(ActionKind::Rollout),
        nodes: &words,
        detail: &detail,
        action: format!("run rollout on {}", words.join(", ")),
    });
    let context = ActionContext::open(global, (&args.action).into(), refusal).await?;
    let defaults = context.config.config.waves;
    let input = RolloutInput {
        selection,
        image,
        waves: WaveDefaults {
            canary: args.canary.unwrap_or(defaults.canary),
            batch: args.batch.unwrap_or(defaults.batch),
        },
        canary_nodes: Vec::new(),
        wait: !args.action.no_wait,
        dry_run: args.action.dry_run,
    };
    let ops = context.ops();
    let prepared = rollout::prepare(&ops, input).await?;
    // The wave plan first, above the nodes left alone and each node's plan (JSON readers get
    // the waves in the result's progress notes).
    if context.output == ActionOutput::Text {
        print!("{}", prepared.waves_text());
    }
    for note in &prepared.already_rolled {
        context.note(&Note::AlreadyRolled(note.clone()));
    }
    for note in &prepared.peer_notes {
        context.note(&Note::Info(note.clone()));
    }
    for blocked in &prepared.blocked {
        context.note(&Note::Skipped {
            node: blocked.node.clone(),
            reason: blocked.reason.clone(),
        });
    }
    for node in &prepared.nodes {
        let json = serde_json::json!({"event": "preview", "preview": node.preview});
        context.print_preview(&image_pin_text(&node.preview), &json);
    }
    let names = prepared.names();
    if names.is_empty() && prepared.blocked.is_empty() {
        context.finish(
            true,
            &format!("every node is already on {}", prepared.input.image),
            None,
        );
        return Ok(ExitCode::SUCCESS);
    }
    if args.action.dry_run {
        context.journal_dry_run(ActionKind::Rollout, &names, &prepared.input.detail());
        context.finish(true, "dry run: nothing was changed", None);
        return Ok(ExitCode::SUCCESS);
    }
    rollout::refuse(&ops, &prepared)?;
    context.confirm(&args.action, &prepared.question)?;
    let end = rollout::run(&ops, &prepared, &context).await?;
    context.finish(end.ok, &end.message, end.failed_node.as_deref());
    Ok(exit_code(end.ok))
}

fn parse_mode(text: &str) -> Result<NodeMode, String> {
    NodeMode::ALL
        .into_iter()
        .find(|mode| mode.as_str() == text)
        .ok_or_else(|| format!("{text:?} is not one of full, archive, replayer, validator, seed"))
}

/// The named nodes, or the label selector and mode to match.
fn selection(args: &RolloutArgs) -> Selection {
    if args.nodes.is_empty() {
        Selection::Matching {
            selector: args.selector.clone(),
            mode: args.mode,
        }
    } else {
        Selection::Named(args.nodes.clone())
    }
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
        assert_eq!(
            selection(&selected).words(),
            ["-l tier=rpc --mode validator"]
        );
        assert!(parse(&["--image", "x"]).is_err(), "nothing to roll");
        assert!(parse(&["a", "-l", "x=y", "--image", "x"]).is_err());
        let bad = parse(&["--mode", "rpc", "--image", "x"]).expect_err("unknown mode");
        assert!(
            bad.to_string().contains("not one of full, archive"),
            "{bad}"
        );
    }
}
