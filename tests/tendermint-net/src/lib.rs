//! A real sei-tendermint network on 127.0.0.1 for the tests (a test-only crate shared by
//! `tests/p2p_probe.rs`, `tests/tendermint_rpc.rs` and the integration tests): one validator
//! running the in-process kvstore app, optionally full nodes peered to it, optionally a seed
//! (`mode = "seed"`, `pex = true`) that dials the validator and advertises
//! `p2p.external-address` = its own loopback address.
//!
//! The nodes are `tests/tendermint-node` (our small main over sei-chain's public packages), built
//! and cached by `tests/control-plane/build`; `SEI_TEST_TENDERMINT_NODE` overrides the binary.
//! Homes live in a temporary directory, ports are chosen free, every process is killed when its
//! `Node` is dropped, and each node also exits by itself after `MAX_LIFETIME` or as soon as the
//! test process is gone (`--exit-with-parent`), so a killed test run leaves nothing behind.
//!
//! Facts relied on, checked in sei-tendermint (sei-chain c9b42951, `sei-tendermint/`): `GET
//! /status` over HTTP returns the bare result object (no JSON-RPC envelope), numbers as JSON
//! strings (`internal/rpc/core/status.go`, `rpc/jsonrpc/server/http_uri_handler.go`); a seed
//! serves no RPC (`node/seed.go`); `LoadNodeKey` recomputes the ID from the key
//! (`types/node_key.go`), so a `node_key.json` without `id` (the console's) works.
//!
//! Used by `tests/p2p_probe.rs`, `tests/tendermint_rpc.rs` (the RPC quirks chain health relies on)
//! and the integration tests (`chain_health.rs`). `Network::start(NetworkSpec)` waits until the
//! validator and the full nodes are past height 1 and the validator lists the seed;
//! `Network::add_node`/`init_node` with a `Peering` add more, `add_node_with_peers` extra
//! persistent peers (two full nodes peered to each other have the two block-sync peers blocksync
//! needs to report caught up). A `Node` has its NodeID, addresses, home and `node_key.json`,
//! `start`/`stop` (a stopped validator stalls the chain), `rpc_get` (bare `/status`, `/net_info`,
//! `/lag_status` with the HTTP status), `height`, `wait_for_height_above`, `peer_ids`,
//! `wait_for_peer` and `connected_strangers` (the probes the node accepted, from its log).
use std::fs::File;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

mod network;
pub use network::{Network, NetworkSpec, Peering};

/// No node outlives this, whatever happens to the test.
pub const MAX_LIFETIME: Duration = Duration::from_secs(15 * 60);
/// How long a network may take to come up on a loaded machine.
pub const START_TIMEOUT: Duration = Duration::from_secs(90);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Validator,
    Full,
    Seed,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Validator => "validator",
            Mode::Full => "full",
            Mode::Seed => "seed",
        }
    }
}

/// The `tendermint-node` binary: `SEI_TEST_TENDERMINT_NODE`, else the control-plane cache
/// (`tests/control-plane/build tendermint-node` builds it there on first use).
pub fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        if let Ok(path) = std::env::var("SEI_TEST_TENDERMINT_NODE") {
            return PathBuf::from(path);
        }
        let build = Path::new(env!("CARGO_MANIFEST_DIR")).join("../control-plane/build");
        let out = Command::new("bash")
            .arg(&build)
            .arg("tendermint-node-path")
            .output()
            .expect("run tests/control-plane/build tendermint-node-path");
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if !path.is_file() {
            eprintln!("building the sei-tendermint test node (once): {build:?} tendermint-node");
            let status = Command::new("bash")
                .arg(&build)
                .arg("tendermint-node")
                .status()
                .expect("run tests/control-plane/build tendermint-node");
            assert!(
                status.success() && path.is_file(),
                "the real sei-tendermint node could not be built ({status}); it needs Go and the \
                 Go module proxy: bash tests/control-plane/build tendermint-node"
            );
        }
        path
    })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// One node: its home, identity and addresses, and its process while it runs.
#[derive(Debug)]
pub struct Node {
    pub name: String,
    pub mode: Mode,
    pub home: PathBuf,
    pub node_id: String,
    pub p2p: SocketAddr,
    /// None for a seed (seeds serve no RPC).
    pub rpc: Option<SocketAddr>,
    child: Option<Child>,
}

