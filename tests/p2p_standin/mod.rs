//! A sei-tendermint P2P listener stand-in on 127.0.0.1: the responder side of the handshake
//! (preface, signed Handshake with self address and PEX addresses, NodeInfo), configurable to
//! misbehave the ways real seeds fail. It checks what the client sends too, and records it.
//!
//! Kept only for what a real seed cannot be made to show: stalls at each phase, a bad signature,
//! oversized prefaces, Handshakes and frames, a loopback listen address seen from loopback, a close
//! instead of a NodeInfo, and a record of what the client sent. Everything a real node can show (a
//! healthy seed and its PEX, another key than the published one, no external address, no peers,
//! another chain ID) runs against a real sei-tendermint seed: `tests/tendermint_net`. The stand-in
//! shares the crate's own SecretConnection and handshake code, so it agrees with the client by
//! construction; see CHANGELOG.md for where it differed from the real node.
#![allow(dead_code)] // each test binary uses a different subset

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sei_console::actions::node_key::NodeKey;
use sei_console::p2p::conn::SecretConnection;
use sei_console::p2p::frame::PLAIN_FRAME;
use sei_console::p2p::handshake::{check_peer_handshake, check_peer_node_info};
use sei_console::p2p::secret::Ephemeral;
use sei_console::p2p::wire::{self, BLOCK_PROTOCOL, P2P_PROTOCOL};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How the stand-in deviates from a healthy seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misbehaviour {
    Healthy,
    /// Authenticates with a key other than the published one.
    WrongKey,
    /// Signs something other than the session challenge.
    BadSignature,
    WrongNetwork,
    /// `listen_addr` on 127.0.0.1:26656 (the sidecar before v0.0.69).
    LoopbackListenAddress,
    /// Accepts, then says nothing.
    StallBeforePreface,
    /// Sends its preface, then nothing.
    StallAfterPreface,
    /// Completes the Handshake, then never sends NodeInfo.
    StallBeforeNodeInfo,
    /// Announces a 1 MiB preface.
    OversizedPreface,
    /// Announces a 16 MiB Handshake inside the encrypted stream.
    OversizedHandshake,
    /// Sends a sealed frame declaring 5000 data bytes.
    OversizedFrame,
    /// Closes instead of sending NodeInfo (what a seed does that rejected our Handshake).
    CloseBeforeNodeInfo,
    /// On another network, and as upstream's `exchangeNodeInfo` at its unlucky timing: the
    /// client's NodeInfo, when it arrives within 300 ms, is read and rejected before the
    /// stand-in's own is written, so the client sees only the close. A client that reads first
    /// gets the NodeInfo after 300 ms.
    WrongNetworkRejectsBeforeWriting,
}

#[derive(Debug, Clone)]
pub struct StandinConfig {
    pub misbehaviour: Misbehaviour,
    pub network: String,
    /// The published key's seed (the stand-in's NodeID unless `WrongKey`).
    pub key_seed: [u8; 32],
}

impl StandinConfig {
    pub fn healthy(network: &str) -> StandinConfig {
        StandinConfig {
            misbehaviour: Misbehaviour::Healthy,
            network: network.to_owned(),
            key_seed: [0x5e; 32],
        }
    }

    pub fn with(mut self, misbehaviour: Misbehaviour) -> StandinConfig {
        self.misbehaviour = misbehaviour;
        self
    }
}

/// What the client did on one connection.
#[derive(Debug, Clone, Default)]
pub struct ClientSeen {
    pub handshake_ok: Option<Result<(), String>>,
    pub client_self_addr: Option<Option<String>>,
    pub client_pex: usize,
    pub node_info: Option<Result<wire::NodeInfo, String>>,
    /// Bytes the client sent after its NodeInfo (must be none).
    pub bytes_after_node_info: usize,
}

