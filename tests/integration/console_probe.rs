//! The console's outside probe of seeds on the real control plane: the seed is the P2P stand-in
//! on a loopback address published as its `spec.externalAddress`; the console looks its NodeID up
//! in the node-key Secret (as `seed probe NODE` does) and shows the outcome in the fleet row and
//! on the node screen.
use std::sync::Arc;

use kube::api::PostParams;
use sei_console::actions::node_key::NodeKey;
use sei_console::api::{NodeMode, SeiNode};
use sei_console::app::effects::Effects;
use sei_console::app::model::Msg;
use sei_console::fleet::sample;
use sei_console::keymap::{Key, KeyCode};
use sei_console::kube::client::Connection;
use sei_console::p2p::prober::P2pProber;
use sei_console::p2p::tcp::TcpDialer;
use serde_json::json;
use tokio::sync::mpsc;

use crate::common::TestNamespace;
use crate::console::Console;
use crate::p2p_standin::{Misbehaviour, P2pStandin, StandinConfig};

async fn published_seed(ns: &TestNamespace, name: &str, key: &NodeKey, address: &str) {
    let secret = format!("{name}-node-key");
    ns.create_node_key_secret(&secret, key.to_node_key_json().expose())
        .await;
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
    let config = StandinConfig::healthy("pacific-1");
    let key = NodeKey::from_seed(&config.key_seed);
    let healthy = P2pStandin::start(config.clone()).await;
    let imposter = P2pStandin::start(config.clone().with(Misbehaviour::WrongKey)).await;
    published_seed(&ns, "seed-0", &key, &healthy.external_address()).await;
    published_seed(&ns, "seed-1", &key, &imposter.external_address()).await;

    let connection = Connection {
        client: ns.client.clone(),
        context: "test".into(),
        default_namespace: ns.name.clone(),
        kube_config: None,
    };
    let (tx, rx) = mpsc::channel(1024);
    let effects =
        Effects::new(connection, tx, None).with_prober(Arc::new(P2pProber::new(TcpDialer)));
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
    // The stand-in records a connection once the probe has closed it.
    console
        .until("the stand-in's record of the probe", |_, _| {
            healthy.seen.lock().expect("lock").len() == 1
        })
        .await;

    // P on the node screen probes again; the line names the Secret's NodeID and the route.
    console.send(Msg::Key(Key::plain(KeyCode::Enter)));
    console.send(Msg::Key(Key::char('P')));
    let short = &key.node_id()[..8];
    let address = healthy.external_address();
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
    console
        .until("the second probe", |_, _| {
            healthy.seen.lock().expect("lock").len() == 2
        })
        .await;

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