/// What a new node is told about the network.
pub struct NodeSetup<'a> {
    pub name: &'a str,
    pub mode: Mode,
    pub chain_id: &'a str,
    /// The validator's genesis (`None` for the validator, which makes it).
    pub genesis: Option<&'a Path>,
    pub persistent_peers: Vec<String>,
    /// `p2p.external-address` = its own P2P address (what a published seed has).
    pub advertise_self: bool,
    /// `p2p.pex`.
    pub pex: bool,
    /// The block interval (`timeout-commit`) of a new genesis; the node's default when `None`.
    pub timeout_commit: Option<Duration>,
}

impl Node {
    /// `tendermint-node init` in `dir/<name>`; not started.
    pub fn init(dir: &Path, setup: NodeSetup<'_>) -> Node {
        let home = dir.join(setup.name);
        let p2p: SocketAddr = ([127, 0, 0, 1], free_port()).into();
        let rpc: Option<SocketAddr> =
            (setup.mode != Mode::Seed).then(|| ([127, 0, 0, 1], free_port()).into());
        let mut command = Command::new(binary());
        command
            .arg("init")
            .arg("--home")
            .arg(&home)
            .args(["--mode", setup.mode.as_str(), "--moniker", setup.name])
            .args(["--chain-id", setup.chain_id])
            .arg(format!("--p2p-laddr=tcp://{p2p}"))
            .arg(format!(
                "--rpc-laddr={}",
                rpc.map(|a| format!("tcp://{a}")).unwrap_or_default()
            ))
            .arg(format!(
                "--persistent-peers={}",
                setup.persistent_peers.join(",")
            ));
        if let Some(genesis) = setup.genesis {
            command.arg("--genesis").arg(genesis);
        }
        if setup.advertise_self {
            command.arg(format!("--external-address={p2p}"));
        }
        command.arg(format!("--pex={}", setup.pex));
        if let Some(commit) = setup.timeout_commit {
            command.arg(format!("--timeout-commit={}ms", commit.as_millis()));
        }
        let out = command.output().expect("run tendermint-node init");
        assert!(
            out.status.success(),
            "tendermint-node init {}: {}",
            setup.name,
            String::from_utf8_lossy(&out.stderr)
        );
        Node {
            name: setup.name.to_owned(),
            mode: setup.mode,
            home,
            node_id: String::from_utf8_lossy(&out.stdout).trim().to_owned(),
            p2p,
            rpc,
            child: None,
        }
    }

    pub fn genesis(&self) -> PathBuf {
        self.home.join("config/genesis.json")
    }

    /// The node's `config/node_key.json` as sei-tendermint wrote it.
    pub fn node_key_json(&self) -> String {
        std::fs::read_to_string(self.home.join("config/node_key.json")).expect("node_key.json")
    }

    /// Replaces the node key before the first start (a key the console generated).
    pub fn set_node_key_json(&mut self, json: &str, node_id: &str) {
        std::fs::write(self.home.join("config/node_key.json"), json).expect("write node_key.json");
        self.node_id = node_id.to_owned();
    }

    /// `ID@127.0.0.1:PORT`.
    pub fn peer(&self) -> String {
        format!("{}@{}", self.node_id, self.p2p)
    }

    pub fn log_path(&self) -> PathBuf {
        self.home.join("node.log")
    }

    /// The last `lines` lines of the node's log (for failure messages).
    pub fn log_tail(&self, lines: usize) -> String {
        let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        let all: Vec<&str> = log.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// Starts the node (again, after `stop`: the validator replays its stored blocks).
    pub fn start(&mut self) {
        if self.is_running() {
            return;
        }
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.log_path())
            .expect("node log");
        let child = Command::new(binary())
            .arg("start")
            .arg("--home")
            .arg(&self.home)
            .arg(format!("--max-lifetime={}s", MAX_LIFETIME.as_secs()))
            .arg("--exit-with-parent")
            .env("SEI_LOG_LEVEL", "info")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("start tendermint-node");
        self.child = Some(child);
    }

    /// Kills the node and waits for it (a stopped validator stalls the chain).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn is_running(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// `GET path` on the node's RPC: the HTTP status and the body as JSON.
    pub async fn rpc_get(&self, path: &str) -> Result<(u16, Value), String> {
        let rpc = self
            .rpc
            .ok_or_else(|| format!("{} serves no RPC", self.name))?;
        http_get(rpc, path).await
    }

    /// `GET /status` (the bare result object).
    pub async fn status(&self) -> Result<Value, String> {
        match self.rpc_get("/status").await? {
            (200, body) => Ok(body),
            (code, body) => Err(format!("/status answered {code}: {body}")),
        }
    }

