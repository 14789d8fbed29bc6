//! The seed probe: dial through the [`PeerDialer`] port, complete the handshake as a client would,
//! and judge what the seed shows against what is published. Sends nothing beyond the handshake;
//! every phase runs under one deadline and every read is capped.
use std::time::Duration;

use serde::Serialize;
use tokio::io::AsyncWriteExt;
use tokio::time::{Instant, timeout_at};

use super::address::NodeAddress;
use super::conn::{ConnError, SecretConnection};
use super::handshake::{
    PeerHandshake, PeerNodeInfo, check_peer_handshake, check_peer_node_info, our_handshake,
    our_node_info,
};
use super::judge::{Check, judge};
use super::secret::Ephemeral;
use super::wire::{MAX_HANDSHAKE, MAX_NODE_INFO};
use crate::actions::address::{ExternalAddress, Host};
use crate::actions::node_key::NodeKey;
pub use crate::ports::probe::Origin;
use crate::ports::{DialError, DialedPeer, PeerDialer, PeerStream};

/// Upstream's default `p2p.handshake-timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// What the seed should show: its published identity and chain.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Expected {
    /// The published NodeID, when known.
    pub node_id: Option<String>,
    /// Where the NodeID came from (`argument`, `Secret NAME`, `sidecar`), or why it is unknown.
    pub node_id_source: String,
    /// The published `HOST:PORT` (`spec.externalAddress` or the argument); the probe dials it.
    #[serde(serialize_with = "as_text")]
    pub address: ExternalAddress,
    pub chain_id: String,
    /// Why no pod can answer, when the caller knows (`ProbeTarget::no_pod`): said for a
    /// refused dial instead of the hint about a seed listening on 127.0.0.1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_pod: Option<String>,
}

fn as_text<T: std::fmt::Display, S: serde::Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(v)
}

impl Expected {
    /// `NODEID@HOST:PORT` when the NodeID is known, else `HOST:PORT`.
    pub fn target(&self) -> String {
        match &self.node_id {
            Some(id) => format!("{id}@{}", self.address),
            None => self.address.to_string(),
        }
    }
}

/// The handshake's phases, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    Connect,
    SecretConnection,
    Handshake,
    NodeInfo,
}

impl Phase {
    pub fn label(self) -> &'static str {
        match self {
            Phase::Connect => "TCP connect",
            Phase::SecretConnection => "secret connection",
            Phase::Handshake => "Handshake",
            Phase::NodeInfo => "NodeInfo",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Failure {
    pub phase: Phase,
    pub reason: String,
}

/// Milliseconds per phase (absent when the phase did not finish).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    pub connect_ms: Option<f64>,
    pub secret_connection_ms: Option<f64>,
    pub handshake_ms: Option<f64>,
    pub node_info_ms: Option<f64>,
    pub total_ms: f64,
}

/// What the seed showed.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Observed {
    pub node_id: Option<String>,
    pub self_address: Option<NodeAddress>,
    pub pex_addresses: Vec<NodeAddress>,
    pub node_info: Option<PeerNodeInfo>,
}

/// The probe's result; `ok` only when every check passed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeReport {
    pub target: String,
    pub expected: Expected,
    pub origin: Origin,
    pub failure: Option<Failure>,
    pub observed: Observed,
    pub timings: Timings,
    pub checks: Vec<Check>,
    /// Passed, failed, not reached and undecided checks.
    pub counts: super::judge::CheckCounts,
    pub ok: bool,
}

fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 10_000.0).round() / 10.0
}

/// sei-tendermint's listener closes, before its preface, a connection from an address that
/// connected less than `IncomingConnectionWindow` (100 ms) ago (`internal/p2p/conn_tracker.go`):
/// a probe right after another from the same address. Waiting this long, once, gets past it.
const REFUSED_RETRY_AFTER: Duration = Duration::from_millis(150);

