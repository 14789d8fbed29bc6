//! CometBFT node keys: ed25519, stored as `node_key.json`, identified by their NodeID.
//!
//! The private key never leaves this type except as [`SecretText`] for the Secret's data: both
//! redact themselves in `Debug` and neither implements `Display` or `Serialize`, so a key cannot
//! end up in a log line, a journal entry or `-o json` output by accident.
use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use ed25519_dalek::SigningKey;
use sha2::{Digest, Sha256};

/// Amino type name CometBFT uses for ed25519 private keys in `node_key.json`.
pub const PRIV_KEY_TYPE: &str = "tendermint/PrivKeyEd25519";
/// Key in the Secret's data (and file name in seid's config dir).
pub const NODE_KEY_FILE: &str = "node_key.json";

/// An ed25519 node key.
pub struct NodeKey {
    signing: SigningKey,
}

/// Secret text (the `node_key.json` document). `Debug` shows only its length.
pub struct SecretText(String);

impl SecretText {
    /// The secret itself, to put into a Secret's data and nowhere else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for SecretText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretText(<redacted, {} bytes>)", self.0.len())
    }
}

impl fmt::Debug for NodeKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeKey")
            .field("node_id", &self.node_id())
            .field("private_key", &"<redacted>")
            .finish()
    }
}

/// Why a `node_key.json` could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeKeyError {
    #[error("no randomness available to generate a node key: {0}")]
    Randomness(String),
    #[error(
        "node_key.json is not valid JSON of the form {{\"priv_key\":{{\"type\":...,\"value\":...}}}}"
    )]
    Malformed,
    #[error("node_key.json has key type {0:?}; only {PRIV_KEY_TYPE:?} is supported")]
    UnsupportedType(String),
    #[error("node_key.json key is not 64 bytes of base64 (seed and public key)")]
    BadValue,
    #[error("node_key.json public half does not match its private half")]
    Inconsistent,
}

/// The NodeID of an ed25519 public key: hex of the first 20 bytes of its SHA-256.
pub fn node_id_of(public_key: &[u8; 32]) -> String {
    let digest = Sha256::digest(public_key);
    digest[..20].iter().map(|b| format!("{b:02x}")).collect()
}

