//! The protobuf messages of the handshake (`internal/p2p/p2p.proto`, `proto/tendermint/p2p/types.proto`)
//! and the size limits upstream reads them with. Pure.
use prost::Message;

/// Upstream's limit on the plaintext preface.
pub const MAX_PREFACE: usize = 1024;
/// Upstream allows 1 MiB for the Handshake before the signature is checked; a real one is at most
/// 100 addresses of a few hundred bytes each, so the probe caps it far lower.
pub const MAX_HANDSHAKE: usize = 64 * 1024;
/// Upstream's NodeInfo limit (`types.MaxNodeInfoSize`).
pub const MAX_NODE_INFO: usize = 10240;
/// Upstream's `MaxPexAddrs`.
pub const MAX_PEX_ADDRS: usize = 100;
/// A uvarint has at most 10 bytes.
pub const MAX_VARINT: usize = 10;

/// sei-tendermint's protocol versions (`version.P2PProtocol`, `version.BlockProtocol`); a peer on
/// another block protocol refuses the connection.
pub const P2P_PROTOCOL: u64 = 8;
pub const BLOCK_PROTOCOL: u64 = 11;

#[derive(Clone, PartialEq, Message)]
pub struct Preface {
    #[prost(bytes = "vec", tag = "1")]
    pub sts_public_key: Vec<u8>,
}

#[derive(Clone, PartialEq, Message)]
pub struct NodePublicKey {
    #[prost(bytes = "vec", tag = "1")]
    pub ed25519: Vec<u8>,
}

