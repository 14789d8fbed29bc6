//! `sei-console seed create NAME --chain-id ID --image REF`: generate (or reuse) a node key,
//! create its Secret and the seed SeiNode, follow the init plan, and end with the peer string
//! `<NodeID>@<externalAddress>` once the sidecar reports the same NodeID. The private key only
//! ever goes into the Secret's data.
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, ObjectMeta, PostParams};

use super::action::{ActionArgs, ActionOutput, Execution, Session};
use super::{CliError, GlobalArgs};
use crate::actions::address::ExternalAddress;
use crate::actions::event::ActionKind;
use crate::actions::image_ref::ImageRef;
use crate::actions::node_key::{NODE_KEY_FILE, NodeKey};
use crate::actions::permissions::{SeedKey, seed_create_checks};
use crate::api::{NodeKeySource, SecretNameRef, SeedSpec, SeiNode, SeiNodeSpec};
use crate::executor::driver::Persisted;
use crate::journal::Outcome;
use crate::planner::{PlanContext, preview};
use crate::ports::{Clock, SidecarApi, SidecarTarget};

#[derive(Debug, Subcommand)]
pub enum SeedCommand {
    /// Bring up a seed node with a new (or existing) node key and print its peer string.
    Create(SeedCreateArgs),
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
    let SeedCommand::Create(args) = command;
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

    let node = seed_node(
        &session.namespace,
        name,
        args,
        &image,
        address.as_ref(),
        &secret_name,
    );
    let ctx = PlanContext::from_platform(&execution.platform, execution.clock.now());
    let init = preview(&node, None, &ctx).map_err(|e| CliError::BadInput(e.to_string()))?;
    let plan = init.outcome.ok();
    let mut text = String::new();
    let _ = writeln!(text, "Seed bring-up of {}/{name}", session.namespace);
    let _ = writeln!(text, "  chain: {}  image: {image}", args.chain_id);
    for warning in image.warnings() {
        let _ = writeln!(text, "  warning: {warning}");
    }
    let key_line = if generated {
        format!("new ed25519 key in a new Secret {secret_name} (key {NODE_KEY_FILE})")
    } else {
        format!("existing Secret {secret_name}")
    };
    let _ = writeln!(text, "  node key: {key_line}; NodeID {node_id}");
    match &peer {
        Some(peer) => {
            let _ = writeln!(text, "  peer: {peer}");
        }
        None => {
            let _ = writeln!(text, "  peer: needs --external-address HOST:PORT");
        }
    }
    if let Some(plan) = &plan {
        let kinds: Vec<&str> = plan.tasks.iter().map(|t| t.kind.as_str()).collect();
        let _ = writeln!(
            text,
            "Init plan ({} tasks): {}",
            kinds.len(),
            kinds.join(", ")
        );
    }
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

