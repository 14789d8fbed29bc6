//! `sei-console rollout status|abort`: a rollout seen and stopped from any terminal, through
//! its record in the cluster (`ops::rollout_record`; `ops::rollout_control` decides).
//!
//! `rollout status [ROLLOUT] [--watch] [-o text|json]` lists the namespace's rollouts (running,
//! holding, and those finished in the last day; `ROLLOUT`: that one, any age) with each node's
//! from/to images and state, the gate's last reading, and for a rollout whose runner stopped
//! heartbeating, `orphaned` with the command that resumes it. `--watch` prints again on every
//! change of the record until it is finished (bounded by `--timeout`).
//!
//! `rollout abort [ROLLOUT|NODE]` stops a rollout at its next safe point (see
//! `ops::rollout_control`) and prints what changed and what did not.
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};

use crate::cli::action::{ActionContext, ActionOutput, ContextOptions, Refusal};
use crate::cli::{CliError, GlobalArgs};
use crate::ops::rollout_control::node_words;
use crate::ops::rollout_record::{Runner, StoredRecord};

/// Rollouts finished longer ago than this are left out of `rollout status` without an ID.
const RECENT: Duration = Duration::from_secs(24 * 3600);
/// How often `--watch` reads the record.
const WATCH_EVERY: Duration = Duration::from_secs(1);

/// `rollout status|abort`.
#[derive(Debug, Subcommand)]
pub enum RolloutCommand {
    /// List rollouts (running, holding, finished in the last day) or show one, from any terminal
    Status(StatusArgs),
    /// Stop a rollout at its next safe point: no further node or wave; a node's Active plan runs
    /// to its end. Works from any terminal, and on a rollout whose runner is gone
    Abort(AbortArgs),
    /// Put the nodes a rollout changed back on the image each had before it, previewed and run
    /// like any rollout (ROLLOUT, NODE... or -l SELECTOR)
    Undo(crate::cli::rollout_undo::UndoArgs),
    /// Let a rollout held by `--hold-after` start its next wave
    Promote(PromoteArgs),
}

#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// The rollout's ID, or a node of it; without it, the one unfinished rollout.
    #[arg(value_name = "ROLLOUT|NODE")]
    pub target: Option<String>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ActionOutput::Text)]
    pub output: ActionOutput,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The rollout's ID (`rollout status` lists them); without it, the recent ones.
    #[arg(value_name = "ROLLOUT")]
    pub rollout: Option<String>,
    /// Print again on every change until the rollout is finished (with ROLLOUT, or the one
    /// unfinished rollout).
    #[arg(short = 'w', long)]
    pub watch: bool,
    /// Give up watching after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub timeout: u64,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ActionOutput::Text)]
    pub output: ActionOutput,
}

#[derive(Debug, Args)]
pub struct AbortArgs {
    /// The rollout's ID, or a node of an unfinished rollout; without it, the one unfinished
    /// rollout of the namespace.
    #[arg(value_name = "ROLLOUT|NODE")]
    pub target: Option<String>,
    /// How long to wait for a live runner to reach its safe point, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub wait: u64,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ActionOutput::Text)]
    pub output: ActionOutput,
}

fn options(output: ActionOutput) -> ContextOptions {
    ContextOptions {
        output,
        executor: None,
        platform_config: None,
        controller_namespace: crate::kube::platform_config::DEFAULT_CONTROLLER_NAMESPACE.to_owned(),
        timeout: Duration::from_secs(60),
        max_wait: Duration::from_secs(30),
        require_platform: false,
        halt_on_render_failure: true,
        name_nodes: true,
        json_context: None,
        allow_unknown_fields: false,
    }
}

pub async fn run(global: &GlobalArgs, command: &RolloutCommand) -> Result<ExitCode, CliError> {
    match command {
        RolloutCommand::Status(args) => status(global, args).await,
        RolloutCommand::Abort(args) => abort(global, args).await,
        RolloutCommand::Undo(args) => crate::cli::rollout_undo::run(global, args).await,
        RolloutCommand::Promote(args) => promote(global, args).await,
    }
}

async fn status(global: &GlobalArgs, args: &StatusArgs) -> Result<ExitCode, CliError> {
    let context = ActionContext::open(global, options(args.output), None).await?;
    let ops = context.ops();
    if !args.watch {
        let records = match &args.rollout {
            Some(id) => vec![ops.find_rollout(Some(id)).await?],
            None => {
                let now = ops.ports.clock.now();
                ops.rollout_records()
                    .await?
                    .into_iter()
                    .filter(|r| {
                        !r.record.state.is_finished()
                            || now.as_second() - r.record.updated.as_second()
                                < RECENT.as_secs() as i64
                    })
                    .collect()
            }
        };
        print(&ops, args.output, &records);
        return Ok(ExitCode::SUCCESS);
    }
    let id = ops.find_rollout(args.rollout.as_deref()).await?.record.id;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(args.timeout);
    let mut last = None;
    loop {
        let stored = ops.find_rollout(Some(&id)).await?;
        let shown = (stored.record.clone(), runner_words(&ops, &stored));
        if last.as_ref() != Some(&shown) {
            print(&ops, args.output, std::slice::from_ref(&stored));
            last = Some(shown);
        }
        if stored.record.state.is_finished() {
            return Ok(crate::cli::action::exit_code(
                stored.record.state == crate::ops::rollout_record::RolloutState::Done,
            ));
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(CliError::Failed(format!(
                "rollout {id} still {} after {} s of watching",
                stored.record.state.as_str(),
                args.timeout
            )));
        }
        tokio::time::sleep(WATCH_EVERY).await;
    }
}

