//! Reading a node's chain health through the [`NodeRpc`] port: `/status` first (it says whether
//! the RPC answers at all), then `/lag_status` and `/net_info` side by side. Shared by the
//! console's poller (`app::chain_health`) and `get` / `describe` / `doctor`, which read each node
//! until its reading can be judged as the console judges it ([`read_until_judged`]).
//!
//! `read_all` reads many nodes with a concurrency cap; `serves_rpc` is every mode but seeds (a
//! seed's health is its P2P probe).
use std::time::Duration;

use futures::StreamExt;

use crate::api::{NodeMode, SeiNode};
use crate::chain::health::{UNREACHABLE_AFTER, is_definitive};
use crate::chain::{LagStatus, NetInfo, Reading, RpcFailure, Snapshot, Status};
use crate::ports::Clock;
use crate::ports::node_rpc::{NodeRpc, RpcTarget};

/// The longest one GET may take (a port-forward opened on the way included).
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);

/// Whether `node` serves sei-tendermint's RPC: every mode but seeds (a seed's health is the
/// P2P probe: reachable with its NodeID and handing out peers).
pub fn serves_rpc(node: &SeiNode) -> bool {
    node.spec.mode().is_ok_and(|mode| mode != NodeMode::Seed)
}

/// One read of the node's RPC.
pub async fn read(
    rpc: &dyn NodeRpc,
    target: &RpcTarget,
    timeout: Duration,
) -> Result<Snapshot, RpcFailure> {
    let answer = rpc.get(target, "/status", timeout).await?;
    let status = Status::parse(&answer)?;
    let (lag, net) = futures::join!(
        rpc.get(target, "/lag_status", timeout),
        rpc.get(target, "/net_info", timeout)
    );
    Ok(Snapshot {
        status,
        lag: lag.and_then(|a| LagStatus::parse(&a)),
        net: net.and_then(|a| NetInfo::parse(&a)),
    })
}

/// Reads every target, at most `concurrency` at once, each stamped when it ended; in the order
/// they end.
pub async fn read_all<K: Send>(
    rpc: &dyn NodeRpc,
    clock: &dyn Clock,
    targets: Vec<(K, RpcTarget)>,
    concurrency: usize,
    timeout: Duration,
) -> Vec<(K, Reading)> {
    futures::stream::iter(targets)
        .map(|(key, target)| async move {
            let outcome = read(rpc, &target, timeout).await;
            (
                key,
                Reading {
                    at: clock.now(),
                    outcome,
                },
            )
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await
}

/// The pause before a one-shot command reads a failed node again.
pub const RETRY_PAUSE: Duration = Duration::from_millis(500);

/// A one-shot command's readings: every target read once, a failed read read again after
/// `pause` until it answers, its failure is an answer (`chain::health::is_definitive`), or
/// [`UNREACHABLE_AFTER`] reads in a row have failed, so the command calls a node unreachable
/// after as many failures as the console does. Each target's readings in the order taken, at
/// most `concurrency` targets at once.
pub async fn read_until_judged<K: Send>(
    rpc: &dyn NodeRpc,
    clock: &dyn Clock,
    targets: Vec<(K, RpcTarget)>,
    concurrency: usize,
    (timeout, pause): (Duration, Duration),
) -> Vec<(K, Vec<Reading>)> {
    futures::stream::iter(targets)
        .map(|(key, target)| async move {
            let mut readings = Vec::new();
            for attempt in 1..=UNREACHABLE_AFTER {
                let outcome = read(rpc, &target, timeout).await;
                let again = outcome
                    .as_ref()
                    .err()
                    .is_some_and(|failure| !is_definitive(failure));
                readings.push(Reading {
                    at: clock.now(),
                    outcome,
                });
                if !again || attempt == UNREACHABLE_AFTER {
                    break;
                }
                tokio::time::sleep(pause).await;
            }
            (key, readings)
        })
        .buffer_unordered(concurrency.max(1))
        .collect()
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::FixedClock;
    use crate::ports::node_rpc::fake::FakeNodeRpc;

    const STATUS: &str = r#"{"node_info":{"id":"aa","moniker":"m","version":"v","network":"c"},
        "sync_info":{"latest_block_height":"42","latest_block_time":"2026-12-01T12:00:00Z",
        "max_peer_block_height":"42","catching_up":false}}"#;

    #[tokio::test]
    async fn a_read_takes_status_lag_and_peers_and_a_failing_lag_alone_does_not_fail_it() {
        let rpc = FakeNodeRpc::default();
        rpc.answer("a", "/status", 200, STATUS);
        rpc.answer(
            "a",
            "/lag_status",
            417,
            r#"{"current_height":"42","max_peer_height":"900","lag":"858"}"#,
        );
        let snapshot = read(&rpc, &RpcTarget::new("ns", "a"), READ_TIMEOUT)
            .await
            .expect("status answered");
        assert_eq!(snapshot.status.latest_block_height, 42);
        assert!(
            snapshot
                .lag
                .as_ref()
                .is_ok_and(|l| l.lagging && l.lag == 858)
        );
        assert!(
            snapshot.net.is_err(),
            "no /net_info answer: its own failure"
        );
    }

    #[tokio::test]
    async fn an_unreachable_rpc_is_read_once_and_says_why() {
        let rpc = FakeNodeRpc::default();
        rpc.fail(
            "a",
            RpcFailure::Forbidden("cannot create pods/portforward".into()),
        );
        let clock = FixedClock("2026-12-01T12:00:00Z".parse().expect("time"));
        let read = read_all(
            &rpc,
            &clock,
            vec![(1, RpcTarget::new("ns", "a"))],
            4,
            READ_TIMEOUT,
        )
        .await;
        assert_eq!(rpc.read_count(), 1, "no /lag_status after /status failed");
        assert!(matches!(
            &read[0].1.outcome,
            Err(RpcFailure::Forbidden(why)) if why.contains("pods/portforward")
        ));
    }

    #[tokio::test]
    async fn a_one_shot_read_reads_a_failing_node_as_often_as_the_console_waits_it_out() {
        let rpc = FakeNodeRpc::default();
        rpc.fail("slow", RpcFailure::Timeout(5));
        rpc.fail("gone", RpcFailure::NoPod("gone-0".into()));
        rpc.answer("up", "/status", 200, STATUS);
        let clock = FixedClock("2026-12-01T12:00:00Z".parse().expect("time"));
        let targets = ["slow", "gone", "up"]
            .map(|name| (name, RpcTarget::new("ns", name)))
            .to_vec();
        let mut read =
            read_until_judged(&rpc, &clock, targets, 4, (READ_TIMEOUT, Duration::ZERO)).await;
        read.sort_by_key(|(name, _)| *name);
        let counts: Vec<(&str, usize)> = read.iter().map(|(n, r)| (*n, r.len())).collect();
        assert_eq!(
            counts,
            [("gone", 1), ("slow", UNREACHABLE_AFTER as usize), ("up", 1)]
        );
        let mut health = crate::chain::NodeHealth::default();
        for (_, readings) in read.into_iter().filter(|(name, _)| *name == "slow") {
            readings.into_iter().for_each(|r| health.record(r));
        }
        let verdict = health.verdict(clock.0, Default::default());
        assert_eq!(verdict.state(), crate::chain::State::Unreachable);
    }
}
