//! Command line: clap definitions and the non-interactive commands.
//!
//! Global flags follow kubectl and are accepted before or after any subcommand.
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

pub mod action;
pub mod actions;
mod chain_health;
mod choices;
mod complete;
pub mod describe;
pub mod doctor;
mod doctor_chain;
pub mod doctor_fetch;
mod durations;
mod fetch;
pub mod get;
mod get_output;
#[cfg(test)]
mod get_table_tests;
mod get_watch;
pub mod journal;
pub mod logging;
pub mod logs;
mod logs_many;
mod man;
pub mod manifest;
mod names;
pub mod plan;
mod platform_image;
pub mod render;
pub mod rollout_clusters;
pub mod rollout_control;
pub mod rollout_undo;
pub mod seed_probe;
mod seed_probes;
mod tui;
pub mod version;

/// Exit code for bad input (unreadable file, invalid manifest, validation error).
pub const EXIT_BAD_INPUT: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "sei-console",
    version,
    about = "Terminal operations console for fleets of SeiNode resources",
    long_about = "Terminal operations console for fleets of SeiNode resources (sei.io/v1alpha1).\n\
                  Without a subcommand it opens the interactive console on the current kubeconfig context."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// kubectl-style connection flags, global to every subcommand.
/// The flags every command takes; help lists them under their own heading, apart from the
/// command's own.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long, global = true, value_name = "FILE")]
    pub kubeconfig: Option<std::path::PathBuf>,
    /// Kubeconfig context to use (default: the current context). Repeat it (or give A,B) to
    /// watch several clusters as one fleet: the console, `get`, `describe`, `journal` and
    /// `rollout --across-clusters`.
    // Not `global = true`: clap would let the values after the subcommand replace those
    // before it; [`command`] gives every subcommand its own `--context` and [`parse_from`]
    // appends them, so every value given anywhere is used, in order (as kubectl does).
    #[arg(long, value_name = "NAME", value_delimiter = ',', action = clap::ArgAction::Append)]
    pub context: Vec<String>,
    /// Namespace to work in (default: the context's namespace).
    #[arg(short = 'n', long, global = true, value_name = "NS")]
    pub namespace: Option<String>,
    /// Work across all namespaces.
    #[arg(short = 'A', long, global = true)]
    pub all_namespaces: bool,
    /// Console config file (default: $XDG_CONFIG_HOME/sei-console/config.toml).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// Refuse every change to the cluster before any request (also `read_only` in the config).
    #[arg(long, global = true)]
    pub read_only: bool,
    /// Log file (default: $XDG_STATE_HOME/sei-console/sei-console.log); level from SEI_CONSOLE_LOG.
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<std::path::PathBuf>,
    /// Colour theme of the console (default: the config file's `theme`, else dark; NO_COLOR forces plain).
    #[arg(long, global = true, value_parser = choices::theme())]
    pub theme: Option<crate::config::ThemeName>,
    /// Act as this user (impersonation, as kubectl's --as): the API server authorises every
    /// request as them, if your credentials may impersonate.
    #[arg(long = "as", global = true, value_name = "USER")]
    pub as_user: Option<String>,
    /// Act as this group too (with --as; repeat it for several), as kubectl's --as-group.
    #[arg(
        long = "as-group",
        global = true,
        value_name = "GROUP",
        requires = "as_user"
    )]
    pub as_group: Vec<String>,
    /// How long a request waits for the API server's answer (default 20s; 0: no limit), as
    /// kubectl's --request-timeout.
    #[arg(long, global = true, value_name = "DURATION", value_parser = durations::request_timeout)]
    pub request_timeout: Option<std::time::Duration>,
}

/// The id of `--context` given after a subcommand.
const CONTEXT_AFTER_SUBCOMMAND: &str = "context_after_subcommand";