impl NodeKey {
    /// A fresh key from the operating system's random source.
    pub fn generate() -> Result<NodeKey, NodeKeyError> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|e| NodeKeyError::Randomness(e.to_string()))?;
        let key = NodeKey::from_seed(&seed);
        seed.fill(0);
        Ok(key)
    }

    /// The key whose 32-byte private seed is `seed`.
    pub fn from_seed(seed: &[u8; 32]) -> NodeKey {
        NodeKey {
            signing: SigningKey::from_bytes(seed),
        }
    }

    /// An ed25519 signature of `message` (the P2P handshake signs its 32-byte challenge).
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        use ed25519_dalek::Signer;
        self.signing.sign(message).to_bytes()
    }

    pub fn public_key(&self) -> [u8; 32] {
        self.signing.verifying_key().to_bytes()
    }

    /// Hex of the first 20 bytes of SHA-256 of the public key (CometBFT's `PubKeyToID`).
    pub fn node_id(&self) -> String {
        node_id_of(&self.public_key())
    }

    /// `{"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"<base64 of seed||pubkey>"}}`.
    pub fn to_node_key_json(&self) -> SecretText {
        let value = BASE64.encode(self.signing.to_keypair_bytes());
        let document = serde_json::json!({
            "priv_key": { "type": PRIV_KEY_TYPE, "value": value }
        });
        SecretText(document.to_string())
    }

    /// Reads a `node_key.json` (e.g. from an existing Secret named with `--node-key-secret`).
    pub fn from_node_key_json(text: &str) -> Result<NodeKey, NodeKeyError> {
        let document: serde_json::Value =
            serde_json::from_str(text).map_err(|_| NodeKeyError::Malformed)?;
        let priv_key = document.get("priv_key").ok_or(NodeKeyError::Malformed)?;
        let key_type = priv_key
            .get("type")
            .and_then(serde_json::Value::as_str)
            .ok_or(NodeKeyError::Malformed)?;
        if key_type != PRIV_KEY_TYPE {
            return Err(NodeKeyError::UnsupportedType(key_type.to_owned()));
        }
        let value = priv_key
            .get("value")
            .and_then(serde_json::Value::as_str)
            .ok_or(NodeKeyError::Malformed)?;
        let bytes = BASE64.decode(value).map_err(|_| NodeKeyError::BadValue)?;
        let pair: [u8; 64] = bytes.try_into().map_err(|_| NodeKeyError::BadValue)?;
        SigningKey::from_keypair_bytes(&pair)
            .map(|signing| NodeKey { signing })
            .map_err(|_| NodeKeyError::Inconsistent)
    }

    /// `<NodeID>@<host:port>`, the string other nodes put into their peer lists.
    pub fn peer_string(&self, external_address: &super::address::ExternalAddress) -> String {
        format!("{}@{external_address}", self.node_id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Derived independently with Python's `cryptography` (Ed25519PrivateKey.from_private_bytes
    // with seed bytes 0..32, raw public key, hashlib.sha256(pub).digest()[:20].hex()).
    const SEED: [u8; 32] = {
        let mut seed = [0u8; 32];
        let mut i = 0;
        while i < 32 {
            seed[i] = i as u8;
            i += 1;
        }
        seed
    };
    const PUBLIC_HEX: &str = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8";
    const NODE_ID: &str = "56475aa75463474c0285df5dbf2bcab73da65135";
    const VALUE: &str =
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8DoQe/884Qvh1w3RjnS8CZZ+TWMJulDV8d3IZkElUxuA==";

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn known_vector_public_key_node_id_and_json() {
        let key = NodeKey::from_seed(&SEED);
        assert_eq!(hex(&key.public_key()), PUBLIC_HEX);
        assert_eq!(key.node_id(), NODE_ID);
        assert_eq!(
            key.to_node_key_json().expose(),
            format!(r#"{{"priv_key":{{"type":"tendermint/PrivKeyEd25519","value":"{VALUE}"}}}}"#)
        );
    }

    #[test]
    fn json_round_trips_and_generated_keys_differ() {
        let key = NodeKey::generate().expect("random");
        let json = key.to_node_key_json();
        let back = NodeKey::from_node_key_json(json.expose()).expect("parses");
        assert_eq!(back.node_id(), key.node_id());
        assert_eq!(key.node_id().len(), 40);
        assert_ne!(
            NodeKey::generate().expect("random").node_id(),
            key.node_id()
        );
    }

    #[test]
    fn debug_never_shows_the_private_key() {
        let key = NodeKey::from_seed(&SEED);
        let json = key.to_node_key_json();
        for text in [format!("{key:?}"), format!("{json:?}"), format!("{key:#?}")] {
            assert!(!text.contains(VALUE), "{text}");
            assert!(!text.contains(&VALUE[..20]), "{text}");
            assert!(!text.contains(&hex(&SEED)), "{text}");
        }
        assert!(format!("{key:?}").contains(NODE_ID));
    }

    #[test]
    fn rejects_bad_documents() {
        let err = |text: &str| NodeKey::from_node_key_json(text).expect_err(text);
        assert_eq!(err("nope"), NodeKeyError::Malformed);
        assert_eq!(
            err(r#"{"priv_key":{"type":"tendermint/PrivKeySecp256k1","value":"AA=="}}"#),
            NodeKeyError::UnsupportedType("tendermint/PrivKeySecp256k1".into())
        );
        assert_eq!(
            err(r#"{"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"AAEC"}}"#),
            NodeKeyError::BadValue
        );
        // Seed 0..32 with another key's public half.
        let mut pair = [0u8; 64];
        pair[..32].copy_from_slice(&SEED);
        pair[32..].copy_from_slice(&NodeKey::from_seed(&[7; 32]).public_key());
        let text = format!(
            r#"{{"priv_key":{{"type":"tendermint/PrivKeyEd25519","value":"{}"}}}}"#,
            BASE64.encode(pair)
        );
        assert_eq!(err(&text), NodeKeyError::Inconsistent);
    }

    #[test]
    fn peer_string_is_node_id_at_address() {
        let key = NodeKey::from_seed(&SEED);
        let address =
            super::super::address::ExternalAddress::parse("seed-0.example.com:26656").expect("ok");
        assert_eq!(
            key.peer_string(&address),
            format!("{NODE_ID}@seed-0.example.com:26656")
        );
    }
}