/// Probes `expected.address` within `timeout`.
pub async fn probe(dialer: &dyn PeerDialer, expected: &Expected, timeout: Duration) -> ProbeReport {
    let start = Instant::now();
    let deadline = start + timeout;
    let mut timings = Timings::default();
    let mut observed = Observed::default();
    let mut origin = Origin::default();
    let mut failure = run(
        dialer,
        expected,
        deadline,
        &mut timings,
        &mut observed,
        &mut origin,
    )
    .await
    .err();
    let refused_early = failure
        .as_ref()
        .is_some_and(|f| f.phase == Phase::SecretConnection && f.reason == CLOSED_BEFORE_PREFACE);
    if refused_early && deadline > Instant::now() + REFUSED_RETRY_AFTER * 2 {
        tokio::time::sleep(REFUSED_RETRY_AFTER).await;
        (timings, observed, origin) = Default::default();
        failure = run(
            dialer,
            expected,
            deadline,
            &mut timings,
            &mut observed,
            &mut origin,
        )
        .await
        .err();
    }
    timings.total_ms = millis(start.elapsed());
    let checks = judge(expected, &observed, failure.as_ref(), &timings);
    ProbeReport {
        target: expected.target(),
        expected: expected.clone(),
        origin,
        ok: checks.iter().all(Check::passed),
        counts: super::judge::CheckCounts::of(&checks),
        failure,
        observed,
        timings,
        checks,
    }
}

async fn run(
    dialer: &dyn PeerDialer,
    expected: &Expected,
    deadline: Instant,
    timings: &mut Timings,
    observed: &mut Observed,
    origin: &mut Origin,
) -> Result<(), Failure> {
    let timeout_secs = (deadline - Instant::now()).as_secs_f64();
    let mut phase = Phase::Connect;
    let mut began = Instant::now();
    let stalled = |phase: Phase| Failure {
        phase,
        reason: format!(
            "no answer within the {timeout_secs:.1}s timeout (stalled during the {})",
            phase.label()
        ),
    };
    let host = match &expected.address.host {
        Host::Name(name) => name.clone(),
        Host::V4(ip) => ip.to_string(),
        Host::V6(ip) => ip.to_string(),
    };
    let DialedPeer {
        stream,
        local,
        remote,
    } = timeout_at(deadline, dialer.dial(&host, expected.address.port))
        .await
        .map_err(|_| stalled(phase))?
        .map_err(|e| {
            let mut reason = e.to_string();
            if let DialError::Connect { remote, .. } = &e {
                origin.remote_address = Some(remote.to_string());
                // What the caller knows of the node comes first: a seed never rendered has
                // no pod to answer, whatever its sidecar.
                match &expected.no_pod {
                    Some(why) => {
                        reason.push_str("; ");
                        reason.push_str(why);
                    }
                    None => reason.push_str(
                        "; a seed listening on 127.0.0.1 only (the sidecar before v0.0.69) looks \
                         like this from outside while its pod reports Ready",
                    ),
                }
            }
            Failure { phase, reason }
        })?;
    origin.local_address = local.map(|a| a.to_string());
    origin.remote_address = Some(remote.to_string());
    timings.connect_ms = Some(millis(began.elapsed()));

    phase = Phase::SecretConnection;
    began = Instant::now();
    let fail = |phase: Phase, error: ConnError| Failure {
        phase,
        reason: explain(phase, &error),
    };
    let ephemeral = Ephemeral::generate().map_err(|e| fail(phase, e.into()))?;
    let mut conn: SecretConnection<Box<dyn PeerStream>> =
        timeout_at(deadline, SecretConnection::establish(stream, &ephemeral))
            .await
            .map_err(|_| stalled(phase))?
            .map_err(|e| fail(phase, e))?;
    timings.secret_connection_ms = Some(millis(began.elapsed()));

    phase = Phase::Handshake;
    began = Instant::now();
    let key = NodeKey::generate().map_err(|e| Failure {
        phase,
        reason: e.to_string(),
    })?;
    let challenge = conn.challenge;
    let peer: PeerHandshake = timeout_at(deadline, async {
        conn.send_message(&our_handshake(&key, &challenge)).await?;
        conn.read_message("Handshake", MAX_HANDSHAKE).await
    })
    .await
    .map_err(|_| stalled(phase))?
    .map_err(|e| fail(phase, e))
    .and_then(|bytes| {
        check_peer_handshake(&bytes, &challenge).map_err(|e| Failure {
            phase,
            reason: e.to_string(),
        })
    })?;
    observed.node_id = Some(peer.node_id.clone());
    observed.self_address = peer.self_addr.clone();
    observed.pex_addresses = peer.pex_addrs.clone();
    timings.handshake_ms = Some(millis(began.elapsed()));

    phase = Phase::NodeInfo;
    began = Instant::now();
    // Theirs first, then ours: upstream writes its NodeInfo concurrently with reading ours and
    // cancels that write when it rejects ours, so a peer on another network would otherwise
    // answer with a bare close about half the time. Read first, we always see its network.
    let info = timeout_at(deadline, async {
        let theirs = conn.read_message("NodeInfo", MAX_NODE_INFO).await?;
        // Best effort: the verdict rests on their NodeInfo; ours only lets the peer finish cleanly.
        let _ = conn
            .send_message(&our_node_info(&key.node_id(), &expected.chain_id))
            .await;
        Ok::<_, ConnError>(theirs)
    })
    .await
    .map_err(|_| stalled(phase))?
    .map_err(|e| fail(phase, e))
    .and_then(|bytes| {
        check_peer_node_info(&bytes, &peer.node_id).map_err(|e| Failure {
            phase,
            reason: e.to_string(),
        })
    })?;
    observed.node_info = Some(info);
    timings.node_info_ms = Some(millis(began.elapsed()));
    // Nothing follows the handshake: close at once (bounded, the peer may not read).
    let mut stream = conn.into_inner();
    let _ = tokio::time::timeout(Duration::from_millis(200), stream.shutdown()).await;
    Ok(())
}

