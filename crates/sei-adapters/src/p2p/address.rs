//! P2P node addresses as sei-tendermint writes and reads them (`internal/p2p/address.go`):
//! `mconn://<nodeid>@<host>:<port>`, the scheme optional, a missing port meaning 26657. Pure.
use std::fmt;

use serde::Serialize;

use crate::actions::address::{AddressError, ExternalAddress, Host};

/// Upstream's default when an address has no port.
pub const DEFAULT_PORT: u16 = 26657;

/// `<nodeid>@<host>:<port>` with a validated NodeID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeAddress {
    pub node_id: String,
    pub address: ExternalAddress,
}

impl fmt::Display for NodeAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.node_id, self.address)
    }
}

impl Serialize for NodeAddress {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeAddressError {
    #[error("{0:?} has no NodeID (expected NODEID@HOST:PORT)")]
    NoNodeId(String),
    #[error("{0:?}: the NodeID must be 40 hex digits")]
    BadNodeId(String),
    #[error("{0}")]
    Address(#[from] AddressError),
}

/// Whether `id` is a NodeID: 40 lowercase hex digits (upstream lowercases before checking).
pub fn is_node_id(id: &str) -> bool {
    id.len() == 40
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Strips a leading `scheme://`, as upstream does for addresses and listen addresses.
fn without_scheme(text: &str) -> &str {
    text.split_once("://").map_or(text, |(_, rest)| rest)
}

/// `HOST:PORT`, with upstream's default port when the port is missing.
fn host_port(text: &str) -> Result<ExternalAddress, AddressError> {
    match ExternalAddress::parse(text) {
        Err(AddressError::MissingPort(_)) => {
            ExternalAddress::parse(&format!("{text}:{DEFAULT_PORT}"))
        }
        other => other,
    }
}

impl NodeAddress {
    /// Parses `[scheme://]NODEID@HOST[:PORT]`.
    pub fn parse(text: &str) -> Result<NodeAddress, NodeAddressError> {
        let rest = without_scheme(text);
        let (id, host) = rest
            .split_once('@')
            .ok_or_else(|| NodeAddressError::NoNodeId(text.to_owned()))?;
        let node_id = id.to_ascii_lowercase();
        if !is_node_id(&node_id) {
            return Err(NodeAddressError::BadNodeId(text.to_owned()));
        }
        Ok(NodeAddress {
            node_id,
            address: host_port(host)?,
        })
    }
}

/// A NodeInfo `listen_addr`: `[scheme://]HOST:PORT`.
/// Port 0 is allowed here, as Go's `net.ResolveTCPAddr` allows it.
pub fn parse_listen_address(text: &str) -> Result<ExternalAddress, AddressError> {
    let text = without_scheme(text);
    match text.strip_suffix(":0") {
        Some(host) => ExternalAddress::parse(&format!("{host}:1")).map(|mut address| {
            address.port = 0;
            address
        }),
        None => ExternalAddress::parse(text),
    }
}

/// Loopback (`127.0.0.0/8`, `::1`, `localhost`): reachable from the same machine only.
pub fn is_loopback(host: &Host) -> bool {
    match host {
        Host::V4(ip) => ip.is_loopback(),
        Host::V6(ip) => ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback()),
        Host::Name(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
    }
}

/// `0.0.0.0` / `::`: a bind address, never something a peer can dial.
pub fn is_unspecified(host: &Host) -> bool {
    match host {
        Host::V4(ip) => ip.is_unspecified(),
        Host::V6(ip) => ip.is_unspecified(),
        Host::Name(_) => false,
    }
}

/// The same place: equal ports and hosts (host names compared without case).
pub fn same_address(a: &ExternalAddress, b: &ExternalAddress) -> bool {
    a.port == b.port
        && match (&a.host, &b.host) {
            (Host::Name(x), Host::Name(y)) => x
                .trim_end_matches('.')
                .eq_ignore_ascii_case(y.trim_end_matches('.')),
            (x, y) => x == y,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "6c8f8607dbe87077a62a2990ce07d94aaf749df7";

    #[test]
    fn parses_upstream_forms() {
        let full = NodeAddress::parse(&format!("mconn://{ID}@seed-0.example.com:26656")).unwrap();
        assert_eq!(full.node_id, ID);
        assert_eq!(full.address.to_string(), "seed-0.example.com:26656");
        let bare = NodeAddress::parse(&format!("{}@10.0.0.1", ID.to_uppercase())).unwrap();
        assert_eq!(bare.node_id, ID);
        assert_eq!(bare.address.port, DEFAULT_PORT);
        let v6 = NodeAddress::parse(&format!("{ID}@[::1]:26656")).unwrap();
        assert!(is_loopback(&v6.address.host));
        assert_eq!(v6.to_string(), format!("{ID}@[::1]:26656"));
    }

    #[test]
    fn refuses_missing_or_bad_ids() {
        assert!(matches!(
            NodeAddress::parse("seed.example.com:26656"),
            Err(NodeAddressError::NoNodeId(_))
        ));
        assert!(matches!(
            NodeAddress::parse("abc@seed.example.com:26656"),
            Err(NodeAddressError::BadNodeId(_))
        ));
        assert!(matches!(
            NodeAddress::parse(&format!("{ID}@bad host:1")),
            Err(NodeAddressError::Address(_))
        ));
    }

    #[test]
    fn loopback_and_unspecified_hosts() {
        let host = |t: &str| parse_listen_address(t).unwrap().host;
        assert!(is_loopback(&host("tcp://127.0.0.1:26656")));
        assert!(is_loopback(&host("127.8.9.1:1")));
        assert_eq!(parse_listen_address("tcp://0.0.0.0:0").unwrap().port, 0);
        assert!(is_loopback(&host("localhost:1")));
        assert!(is_loopback(&host("[::ffff:127.0.0.1]:1")));
        assert!(!is_loopback(&host("tcp://0.0.0.0:26656")));
        assert!(is_unspecified(&host("tcp://0.0.0.0:26656")));
        assert!(is_unspecified(&host("[::]:26656")));
        assert!(!is_loopback(&host("seed-0.example.com:26656")));
    }

    #[test]
    fn same_address_ignores_host_case() {
        let a = ExternalAddress::parse("Seed-0.Example.com:26656").unwrap();
        let b = ExternalAddress::parse("seed-0.example.com:26656").unwrap();
        let c = ExternalAddress::parse("seed-0.example.com:26657").unwrap();
        assert!(same_address(&a, &b));
        assert!(!same_address(&a, &c));
    }
}