/// Fields in tag order, as upstream's encoder writes them.
#[derive(Clone, PartialEq, Message)]
pub struct Handshake {
    #[prost(message, optional, tag = "1")]
    pub node_auth_key: Option<NodePublicKey>,
    #[prost(bytes = "vec", tag = "2")]
    pub node_auth_sig: Vec<u8>,
    #[prost(bool, tag = "3")]
    pub sei_giga_connection: bool,
    #[prost(string, optional, tag = "4")]
    pub self_addr: Option<String>,
    #[prost(string, repeated, tag = "5")]
    pub pex_addrs: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct ProtocolVersion {
    #[prost(uint64, tag = "1")]
    pub p2p: u64,
    #[prost(uint64, tag = "2")]
    pub block: u64,
    #[prost(uint64, tag = "3")]
    pub app: u64,
}

#[derive(Clone, PartialEq, Message)]
pub struct NodeInfo {
    #[prost(message, optional, tag = "1")]
    pub protocol_version: Option<ProtocolVersion>,
    #[prost(string, tag = "2")]
    pub node_id: String,
    #[prost(string, tag = "3")]
    pub listen_addr: String,
    #[prost(string, tag = "4")]
    pub network: String,
    #[prost(string, tag = "5")]
    pub version: String,
    #[prost(bytes = "vec", tag = "6")]
    pub channels: Vec<u8>,
    #[prost(string, tag = "7")]
    pub moniker: String,
    #[prost(message, optional, tag = "8")]
    pub other: Option<NodeInfoOther>,
}

#[derive(Clone, PartialEq, Message)]
pub struct NodeInfoOther {
    #[prost(string, tag = "1")]
    pub tx_index: String,
    #[prost(string, tag = "2")]
    pub rpc_address: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("the {what} is not valid protobuf: {reason}")]
    Decode { what: &'static str, reason: String },
    #[error("the {what} repeats field {tag}, which upstream allows once")]
    RepeatedField { what: &'static str, tag: u32 },
}

/// `uvarint(len) || message`: upstream's `WriteSizedMsg`.
pub fn sized(message: &impl Message) -> Vec<u8> {
    message.encode_length_delimited_to_vec()
}

/// Decodes a uvarint from the start of `bytes`: `Some((value, length))`, or `None` when it is
/// unfinished (more bytes needed). Errs past 10 bytes or 64 bits.
pub fn uvarint(bytes: &[u8]) -> Result<Option<(u64, usize)>, VarintError> {
    let mut value: u64 = 0;
    for (i, &byte) in bytes.iter().enumerate().take(MAX_VARINT) {
        let bits = u64::from(byte & 0x7f);
        if i == MAX_VARINT - 1 && byte > 1 {
            return Err(VarintError);
        }
        value |= bits << (7 * i);
        if byte < 0x80 {
            return Ok(Some((value, i + 1)));
        }
    }
    if bytes.len() >= MAX_VARINT {
        return Err(VarintError);
    }
    Ok(None)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a length prefix is not a valid uvarint")]
pub struct VarintError;

/// Rejects a second occurrence of any of `once` among the top-level fields (upstream's
/// "wireguard" schema check on the Preface and the Handshake). Malformed input is left to the
/// decoder, which reports it.
pub fn check_singular(what: &'static str, bytes: &[u8], once: &[u32]) -> Result<(), WireError> {
    let mut seen: Vec<u32> = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let Ok(Some((key, n))) = uvarint(rest) else {
            return Ok(());
        };
        rest = &rest[n..];
        let tag = u32::try_from(key >> 3).unwrap_or(u32::MAX);
        if once.contains(&tag) {
            if seen.contains(&tag) {
                return Err(WireError::RepeatedField { what, tag });
            }
            seen.push(tag);
        }
        let skip = match key & 7 {
            0 => match uvarint(rest) {
                Ok(Some((_, n))) => n,
                _ => return Ok(()),
            },
            1 => 8,
            5 => 4,
            2 => match uvarint(rest) {
                Ok(Some((len, n))) => match usize::try_from(len) {
                    Ok(len) => n.saturating_add(len),
                    Err(_) => return Ok(()),
                },
                _ => return Ok(()),
            },
            _ => return Ok(()),
        };
        if skip > rest.len() {
            return Ok(());
        }
        rest = &rest[skip..];
    }
    Ok(())
}

pub fn decode<M: Message + Default>(what: &'static str, bytes: &[u8]) -> Result<M, WireError> {
    M::decode(bytes).map_err(|e| WireError::Decode {
        what,
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preface_bytes_are_upstreams() {
        let bytes = sized(&Preface {
            sts_public_key: vec![7; 32],
        });
        assert_eq!(bytes[..3], [0x22, 0x0a, 0x20]);
        assert_eq!(bytes.len(), 35);
    }

    #[test]
    fn handshake_fields_come_in_tag_order() {
        let message = Handshake {
            node_auth_key: Some(NodePublicKey {
                ed25519: vec![1; 32],
            }),
            node_auth_sig: vec![2; 64],
            sei_giga_connection: false,
            self_addr: Some("mconn://a@b:1".into()),
            pex_addrs: vec!["x".into()],
        };
        let bytes = message.encode_to_vec();
        assert_eq!(bytes[..4], [0x0a, 0x22, 0x0a, 0x20]);
        assert_eq!(bytes[36..38], [0x12, 0x40]);
        assert_eq!(bytes[102], 0x22);
        assert_eq!(bytes[bytes.len() - 3..], [0x2a, 0x01, b'x']);
    }

    #[test]
    fn uvarint_limits() {
        assert_eq!(uvarint(&[0x22]), Ok(Some((34, 1))));
        assert_eq!(uvarint(&[0x80, 0x01]), Ok(Some((128, 2))));
        assert_eq!(uvarint(&[0x80]), Ok(None));
        assert_eq!(uvarint(&[0xff; 10]), Err(VarintError));
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(uvarint(&max), Ok(Some((u64::MAX, 10))));
    }

    #[test]
    fn a_repeated_singular_field_is_refused() {
        let once = Handshake {
            node_auth_sig: vec![1; 64],
            ..Handshake::default()
        }
        .encode_to_vec();
        let mut twice = once.clone();
        twice.extend_from_slice(&once);
        assert_eq!(check_singular("Handshake", &once, &[1, 2, 3, 4]), Ok(()));
        assert_eq!(
            check_singular("Handshake", &twice, &[1, 2, 3, 4]),
            Err(WireError::RepeatedField {
                what: "Handshake",
                tag: 2
            })
        );
    }
}