    /// `sync_info.latest_block_height` of `/status`.
    pub async fn height(&self) -> Result<u64, String> {
        let status = self.status().await?;
        status["sync_info"]["latest_block_height"]
            .as_str()
            .and_then(|h| h.parse().ok())
            .ok_or_else(|| format!("no latest_block_height in {status}"))
    }

    /// Waits (bounded) until the node's height exceeds `above`; returns it.
    pub async fn wait_for_height_above(&self, above: u64, timeout: Duration) -> u64 {
        let started = Instant::now();
        let mut last = Err("not asked yet".to_owned());
        while started.elapsed() < timeout {
            last = self.height().await;
            if let Ok(height) = last
                && height > above
            {
                return height;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        panic!(
            "{} did not pass height {above} within {timeout:?} (last: {last:?}); its log:\n{}",
            self.name,
            self.log_tail(30)
        );
    }

    /// Whether the node's log says `peer` connected (either direction; `/net_info` lists an inbound
    /// peer only when it declared an address, so a seed without `p2p.external-address` never
    /// shows up in its validator's `/net_info`).
    pub fn logged_connection_to(&self, peer: &Node) -> bool {
        let needle = format!("peer={}", peer.node_id);
        std::fs::read_to_string(self.log_path())
            .unwrap_or_default()
            .lines()
            .any(|l| l.contains("msg=\"peer connected\"") && l.contains(&needle))
    }

    /// Waits (bounded) until the node's log says `peer` connected.
    pub async fn wait_for_logged_connection(&self, peer: &Node, timeout: Duration) {
        let started = Instant::now();
        while !self.logged_connection_to(peer) {
            assert!(
                started.elapsed() < timeout,
                "{} did not connect to {} within {timeout:?}; its log:\n{}",
                self.name,
                peer.name,
                self.log_tail(30)
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// How many peers the node's log says connected whose IDs are none of `known` (a probe's
    /// connection counts once its Handshake and NodeInfo were accepted).
    pub fn connected_strangers(&self, known: &[&str]) -> usize {
        let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        log.lines()
            .filter(|l| l.contains("msg=\"peer connected\""))
            .filter(|l| !known.iter().any(|id| l.contains(&format!("peer={id}"))))
            .count()
    }

    /// Waits (bounded) until `connected_strangers(known)` reaches `count`; returns it.
    pub async fn wait_for_strangers(
        &self,
        known: &[&str],
        count: usize,
        timeout: Duration,
    ) -> usize {
        let started = Instant::now();
        while self.connected_strangers(known) < count && started.elapsed() < timeout {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        self.connected_strangers(known)
    }

    /// Waits (bounded) until the node accepts TCP connections on its P2P port.
    pub async fn wait_for_p2p(&self, timeout: Duration) {
        let started = Instant::now();
        while started.elapsed() < timeout {
            if tokio::net::TcpStream::connect(self.p2p).await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!(
            "{} did not listen on {} within {timeout:?}; its log:\n{}",
            self.name,
            self.p2p,
            self.log_tail(30)
        );
    }

    /// The node IDs `/net_info` lists as peers.
    pub async fn peer_ids(&self) -> Result<Vec<String>, String> {
        let (_, info) = self.rpc_get("/net_info").await?;
        Ok(info["peers"]
            .as_array()
            .map(|peers| {
                peers
                    .iter()
                    .filter_map(|p| p["node_id"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Waits (bounded) until `/net_info` lists `peer`.
    pub async fn wait_for_peer(&self, peer: &Node, timeout: Duration) {
        let started = Instant::now();
        while started.elapsed() < timeout {
            if self
                .peer_ids()
                .await
                .is_ok_and(|ids| ids.contains(&peer.node_id))
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        panic!(
            "{} did not connect to {} within {timeout:?}; {}'s log:\n{}",
            self.name,
            peer.name,
            peer.name,
            peer.log_tail(30)
        );
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A plain HTTP/1.0 GET on loopback, bounded in time and size.
pub async fn http_get(addr: SocketAddr, path: &str) -> Result<(u16, Value), String> {
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .map_err(|e| e.to_string())?;
        let request = format!("GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        let mut response = Vec::new();
        (&mut stream)
            .take(4 << 20)
            .read_to_end(&mut response)
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>(response)
    };
    let response = tokio::time::timeout(Duration::from_secs(5), exchange)
        .await
        .map_err(|_| format!("GET {path} on {addr}: no answer within 5 s"))??;
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("GET {path}: no HTTP header end in {text:?}"))?;
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("GET {path}: no status in {head:?}"))?;
    let body = serde_json::from_str(body).map_err(|e| format!("GET {path}: {e}: {body}"))?;
    Ok((code, body))
}
