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
use crate::ops::rollout_view::RolloutView;

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
        let views = match &args.rollout {
            Some(id) => vec![ops.rollout_view(id).await?],
            None => ops.rollout_views().await?,
        };
        print(&ops, args.output, &views);
        return Ok(ExitCode::SUCCESS);
    }
    let id = ops.find_rollout(args.rollout.as_deref()).await?.record.id;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(args.timeout);
    let mut last = None;
    loop {
        let view = ops.rollout_view(&id).await?;
        let shown = (view.record.clone(), view.runner.clone());
        if last.as_ref() != Some(&shown) {
            print(&ops, args.output, std::slice::from_ref(&view));
            last = Some(shown);
        }
        if view.record.state.is_finished() {
            return Ok(crate::cli::action::exit_code(
                view.record.state == crate::ops::rollout_record::RolloutState::Done,
            ));
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(CliError::Failed(format!(
                "rollout {id} still {} after {} s of watching",
                view.record.state.as_str(),
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
        .abort_rollout(
            args.target.as_deref(),
            Duration::from_secs(args.wait),
            &context,
        )
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
        .promote_rollout(args.target.as_deref(), &context)
        .await?;
    context.finish(true, &message, None);
    Ok(ExitCode::SUCCESS)
}

fn print(ops: &crate::ops::Ops<'_>, output: ActionOutput, records: &[RolloutView]) {
    match output {
        ActionOutput::Json => {
            let list: Vec<serde_json::Value> = records
                .iter()
                .map(|r| {
                    let mut value = serde_json::to_value(&r.record).unwrap_or_default();
                    if let Some(object) = value.as_object_mut() {
                        object.insert("runner".into(), r.runner_words().into());
                        object.insert("shown".into(), r.word().into());
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
                print!("{}", stored.text());
            }
        }
    }
}
