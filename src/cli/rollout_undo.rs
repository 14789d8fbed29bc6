//! `sei-console rollout undo (ROLLOUT | NODE... | -l SELECTOR)`: the nodes a rollout changed
//! back on the image each had before it (`ops::rollout_undo` finds them), previewed and run
//! exactly like a rollout to that image: plans, StatefulSet diffs, permission checks, waves, the
//! health gate, typed names for validators and seeds, the journal, and a record of its own saying
//! which rollout it undoes. Nodes already back are left alone; a node whose update plan to the
//! image being undone is still Active runs that plan to its end first (upstream never cancels an
//! Active plan), and the preview says so with the image its pod runs meanwhile.
use std::process::ExitCode;

use clap::Args;

use crate::cli::action::{ActionArgs, ActionContext, Refusal};
use crate::cli::{CliError, GlobalArgs};
use crate::config::WaveDefaults;
use crate::ops::action as contract;
use crate::ops::actions::rollout::{RolloutInput, Selection};
use crate::ops::rollout_undo::UndoTarget;
use crate::ops::{Note, Report};

#[derive(Debug, Args)]
pub struct UndoArgs {
    /// A rollout's ID (`rollout status`), or the SeiNodes to put back.
    #[arg(value_name = "ROLLOUT|NODE", required_unless_present = "selector")]
    pub targets: Vec<String>,
    /// Put back the SeiNodes matching this label selector.
    #[arg(short = 'l', long, value_name = "SELECTOR", conflicts_with = "targets")]
    pub selector: Option<String>,
    /// Nodes put back alone first (default: `waves.canary` in the config, 1).
    #[arg(long, value_name = "N")]
    pub canary: Option<u32>,
    /// Nodes per wave after the canary (default: `waves.batch` in the config, 3).
    #[arg(long, value_name = "N")]
    pub batch: Option<u32>,
    /// How long each node must stay caught up with its height advancing before the next wave.
    #[arg(long, value_name = "DURATION", value_parser = parse_gate_duration, default_value = "60s")]
    pub soak: std::time::Duration,
    /// How long a node may take to pass the health gate before the undo halts.
    #[arg(long, value_name = "DURATION", value_parser = parse_gate_duration, default_value = "10m")]
    pub health_timeout: std::time::Duration,
    /// Move on once a wave's plans completed and pods are Ready, without reading the nodes' RPC.
    #[arg(long, conflicts_with_all = ["soak", "health_timeout"])]
    pub no_health_gate: bool,
    #[command(flatten)]
    pub action: ActionArgs,
}

fn parse_gate_duration(
    text: &str,
) -> Result<std::time::Duration, crate::chain::gate::DurationError> {
    crate::chain::gate::parse_duration(text)
}

pub async fn run(global: &GlobalArgs, args: &UndoArgs) -> Result<ExitCode, CliError> {
    let kind = crate::ops::actions::rollout::KIND;
    let detail = "undo".to_owned();
    let refusal = (!args.action.dry_run).then(|| Refusal {
        kind: Some(kind),
        nodes: &args.targets,
        detail: &detail,
        action: contract::action_words(kind, &args.targets),
    });
    let context = ActionContext::open(global, (&args.action).into(), refusal).await?;
    let ops = context.ops();
    let records = ops.rollout_records().await?;
    let is_rollout = |text: &str| {
        let id = text.trim_start_matches(crate::ops::rollout_record::RECORD_PREFIX);
        records.iter().any(|r| r.record.id == id)
    };
    let target = match (&args.selector, args.targets.as_slice()) {
        (Some(selector), _) => UndoTarget::Selector(selector.clone()),
        (None, [one]) if is_rollout(one) => UndoTarget::Rollout(one.clone()),
        (None, names) => UndoTarget::Nodes(names.to_vec()),
    };
    let plan = ops.plan_undo(&target).await?;
    for source in &plan.sources {
        context.note(&Note::Info(format!("undo: {source}")));
    }
    let health_gate = if args.no_health_gate {
        None
    } else {
        Some(
            crate::chain::gate::GateSettings::new(args.soak, args.health_timeout)
                .map_err(|e| CliError::BadInput(e.to_string()))?,
        )
    };
    let defaults = context.config.config.waves;
    let input = RolloutInput {
        selection: Selection::Named(plan.nodes.clone()),
        image: plan.image.clone(),
        waves: WaveDefaults {
            canary: args.canary.unwrap_or(defaults.canary),
            batch: args.batch.unwrap_or(defaults.batch),
        },
        canary_nodes: Vec::new(),
        wait: !args.action.no_wait,
        dry_run: args.action.dry_run,
        health_gate,
        // Going back to an image the nodes ran before is never an unusual tag.
        allow_unusual_tag: true,
        undo_of: Some(plan.of.clone().unwrap_or_else(|| "nodes".to_owned())),
        hold_after: None,
        // Back to exactly what each node ran: its recorded reference, digest or not.
        resolve_digest: false,
    };
    let prepared = contract::prepare(&ops, &input).await?;
    context.drive_prepared(&args.action, &prepared).await
}
