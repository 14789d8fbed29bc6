//! Node identity: `GET /v0/node-id` (spec 2.5) and the `generate-identity` task (spec 7.9).
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{DEFAULT_CONFIG_TOML, marker_done, parse, write_marker};
use crate::engine::Outcome;

/// Why `/v0/node-id` answers 500; the messages are the sidecar's, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeIdError {
    #[error("node_key.json not found \u{2014} generate-identity may not have run yet")]
    Missing,
    #[error("failed to parse node_key.json")]
    NotJson,
    #[error("invalid Ed25519 key in node_key.json")]
    BadKey,
}

#[derive(Deserialize)]
struct NodeKeyFile {
    priv_key: PrivKey,
}

#[derive(Deserialize)]
struct PrivKey {
    value: String,
}

/// The CometBFT node ID of `<home>/config/node_key.json`: lowercase hex of the first 20 bytes of
/// SHA-256 over the public key (the last 32 of the 64 key bytes).
pub fn node_id(home: &Path) -> Result<String, NodeIdError> {
    let bytes = std::fs::read(home.join("config").join("node_key.json"))
        .map_err(|_| NodeIdError::Missing)?;
    let file: NodeKeyFile = serde_json::from_slice(&bytes).map_err(|_| NodeIdError::NotJson)?;
    let key = STANDARD
        .decode(file.priv_key.value)
        .map_err(|_| NodeIdError::BadKey)?;
    if key.len() != 64 {
        return Err(NodeIdError::BadKey);
    }
    let digest = Sha256::digest(&key[32..]);
    Ok(hex(&digest[..20]))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdentityParams {
    #[serde(default)]
    chain_id: String,
    #[serde(default)]
    moniker: String,
}

/// Creates `node_key.json`, `priv_validator_key.json` and `data/priv_validator_state.json`,
/// overwrites `config.toml` with the default template (the stand-in's template is the embedded
/// minimal one) and writes a minimal `genesis.json` when none exists.
pub fn generate(home: &Path, params: Option<&Value>) -> Result<Outcome, Outcome> {
    const MARKER: &str = ".sei-sidecar-identity-done";
    let params: IdentityParams = parse(params)?;
    if params.chain_id.is_empty() || params.moniker.is_empty() {
        return Err(Outcome::failed(
            "generate-identity: chainId and moniker are required",
        ));
    }
    if marker_done(home, MARKER) {
        return Ok(Outcome::ok());
    }
    let fail = |err: String| Outcome::failed(format!("generate-identity: {err}"));
    let node_key = new_keypair().map_err(fail)?;
    let validator_key = new_keypair().map_err(fail)?;
    let config = home.join("config");
    let write = |path: std::path::PathBuf, text: String| {
        std::fs::write(&path, text)
            .map_err(|err| Outcome::failed(format!("generate-identity: {}: {err}", path.display())))
    };
    write(
        config.join("node_key.json"),
        json!({"priv_key": {"type": "tendermint/PrivKeyEd25519", "value": STANDARD.encode(node_key)}})
            .to_string(),
    )?;
    let public = &validator_key[32..];
    write(
        config.join("priv_validator_key.json"),
        json!({
            "address": hex(&Sha256::digest(public)[..20]).to_uppercase(),
            "pub_key": {"type": "tendermint/PubKeyEd25519", "value": STANDARD.encode(public)},
            "priv_key": {"type": "tendermint/PrivKeyEd25519", "value": STANDARD.encode(validator_key)},
        })
        .to_string(),
    )?;
    write(
        home.join("data").join("priv_validator_state.json"),
        r#"{"height":"0","round":0,"step":0}"#.to_owned(),
    )?;
    write(config.join("config.toml"), DEFAULT_CONFIG_TOML.to_owned())?;
    if !config.join("genesis.json").exists() {
        write(
            config.join("genesis.json"),
            json!({"chain_id": params.chain_id, "genesis_time": "2026-01-01T00:00:00Z"})
                .to_string(),
        )?;
    }
    write_marker(home, MARKER)?;
    Ok(Outcome::ok())
}

/// A fresh Ed25519 key as CometBFT stores it: 32-byte seed followed by the 32-byte public key.
fn new_keypair() -> Result<[u8; 64], String> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|err| format!("no randomness: {err}"))?;
    Ok(ed25519_dalek::SigningKey::from_bytes(&seed).to_keypair_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_id_errors_use_the_sidecar_messages() {
        let home = tempdir();
        assert_eq!(
            node_id(&home).expect_err("missing").to_string(),
            "node_key.json not found \u{2014} generate-identity may not have run yet"
        );
        std::fs::create_dir_all(home.join("config")).expect("mkdir");
        std::fs::write(home.join("config/node_key.json"), "{").expect("write");
        assert_eq!(node_id(&home), Err(NodeIdError::NotJson));
        std::fs::write(
            home.join("config/node_key.json"),
            r#"{"priv_key":{"value":"AAAA"}}"#,
        )
        .expect("write");
        assert_eq!(node_id(&home), Err(NodeIdError::BadKey));
    }

    #[test]
    fn node_id_hashes_the_public_half_of_a_real_key() {
        let home = tempdir();
        std::fs::create_dir_all(home.join("config")).expect("mkdir");
        let key = ed25519_dalek::SigningKey::from_bytes(&[7u8; 32]);
        let public = key.verifying_key().to_bytes();
        let file = json!({"priv_key": {"type": "tendermint/PrivKeyEd25519",
            "value": STANDARD.encode(key.to_keypair_bytes())}});
        std::fs::write(home.join("config/node_key.json"), file.to_string()).expect("write");
        let expected: String = Sha256::digest(public)[..20]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(node_id(&home).expect("node id"), expected);
    }

    fn tempdir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("standin-identity-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        dir
    }
}
