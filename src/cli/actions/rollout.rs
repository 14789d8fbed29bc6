//! `sei-console rollout NODE... --image REF`: pin an image in waves (a canary, then batches);
//! each wave starts when the previous one completed, the first failure halts the rollout and
//! names the node and task. Running the same command again resumes: nodes already on the image
//! have nothing to do, a failed node gets a fresh update plan.
//!
//! Prepared in phases (`prepare_cluster` → `PreparedCluster`) so `rollout_clusters`
//! (`--across-clusters`) prepares every cluster before one confirmation and runs them through
//! `ops::across::execute_in_turn`.
//!
//! What it does, in order: validates the reference (a warning without a digest), prints each node's
//! update plan, config.toml patch and StatefulSet diff, checks the permissions of every call it and
//! the embedded executor will make, asks on a terminal (refuses without one unless `--yes`), then
//! per node patches `spec.image` (with its `sei.io/console-actions` record), persists the plan and
//! records a `ConsoleImageRollout` Event and a journal line. Waves: `--canary N` nodes alone, then
//! batches of `--batch N` (defaults: the config's `[waves]`); each wave starts when the previous
//! one completed (plan Complete, `currentImage` the image, pod Ready) and passed the health gate:
//! every node caught up (height > 1, not catching up, its `/lag_status` not lagging) with its
//! height advancing through `--soak` (default 60s), within `--health-timeout` (default 10m). A node
//! that does not pass halts the rollout naming what was seen (`height stuck at H since T`, `lagging
//! (lag N, /lag_status 417)`, `one block-sync peer`, `RPC unreachable: why`); seeds are not gated
//! (no RPC); `--no-health-gate` skips the gate. The first failure halts with the node and task,
//! exit 1. With several `--context` and `--across-clusters` each cluster's preview is printed under
//! `== cluster NAME ==`, one confirmation names every cluster and its node count (validators and
//! seeds typed as `CONTEXT/NAME`), and JSON lines carry `context`.
use std::process::ExitCode;

use clap::Args;

