//! The console's outside probe of seeds on the real control plane: the seeds are real
//! sei-tendermint seeds (`tests/tendermint_net`) on loopback addresses published as their
//! `spec.externalAddress`; the console looks the NodeID up in the node-key Secret (as `seed probe
//! NODE` does) and shows the outcome in the fleet row and on the node screen.
use std::sync::Arc;

use kube::api::PostParams;
use sei_console::actions::node_key::NodeKey;
use sei_console::api::{NodeMode, SeiNode};
use sei_console::app::model::Msg;
use sei_console::backend::KubeBackend;
use sei_console::fleet::sample;
use sei_console::keymap::{Key, KeyCode};
use sei_console::kube::client::Connection;
use sei_console::p2p::prober::P2pProber;
use sei_console::p2p::tcp::TcpDialer;
use serde_json::json;
use tokio::sync::mpsc;

use crate::common::TestNamespace;
use crate::console::Console;
use tendermint_net::{Mode, Network, NetworkSpec, Peering};

async fn published_seed(ns: &TestNamespace, name: &str, node_key_json: &str, address: &str) {
    let secret = format!("{name}-node-key");
    ns.create_node_key_secret(&secret, node_key_json).await;
    let mut node = sample::node(&ns.name, name, NodeMode::Seed, 0);
    node.metadata.creation_timestamp = None;
    node.metadata.uid = None;
    node.spec.external_address = Some(address.to_owned());
    node.spec.seed = serde_json::from_value(json!({"nodeKey": {"secret": {"secretName": secret}}}))
        .expect("seed spec");
    ns.api::<SeiNode>()
        .create(&PostParams::default(), &node)
        .await
        .expect("create seed");
}

#[tokio::test]
async fn the_console_probes_published_seeds_against_their_node_key_secret() {
    let ns = TestNamespace::new("console-probe").await;
    let network = Network::start(NetworkSpec::validator_and_seed("pacific-1")).await;
    let healthy = network.seed();
    let key = NodeKey::from_node_key_json(&healthy.node_key_json()).expect("the seed's key");
    // The second seed authenticates with its own key; its Secret holds the first one's.
    let imposter = network.add_node("imposter", Mode::Seed, Peering::default());
    imposter
        .wait_for_logged_connection(&network.validator, tendermint_net::START_TIMEOUT)
        .await;
    let address = healthy.p2p.to_string();
    published_seed(&ns, "seed-0", &healthy.node_key_json(), &address).await;
    published_seed(
        &ns,
        "seed-1",
        &healthy.node_key_json(),
        &imposter.p2p.to_string(),
    )
    .await;
    // Peers the seed may have besides the console's probes.
    let known = [&*network.validator.node_id, &*imposter.node_id];
    let wait = std::time::Duration::from_secs(30);

    let connection = Connection {
        client: ns.client.clone(),
        context: "test".into(),
        default_namespace: ns.name.clone(),
        kube_config: None,
    };
    let (tx, rx) = mpsc::channel(1024);
    let effects = KubeBackend::new(connection, None)
        .with_prober(Arc::new(P2pProber::new(TcpDialer)))
        .effects(tx);
    let mut console = Console::start_on("test", &ns.name, effects, rx);
    console
        .until("both seeds", |m, _| m.listing.keys.len() == 2)
        .await;
    // The tick schedules the first probe of both (two at once is the bound).
    console.ticking = true;
    let screen = console
        .until("both seeds probed", |_, screen| {
            screen.contains("seed-0 ✓") && screen.contains("seed-1 ✗")
        })
        .await;
    println!("{screen}");
    console.ticking = false;
    // The real seed accepted the probe as a peer (its log), once.
    assert_eq!(healthy.wait_for_strangers(&known, 1, wait).await, 1);

    // P on the node screen probes again; the line names the Secret's NodeID and the route.
    console.send(Msg::Key(Key::plain(KeyCode::Enter)));
    console.send(Msg::Key(Key::char('P')));
    let short = &key.node_id()[..8];
    let screen = console
        .until("the node screen's probe line", |_, screen| {
            // The local address may wrap onto the next line, under the value's column.
            let local = screen
                .split(&format!("dialled {address} from"))
                .nth(1)
                .map(|rest| rest.trim_start().starts_with("127.0.0.1:"));
            screen.contains(&format!("✓ reachable as {short}…@{address}")) && local == Some(true)
        })
        .await;
    println!("{screen}");
    assert_eq!(healthy.wait_for_strangers(&known, 2, wait).await, 2);

    console.send(Msg::Key(Key::plain(KeyCode::Esc)));
    console.send(Msg::Key(Key::plain(KeyCode::Down)));
    console.send(Msg::Key(Key::plain(KeyCode::Enter)));
    let published = format!("published {}", key.node_id());
    let screen = console
        .until("the imposter's probe line", |m, screen| {
            // The key as the console holds it (stamped with its cluster's context).
            let imposter_key = m.listing.keys.iter().find(|k| &*k.name == "seed-1");
            let problem = imposter_key
                .and_then(|k| m.fleet.seed_probe(k))
                .and_then(|p| p.last.as_ref())
                .and_then(|l| l.problem.clone())
                .unwrap_or_default();
            screen.contains("✗ node ID: authenticates as")
                && problem.starts_with("node ID: authenticates as")
                && problem.contains(&published)
        })
        .await;
    println!("{screen}");
}
