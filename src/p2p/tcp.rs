//! [`PeerDialer`] over TCP: resolve, then connect to the first address that answers.
use crate::ports::{DialError, DialFuture, DialedPeer, PeerDialer};

/// Addresses tried per host name, so a name with many records cannot hold the probe.
const MAX_ADDRESSES: usize = 4;

#[derive(Debug, Clone, Copy, Default)]
pub struct TcpDialer;

impl PeerDialer for TcpDialer {
    fn dial<'a>(&'a self, host: &'a str, port: u16) -> DialFuture<'a> {
        Box::pin(async move {
            let resolved: Vec<_> = tokio::net::lookup_host((host, port))
                .await
                .map_err(|e| DialError::Resolve {
                    host: host.to_owned(),
                    reason: e.to_string(),
                })?
                .take(MAX_ADDRESSES)
                .collect();
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
