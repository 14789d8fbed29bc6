//! The P2P stand-in as the seed `seed create` brings up: it listens on a loopback address
//! published as the seed's external address before the key exists, and takes the key from the
//! node-key Secret once `seed create` has written it.
use std::time::Duration;

use base64::Engine;
use k8s_openapi::api::core::v1::Secret;

use super::TestNamespace;
use crate::p2p_standin::{Misbehaviour, P2pStandin, StandinConfig};

/// A stand-in for seed `node` of `ns` on chain `pacific-1`, misbehaving as told, keyed from the
/// Secret `<node>-node-key` as soon as it appears (polled for up to two minutes).
pub async fn standin_for_new_seed(ns: &TestNamespace, node: &str, how: Misbehaviour) -> P2pStandin {
    let config = StandinConfig::healthy("pacific-1").with(how);
    let (standin, key) = P2pStandin::start_with_key_later(config).await;
    let secrets = ns.api::<Secret>();
    let name = format!("{node}-node-key");
    tokio::spawn(async move {
        for _ in 0..600 {
            if let Ok(Some(secret)) = secrets.get_opt(&name).await
                && let Some(seed) = key_seed(&secret)
            {
                let _ = key.send(Some(seed));
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    standin
}

/// The ed25519 seed of a Secret's `node_key.json` (`priv_key.value` = base64(seed || public)).
fn key_seed(secret: &Secret) -> Option<[u8; 32]> {
    let json = &secret.data.as_ref()?.get("node_key.json")?.0;
    let value: serde_json::Value = serde_json::from_slice(json).ok()?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(value["priv_key"]["value"].as_str()?)
        .ok()?;
    bytes.get(..32)?.try_into().ok()
}