/// The command line, every subcommand (nested ones too) taking `--context` as well.
pub fn command() -> clap::Command {
    use clap::CommandFactory;
    fn with_context(command: clap::Command) -> clap::Command {
        command
            .arg(
                clap::Arg::new(CONTEXT_AFTER_SUBCOMMAND)
                    .long("context")
                    .value_name("NAME")
                    .value_delimiter(',')
                    .action(clap::ArgAction::Append)
                    .help_heading("Global options")
                    .help("Kubeconfig context to use; repeat it (or give A,B) for several"),
            )
            .mut_subcommands(with_context)
    }
    complete::with_candidates(
        Cli::command()
            .version(version::version_line())
            .mut_subcommands(with_context),
    )
}

/// The file name under which kubectl finds the console as a plugin: `kubectl sei ARGS` runs
/// `kubectl-sei ARGS` from `$PATH` (a link to `sei-console`, or a copy).
pub const KUBECTL_PLUGIN: &str = "kubectl-sei";

/// What help and usage lines call the program: `kubectl sei` when it runs as [`KUBECTL_PLUGIN`]
/// (its `argv[0]`'s file name), else `sei-console`. The commands and flags are the same.
fn invoked_as(argv0: &std::ffi::OsStr) -> &'static str {
    let name = std::path::Path::new(argv0)
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default();
    if name == KUBECTL_PLUGIN {
        "kubectl sei"
    } else {
        "sei-console"
    }
}

/// [`command`] named as the program was invoked ([`invoked_as`]).
fn command_invoked_as(argv0: &std::ffi::OsStr) -> clap::Command {
    command().bin_name(invoked_as(argv0))
}

/// Parses `args` (the program name first): every `--context` given before or after the
/// subcommand is kept, in the order given.
pub fn parse_from<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let argv0 = args.first().cloned().unwrap_or_default();
    parse_with(command_invoked_as(&argv0), args)
}

/// [`parse_from`] with `command` (named as invoked).
fn parse_with(command: clap::Command, args: Vec<std::ffi::OsString>) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let matches = command.try_get_matches_from(args)?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    let mut level = matches.subcommand();
    while let Some((_, sub)) = level {
        if let Some(values) = sub.get_many::<String>(CONTEXT_AFTER_SUBCOMMAND) {
            cli.global.context.extend(values.cloned());
        }
        level = sub.subcommand();
    }
    Ok(cli)
}

impl GlobalArgs {
    /// The one context of a command that acts on one cluster (the first `--context`, else the
    /// kubeconfig's current one).
    pub fn one_context(&self) -> Option<&str> {
        self.context.first().map(String::as_str)
    }

