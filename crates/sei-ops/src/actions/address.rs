//! `host:port` external addresses (`spec.externalAddress`, seid's `p2p.external_address`).
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

/// A validated external address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalAddress {
    pub host: Host,
    pub port: u16,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Host {
    Name(String),
    V4(Ipv4Addr),
    V6(Ipv6Addr),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressError {
    #[error("external address {0:?} has a scheme; give only HOST:PORT (e.g. 203.0.113.7:26656)")]
    HasScheme(String),
    #[error("external address {0:?} has no port; give HOST:PORT (e.g. seed-0.example.com:26656)")]
    MissingPort(String),
    #[error("external address {address:?}: port {port:?} is not a number from 1 to 65535")]
    InvalidPort { address: String, port: String },
    #[error(
        "external address {address:?}: {host:?} is neither an IP address nor a host name (letters, digits and '-', dot-separated labels of at most 63)"
    )]
    InvalidHost { address: String, host: String },
}

impl ExternalAddress {
    pub fn parse(text: &str) -> Result<ExternalAddress, AddressError> {
        if text.contains("://") {
            return Err(AddressError::HasScheme(text.to_owned()));
        }
        let (host_text, port_text) = if let Some(rest) = text.strip_prefix('[') {
            let (v6, after) = rest
                .split_once(']')
                .ok_or_else(|| AddressError::InvalidHost {
                    address: text.to_owned(),
                    host: text.to_owned(),
                })?;
            let port = after
                .strip_prefix(':')
                .ok_or_else(|| AddressError::MissingPort(text.to_owned()))?;
            (v6, port)
        } else {
            text.rsplit_once(':')
                .ok_or_else(|| AddressError::MissingPort(text.to_owned()))?
        };
        let port = port_text
            .parse::<u16>()
            .ok()
            .filter(|p| *p != 0 && port_text.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| AddressError::InvalidPort {
                address: text.to_owned(),
                port: port_text.to_owned(),
            })?;
        let invalid_host = || AddressError::InvalidHost {
            address: text.to_owned(),
            host: host_text.to_owned(),
        };
        let host = if text.starts_with('[') {
            Host::V6(host_text.parse().map_err(|_| invalid_host())?)
        } else if let Ok(v4) = host_text.parse::<Ipv4Addr>() {
            Host::V4(v4)
        } else if is_host_name(host_text) {
            Host::Name(host_text.to_ascii_lowercase())
        } else {
            return Err(invalid_host());
        };
        Ok(ExternalAddress { host, port })
    }
}

/// RFC 1123 host name: labels of 1-63 letters, digits and '-', not starting or ending with '-',
/// 253 characters in all; a name made only of digits and dots is a malformed IPv4 address.
fn is_host_name(text: &str) -> bool {
    let label_ok = |label: &str| {
        (1..=63).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(label_ok)
        && !text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

impl fmt::Display for ExternalAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.host {
            Host::Name(name) => write!(f, "{name}:{}", self.port),
            Host::V4(ip) => write!(f, "{ip}:{}", self.port),
            Host::V6(ip) => write!(f, "[{ip}]:{}", self.port),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_names_and_ip_addresses() {
        let name = ExternalAddress::parse("Seed-0.Example.com:26656").expect("name");
        assert_eq!(name.host, Host::Name("seed-0.example.com".into()));
        assert_eq!(name.to_string(), "seed-0.example.com:26656");
        let v4 = ExternalAddress::parse("203.0.113.7:26656").expect("v4");
        assert_eq!(v4.host, Host::V4(Ipv4Addr::new(203, 0, 113, 7)));
        let v6 = ExternalAddress::parse("[2001:db8::1]:26656").expect("v6");
        assert_eq!(v6.to_string(), "[2001:db8::1]:26656");
        assert_eq!(
            ExternalAddress::parse("localhost:1").expect("short").port,
            1
        );
    }

    #[test]
    fn rejects_with_a_reason() {
        let err = |text: &str| ExternalAddress::parse(text).expect_err(text);
        assert!(matches!(
            err("tcp://1.2.3.4:26656"),
            AddressError::HasScheme(_)
        ));
        assert!(matches!(err("1.2.3.4"), AddressError::MissingPort(_)));
        assert!(matches!(err("[::1]"), AddressError::MissingPort(_)));
        for port in ["0", "65536", "x", "", "+1", "-1"] {
            assert!(
                matches!(
                    err(&format!("host:{port}")),
                    AddressError::InvalidPort { .. }
                ),
                "{port}"
            );
        }
        for host in [
            "",
            "under_score",
            "-lead.com",
            "a..b",
            "999.1.1.1",
            "2001:db8::1",
        ] {
            assert!(
                matches!(
                    err(&format!("{host}:26656")),
                    AddressError::InvalidHost { .. }
                ),
                "{host}"
            );
        }
        assert!(matches!(err("[zz::1]:1"), AddressError::InvalidHost { .. }));
        assert!(
            err("1.2.3.4").to_string().contains("HOST:PORT"),
            "message tells the expected shape"
        );
    }
}
