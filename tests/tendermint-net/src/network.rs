//! The network: a validator, full nodes and a seed started together ([`Network::start`]), and
//! more nodes added to it with their [`Peering`].
use std::time::Duration;

use crate::{Mode, Node, NodeSetup, START_TIMEOUT};

/// What to start.
#[derive(Debug, Clone)]
pub struct NetworkSpec {
    pub chain_id: String,
    pub full_nodes: usize,
    pub seed: bool,
}

impl NetworkSpec {
    /// A validator and a seed peered to it, on `chain_id`.
    pub fn validator_and_seed(chain_id: &str) -> NetworkSpec {
        NetworkSpec {
            chain_id: chain_id.to_owned(),
            full_nodes: 0,
            seed: true,
        }
    }
}

/// How an added node joins.
#[derive(Debug, Clone, Copy)]
pub struct Peering {
    /// The validator as its persistent peer.
    pub to_validator: bool,
    /// `p2p.external-address` = its own P2P address.
    pub advertise_self: bool,
    /// `p2p.pex`.
    pub pex: bool,
}

impl Default for Peering {
    fn default() -> Peering {
        Peering {
            to_validator: true,
            advertise_self: true,
            pex: true,
        }
    }
}

/// A running network; everything stops when it is dropped.
pub struct Network {
    pub chain_id: String,
    pub validator: Node,
    pub full_nodes: Vec<Node>,
    pub seed: Option<Node>,
    /// Kept for `add_node`; removed on drop.
    pub dir: tempfile::TempDir,
}

impl Network {
    /// Starts the validator and waits for height > 1, then the full nodes (peered to the validator)
    /// and the seed (dialing the validator); returns once the full nodes passed height 1 and the
    /// seed is connected to the validator (so it hands the validator out through PEX).
    pub async fn start(spec: NetworkSpec) -> Network {
        Network::start_with_block_interval(spec, None).await
    }

    /// [`Network::start`] with the validator's genesis making a block every `interval` (a
    /// chain that runs ahead of another started at the same time).
    pub async fn start_with_block_interval(
        spec: NetworkSpec,
        interval: Option<Duration>,
    ) -> Network {
        let dir = tempfile::Builder::new()
            .prefix("sei-tendermint-")
            .tempdir()
            .expect("tempdir");
        let mut validator = Node::init(
            dir.path(),
            NodeSetup {
                name: "validator",
                mode: Mode::Validator,
                chain_id: &spec.chain_id,
                genesis: None,
                persistent_peers: Vec::new(),
                advertise_self: false,
                pex: true,
                timeout_commit: interval,
            },
        );
        validator.start();
        validator.wait_for_height_above(1, START_TIMEOUT).await;
        let mut network = Network {
            chain_id: spec.chain_id.clone(),
            validator,
            full_nodes: Vec::new(),
            seed: None,
            dir,
        };
        for i in 0..spec.full_nodes {
            let node = network.add_node(&format!("full-{i}"), Mode::Full, Peering::default());
            network.full_nodes.push(node);
        }
        if spec.seed {
            network.seed = Some(network.add_node("seed", Mode::Seed, Peering::default()));
        }
        for node in &network.full_nodes {
            node.wait_for_height_above(1, START_TIMEOUT).await;
        }
        if let Some(seed) = &network.seed {
            seed.wait_for_logged_connection(&network.validator, START_TIMEOUT)
                .await;
        }
        network
    }

    /// A started node on this chain.
    pub fn add_node(&self, name: &str, mode: Mode, peering: Peering) -> Node {
        let mut node = self.init_node(name, mode, peering);
        node.start();
        node
    }

    /// A started node on this chain with `peers` (`ID@ADDR`) as persistent peers besides the
    /// validator's (per `peering`): two full nodes peered to each other have the two block-sync
    /// peers blocksync needs to report caught up.
    pub fn add_node_with_peers(
        &self,
        name: &str,
        mode: Mode,
        peering: Peering,
        peers: &[String],
    ) -> Node {
        let mut node = self.init_node(name, mode, peering);
        let config = node.home.join("config/config.toml");
        let text = std::fs::read_to_string(&config).expect("config.toml");
        let mut all: Vec<String> = if peering.to_validator {
            vec![self.validator.peer()]
        } else {
            Vec::new()
        };
        all.extend(peers.iter().cloned());
        let line = format!("persistent-peers = \"{}\"", all.join(","));
        let text: Vec<String> = text
            .lines()
            .map(|l| {
                if l.trim_start().starts_with("persistent-peers =") {
                    line.clone()
                } else {
                    l.to_owned()
                }
            })
            .collect();
        std::fs::write(&config, text.join("\n")).expect("write config.toml");
        node.start();
        node
    }

    /// A node on this chain, not started (to give it another key first).
    pub fn init_node(&self, name: &str, mode: Mode, peering: Peering) -> Node {
        let genesis = self.validator.genesis();
        Node::init(
            self.dir.path(),
            NodeSetup {
                name,
                mode,
                chain_id: &self.chain_id,
                genesis: Some(&genesis),
                persistent_peers: if peering.to_validator {
                    vec![self.validator.peer()]
                } else {
                    Vec::new()
                },
                advertise_self: peering.advertise_self,
                pex: peering.pex,
                timeout_commit: None,
            },
        )
    }

    pub fn seed(&self) -> &Node {
        self.seed.as_ref().expect("the network has a seed")
    }
}