    /// Refuses several `--context` for a command that reads or changes one cluster.
    fn single_cluster(&self, command: &str) -> Result<(), CliError> {
        if self.context.len() > 1 {
            return Err(CliError::BadInput(format!(
                "{command} works on one cluster: give one --context (several are read by the \
                 console, get, describe, journal and rollout --across-clusters; given: {})",
                self.context.join(", ")
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod context_tests;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List SeiNodes with phase, drift, plan progress, conditions and the last Warning event.
    Get(get::GetArgs),
    /// Show one SeiNode: spec, conditions, plan timeline, events, StatefulSet and Pods.
    Describe(describe::DescribeArgs),
    /// Every problem of the fleet, ranked, with its evidence and its fix; `--fail-on` for cron
    /// and alerting (exit 1 when a finding is at or above it, 2 on error).
    Doctor(doctor::DoctorArgs),
    /// Print the logs of a node's pod (seid by default; -c sidecar or kube-rbac-proxy), like kubectl logs.
    Logs(logs::LogsArgs),
    /// Print a shell completion script (`source <(sei-console completion bash)`): it asks the
    /// binary at each TAB, so node names, contexts, namespaces and images complete from the
    /// cluster.
    #[command(alias = "completions")]
    Completion {
        /// Shell to generate completions for.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff: `sei-console man > sei-console.1`; `--dir DIR` writes one per
    /// command), generated from the same definitions as `--help`.
    Man(man::ManArgs),
    /// Print the StatefulSet, Service and PVC the controller would apply for a SeiNode now.
    Render(render::RenderArgs),
    /// Print the TaskPlan the controller would build for a SeiNode manifest.
    Plan(plan::PlanArgs),
    /// Persist the plan the planner would build for a SeiNode now and follow it to the end
    Exec(actions::exec::ExecArgs),
    /// Pin an image on SeiNodes in waves (a canary, then batches), previewing each update plan
    Rollout(actions::rollout::RolloutArgs),
    /// Set a SeiNode's external address: persist the update plan that writes it to config.toml,
    /// restart seid (it reads config.toml only at start) and read the address it advertises back
    /// through the P2P handshake
    Address(actions::address::AddressArgs),
    /// Seed nodes: `seed create NAME --chain-id ID --image REF` brings one up and prints its peer
    /// string; `seed probe NODE` dials it from here and checks its P2P handshake
    #[command(subcommand)]
    Seed(actions::seed::SeedCommand),
    /// List the local journal of operator actions (who did what, when, with what outcome).
    Journal(journal::JournalArgs),
    /// Restart a SeiNode's pod: delete it for its StatefulSet to create it again, wait until
    /// Ready
    Restart(actions::restart::RestartArgs),
    /// Pause a SeiNode: spec.paused freezes its reconciliation and its StatefulSet scales to zero
    /// (the pod terminates, the data stays); not on a Failed node
    Pause(actions::pause::PauseArgs),
    /// Resume a paused SeiNode: spec.paused cleared, its StatefulSet scales back and the pod
    /// starts again
    Resume(actions::pause::PauseArgs),
    /// The console's version and commit, the upstream versions it ports, and how the cluster's
    /// SeiNode CRD compares with the one it embeds.
    Version(version::VersionArgs),
}

impl Command {
    /// The subcommand's name when it works on one cluster: several `--context` are refused
    /// before it runs (the console, `get`, `describe`, `journal`, `doctor` and `rollout
    /// --across-clusters` read several).
    fn one_cluster(&self) -> Option<&'static str> {
        match self {
            Command::Logs(_) => Some("logs"),
            Command::Render(_) => Some("render"),
            Command::Exec(_) => Some("exec"),
            Command::Address(_) => Some("address"),
            Command::Seed(_) => Some("seed"),
            Command::Restart(_) => Some("restart"),
            Command::Pause(_) => Some("pause"),
            Command::Resume(_) => Some("resume"),
            Command::Version(_) => Some("version"),
            Command::Get(_)
            | Command::Describe(_)
            | Command::Doctor(_)
            | Command::Completion { .. }
            | Command::Man(_)
            | Command::Plan(_)
            | Command::Rollout(_)
            | Command::Journal(_) => None,
        }
    }
}

/// Error reported at the edge as one line on stderr.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The user's input is wrong: exit code 2.
    #[error("{0}")]
    BadInput(String),
    /// Anything else that stopped the command: exit code 1.
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    fn exit_code(&self) -> ExitCode {
        match self {
            CliError::BadInput(_) => ExitCode::from(EXIT_BAD_INPUT),
            CliError::Failed(_) => ExitCode::FAILURE,
        }
    }
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    complete::answer_if_asked();
    let cli = match parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(err) => err.exit(),
    };
    // Before the first client: every one the process makes honours them.
    crate::kube::timeout::set_generic(crate::kube::timeout::Generic {
        as_user: cli.global.as_user.clone(),
        as_groups: cli.global.as_group.clone(),
        request_timeout: cli.global.request_timeout,
    });
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            // One hostile value never makes a megabyte line.
            eprintln!(
                "error: {}",
                crate::limits::elide_long_lines(&err.to_string())
            );
            err.exit_code()
        }
    }
}

/// Worker threads of the process's runtime. The console's loop runs on the main thread (it
/// blocks on the runtime) and every watch, probe and action is I/O-bound, so one worker does;
/// each more gives the allocator another heap to leave half-used (measured with 10,000 watched
/// SeiNodes: 81 MiB with one worker, 103 MiB with two, and 10% less CPU; BENCHMARKS.md). What
/// blocks runs on the runtime's blocking pool.
pub const RUNTIME_WORKERS: usize = 1;

/// Runs the command on the process's one async runtime.
fn run(cli: Cli) -> Result<ExitCode, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(RUNTIME_WORKERS)
        .enable_all()
        .build()
        .map_err(|e| CliError::Failed(format!("cannot start the async runtime: {e}")))?
        .block_on(dispatch(cli))
}