const CLOSED_BEFORE_PREFACE: &str = "the peer closed the connection before its preface: not a \
    sei-tendermint P2P listener, or it refuses this connection (full, or rate-limiting this \
    address: sei-tendermint accepts one new connection per address per 100 ms, about one per \
    second in all; the probe retries once after 150 ms)";

/// One line on a failed phase that tells the operator what it likely means.
fn explain(phase: Phase, error: &ConnError) -> String {
    match (phase, error) {
        (Phase::SecretConnection, ConnError::Closed) => CLOSED_BEFORE_PREFACE.to_owned(),
        (Phase::Handshake, ConnError::Closed) => "the peer closed the connection instead of \
            sending its Handshake: it rejected ours, or is not a sei-tendermint P2P listener"
            .to_owned(),
        // The probe reads the peer's NodeInfo before sending its own, so nothing of ours
        // about the network can have been rejected yet.
        (Phase::NodeInfo, ConnError::Closed) => "the peer closed the connection instead of \
            sending its NodeInfo: it rejected our Handshake, or is not a sei-tendermint P2P \
            listener"
            .to_owned(),
        (_, error) => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The console spawns probes on its runtime: the future must be `Send`.
    #[test]
    fn the_probe_future_is_send() {
        fn spawnable<F: std::future::Future + Send>(_: F) {}
        let expected = Expected {
            node_id: None,
            node_id_source: "test".into(),
            address: ExternalAddress::parse("127.0.0.1:26656").expect("address"),
            chain_id: "c".into(),
            no_pod: None,
        };
        spawnable(probe(
            &super::super::tcp::TcpDialer,
            &expected,
            DEFAULT_TIMEOUT,
        ));
    }

    /// Every dial connects, and the peer closes at once (what sei-tendermint does to a second
    /// connection from one address within 100 ms).
    struct ClosingDialer(std::sync::atomic::AtomicUsize);

    impl PeerDialer for ClosingDialer {
        fn dial<'a>(&'a self, _host: &'a str, _port: u16) -> crate::ports::DialFuture<'a> {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Box::pin(async {
                let (ours, theirs) = tokio::io::duplex(64);
                drop(theirs);
                Ok(DialedPeer {
                    stream: Box::new(ours),
                    local: None,
                    remote: ([127, 0, 0, 1], 26656).into(),
                })
            })
        }
    }

    #[tokio::test]
    async fn a_connection_closed_before_the_preface_is_tried_once_more() {
        let dialer = ClosingDialer(Default::default());
        let expected = Expected {
            node_id: None,
            node_id_source: "test".into(),
            address: ExternalAddress::parse("127.0.0.1:26656").expect("address"),
            chain_id: "c".into(),
            no_pod: None,
        };
        let report = probe(&dialer, &expected, Duration::from_secs(2)).await;
        assert_eq!(dialer.0.load(std::sync::atomic::Ordering::SeqCst), 2);
        let failure = report.failure.expect("failure");
        assert_eq!(failure.phase, Phase::SecretConnection);
        assert!(failure.reason.contains("100 ms"), "{}", failure.reason);
        // Not when the deadline leaves no room.
        let dialer = ClosingDialer(Default::default());
        let _ = probe(&dialer, &expected, Duration::from_millis(250)).await;
        assert_eq!(dialer.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
