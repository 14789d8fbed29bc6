//! The authenticated part of the handshake (`internal/p2p/handshake.go`, `conv.go`,
//! `types/node_info.go`): our signed `Handshake` and `NodeInfo`, and the checks upstream applies
//! to the peer's. Pure.
use ed25519_dalek::{Signature, VerifyingKey};
use serde::Serialize;

use super::address::{NodeAddress, NodeAddressError, parse_listen_address};
use super::wire::{self, BLOCK_PROTOCOL, Handshake, MAX_PEX_ADDRS, NodeInfo, P2P_PROTOCOL};
use crate::actions::node_key::{NodeKey, node_id_of};

/// What the prober calls itself; a seed shows it in its logs.
pub const PROBE_MONIKER: &str = "sei-console-probe";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    #[error(transparent)]
    Wire(#[from] wire::WireError),
    #[error("the Handshake has no node_auth_key")]
    MissingKey,
    #[error("the Handshake's ed25519 key has {0} bytes, not 32")]
    KeyLength(usize),
    #[error("the Handshake's ed25519 key is not a valid curve point")]
    BadKey,
    #[error("the Handshake's signature has {0} bytes, not 64")]
    SignatureLength(usize),
    #[error("the signature over the session challenge does not verify: not the key's owner")]
    BadSignature,
    #[error("self_addr {text:?} does not parse ({reason}); every peer rejects this handshake")]
    BadSelfAddr {
        text: String,
        reason: NodeAddressError,
    },
    #[error("self_addr names NodeID {got}, but the key is {want}'s; every peer rejects this")]
    SelfAddrNodeId { got: String, want: String },
    #[error("pex_addrs[{index}] {text:?} does not parse ({reason}); every peer rejects this")]
    BadPexAddr {
        index: usize,
        text: String,
        reason: NodeAddressError,
    },
    #[error("{0} pex_addrs, more than the {MAX_PEX_ADDRS} peers accept")]
    TooManyPexAddrs(usize),
}

/// Our Handshake: the probe's throw-away key signs the challenge; no self address (we cannot be
/// dialled) and no addresses (a dialer never sends any).
pub fn our_handshake(key: &NodeKey, challenge: &[u8; 32]) -> Handshake {
    Handshake {
        node_auth_key: Some(wire::NodePublicKey {
            ed25519: key.public_key().to_vec(),
        }),
        node_auth_sig: key.sign(challenge).to_vec(),
        sei_giga_connection: false,
        self_addr: None,
        pex_addrs: Vec::new(),
    }
}

/// The peer's Handshake once it passed upstream's checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerHandshake {
    pub node_id: String,
    pub self_addr: Option<NodeAddress>,
    pub pex_addrs: Vec<NodeAddress>,
    pub sei_giga_connection: bool,
}

