//! A real sei-tendermint seed as the seed `seed create` brings up: a network (a kvstore
//! validator) is started first, the seed's loopback address is chosen and published before the
//! key exists, and the seed starts once `seed create` has written the key to the node-key Secret,
//! with that key as its `config/node_key.json` — or at once with its own key (`KeyFrom::Own`),
//! so the Secret's key is not the one it authenticates with.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::Secret;
use sei_console::actions::node_key::NodeKey;

use super::TestNamespace;
use tendermint_net::{Mode, Network, NetworkSpec, Node, Peering};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFrom {
    /// The key `seed create` writes to `<node>-node-key`.
    Secret,
    /// Its own key (another one than the Secret's).
    Own,
}

pub struct RealSeed {
    pub network: Network,
    pub seed: Arc<Mutex<Node>>,
    address: String,
}

impl RealSeed {
    /// `127.0.0.1:PORT`, to publish as the seed's external address.
    pub fn external_address(&self) -> String {
        self.address.clone()
    }

    /// The connections the seed accepted besides the validator's (the outside probes).
    pub fn probes_accepted(&self) -> usize {
        let seed = self.seed.lock().expect("lock");
        seed.connected_strangers(&[&self.network.validator.node_id])
    }
}

/// A real seed on chain `pacific-1` for seed `node` of `ns`, keyed as told (the Secret is polled
/// for up to two minutes).
pub async fn real_seed_for_new_seed(ns: &TestNamespace, node: &str, key: KeyFrom) -> RealSeed {
    let network = Network::start(NetworkSpec {
        chain_id: "pacific-1".to_owned(),
        full_nodes: 0,
        seed: false,
    })
    .await;
    let mut seed = network.init_node(node, Mode::Seed, Peering::default());
    let address = seed.p2p.to_string();
    if key == KeyFrom::Own {
        seed.start();
    }
    let seed = Arc::new(Mutex::new(seed));
    if key == KeyFrom::Secret {
        let secrets = ns.api::<Secret>();
        let name = format!("{node}-node-key");
        let starting = seed.clone();
        tokio::spawn(async move {
            for _ in 0..600 {
                if let Ok(Some(secret)) = secrets.get_opt(&name).await
                    && let Some(json) = node_key_json(&secret)
                    && let Ok(key) = NodeKey::from_node_key_json(&json)
                {
                    let mut seed = starting.lock().expect("lock");
                    seed.set_node_key_json(&json, &key.node_id());
                    seed.start();
                    return;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        });
    }
    RealSeed {
        network,
        seed,
        address,
    }
}

fn node_key_json(secret: &Secret) -> Option<String> {
    let bytes = &secret.data.as_ref()?.get("node_key.json")?.0;
    String::from_utf8(bytes.clone()).ok()
}
