//! What a seed bring-up creates and previews: the seed SeiNode, the node key's Secret, and the
//! text preview.
use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::SeedRequest;
use crate::actions::node_key::{NODE_KEY_FILE, NodeKey};
use crate::api::{NodeKeySource, SecretNameRef, SeedSpec, SeiNode, SeiNodeSpec, TaskPlan};

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
            seed: Some(Box::new(seed)),
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