/// Decodes and checks the peer's Handshake against the session challenge.
pub fn check_peer_handshake(
    bytes: &[u8],
    challenge: &[u8; 32],
) -> Result<PeerHandshake, HandshakeError> {
    wire::check_singular("Handshake", bytes, &[1, 2, 3, 4])?;
    let message: Handshake = wire::decode("Handshake", bytes)?;
    let key = message.node_auth_key.ok_or(HandshakeError::MissingKey)?;
    let key: [u8; 32] = key
        .ed25519
        .as_slice()
        .try_into()
        .map_err(|_| HandshakeError::KeyLength(key.ed25519.len()))?;
    let signature: [u8; 64] = message
        .node_auth_sig
        .as_slice()
        .try_into()
        .map_err(|_| HandshakeError::SignatureLength(message.node_auth_sig.len()))?;
    let verifying = VerifyingKey::from_bytes(&key).map_err(|_| HandshakeError::BadKey)?;
    // Upstream verifies with ZIP-215 rules; dalek's `verify` accepts every honest signature and
    // differs only on crafted edge cases, which no seed produces.
    ed25519_dalek::Verifier::verify(&verifying, challenge, &Signature::from_bytes(&signature))
        .map_err(|_| HandshakeError::BadSignature)?;
    let node_id = node_id_of(&key);
    let self_addr = match message.self_addr {
        None => None,
        Some(text) => {
            let addr = NodeAddress::parse(&text)
                .map_err(|reason| HandshakeError::BadSelfAddr { text, reason })?;
            if addr.node_id != node_id {
                return Err(HandshakeError::SelfAddrNodeId {
                    got: addr.node_id,
                    want: node_id,
                });
            }
            Some(addr)
        }
    };
    if message.pex_addrs.len() > MAX_PEX_ADDRS {
        return Err(HandshakeError::TooManyPexAddrs(message.pex_addrs.len()));
    }
    let pex_addrs = message
        .pex_addrs
        .into_iter()
        .enumerate()
        .map(|(index, text)| {
            NodeAddress::parse(&text).map_err(|reason| HandshakeError::BadPexAddr {
                index,
                text,
                reason,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(PeerHandshake {
        node_id,
        self_addr,
        pex_addrs,
        sei_giga_connection: message.sei_giga_connection,
    })
}

/// Our NodeInfo. Upstream requires a resolvable listen address and a non-empty moniker; the
/// probe listens nowhere, so it names the unroutable `0.0.0.0:0`, and opens no channels.
pub fn our_node_info(node_id: &str, network: &str) -> NodeInfo {
    NodeInfo {
        protocol_version: Some(wire::ProtocolVersion {
            p2p: P2P_PROTOCOL,
            block: BLOCK_PROTOCOL,
            app: 0,
        }),
        node_id: node_id.to_owned(),
        listen_addr: "tcp://0.0.0.0:0".to_owned(),
        network: network.to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        channels: Vec::new(),
        moniker: PROBE_MONIKER.to_owned(),
        other: Some(wire::NodeInfoOther {
            tx_index: "off".to_owned(),
            rpc_address: String::new(),
        }),
    }
}

/// The peer's NodeInfo, as reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PeerNodeInfo {
    pub node_id: String,
    pub listen_addr: String,
    pub network: String,
    pub version: String,
    pub moniker: String,
    /// Channel IDs in hex (a seed opens only `00`, PEX).
    pub channels: String,
    pub p2p_protocol: u64,
    pub block_protocol: u64,
    pub app_protocol: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeInfoError {
    #[error(transparent)]
    Wire(#[from] wire::WireError),
    #[error("NodeInfo names NodeID {got:?}, but the handshake authenticated {want}")]
    NodeIdMismatch { got: String, want: String },
    #[error("NodeInfo is one peers reject: {0}")]
    Invalid(String),
}

fn ascii_text(text: &str) -> bool {
    text.bytes().all(|b| b.is_ascii() && b != b'\t') && !text.trim().is_empty()
}

/// Decodes the peer's NodeInfo and applies upstream's `Validate`, except the DNS resolution of
/// the listen address (its syntax is checked). Network and block protocol are verdicts, not
/// errors, so the report can show them.
pub fn check_peer_node_info(bytes: &[u8], node_id: &str) -> Result<PeerNodeInfo, NodeInfoError> {
    let info: NodeInfo = wire::decode("NodeInfo", bytes)?;
    if info.node_id != node_id {
        return Err(NodeInfoError::NodeIdMismatch {
            got: info.node_id,
            want: node_id.to_owned(),
        });
    }
    let invalid = |why: String| Err(NodeInfoError::Invalid(why));
    if let Err(e) = parse_listen_address(&info.listen_addr) {
        return invalid(format!("listen_addr {:?}: {e}", info.listen_addr));
    }
    if !info.version.is_empty() && !ascii_text(&info.version) {
        return invalid(format!("version {:?} is not ASCII text", info.version));
    }
    if info.channels.len() > 16 {
        return invalid(format!("{} channels, more than 16", info.channels.len()));
    }
    let mut seen = [false; 256];
    for &channel in &info.channels {
        if std::mem::replace(&mut seen[usize::from(channel)], true) {
            return invalid(format!("channel {channel} listed twice"));
        }
    }
    if !ascii_text(&info.moniker) {
        return invalid(format!("moniker {:?} is not non-empty ASCII", info.moniker));
    }
    let other = info.other.unwrap_or_default();
    if !matches!(other.tx_index.as_str(), "" | "on" | "off") {
        return invalid(format!("tx_index {:?}", other.tx_index));
    }
    if !other.rpc_address.is_empty() && !ascii_text(&other.rpc_address) {
        return invalid(format!("rpc_address {:?}", other.rpc_address));
    }
    let version = info.protocol_version.unwrap_or_default();
    Ok(PeerNodeInfo {
        node_id: info.node_id,
        listen_addr: info.listen_addr,
        network: info.network,
        version: info.version,
        moniker: info.moniker,
        channels: info.channels.iter().map(|c| format!("{c:02x}")).collect(),
        p2p_protocol: version.p2p,
        block_protocol: version.block,
        app_protocol: version.app,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::p2p::testdata::go_sessions;
    use prost::Message;

    fn signed(seed: u8, challenge: &[u8; 32]) -> Handshake {
        our_handshake(&NodeKey::from_seed(&[seed; 32]), challenge)
    }

    #[test]
    fn go_signatures_verify_and_name_the_go_node_id() {
        for s in go_sessions() {
            let key = NodeKey::from_seed(&s.node_key_seed);
            assert_eq!(key.node_id(), s.node_id);
            // ed25519 is deterministic: our signature is Go's, byte for byte.
            assert_eq!(key.sign(&s.challenge).to_vec(), s.challenge_sig);
            let bytes = our_handshake(&key, &s.challenge).encode_to_vec();
            let peer = check_peer_handshake(&bytes, &s.challenge).expect("valid");
            assert_eq!(peer.node_id, s.node_id);
        }
    }

    #[test]
    fn signature_over_another_challenge_fails() {
        let bytes = signed(1, &[1; 32]).encode_to_vec();
        assert_eq!(
            check_peer_handshake(&bytes, &[2; 32]),
            Err(HandshakeError::BadSignature)
        );
    }

    #[test]
    fn self_addr_and_pex_rules() {
        let challenge = [4; 32];
        let key = NodeKey::from_seed(&[1; 32]);
        let other = NodeKey::from_seed(&[2; 32]).node_id();
        let mut message = our_handshake(&key, &challenge);
        message.self_addr = Some(format!("mconn://{other}@seed.example.com:26656"));
        assert!(matches!(
            check_peer_handshake(&message.encode_to_vec(), &challenge),
            Err(HandshakeError::SelfAddrNodeId { .. })
        ));
        message.self_addr = Some(format!("mconn://{}@seed.example.com:26656", key.node_id()));
        message.pex_addrs = vec!["garbage".into()];
        assert!(matches!(
            check_peer_handshake(&message.encode_to_vec(), &challenge),
            Err(HandshakeError::BadPexAddr { index: 0, .. })
        ));
        message.pex_addrs = vec![format!("{other}@10.0.0.2:26656"); 101];
        assert_eq!(
            check_peer_handshake(&message.encode_to_vec(), &challenge),
            Err(HandshakeError::TooManyPexAddrs(101))
        );
        message.pex_addrs.truncate(3);
        let peer = check_peer_handshake(&message.encode_to_vec(), &challenge).expect("ok");
        assert_eq!(peer.pex_addrs.len(), 3);
        assert_eq!(peer.self_addr.expect("self").node_id, key.node_id());
    }

    #[test]
    fn missing_or_short_fields() {
        let mut message = signed(1, &[0; 32]);
        message.node_auth_sig.pop();
        assert_eq!(
            check_peer_handshake(&message.encode_to_vec(), &[0; 32]),
            Err(HandshakeError::SignatureLength(63))
        );
        message.node_auth_key = None;
        assert_eq!(
            check_peer_handshake(&message.encode_to_vec(), &[0; 32]),
            Err(HandshakeError::MissingKey)
        );
    }

    #[test]
    fn node_info_round_trip_and_validation() {
        let id = NodeKey::from_seed(&[1; 32]).node_id();
        let info = our_node_info(&id, "pacific-1");
        let peer = check_peer_node_info(&info.encode_to_vec(), &id).expect("valid");
        assert_eq!(peer.network, "pacific-1");
        assert_eq!(peer.block_protocol, BLOCK_PROTOCOL);
        assert!(matches!(
            check_peer_node_info(&info.encode_to_vec(), "other"),
            Err(NodeInfoError::NodeIdMismatch { .. })
        ));
        let mut bad = info.clone();
        bad.moniker = String::new();
        assert!(matches!(
            check_peer_node_info(&bad.encode_to_vec(), &id),
            Err(NodeInfoError::Invalid(_))
        ));
        let mut bad = info;
        bad.channels = vec![0, 0];
        assert!(matches!(
            check_peer_node_info(&bad.encode_to_vec(), &id),
            Err(NodeInfoError::Invalid(_))
        ));
    }
}