use crate::actions::image_ref::ImageRef;
use crate::api::NodeMode;
use crate::chain::gate::GateSettings;
use crate::cli::action::{ActionArgs, ActionContext, ContextOptions, Refusal};
use crate::cli::{CliError, GlobalArgs};
use crate::config::WaveDefaults;
use crate::ops::action::{self as contract, Previewed};
use crate::ops::actions::rollout::{RolloutInput, RolloutPrepared, Selection};
use crate::ops::rollout_record::HoldAfter;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct RolloutArgs {
    /// `rollout status|abort`: a rollout seen or stopped from any terminal.
    #[command(subcommand)]
    pub control: Option<crate::cli::rollout_control::RolloutCommand>,
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
    #[arg(long, value_name = "REF", required = true)]
    pub image: Option<String>,
    /// Nodes rolled alone first (default: `waves.canary` in the config, 1).
    #[arg(long, value_name = "N")]
    pub canary: Option<u32>,
    /// Hold after the canary wave (`canary`) or after every wave but the last (`each-wave`),
    /// once it passed its gates, until `sei-console rollout promote ROLLOUT` (or an abort).
    #[arg(long, value_name = "WHEN", value_parser = parse_hold_after, conflicts_with = "no_wait")]
    pub hold_after: Option<HoldAfter>,
    /// Nodes per wave after the canary (default: `waves.batch` in the config, 3).
    #[arg(long, value_name = "N")]
    pub batch: Option<u32>,
    /// With several `--context`: prepare the rollout in every cluster (each cluster's preview
    /// and waves, nothing changed), one confirmation naming them all, then cluster after
    /// cluster in the order given; the first cluster that fails halts the rest. Without it a
    /// rollout naming several clusters is refused before any request.
    #[arg(long)]
    pub across_clusters: bool,
    /// How long each rolled node must stay caught up with its height advancing before the next
    /// wave starts (the last wave is gated too): `60s`, `5m`, `1m30s`.
    #[arg(long, value_name = "DURATION", value_parser = parse_gate_duration, default_value = "60s")]
    pub soak: std::time::Duration,
    /// How long a rolled node may take to pass the health gate before the rollout halts.
    #[arg(long, value_name = "DURATION", value_parser = parse_gate_duration, default_value = "10m")]
    pub health_timeout: std::time::Duration,
    /// Move on once a wave's plans completed and pods are Ready, without reading the nodes' RPC.
    #[arg(long, conflicts_with_all = ["soak", "health_timeout"])]
    pub no_health_gate: bool,
    /// Roll a tag that does not look like the tags the nodes run (a version number where they
    /// run none, or the other way round; a letter where their tags have a digit, `v6.5.O`).
    /// Without it, and with `--yes`, such a rollout is refused; asked on a terminal, the tag
    /// is typed to confirm.
    #[arg(long)]
    pub allow_unusual_tag: bool,
    /// Pin the digest the tag points to now, read from the image's registry (anonymously;
    /// HTTPS, plain HTTP only to a registry on loopback): every node then pulls the same
    /// bytes, whatever the tag is moved to later. The preview names the digest.
    #[arg(long)]
    pub resolve_digest: bool,
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

/// `rollout` over every cluster [`clusters`] names: one as before, several through
/// [`crate::cli::rollout_clusters::run`] (every preview, one confirmation, cluster after cluster).
pub async fn run_clusters(global: &GlobalArgs, args: &RolloutArgs) -> Result<ExitCode, CliError> {
    if let Some(command) = &args.control {
        global.single_cluster("rollout")?;
        return crate::cli::rollout_control::run(global, command).await;
    }
    let clusters = clusters(global, args)?;
    if clusters.len() == 1 {
        return run(global, args).await;
    }
    let names: Vec<String> = clusters.into_iter().flatten().collect();
    crate::cli::rollout_clusters::run(global, args, &names).await
}

/// The rollout in one cluster: preview, confirmation, waves (the way every action goes).
pub async fn run(global: &GlobalArgs, args: &RolloutArgs) -> Result<ExitCode, CliError> {
    let image = image(args)?;
    let cluster = prepare_cluster(global, args, &image, None).await?;
    cluster
        .context
        .drive_prepared(&args.action, &cluster.prepared)
        .await
}

fn parse_gate_duration(
    text: &str,
) -> Result<std::time::Duration, crate::chain::gate::DurationError> {
    crate::chain::gate::parse_duration(text)
}

/// The health gate asked for: `None` with `--no-health-gate`.
pub fn health_gate(args: &RolloutArgs) -> Result<Option<GateSettings>, CliError> {
    if args.no_health_gate {
        return Ok(None);
    }
    GateSettings::new(args.soak, args.health_timeout)
        .map(Some)
        .map_err(|e| CliError::BadInput(e.to_string()))
}

/// The image asked for, parsed.
pub fn image(args: &RolloutArgs) -> Result<ImageRef, CliError> {
    let text = args
        .image
        .as_deref()
        .ok_or_else(|| CliError::BadInput("--image is required".into()))?;
    ImageRef::parse_to_pin(text).map_err(|e| CliError::BadInput(e.to_string()))
}

/// One cluster's rollout before any change: its adapters (identity, permission checks,
/// controller Lease, platform config, sidecar transport) and what `prepare` found there.
pub struct PreparedCluster {
    pub context: ActionContext,
    pub prepared: crate::ops::skew::Guarded<RolloutPrepared>,
}

/// Opens the context `global` names (read-only refusal first) and prepares the rollout there;
/// nothing is changed. `json_context`: every JSON line names that context.
pub async fn prepare_cluster(
    global: &GlobalArgs,
    args: &RolloutArgs,
    image: &ImageRef,
    json_context: Option<&str>,
) -> Result<PreparedCluster, CliError> {
    let selection = selection(args);
    let detail = format!("image {image}");
    let words = selection.words();
    let refusal = (!args.action.dry_run).then(|| Refusal {
        kind: Some(crate::ops::actions::rollout::KIND),
        nodes: &words,
        detail: &detail,
        action: contract::action_words(crate::ops::actions::rollout::KIND, &words),
    });
    let mut options: ContextOptions = (&args.action).into();
    options.json_context = json_context.map(str::to_owned);
    let context = ActionContext::open(global, options, refusal).await?;
    let defaults = context.config.config.waves;
    let input = RolloutInput {
        selection,
        image: image.clone(),
        waves: WaveDefaults {
            canary: args.canary.unwrap_or(defaults.canary),
            batch: args.batch.unwrap_or(defaults.batch),
        },
        canary_nodes: Vec::new(),
        wait: !args.action.no_wait,
        dry_run: args.action.dry_run,
        health_gate: health_gate(args)?,
        allow_unusual_tag: args.allow_unusual_tag || !args.action.yes,
        undo_of: None,
        hold_after: args.hold_after,
        resolve_digest: args.resolve_digest,
    };
    let prepared = contract::prepare(&context.ops(), &input).await?;
    Ok(PreparedCluster { context, prepared })
}

impl PreparedCluster {
    pub fn print_preview(&self) {
        self.context.print_previewed(&self.prepared);
    }

    /// Every selected node is already on the image.
    pub fn nothing_to_do(&self) -> bool {
        self.prepared.nothing_to_do().is_some()
    }

    pub fn finish_nothing_to_do(&self) {
        if let Some(message) = self.prepared.nothing_to_do() {
            self.context.finish(true, &message, None);
        }
    }

    pub fn journal_dry_run(&self) {
        self.context.journal_dry_run(
            crate::ops::actions::rollout::KIND,
            &self.prepared.names(),
            &self.prepared.input.detail(),
        );
    }

    /// What `prepare` said cannot run (nothing to roll, a permission missing), journaled.
    pub fn refuse(&self) -> Result<(), CliError> {
        Ok(contract::refuse(&self.context.ops(), &self.prepared)?)
    }
}

/// A `--hold-after` that is neither `canary` nor `each-wave`.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not one of canary, each-wave")]
pub struct UnknownHold(String);

fn parse_hold_after(text: &str) -> Result<HoldAfter, UnknownHold> {
    [HoldAfter::Canary, HoldAfter::EachWave]
        .into_iter()
        .find(|h| h.as_str() == text)
        .ok_or_else(|| UnknownHold(text.to_owned()))
}

/// A `--mode` that names no mode.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not one of full, archive, replayer, validator, seed")]
pub struct UnknownMode(String);

pub(crate) fn parse_mode(text: &str) -> Result<NodeMode, UnknownMode> {
    NodeMode::ALL
        .into_iter()
        .find(|mode| mode.as_str() == text)
        .ok_or_else(|| UnknownMode(text.to_owned()))
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