/// The SeiNodes a command that reaches a cluster names (none for `doctor` and the console);
/// `None` for the commands that check no name (`plan`, `render`, `journal`, `version`,
/// `completion`, `man`).
/// `seed create NAME` creates its node and `seed probe` takes a node or an address, so their
/// names are not checked here.
fn named_nodes(command: Option<&Command>) -> Option<Vec<String>> {
    let one = |node: &String| Some(vec![node.clone()]);
    match command {
        Some(Command::Get(args)) => Some(args.nodes.clone()),
        Some(Command::Rollout(args)) => Some(args.nodes.clone()),
        Some(Command::Describe(args)) => one(&args.node),
        Some(Command::Logs(args)) => Some(args.node.iter().cloned().collect()),
        Some(Command::Exec(args)) => one(&args.node),
        Some(Command::Address(args)) => one(&args.node),
        Some(Command::Restart(args)) => one(&args.node),
        Some(Command::Pause(args) | Command::Resume(args)) => one(&args.node),
        Some(Command::Doctor(_) | Command::Seed(_)) | None => Some(Vec::new()),
        Some(
            Command::Plan(_)
            | Command::Render(_)
            | Command::Journal(_)
            | Command::Version(_)
            | Command::Completion { .. }
            | Command::Man(_),
        ) => None,
    }
}

async fn dispatch(cli: Cli) -> Result<ExitCode, CliError> {
    if let Some(command) = cli.command.as_ref().and_then(Command::one_cluster) {
        cli.global.single_cluster(command)?;
    }
    // Bad input is named before any name is looked up in a cluster.
    if let Some(Command::Address(args)) = cli.command.as_ref() {
        crate::actions::address::ExternalAddress::parse(&args.external_address)
            .map_err(|e| CliError::BadInput(e.to_string()))?;
    }
    // Names that do not exist are errors before anything happens (`names`).
    if let Some(nodes) = named_nodes(cli.command.as_ref()) {
        names::check(&cli.global, &nodes).await?;
    }
    let global = &cli.global;
    match cli.command {
        Some(Command::Completion { shell }) => {
            complete::write_script(shell, "sei-console", &mut std::io::stdout().lock())
                .map_err(|e| CliError::Failed(format!("cannot write output: {e}")))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Man(args)) => {
            man::run(&args)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Plan(args)) => {
            plan::run(&cli.global, &args, &mut std::io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Logs(args)) => {
            logs::run(&cli.global, &args).await?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Journal(args)) => {
            let mut out = Vec::new();
            let kubeconfig = cli.global.kubeconfig.as_deref();
            journal::run(&args, kubeconfig, &cli.global.context, &mut out).await?;
            std::io::Write::write_all(&mut std::io::stdout().lock(), &out)
                .map_err(|e| CliError::Failed(format!("cannot write output: {e}")))?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Render(args)) => {
            render::run(&cli.global, &args).await?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Get(args)) => {
            get::run(&cli.global, &args).await?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Describe(args)) => {
            describe::run(&cli.global, &args).await?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Doctor(args)) => Ok(doctor::run(&cli.global, &args).await),
        Some(Command::Exec(args)) => actions::exec::run(global, &args).await,
        // `--across-clusters`: `rollout::clusters` refuses several `--context` without it.
        Some(Command::Rollout(args)) => actions::rollout::run_clusters(global, &args).await,
        Some(Command::Address(args)) => actions::address::run(global, &args).await,
        Some(Command::Seed(command)) => actions::seed::run(global, &command).await,
        Some(Command::Restart(args)) => actions::restart::run(global, &args).await,
        Some(Command::Pause(args)) => actions::pause::run(global, &args, true).await,
        Some(Command::Resume(args)) => actions::pause::run(global, &args, false).await,
        Some(Command::Version(args)) => version::run(&cli.global, &args).await,
        None => {
            tui::open(&cli.global).await?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
