//! `sei-console seed create NAME --chain-id ID --image REF`: generate (or reuse) a node key,
//! create its Secret and the seed SeiNode, follow the init plan, and end with the peer string
//! `<NodeID>@<externalAddress>` once the sidecar reports the same NodeID. The private key only
//! ever goes into the Secret's data.
use std::process::ExitCode;

use clap::{Args, Subcommand};
use k8s_openapi::api::core::v1::Secret;
use kube::api::Api;

use super::action::{ActionArgs, ActionOutput, Execution, Session};
use super::{CliError, GlobalArgs};
use crate::actions::address::ExternalAddress;
use crate::actions::event::ActionKind;
use crate::actions::image_ref::ImageRef;
use crate::actions::node_key::{NODE_KEY_FILE, NodeKey};
use crate::actions::permissions::{SeedKey, seed_create_checks};
use crate::journal::Outcome;
use crate::operate::steps::{SeedRequest, seed_node, seed_preview_text};
use crate::planner::{PlanContext, preview};
use crate::ports::Clock;

#[derive(Debug, Subcommand)]
pub enum SeedCommand {
    /// Bring up a seed node with a new (or existing) node key and print its peer string.
    Create(SeedCreateArgs),
    /// Dial a seed like a peer would, complete the P2P handshake and check what it advertises.
    Probe(super::seed_probe::SeedProbeArgs),
}

#[derive(Debug, Args)]
pub struct SeedCreateArgs {
    /// Name of the seed SeiNode (in `-n NS`, or the context's namespace).
    #[arg(value_name = "NAME")]
    pub name: String,
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

pub fn run(global: &GlobalArgs, command: &SeedCommand) -> Result<ExitCode, CliError> {
    let args = match command {
        SeedCommand::Create(args) => args,
        SeedCommand::Probe(args) => return super::seed_probe::run(global, args),
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::Failed(format!("starting the runtime: {e}")))?
        .block_on(create(global, args))
}

async fn create(global: &GlobalArgs, args: &SeedCreateArgs) -> Result<ExitCode, CliError> {
    let bad = |e: String| CliError::BadInput(e);
    let image = ImageRef::parse(&args.image).map_err(|e| bad(e.to_string()))?;
    let address = args
        .external_address
        .as_deref()
        .map(ExternalAddress::parse)
        .transpose()
        .map_err(|e| bad(e.to_string()))?;
    let name = args.name.as_str();
    let nodes = vec![name.to_owned()];
    let detail = format!("seed for chain {} with image {image}", args.chain_id);
    let session = Session::open(
        global,
        &args.action,
        ActionKind::SeedCreate,
        &nodes,
        &detail,
    )
    .await?;
    let execution = Execution::new(&session, &args.action).await?;
    let secrets: Api<Secret> = Api::namespaced(session.client.clone(), &session.namespace);

    let (secret_name, key, generated) = match &args.node_key_secret {
        Some(secret_name) => {
            let secret = secrets
                .get_opt(secret_name)
                .await
                .map_err(|e| CliError::Failed(format!("reading Secret {secret_name}: {e}")))?
                .ok_or_else(|| {
                    bad(format!(
                        "Secret {}/{secret_name} not found",
                        session.namespace
                    ))
                })?;
            let json = secret
                .data
                .as_ref()
                .and_then(|d| d.get(NODE_KEY_FILE))
                .map(|b| String::from_utf8_lossy(&b.0).into_owned())
                .ok_or_else(|| bad(format!("Secret {secret_name} has no {NODE_KEY_FILE}")))?;
            let key = NodeKey::from_node_key_json(&json)
                .map_err(|e| bad(format!("Secret {secret_name}: {e}")))?;
            (secret_name.clone(), key, false)
        }
        None => {
            let key = NodeKey::generate().map_err(|e| CliError::Failed(e.to_string()))?;
            (format!("{name}-node-key"), key, true)
        }
    };
    let node_id = key.node_id();
    let peer = address.as_ref().map(|a| key.peer_string(a));

    let request = SeedRequest {
        namespace: session.namespace.clone(),
        name: name.to_owned(),
        chain_id: args.chain_id.clone(),
        image: image.clone(),
        external_address: address.clone(),
        secret_name: secret_name.clone(),
    };
    let node = seed_node(&request);
    let ctx = PlanContext::from_platform(&execution.platform, execution.clock.now());
    let init = preview(&node, None, &ctx).map_err(|e| CliError::BadInput(e.to_string()))?;
    let plan = init.outcome.ok();
    let text = seed_preview_text(&request, generated, &node_id, plan.as_ref());
    let json = serde_json::json!({"event": "preview", "preview": {
        "namespace": session.namespace, "node": name, "chainId": args.chain_id,
        "image": image.to_string(), "nodeKeySecret": secret_name, "generatedKey": generated,
        "nodeId": node_id, "peer": peer, "plan": plan,
    }});
    session.print_preview(&text, &json);
    if args.action.dry_run {
        session.journal(&nodes, &detail, Outcome::DryRun, None);
        session.finish(
            true,
            "dry run: nothing was changed (the generated key was discarded)",
            None,
        );
        return Ok(ExitCode::SUCCESS);
    }
    let ns = session.namespace.as_str();
    // The init plan runs once the seed exists (embedded executor, or the controller).
    let tasks: Vec<_> = plan
        .iter()
        .flat_map(|p| p.tasks.iter().map(|t| t.kind.clone()))
        .collect();
    let key_source = if generated {
        SeedKey::Generated
    } else {
        SeedKey::Existing(&secret_name)
    };
    let scope = execution.scope(&session, &args.action);
    let checks = seed_create_checks(&scope, ns, name, key_source, &tasks);
    if let Err(err) = session.check(checks.as_slice()).await {
        session.journal(&nodes, &detail, Outcome::Refused, Some(err.to_string()));
        return Err(err);
    }
    session.confirm(&args.action, &format!("create seed {name}?"))?;

    let (end, verified) = execution
        .runner(&session, &args.action)
        .seed(&request, &key, generated, !args.action.no_wait, &session)
        .await
        .map_err(|e| CliError::Failed(e.to_string()))?;
    Ok(result(
        &session,
        end.ok,
        &end.message,
        &node_id,
        peer.as_deref(),
        verified,
    ))
}

/// The last line; in JSON it carries `peer` and `nodeId`.
fn result(
    session: &Session,
    ok: bool,
    message: &str,
    node_id: &str,
    peer: Option<&str>,
    verified: bool,
) -> ExitCode {
    match session.output {
        ActionOutput::Text if ok => println!("{message}"),
        ActionOutput::Text => eprintln!("error: {message}"),
        ActionOutput::Json => println!(
            "{}",
            serde_json::json!({"event": "result", "ok": ok, "message": message,
                "nodeId": node_id, "peer": peer, "verified": verified})
        ),
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
