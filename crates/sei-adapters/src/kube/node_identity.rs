//! A seed's NodeID for the node screen and `describe`: from its node-key Secret when the
//! operator may read it, else from its sidecar's `/v0/node-id`; otherwise every reason why not.
use std::time::Duration;

use k8s_openapi::api::core::v1::Secret;
use kube::Api;

use crate::actions::node_key::{NODE_KEY_FILE, NodeKey};
use crate::api::{NodeMode, SeiNode};
use crate::fleet::detail::{NodeIdLookup, NodeIdSource};
use crate::ports::{SidecarApi, SidecarTarget};

/// Upper bound on one `/v0/node-id` call, so a dead pod never holds the lookup.
pub const SIDECAR_TIMEOUT: Duration = Duration::from_secs(3);

/// The NodeID of `node` when it is a seed (`None` for every other mode).
pub async fn seed_node_id(
    client: &::kube::Client,
    sidecar: Result<&dyn SidecarApi, &str>,
    node: &SeiNode,
) -> Option<NodeIdLookup> {
    if node.spec.mode().ok() != Some(NodeMode::Seed) {
        return None;
    }
    let mut reasons = Vec::new();
    let secret = node.spec.node_key_secret_name();
    if secret.is_empty() {
        reasons.push("no node-key Secret in spec.seed.nodeKey".to_owned());
    } else {
        match from_secret(client, node.namespace(), secret).await {
            Ok(node_id) => {
                return Some(NodeIdLookup::Found {
                    node_id,
                    source: NodeIdSource::Secret(secret.to_owned()),
                });
            }
            Err(reason) => reasons.push(reason),
        }
    }
    match sidecar {
        Ok(sidecar) => {
            let target = SidecarTarget::new(node.namespace(), node.name());
            match tokio::time::timeout(SIDECAR_TIMEOUT, sidecar.node_id(&target)).await {
                Ok(Ok(node_id)) => {
                    return Some(NodeIdLookup::Found {
                        node_id,
                        source: NodeIdSource::Sidecar,
                    });
                }
                Ok(Err(err)) => reasons.push(format!("sidecar: {err}")),
                Err(_) => reasons.push(format!(
                    "sidecar: no answer within {}s",
                    SIDECAR_TIMEOUT.as_secs()
                )),
            }
        }
        Err(why) => reasons.push(format!("sidecar: {why}")),
    }
    Some(NodeIdLookup::NotFound { reasons })
}

async fn from_secret(
    client: &::kube::Client,
    namespace: &str,
    name: &str,
) -> Result<String, String> {
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let secret = match api.get_opt(name).await {
        Ok(Some(secret)) => secret,
        Ok(None) => return Err(format!("Secret {name} not found")),
        Err(::kube::Error::Api(status)) if status.code == 403 => {
            return Err(format!("Secret {name}: forbidden"));
        }
        Err(err) => return Err(format!("Secret {name}: {}", super::errors::describe(&err))),
    };
    let json = secret
        .data
        .as_ref()
        .and_then(|d| d.get(NODE_KEY_FILE))
        .map(|b| String::from_utf8_lossy(&b.0).into_owned())
        .ok_or_else(|| format!("Secret {name} has no {NODE_KEY_FILE}"))?;
    NodeKey::from_node_key_json(&json)
        .map(|key| key.node_id())
        .map_err(|e| format!("Secret {name}: {e}"))
}
