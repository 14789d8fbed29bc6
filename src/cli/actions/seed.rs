//! `sei-console seed create NAME --chain-id ID --image REF`: generate (or reuse) a node key,
//! create its Secret and the seed SeiNode, follow the init plan, and end with the peer string
//! `<NodeID>@<externalAddress>` once the sidecar reports the same NodeID. The private key only
//! ever goes into the Secret's data. `seed probe` (read-only, not an action) is declared beside
//! it: both are words of the one `seed` command.
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::actions::address::ExternalAddress;
use crate::actions::image_ref::ImageRef;
use crate::cli::action::{ActionArgs, drive};
use crate::cli::{CliError, GlobalArgs};
use crate::ops::actions::seed::SeedInput;

#[derive(Debug, Subcommand)]
pub enum SeedCommand {
    /// Bring up a seed node with a new (or existing) node key and print its peer string.
    Create(SeedCreateArgs),
    /// Dial a seed like a peer would, complete the P2P handshake and check what it advertises.
    Probe(crate::cli::seed_probe::SeedProbeArgs),
}

#[derive(Debug, Args)]
pub struct SeedCreateArgs {
    /// Name of the seed SeiNode (in `-n NS`, or the context's namespace).
    #[arg(value_name = "NAME")]
    pub name: String,
    /// The chain the seed joins (`spec.chainId`, e.g. `pacific-1`); it names the genesis and
    /// peers the node is configured for.
    #[arg(long, value_name = "ID")]
    pub chain_id: String,
    /// The seid image (`name[:tag][@sha256:...]`).
    #[arg(long, value_name = "REF")]
    pub image: String,
    /// The routable `HOST:PORT` peers dial; needed for the peer string.
    #[arg(long, value_name = "HOST:PORT")]
    pub external_address: Option<String>,
    /// Use this existing Secret's `node_key.json` instead of generating a key.
    #[arg(long, value_name = "NAME")]
    pub node_key_secret: Option<String>,
    #[command(flatten)]
    pub action: ActionArgs,
}

pub async fn run(global: &GlobalArgs, command: &SeedCommand) -> Result<ExitCode, CliError> {
    match command {
        SeedCommand::Create(args) => create(global, args).await,
        SeedCommand::Probe(args) => crate::cli::seed_probe::run(global, args).await,
    }
}

async fn create(global: &GlobalArgs, args: &SeedCreateArgs) -> Result<ExitCode, CliError> {
    let bad = |e: String| CliError::BadInput(e);
    let image = ImageRef::parse_to_pin(&args.image).map_err(|e| bad(e.to_string()))?;
    let external_address = args
        .external_address
        .as_deref()
        .map(ExternalAddress::parse)
        .transpose()
        .map_err(|e| bad(e.to_string()))?;
    let input = SeedInput {
        name: args.name.clone(),
        chain_id: args.chain_id.clone(),
        image,
        external_address,
        node_key_secret: args.node_key_secret.clone(),
        wait: !args.action.no_wait,
        dry_run: args.action.dry_run,
    };
    drive(global, &args.action, (&args.action).into(), &input).await
}
