//! The changes the actions make, in the order they make them; each step fails with a message
//! that says what was and was not changed.
use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams};

use crate::actions::address::ExternalAddress;
use crate::actions::image_ref::ImageRef;
use crate::actions::node_key::{NODE_KEY_FILE, NodeKey};
use crate::actions::preview::address_preview;
use crate::api::{NodeKeySource, SecretNameRef, SeedSpec, SeiNode, SeiNodeSpec, TaskPlan};
use crate::executor::driver::{Driver, Persisted};
use crate::planner::PlanContext;
use crate::ports::{ClusterApi, StatusPatch};

/// A step that stopped; the message names the node and what state it was left in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StepError(pub String);

/// Patches `spec.image` and persists the update plan the planner then builds (or finds the
/// Active one). Returns what was persisted.
pub async fn pin_image(
    client: &kube::Client,
    driver: &Driver<'_>,
    namespace: &str,
    node: &str,
    image: &ImageRef,
    platform_sidecar_image: &str,
) -> Result<Persisted, StepError> {
    let api: Api<SeiNode> = Api::namespaced(client.clone(), namespace);
    let patch = serde_json::json!({"spec": {"image": image.to_string()}});
    api.patch(node, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| StepError(format!("patching spec.image of {node}: {e}")))?;
    driver
        .persist(namespace, node, platform_sidecar_image)
        .await
        .map_err(|e| StepError(format!("{namespace}/{node}: {e}")))
}

/// Patches `spec.externalAddress` and persists the update plan whose config-patch carries it.
/// The plan is built from the stored node and written under its resourceVersion, so a
/// concurrent writer (the controller persisting its own plan) makes this fail, not clobber.
/// Returns the patched node and the persisted plan.
pub async fn set_address(
    client: &kube::Client,
    cluster: &dyn ClusterApi,
    namespace: &str,
    node: &str,
    address: &ExternalAddress,
    ctx: &PlanContext,
) -> Result<(SeiNode, TaskPlan), StepError> {
    let api: Api<SeiNode> = Api::namespaced(client.clone(), namespace);
    let patch = serde_json::json!({"spec": {"externalAddress": address.to_string()}});
    let patched = api
        .patch(node, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .map_err(|e| StepError(format!("patching spec.externalAddress of {node}: {e}")))?;
    let plan = address_preview(&patched, address, ctx)
        .map_err(|e| StepError(e.to_string()))?
        .plan
        .plan
        .ok_or_else(|| StepError(format!("{node}: the update plan vanished")))?;
    let status_patch = StatusPatch {
        resource_version: patched
            .metadata
            .resource_version
            .clone()
            .unwrap_or_default(),
        status: serde_json::json!({"plan": plan}),
    };
    cluster
        .patch_seinode_status(namespace, node, &status_patch)
        .await
        .map_err(|e| {
            StepError(format!(
                "spec.externalAddress is set but the update plan could not be persisted: {e}"
            ))
        })?;
    Ok((patched, plan))
}

/// What a seed is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedRequest {
    pub namespace: String,
    pub name: String,
    pub chain_id: String,
    pub image: ImageRef,
    pub external_address: Option<ExternalAddress>,
    /// The Secret holding (or to hold) `node_key.json`.
    pub secret_name: String,
}

/// The seed SeiNode, its node key read from `secret_name`.
pub fn seed_node(request: &SeedRequest) -> SeiNode {
    let seed = SeedSpec {
        node_key: NodeKeySource {
            secret: Some(SecretNameRef {
                secret_name: request.secret_name.clone(),
                ..SecretNameRef::default()
            }),
            ..NodeKeySource::default()
        },
        ..SeedSpec::default()
    };
    SeiNode::new(
        &request.namespace,
        &request.name,
        SeiNodeSpec {
            chain_id: request.chain_id.clone(),
            image: request.image.to_string(),
            external_address: request.external_address.as_ref().map(ToString::to_string),
            seed: Some(seed),
            ..SeiNodeSpec::default()
        },
    )
}

/// The Secret for a generated key; the private key goes nowhere else.
pub fn node_key_secret(namespace: &str, secret_name: &str, key: &NodeKey) -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some(secret_name.to_owned()),
            namespace: Some(namespace.to_owned()),
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
    }
}

/// Creates the key's Secret (when generated) and the seed SeiNode; returns the created node.
pub async fn create_seed(
    client: &kube::Client,
    request: &SeedRequest,
    generated_key: Option<&NodeKey>,
) -> Result<SeiNode, StepError> {
    let namespace = request.namespace.as_str();
    if let Some(key) = generated_key {
        let secrets: Api<Secret> = Api::namespaced(client.clone(), namespace);
        secrets
            .create(
                &PostParams::default(),
                &node_key_secret(namespace, &request.secret_name, key),
            )
            .await
            .map_err(|e| StepError(format!("creating Secret {}: {e}", request.secret_name)))?;
    }
    let api: Api<SeiNode> = Api::namespaced(client.clone(), namespace);
    api.create(&PostParams::default(), &seed_node(request))
        .await
        .map_err(|e| StepError(format!("creating SeiNode {}: {e}", request.name)))
}

/// The text preview of a seed bring-up. `node_id` is the key's NodeID; the peer string needs
/// the external address.
pub fn seed_preview_text(
    request: &SeedRequest,
    generated: bool,
    node_id: &str,
    plan: Option<&TaskPlan>,
) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "Seed bring-up of {}/{}",
        request.namespace, request.name
    );
    let _ = writeln!(
        text,
        "  chain: {}  image: {}",
        request.chain_id, request.image
    );
    for warning in request.image.warnings() {
        let _ = writeln!(text, "  warning: {warning}");
    }
    let key_line = if generated {
        format!(
            "new ed25519 key in a new Secret {} (key {NODE_KEY_FILE})",
            request.secret_name
        )
    } else {
        format!("existing Secret {}", request.secret_name)
    };
    let _ = writeln!(text, "  node key: {key_line}; NodeID {node_id}");
    match &request.external_address {
        Some(address) => {
            let _ = writeln!(text, "  peer: {node_id}@{address}");
        }
        None => {
            let _ = writeln!(text, "  peer: needs --external-address HOST:PORT");
        }
    }
    if let Some(plan) = plan {
        let kinds: Vec<&str> = plan.tasks.iter().map(|t| t.kind.as_str()).collect();
        let _ = writeln!(
            text,
            "Init plan ({} tasks): {}",
            kinds.len(),
            kinds.join(", ")
        );
    }
    text
}
