//! [`PeerDialer`] over TCP: resolve, then connect to the first address that answers.
//! With [`LOOPBACK_ONLY_ENV`] set (the test harness and the demo set it) only 127.0.0.0/8 and
//! `::1` are dialled and no name but `localhost` is resolved: a test can never reach out.
use std::net::{IpAddr, SocketAddr};

use crate::ports::{DialError, DialFuture, DialedPeer, PeerDialer};

/// Addresses tried per host name, so a name with many records cannot hold the probe.
const MAX_ADDRESSES: usize = 4;

/// Set (to anything) to refuse every address outside loopback.
pub const LOOPBACK_ONLY_ENV: &str = "SEI_CONSOLE_P2P_LOOPBACK_ONLY";

#[derive(Debug, Clone, Copy, Default)]
pub struct TcpDialer;

fn loopback_only() -> bool {
    std::env::var_os(LOOPBACK_ONLY_ENV).is_some()
}

fn refuse(host: &str) -> DialError {
    DialError::NotLoopback {
        host: host.to_owned(),
    }
}

/// `127.0.0.0/8`, `::1` or `localhost`: decided on the text, before anything is resolved.
fn names_loopback(host: &str) -> bool {
    match host.trim_matches(['[', ']']).parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

impl PeerDialer for TcpDialer {
    fn dial<'a>(&'a self, host: &'a str, port: u16) -> DialFuture<'a> {
        Box::pin(async move {
            let guarded = loopback_only();
            if guarded && !names_loopback(host) {
                return Err(refuse(host));
            }
            let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
                .await
                .map_err(|e| DialError::Resolve {
                    host: host.to_owned(),
                    reason: e.to_string(),
                })?
                .take(MAX_ADDRESSES)
                .collect();
            if guarded && resolved.iter().any(|a| !a.ip().is_loopback()) {
                return Err(refuse(host));
            }
            let mut last = None;
            for remote in resolved {
                match tokio::net::TcpStream::connect(remote).await {
                    Ok(stream) => {
                        let _ = stream.set_nodelay(true);
                        return Ok(DialedPeer {
                            local: stream.local_addr().ok(),
                            remote,
                            stream: Box::new(stream),
                        });
                    }
                    Err(e) => {
                        last = Some(DialError::Connect {
                            remote,
                            reason: e.to_string(),
                        })
                    }
                }
            }
            Err(last.unwrap_or_else(|| DialError::NoAddress {
                host: host.to_owned(),
            }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::names_loopback;

    #[test]
    fn only_loopback_passes_the_guard_and_names_are_never_resolved_for_it() {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"] {
            assert!(names_loopback(host), "{host}");
        }
        for host in [
            "192.0.2.1",
            "10.0.0.1",
            "seed-0.example.com",
            "127.0.0.1.example.com",
            "::ffff:192.0.2.1",
        ] {
            assert!(!names_loopback(host), "{host}");
        }
    }
}
