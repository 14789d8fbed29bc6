//! Bounded fuzzing of the probe's reading side: random, truncated, mutated and oversized input at
//! every phase (fixed seed, fixed count). The probe must never panic, must end within its
//! timeout, and must never read more than its caps allow.
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use prost::Message;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, DuplexStream, ReadBuf};

use super::conn::{MAX_FRAMES, SecretConnection};
use super::frame::SEALED_FRAME;
use super::secret::Ephemeral;
use super::wire::{MAX_PREFACE, MAX_VARINT};
use super::{Expected, probe};
use crate::actions::address::ExternalAddress;
use crate::actions::node_key::NodeKey;
use crate::ports::{DialFuture, DialedPeer, PeerDialer};

/// xorshift64*: reproducible without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Up to `max` random bytes.
    fn bytes(&mut self, max: usize) -> Vec<u8> {
        let n = self.below(max + 1);
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Counts every byte the probe reads.
struct Counting {
    inner: DuplexStream,
    read: Arc<AtomicUsize>,
}

impl AsyncRead for Counting {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        self.read
            .fetch_add(buf.filled().len() - before, Ordering::Relaxed);
        poll
    }
}

impl AsyncWrite for Counting {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Hands out one prepared in-memory stream.
struct PipeDialer {
    stream: std::sync::Mutex<Option<DuplexStream>>,
    read: Arc<AtomicUsize>,
}

impl PeerDialer for PipeDialer {
    fn dial<'a>(&'a self, _host: &'a str, _port: u16) -> DialFuture<'a> {
        let stream = self.stream.lock().ok().and_then(|mut s| s.take());
        let read = self.read.clone();
        Box::pin(async move {
            let inner = stream.ok_or(crate::ports::DialError::NoAddress {
                host: "pipe".into(),
            })?;
            Ok(DialedPeer {
                stream: Box::new(Counting { inner, read }),
                local: None,
                remote: "127.0.0.1:26656".parse().expect("socket address"),
            })
        })
    }
}

/// What the fuzzed peer does after connecting.
#[derive(Clone, Copy, Debug)]
enum Stage {
    RawBytes,
    RandomFrames,
    MangledHandshake,
    MangledNodeInfo,
}

fn mangle(bytes: &mut Vec<u8>, rng: &mut Rng) {
    match rng.below(5) {
        0 => bytes.truncate(rng.below(bytes.len() + 1)),
        1 => {
            for _ in 0..=rng.below(8) {
                let i = rng.below(bytes.len().max(1));
                if let Some(b) = bytes.get_mut(i) {
                    *b = rng.next() as u8;
                }
            }
        }
        2 => bytes.extend(rng.bytes(300)),
        3 => *bytes = rng.bytes(2000),
        _ => {}
    }
}

/// A length prefix that is right, too long, or absurd, then the bytes.
fn sized(bytes: Vec<u8>, rng: &mut Rng) -> Vec<u8> {
    let declared = match rng.below(4) {
        0 => bytes.len() as u64 + rng.below(50) as u64,
        1 => rng.next(),
        _ => bytes.len() as u64,
    };
    let mut out = Vec::new();
    prost::encoding::encode_varint(declared, &mut out);
    out.extend(bytes);
    out
}

async fn peer(mut stream: DuplexStream, stage: Stage, rng: &mut Rng, key: &NodeKey) {
    let junk = rng.bytes(4 * SEALED_FRAME);
    match stage {
        Stage::RawBytes => {
            let _ = stream.write_all(&junk).await;
            return;
        }
        Stage::RandomFrames => {
            let ephemeral =
                Ephemeral::from_secret(rng.next().to_le_bytes().repeat(4).try_into().expect("32"));
            let _ = super::conn::exchange_prefaces(&mut stream, &ephemeral).await;
            let _ = stream.write_all(&junk).await;
            return;
        }
        _ => {}
    }
    let ephemeral = Ephemeral::from_secret([0x24; 32]);
    let Ok(mut conn) = SecretConnection::establish(stream, &ephemeral).await else {
        return;
    };
    let mut handshake = super::handshake::our_handshake(key, &conn.challenge);
    handshake.self_addr = Some(format!("{}@seed.example.com:26656", key.node_id()));
    handshake.pex_addrs = vec![format!("{}@10.1.2.3:26656", key.node_id()); rng.below(5)];
    let mut good = handshake.encode_to_vec();
    if let Stage::MangledHandshake = stage {
        mangle(&mut good, rng);
    }
    let first = sized(good, rng);
    if conn.write(&first).await.is_err() || conn.flush().await.is_err() {
        return;
    }
    let mut info = super::handshake::our_node_info(&key.node_id(), "pacific-1").encode_to_vec();
    mangle(&mut info, rng);
    let second = sized(info, rng);
    let _ = conn.write(&second).await;
    let _ = conn.flush().await;
    // Keep the stream open so only the caps and the deadline can end the probe.
    tokio::time::sleep(Duration::from_secs(3600)).await;
}

#[tokio::test(start_paused = true)]
async fn fuzzed_peers_never_panic_and_reads_stay_bounded() {
    const RUNS: usize = 400;
    let timeout = Duration::from_secs(2);
    let bound = MAX_VARINT + MAX_PREFACE + MAX_FRAMES * SEALED_FRAME;
    let key = NodeKey::from_seed(&[0x42; 32]);
    let expected = Expected {
        node_id: Some(key.node_id()),
        node_id_source: "argument".into(),
        address: ExternalAddress::parse("seed.example.com:26656").expect("address"),
        chain_id: "pacific-1".into(),
        no_pod: None,
    };
    let mut rng = Rng(0x0005_eed0_f5e1_c0de);
    let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
    for run in 0..RUNS {
        let stage = [
            Stage::RawBytes,
            Stage::RandomFrames,
            Stage::MangledHandshake,
            Stage::MangledNodeInfo,
        ][run % 4];
        let (ours, theirs) = tokio::io::duplex(256 * 1024);
        let read = Arc::new(AtomicUsize::new(0));
        let dialer = PipeDialer {
            stream: std::sync::Mutex::new(Some(ours)),
            read: read.clone(),
        };
        let mut peer_rng = Rng(rng.next() | 1);
        let peer_key = NodeKey::from_seed(&[0x42; 32]);
        let peer_task =
            tokio::spawn(async move { peer(theirs, stage, &mut peer_rng, &peer_key).await });
        let started = tokio::time::Instant::now();
        let report = probe(&dialer, &expected, timeout).await;
        assert!(
            started.elapsed() <= timeout + Duration::from_millis(300),
            "run {run}"
        );
        assert!(
            read.load(Ordering::Relaxed) <= bound,
            "run {run} read too much"
        );
        let phase = report
            .failure
            .as_ref()
            .map_or("none".to_owned(), |f| format!("{:?}", f.phase));
        *outcomes.entry(format!("{stage:?}->{phase}")).or_default() += 1;
        peer_task.abort();
    }
    // The fuzzer reached every phase of the probe.
    for phase in ["SecretConnection", "Handshake", "NodeInfo"] {
        assert!(
            outcomes.keys().any(|k| k.ends_with(phase)),
            "{phase} never reached: {outcomes:?}"
        );
    }
    assert_eq!(outcomes.values().sum::<usize>(), RUNS);
}