async fn abort(global: &GlobalArgs, args: &AbortArgs) -> Result<ExitCode, CliError> {
    let words: Vec<String> = args.target.iter().cloned().collect();
    let refusal = Refusal {
        kind: None,
        nodes: &words,
        detail: "",
        action: "abort a rollout".to_owned(),
    };
    let context = ActionContext::open(global, options(args.output), Some(refusal)).await?;
    let ops = context.ops();
    let end = ops
        .abort_rollout(args.target.as_deref(), Duration::from_secs(args.wait))
        .await?;
    let aborted = end.state == crate::ops::rollout_record::RolloutState::Aborted;
    match args.output {
        ActionOutput::Text => {
            for line in &end.lines {
                println!("{line}");
            }
        }
        ActionOutput::Json => {
            let stored = ops.find_rollout(Some(&end.id)).await.ok();
            println!(
                "{}",
                serde_json::json!({"event": "result", "ok": aborted, "rollout": end.id,
                    "state": end.state.as_str(), "message": end.lines.join("; "),
                    "record": stored.map(|s| s.record)})
            );
        }
    }
    Ok(crate::cli::action::exit_code(aborted))
}

async fn promote(global: &GlobalArgs, args: &PromoteArgs) -> Result<ExitCode, CliError> {
    let words: Vec<String> = args.target.iter().cloned().collect();
    let refusal = Refusal {
        kind: None,
        nodes: &words,
        detail: "",
        action: "promote a rollout".to_owned(),
    };
    let context = ActionContext::open(global, options(args.output), Some(refusal)).await?;
    let message = context
        .ops()
        .promote_rollout(args.target.as_deref())
        .await?;
    context.finish(true, &message, None);
    Ok(ExitCode::SUCCESS)
}

/// The runner in words: `live (renewed 3 s ago)`, `orphaned: ...; resume: COMMAND`, `-`.
fn runner_words(ops: &crate::ops::Ops<'_>, stored: &StoredRecord) -> String {
    let holder = stored.holder.clone().unwrap_or_default();
    match stored.runner(ops.ports.clock.now(), ops.ports.holders.process(&holder)) {
        Runner::Finished => "-".to_owned(),
        Runner::Live { holder, .. } => format!("live ({holder})"),
        Runner::Orphaned { holder, .. } => format!(
            "orphaned: its runner {} stopped heartbeating; resume: {}",
            if holder.is_empty() { "?" } else { &holder },
            stored.record.resume_command()
        ),
    }
}

fn print(ops: &crate::ops::Ops<'_>, output: ActionOutput, records: &[StoredRecord]) {
    match output {
        ActionOutput::Json => {
            let list: Vec<serde_json::Value> = records
                .iter()
                .map(|r| {
                    let mut value = serde_json::to_value(&r.record).unwrap_or_default();
                    if let Some(object) = value.as_object_mut() {
                        object.insert("runner".into(), runner_words(ops, r).into());
                        object.insert("holder".into(), r.holder.clone().into());
                        object.insert("heartbeat".into(), r.renewed.map(|t| t.to_string()).into());
                    }
                    value
                })
                .collect();
            println!("{}", serde_json::json!({"rollouts": list}));
        }
        ActionOutput::Text => {
            if records.is_empty() {
                println!("no rollout in namespace {}", ops.namespace());
            }
            for stored in records {
                print!("{}", text(stored, &runner_words(ops, stored)));
            }
        }
    }
}

/// One rollout as `rollout status` prints it.
fn text(stored: &StoredRecord, runner: &str) -> String {
    use std::fmt::Write;
    let r = &stored.record;
    let (rolled, total) = r.progress();
    let kind = match &r.kind {
        crate::ops::rollout_record::RecordKind::Rollout => String::new(),
        crate::ops::rollout_record::RecordKind::Undo { of } => format!(" (undo of {of})"),
    };
    let mut out = format!(
        "rollout {}{kind}: {} -> {}\n  state: {}{}\n  runner: {runner}\n  by {} at {}; \
         wave {} of {}; {rolled}/{total} node(s) verified\n",
        r.id,
        r.namespace,
        r.image,
        r.state.as_str(),
        r.reason
            .as_deref()
            .map(|x| format!(" ({x})"))
            .unwrap_or_default(),
        r.operator,
        r.started,
        (r.wave + 1).min(r.waves.len().max(1)),
        r.waves.len(),
    );
    if let Some(abort) = &r.abort
        && !r.state.is_finished()
    {
        let _ = writeln!(out, "  abort requested by {} at {}", abort.by, abort.at);
    }
    let _ = writeln!(
        out,
        "  gate: {}",
        match &r.gate {
            Some(g) => format!(
                "soak {} s, timeout {} s; last: {}",
                g.soak_seconds,
                g.timeout_seconds,
                r.last_gate.as_deref().unwrap_or("none yet")
            ),
            None => "none (--no-health-gate)".to_owned(),
        }
    );
    for node in &r.nodes {
        let _ = writeln!(
            out,
            "  {}: {} -> {}: {}",
            node.name,
            node.from,
            node.to,
            node_words(node)
        );
    }
    if r.omitted_nodes > 0 {
        let _ = writeln!(out, "  ... and {} more node(s)", r.omitted_nodes);
    }
    out
}
