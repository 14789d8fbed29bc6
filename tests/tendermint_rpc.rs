//! The sei-tendermint RPC quirks chain health relies on, pinned against real nodes on loopback
//! (`tests/tendermint_net`, sei-chain c9b42951), each test named after its quirk, read through
//! the console's own parsers (`chain::rpc`) and verdict (`chain::health`).

use std::time::Duration;

use sei_console::chain::{
    ChainTop, LagStatus, NetInfo, NodeHealth, Reading, RpcAnswer, RpcFailure, Snapshot, State,
    Status, Verdict,
};
use tendermint_net::{Mode, Network, NetworkSpec, Node, Peering};

/// `GET path` as the console's parsers see it: the HTTP status and the body's bytes.
async fn answer(node: &Node, path: &str) -> RpcAnswer {
    let (status, body) = node.rpc_get(path).await.expect("RPC answers");
    RpcAnswer {
        status,
        body: serde_json::to_vec(&body).expect("JSON"),
    }
}

async fn network() -> Network {
    Network::start(NetworkSpec {
        chain_id: "health-1".into(),
        full_nodes: 0,
        seed: false,
    })
    .await
}

/// A full node whose only peer is the validator, with `lag-threshold = 0` (any lag is over it).
fn lonely_with_zero_lag_threshold(network: &Network) -> Node {
    lonely(network, true)
}

/// A full node whose only peer is the validator; with `zero_lag_threshold`, its `/lag_status`
/// calls any lag (even the one block blocksync stays behind) lagging.
fn lonely(network: &Network, zero_lag_threshold: bool) -> Node {
    let mut node = network.init_node(
        "lonely",
        Mode::Full,
        Peering {
            to_validator: true,
            advertise_self: false,
            pex: false,
        },
    );
    if !zero_lag_threshold {
        node.start();
        return node;
    }
    let config = node.home.join("config/config.toml");
    let text = std::fs::read_to_string(&config).expect("config.toml");
    let text = text.replacen("[rpc]\n", "[rpc]\nlag-threshold = 0\n", 1);
    assert!(
        text.contains("lag-threshold = 0"),
        "no [rpc] section in {text}"
    );
    std::fs::write(&config, text).expect("write config.toml");
    node.start();
    node
}

#[tokio::test]
async fn get_status_answers_the_bare_result_object_with_numbers_as_strings() {
    let network = network().await;
    let answer = answer(&network.validator, "/status").await;
    assert_eq!(answer.status, 200);
    let raw: serde_json::Value = serde_json::from_slice(&answer.body).expect("JSON");
    assert!(
        raw.get("result").is_none() && raw.get("jsonrpc").is_none(),
        "bare: {raw}"
    );
    assert!(raw["sync_info"]["latest_block_height"].is_string(), "{raw}");
    let status = Status::parse(&answer).expect("bare /status");
    assert!(status.latest_block_height > 1);
    assert!(status.caught_up());
    assert_eq!(status.node_id, network.validator.node_id);
    assert_eq!(status.network, "health-1");
    assert_eq!(status.moniker, "validator");
}

#[tokio::test]
async fn lag_status_over_the_threshold_answers_http_417_with_the_result_as_body() {
    let network = network().await;
    let within = LagStatus::parse(&answer(&network.validator, "/lag_status").await)
        .expect("validator's /lag_status");
    assert_eq!(within.http_status, 200);
    assert!(!within.lagging);
    let lonely = lonely_with_zero_lag_threshold(&network);
    lonely
        .wait_for_height_above(1, tendermint_net::START_TIMEOUT)
        .await;
    // Blocksync stays a block behind its one peer (block H needs H+1's commit): lag >= 1.
    let mut last = None;
    for _ in 0..60 {
        let answer = answer(&lonely, "/lag_status").await;
        if answer.status == 417 {
            let lag = LagStatus::parse(&answer).expect("417 carries the result");
            assert!(lag.lagging && lag.lag >= 1, "{lag:?}");
            assert_eq!(lag.lag, lag.max_peer_height - lag.current_height);
            return;
        }
        last = Some(answer);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    panic!(
        "no 417 within 30 s; last: {:?}",
        last.map(|a| (a.status, String::from_utf8_lossy(&a.body).into_owned()))
    );
}

#[tokio::test]
async fn a_get_error_answers_http_200_with_the_bare_error_object() {
    let network = network().await;
    let answer = answer(&network.validator, "/block?height=999999999").await;
    assert_eq!(
        answer.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&answer.body)
    );
    let raw: serde_json::Value = serde_json::from_slice(&answer.body).expect("JSON");
    assert!(
        raw["code"].is_i64() && raw["message"].is_string(),
        "bare error: {raw}"
    );
    // Read as any endpoint's answer, the 200 is the error it carries, not a result.
    let failure = NetInfo::parse(&answer).expect_err("an error object is no result");
    assert!(matches!(failure, RpcFailure::Rpc { .. }), "{failure:?}");
}

#[tokio::test]
async fn one_block_sync_peer_keeps_catching_up_true_while_the_height_advances() {
    let network = network().await;
    // The default lag threshold: with 0, the node's own /lag_status would call its one block
    // behind "lagging", and the node's word on lag comes before catching up.
    let lonely = lonely(&network, false);
    let first = lonely
        .wait_for_height_above(1, tendermint_net::START_TIMEOUT)
        .await;
    lonely
        .wait_for_height_above(first + 2, tendermint_net::START_TIMEOUT)
        .await;
    let status = Status::parse(&answer(&lonely, "/status").await).expect("status");
    assert!(
        status.catching_up,
        "one peer: blocksync never reports caught up"
    );
    let net = NetInfo::parse(&answer(&lonely, "/net_info").await).expect("net_info");
    assert_eq!(net.n_peers, 1);
    let mut health = NodeHealth::default();
    health.record(Reading {
        at: jiff::Timestamp::now(),
        outcome: Ok(Snapshot {
            status,
            lag: LagStatus::parse(&answer(&lonely, "/lag_status").await),
            net: Ok(net),
        }),
    });
    let verdict = health.verdict(jiff::Timestamp::now(), ChainTop::default());
    assert_eq!(verdict.state(), State::CatchingUp);
    assert!(
        matches!(verdict, Verdict::CatchingUp { one_peer: true, .. }),
        "{verdict:?}"
    );
}