    if generated {
        let secret = Secret {
            metadata: ObjectMeta {
                name: Some(secret_name.clone()),
                namespace: Some(session.namespace.clone()),
                labels: Some(BTreeMap::from([(
                    "app.kubernetes.io/managed-by".to_owned(),
                    "sei-console".to_owned(),
                )])),
                ..ObjectMeta::default()
            },
            data: Some(BTreeMap::from([(
                NODE_KEY_FILE.to_owned(),
                ByteString(key.to_node_key_json().expose().as_bytes().to_vec()),
            )])),
            type_: Some("Opaque".to_owned()),
            ..Secret::default()
        };
        secrets
            .create(&PostParams::default(), &secret)
            .await
            .map_err(|e| CliError::Failed(format!("creating Secret {secret_name}: {e}")))?;
    }
    let api: Api<SeiNode> = Api::namespaced(session.client.clone(), &session.namespace);
    let created = api
        .create(&PostParams::default(), &node)
        .await
        .map_err(|e| CliError::Failed(format!("creating SeiNode {name}: {e}")))?;
    let uid = created.metadata.uid.clone().unwrap_or_default();
    session
        .record_event(
            name,
            &uid,
            &format!("seed created with NodeID {node_id} (Secret {secret_name})"),
        )
        .await;
    session.journal(
        &nodes,
        &format!("{detail}, NodeID {node_id}"),
        Outcome::Started,
        None,
    );
    if args.action.no_wait {
        return Ok(result(
            &session,
            true,
            "seed created; not waiting (--no-wait)",
            &node_id,
            peer.as_deref(),
            false,
        ));
    }
    let persisted = execution
        .driver()
        .persist(&session.namespace, name, &execution.platform.images.sidecar)
        .await
        .map_err(|e| CliError::Failed(format!("{}/{name}: {e}", session.namespace)))?;
    if let Persisted::None(reason) = &persisted {
        return Err(CliError::Failed(format!("{name}: no init plan: {reason}")));
    }
    let executor = session.executor(&args.action);
    let failure = match execution
        .follow_plan(&session, executor, &args.action.controller_namespace, name)
        .await
    {
        Ok(None) => None,
        Ok(Some(reason)) => Some(format!("{}/{name}: {reason}", session.namespace)),
        // A render failure (with its fix) or a driver error, already naming the node.
        Err(CliError::Failed(reason)) => Some(reason),
        Err(other) => return Err(other),
    };
    if let Some(reason) = failure {
        session.journal(&nodes, &detail, Outcome::Failed, Some(reason.clone()));
        return Ok(result(
            &session,
            false,
            &reason,
            &node_id,
            peer.as_deref(),
            false,
        ));
    }
    let target = SidecarTarget::new(&session.namespace, name);
    let reported = read_node_id(&execution.sidecar, &target)
        .await
        .map_err(|e| {
            CliError::Failed(format!(
                "the seed runs but its sidecar's node ID could not be read: {e}"
            ))
        })?;
    if reported != node_id {
        let reason = format!("the sidecar reports NodeID {reported}, the key says {node_id}");
        session.journal(&nodes, &detail, Outcome::Failed, Some(reason.clone()));
        return Ok(result(
            &session,
            false,
            &reason,
            &node_id,
            peer.as_deref(),
            false,
        ));
    }
    session.journal(
        &nodes,
        &format!("{detail}, NodeID {node_id}"),
        Outcome::Succeeded,
        None,
    );
    let message = match &peer {
        Some(peer) => format!("seed running; peer {peer}"),
        None => format!("seed running; NodeID {node_id} (no external address for a peer string)"),
    };
    Ok(result(
        &session,
        true,
        &message,
        &node_id,
        peer.as_deref(),
        true,
    ))
}

/// How long a Running seed's sidecar may keep answering "node key not there yet".
const NODE_ID_DEADLINE: std::time::Duration = std::time::Duration::from_secs(30);
const NODE_ID_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// `/v0/node-id`, retried while the answer is transient (the key file can appear a moment after
/// the pod starts), bounded by [`NODE_ID_DEADLINE`].
async fn read_node_id(
    sidecar: &dyn SidecarApi,
    target: &SidecarTarget,
) -> Result<String, crate::ports::SidecarError> {
    let deadline = tokio::time::Instant::now() + NODE_ID_DEADLINE;
    loop {
        match sidecar.node_id(target).await {
            Err(err) if err.is_transient() && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(NODE_ID_POLL).await;
            }
            answer => return answer,
        }
    }
}

fn seed_node(
    namespace: &str,
    name: &str,
    args: &SeedCreateArgs,
    image: &ImageRef,
    address: Option<&ExternalAddress>,
    secret_name: &str,
) -> SeiNode {
    let seed = SeedSpec {
        node_key: NodeKeySource {
            secret: Some(SecretNameRef {
                secret_name: secret_name.to_owned(),
                ..SecretNameRef::default()
            }),
            ..NodeKeySource::default()
        },
        ..SeedSpec::default()
    };
    SeiNode::new(
        namespace,
        name,
        SeiNodeSpec {
            chain_id: args.chain_id.clone(),
            image: image.to_string(),
            external_address: address.map(ToString::to_string),
            seed: Some(seed),
            ..SeiNodeSpec::default()
        },
    )
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