pub struct P2pStandin {
    pub addr: SocketAddr,
    /// The published NodeID (from `key_seed`).
    pub node_id: String,
    pub seen: Arc<Mutex<Vec<ClientSeen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for P2pStandin {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Two made-up peers the stand-in hands out besides itself.
pub fn other_peers() -> Vec<String> {
    [[0x01u8; 32], [0x02; 32]]
        .iter()
        .enumerate()
        .map(|(i, seed)| {
            let id = NodeKey::from_seed(seed).node_id();
            format!("mconn://{id}@10.0.0.{}:26656", i + 10)
        })
        .collect()
}

impl P2pStandin {
    pub async fn start(config: StandinConfig) -> P2pStandin {
        P2pStandin::start_keyed(config, None).await
    }

    /// Listens at once but answers only once `key` holds the key seed (for a key `seed create`
    /// generates after the address is published): until then connections wait in the backlog.
    /// `WrongKey` then authenticates with another key than that one.
    pub async fn start_with_key_later(
        config: StandinConfig,
    ) -> (P2pStandin, tokio::sync::watch::Sender<Option<[u8; 32]>>) {
        let (tx, rx) = tokio::sync::watch::channel(None);
        (P2pStandin::start_keyed(config, Some(rx)).await, tx)
    }

    async fn start_keyed(
        mut config: StandinConfig,
        key: Option<tokio::sync::watch::Receiver<Option<[u8; 32]>>>,
    ) -> P2pStandin {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let node_id = match key {
            Some(_) => String::new(),
            None => NodeKey::from_seed(&config.key_seed).node_id(),
        };
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = seen.clone();
        let task = tokio::spawn(async move {
            if let Some(mut key) = key {
                let Ok(seed) = key.wait_for(Option::is_some).await.map(|k| *k) else {
                    return;
                };
                config.key_seed = seed.unwrap_or(config.key_seed);
            }
            // Bounded: a test makes a handful of connections.
            for _ in 0..64 {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let config = config.clone();
                let recorded = recorded.clone();
                tokio::spawn(async move {
                    let mut client = ClientSeen::default();
                    let _ = tokio::time::timeout(
                        Duration::from_secs(30),
                        respond(stream, addr, &config, &mut client),
                    )
                    .await;
                    recorded.lock().expect("lock").push(client);
                });
            }
        });
        P2pStandin {
            addr,
            node_id,
            seen,
            task,
        }
    }

    /// `127.0.0.1:PORT`, to publish as the seed's external address.
    pub fn external_address(&self) -> String {
        self.addr.to_string()
    }

    pub fn peer_string(&self) -> String {
        format!("{}@{}", self.node_id, self.addr)
    }
}

/// Holds the connection open, saying nothing.
async fn stall() -> Result<(), String> {
    tokio::time::sleep(Duration::from_secs(60)).await;
    Ok(())
}

async fn respond(
    mut stream: TcpStream,
    addr: SocketAddr,
    config: &StandinConfig,
    client: &mut ClientSeen,
) -> Result<(), String> {
    use Misbehaviour::*;
    let e = |e: sei_console::p2p::conn::ConnError| e.to_string();
    match config.misbehaviour {
        StallBeforePreface => return stall().await,
        OversizedPreface => {
            stream
                .write_all(&[0x80, 0x80, 0x40])
                .await
                .map_err(|e| e.to_string())?;
            // Keep feeding bytes: the client must stop reading on the announced size alone.
            for _ in 0..64 {
                if stream.write_all(&[0xaa; 1024]).await.is_err() {
                    break;
                }
            }
            return Ok(());
        }
        _ => {}
    }
    let ephemeral = Ephemeral::generate().map_err(|e| e.to_string())?;
    let mut conn = SecretConnection::establish(stream, &ephemeral)
        .await
        .map_err(e)?;
    match config.misbehaviour {
        StallAfterPreface => return stall().await,
        OversizedHandshake => {
            conn.write(&[0x80, 0x80, 0x80, 0x08]).await.map_err(e)?;
            conn.flush().await.map_err(e)?;
            return stall().await;
        }
        OversizedFrame => {
            let mut plain = [0u8; PLAIN_FRAME];
            plain[..4].copy_from_slice(&5000u32.to_le_bytes());
            conn.send_raw_frame(plain).await.map_err(e)?;
            return stall().await;
        }
        _ => {}
    }
    let published = NodeKey::from_seed(&config.key_seed);
    let key = if config.misbehaviour == WrongKey {
        NodeKey::from_seed(&[0x77; 32])
    } else {
        published
    };
    let own = format!("mconn://{}@{addr}", key.node_id());
    let signed: &[u8] = if config.misbehaviour == BadSignature {
        &[0u8; 32]
    } else {
        &conn.challenge
    };
    let mut pex = vec![own.clone()];
    pex.extend(other_peers());
    let handshake = wire::Handshake {
        node_auth_key: Some(wire::NodePublicKey {
            ed25519: key.public_key().to_vec(),
        }),
        node_auth_sig: key.sign(signed).to_vec(),
        sei_giga_connection: false,
        self_addr: Some(own.clone()),
        pex_addrs: pex,
    };
    conn.send_message(&handshake).await.map_err(e)?;
    let theirs = conn
        .read_message("Handshake", 1024 * 1024)
        .await
        .map_err(e)?;
    let challenge = conn.challenge;
    let peer = check_peer_handshake(&theirs, &challenge);
    client.handshake_ok = Some(peer.as_ref().map(|_| ()).map_err(|e| e.to_string()));
    let peer = peer.map_err(|e| e.to_string())?;
    client.client_self_addr = Some(peer.self_addr.as_ref().map(|a| a.to_string()));
    client.client_pex = peer.pex_addrs.len();
    match config.misbehaviour {
        StallBeforeNodeInfo => return stall().await,
        CloseBeforeNodeInfo => return Ok(()),
        _ => {}
    }
    let listen = if config.misbehaviour == LoopbackListenAddress {
        "tcp://127.0.0.1:26656".to_owned()
    } else {
        format!("tcp://{addr}")
    };
    if config.misbehaviour == WrongNetworkRejectsBeforeWriting {
        let mut first = [0u8; 1];
        let peeked =
            tokio::time::timeout(Duration::from_millis(300), conn.get_ref().peek(&mut first)).await;
        if matches!(peeked, Ok(Ok(n)) if n > 0) {
            let theirs = conn.read_message("NodeInfo", 10240).await.map_err(e)?;
            client.node_info = Some(wire::decode("NodeInfo", &theirs).map_err(|e| e.to_string()));
            return Ok(()); // rejected: the write of ours never happened
        }
    }
    let network = if matches!(
        config.misbehaviour,
        WrongNetwork | WrongNetworkRejectsBeforeWriting
    ) {
        "atlantic-2".to_owned()
    } else {
        config.network.clone()
    };
    let info = wire::NodeInfo {
        protocol_version: Some(wire::ProtocolVersion {
            p2p: P2P_PROTOCOL,
            block: BLOCK_PROTOCOL,
            app: 0,
        }),
        node_id: key.node_id(),
        listen_addr: listen,
        network,
        version: "0.35.0-unreleased".to_owned(),
        channels: vec![0x00],
        moniker: "standin-seed".to_owned(),
        other: Some(wire::NodeInfoOther {
            tx_index: "off".to_owned(),
            rpc_address: String::new(),
        }),
    };
    conn.send_message(&info).await.map_err(e)?;
    let theirs = conn.read_message("NodeInfo", 10240).await.map_err(e)?;
    client.node_info = Some(
        check_peer_node_info(&theirs, &peer.node_id)
            .map_err(|e| e.to_string())
            .and_then(|_| wire::decode("NodeInfo", &theirs).map_err(|e| e.to_string())),
    );
    // Anything the client sends now is beyond the handshake; count it until it closes.
    let mut rest = conn.into_inner();
    let mut buf = [0u8; 4096];
    for _ in 0..16 {
        match tokio::time::timeout(Duration::from_secs(2), rest.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => break,
            Ok(Ok(n)) => client.bytes_after_node_info += n,
        }
    }
    Ok(())
}
