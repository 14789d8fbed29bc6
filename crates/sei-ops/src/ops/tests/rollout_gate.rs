//! The rollout's health gate against the fakes, on tokio's paused clock (each sleep of the
//! gate's poll advances it at once): a node that catches up and advances through the soak lets
//! the next wave start; a stalled, catching-up or unreachable one halts the rollout like a
//! failed plan, with the verdict in the journal and the Event; `--no-health-gate` reads no RPC.
use std::time::Duration;

use super::*;
use crate::chain::gate::GateSettings;
use crate::chain::{RpcAnswer, RpcFailure};
use crate::journal::Outcome;
use crate::ports::node_rpc::{NodeRpc, RpcFuture, RpcTarget};

/// The wall clock of the test: tokio's (paused) time since the test began.
struct PausedClock {
    base: jiff::Timestamp,
    started: tokio::time::Instant,
}

impl PausedClock {
    fn new(base: jiff::Timestamp) -> PausedClock {
        PausedClock {
            base,
            started: tokio::time::Instant::now(),
        }
    }

    fn seconds(&self) -> u64 {
        self.started.elapsed().as_secs()
    }
}

impl Clock for PausedClock {
    fn now(&self) -> jiff::Timestamp {
        let elapsed = jiff::SignedDuration::try_from(self.started.elapsed()).unwrap_or_default();
        self.base.checked_add(elapsed).unwrap_or(self.base)
    }
}

fn status(height: u64, catching_up: bool) -> String {
    format!(
        r#"{{"node_info":{{"id":"aa","moniker":"m","version":"v","network":"arctic-1"}},
        "sync_info":{{"latest_block_height":"{height}","max_peer_block_height":"{height}",
        "catching_up":{catching_up}}}}}"#
    )
}

const NOT_LAGGING: &str = r#"{"current_height":"1","max_peer_height":"1","lag":"0"}"#;
const PEERS: &str = r#"{"n_peers":"3"}"#;

/// A healthy chain: every node's height is 100 plus the seconds since the test began.
struct AdvancingChain<'a>(&'a PausedClock);

impl NodeRpc for AdvancingChain<'_> {
    fn get<'a>(&'a self, _: &'a RpcTarget, path: &'a str, _: Duration) -> RpcFuture<'a> {
        let body = match path {
            "/status" => status(100 + self.0.seconds(), false),
            "/lag_status" => NOT_LAGGING.to_owned(),
            _ => PEERS.to_owned(),
        };
        Box::pin(async move {
            Ok(RpcAnswer {
                status: 200,
                body: body.into_bytes(),
            })
        })
    }
}

fn gated(names: &[&str], soak: u64, timeout: u64) -> rollout::RolloutInput {
    rollout::RolloutInput {
        health_gate: Some(
            GateSettings::new(Duration::from_secs(soak), Duration::from_secs(timeout))
                .expect("settings"),
        ),
        ..rollout_input(names, 1, 3)
    }
}

async fn roll(ops: &Ops<'_>, input: rollout::RolloutInput) -> (RunEnd, Vec<String>) {
    let prepared = rollout::prepare(ops, input).await.expect("prepare");
    let report = Recording::default();
    let end = crate::ops::action::execute(ops, &prepared, &report)
        .await
        .expect("run");
    let lines = report.0.lock().expect("lock").clone();
    (end, lines)
}

fn event_messages(world: &World, node: &str) -> Vec<String> {
    world
        .h
        .cluster
        .state
        .lock()
        .expect("lock")
        .recorded_events
        .iter()
        .filter(|e| e.involved_object.name.as_deref() == Some(node))
        .filter_map(|e| e.message.clone())
        .collect()
}

fn journal_of(world: &World, node: &str) -> Vec<(Outcome, Option<String>)> {
    world
        .log
        .0
        .lock()
        .expect("lock")
        .iter()
        .filter(|e| e.nodes.iter().any(|n| n == &format!("ns/{node}")))
        .map(|e| (e.outcome, e.reason.clone()))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_canary_caught_up_and_advancing_through_the_soak_passes_and_the_next_wave_starts() {
    let world = World::new();
    world.running_fleet(&["a", "b"]).await;
    let clock = PausedClock::new(world.clock.now());
    let chain = AdvancingChain(&clock);
    let ops = Ops::new(
        Ports {
            clock: &clock,
            node_rpc: &chain,
            ..world.ops().ports
        },
        &world.settings,
    );
    let (end, lines) = roll(&ops, gated(&["a", "b"], 10, 60)).await;
    assert!(end.ok, "{end:?}\n{lines:#?}");
    let live: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("a: health gate: height"))
        .collect();
    assert!(live.len() >= 5, "a live line per reading: {lines:#?}");
    assert!(
        live.iter().any(|l| l.contains("caught up, soak 4/10s")),
        "{live:#?}"
    );
    let passed = lines
        .iter()
        .position(|l| l.starts_with("a: health gate passed after 10s soak"))
        .expect("the verdict in the output");
    let wave_two = lines
        .iter()
        .position(|l| l == "wave 2 of 2: b")
        .expect("wave 2");
    assert!(passed < wave_two, "the canary's gate before wave 2");
    let (outcome, reason) = journal_of(&world, "a").pop().expect("journal line");
    assert_eq!(outcome, Outcome::Succeeded);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.starts_with("health gate passed after 10s soak")),
        "{reason:?}"
    );
    assert!(
        event_messages(&world, "a")
            .iter()
            .any(|m| m.contains("via sei-console: health gate passed after 10s soak")),
        "{:?}",
        event_messages(&world, "a")
    );
    // The last wave is gated too.
    assert!(lines.iter().any(|l| l.starts_with("b: health gate passed")));
    let notified = world.notified.taken();
    assert_eq!(notified.len(), 1, "one notification: the end");
    assert_eq!(
        notified[0].event,
        crate::ports::notify::EventKind::RolloutFinished
    );
    assert_eq!(notified[0].message, end.message);
    let facts = notified[0].rollout.clone().expect("rollout facts");
    assert_eq!(
        (facts.nodes, facts.failed_node),
        (vec!["a".to_owned(), "b".to_owned()], None)
    );
}

#[tokio::test(start_paused = true)]
async fn a_stalled_canary_halts_the_rollout_naming_the_height_and_the_rest_is_untouched() {
    let world = World::new();
    world.running_fleet(&["a", "b"]).await;
    let clock = PausedClock::new(world.clock.now());
    world.rpc.answer("a", "/status", 200, &status(500, false));
    world.rpc.answer("a", "/lag_status", 200, NOT_LAGGING);
    world.rpc.answer("a", "/net_info", 200, PEERS);
    let ops = Ops::new(
        Ports {
            clock: &clock,
            ..world.ops().ports
        },
        &world.settings,
    );
    let (end, lines) = roll(&ops, gated(&["a", "b"], 5, 600)).await;
    assert!(!end.ok);
    assert_eq!(end.failed_node.as_deref(), Some("a"));
    assert!(
        end.message
            .contains("rollout halted at ns/a: health gate halted: height stuck at 500 since"),
        "{}",
        end.message
    );
    assert!(
        end.message.contains("1 node(s) not started"),
        "{}",
        end.message
    );
    assert!(
        clock.seconds() < 60,
        "halted at the stall threshold, not the 10 min timeout"
    );
    assert_eq!(world.image_of("b").0, V1, "b never pinned");
    assert!(!lines.iter().any(|l| l.starts_with("wave 2")));
    let (outcome, reason) = journal_of(&world, "a").pop().expect("journal line");
    assert_eq!(outcome, Outcome::Failed);
    assert!(
        reason
            .as_deref()
            .is_some_and(|r| r.starts_with("health gate halted: height stuck at 500")),
        "{reason:?}"
    );
    assert!(
        event_messages(&world, "a")
            .iter()
            .any(|m| m.contains("health gate halted: height stuck at 500"))
    );
    let notified = world.notified.taken();
    assert_eq!(notified.len(), 1, "one notification: the halt");
    assert_eq!(
        notified[0].event,
        crate::ports::notify::EventKind::RolloutHalted
    );
    assert_eq!(notified[0].message, end.message);
    assert_eq!(
        notified[0]
            .rollout
            .as_ref()
            .and_then(|r| r.failed_node.as_deref()),
        Some("a")
    );
    assert_eq!(
        (notified[0].context.as_str(), notified[0].namespace.as_str()),
        ("test", "ns")
    );
}

#[tokio::test(start_paused = true)]
async fn a_canary_catching_up_whose_height_never_moves_halts_at_the_timeout_as_stuck() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let clock = PausedClock::new(world.clock.now());
    // Catching up, with a single peer: blocksync cannot call it caught up.
    world.rpc.answer("a", "/status", 200, &status(40, true));
    world.rpc.answer("a", "/lag_status", 200, NOT_LAGGING);
    world
        .rpc
        .answer("a", "/net_info", 200, r#"{"n_peers":"1"}"#);
    let ops = Ops::new(
        Ports {
            clock: &clock,
            ..world.ops().ports
        },
        &world.settings,
    );
    // A timeout under the 30 s stall floor: the timeout decides, naming what held it back.
    let (end, _) = roll(&ops, gated(&["a"], 5, 20)).await;
    assert!(!end.ok);
    assert!(
        end.message
            .contains("health gate halted: height stuck at 40"),
        "the height never moved in the gate: {}",
        end.message
    );
}

#[tokio::test(start_paused = true)]
async fn one_block_sync_peer_at_the_timeout_is_named_for_what_it_is() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let clock = PausedClock::new(world.clock.now());
    let ops_clock = &clock;
    // The height moves (it follows the chain) but blocksync says catching up for ever.
    struct OnePeer<'a>(&'a PausedClock);
    impl NodeRpc for OnePeer<'_> {
        fn get<'a>(&'a self, _: &'a RpcTarget, path: &'a str, _: Duration) -> RpcFuture<'a> {
            let body = match path {
                "/status" => status(100 + self.0.seconds(), true),
                "/lag_status" => NOT_LAGGING.to_owned(),
                _ => r#"{"n_peers":"1"}"#.to_owned(),
            };
            Box::pin(async move {
                Ok(RpcAnswer {
                    status: 200,
                    body: body.into_bytes(),
                })
            })
        }
    }
    let rpc = OnePeer(ops_clock);
    let ops = Ops::new(
        Ports {
            clock: &clock,
            node_rpc: &rpc,
            ..world.ops().ports
        },
        &world.settings,
    );
    let (end, _) = roll(&ops, gated(&["a"], 5, 20)).await;
    assert!(!end.ok);
    assert!(
        end.message
            .contains("health gate halted: one block-sync peer"),
        "{}",
        end.message
    );
}

#[tokio::test(start_paused = true)]
async fn an_unreachable_rpc_halts_at_the_timeout_saying_why() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let clock = PausedClock::new(world.clock.now());
    world.rpc.fail(
        "a",
        RpcFailure::Forbidden("cannot create pods/portforward".into()),
    );
    let ops = Ops::new(
        Ports {
            clock: &clock,
            ..world.ops().ports
        },
        &world.settings,
    );
    let (end, lines) = roll(&ops, gated(&["a"], 5, 20)).await;
    assert!(!end.ok);
    assert!(
        end.message.contains(
            "health gate halted: RPC unreachable: forbidden: cannot create pods/portforward"
        ),
        "{}",
        end.message
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("a: health gate: height ?, not caught up")),
        "{lines:#?}"
    );
}

#[tokio::test(start_paused = true)]
async fn no_health_gate_reads_no_rpc_and_moves_on_once_the_pods_are_ready() {
    let world = World::new();
    world.running_fleet(&["a", "b"]).await;
    let (end, lines) = roll(&world.ops(), rollout_input(&["a", "b"], 1, 3)).await;
    assert!(end.ok, "{end:?}");
    assert_eq!(world.rpc.read_count(), 0);
    assert!(!lines.iter().any(|l| l.contains("health gate")));
    assert_eq!(
        journal_of(&world, "a").pop(),
        Some((Outcome::Succeeded, None))
    );
}

#[tokio::test]
async fn the_preview_says_what_the_gate_waits_for_in_text_and_json() {
    let world = World::new();
    world.running_fleet(&["a", "b"]).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, gated(&["a", "b"], 90, 600))
        .await
        .expect("prepare");
    let head = prepared.head_text();
    assert!(
        head.contains(
            "Health gate (every wave, the last included): each node caught up (height > 1, \
             not catching up, /lag_status not lagging) with its height advancing through a \
             1m30s soak; a node not healthy within 10m halts the rollout"
        ),
        "{head}"
    );
    assert_eq!(
        prepared.gate_json()["healthGate"],
        serde_json::json!({"enabled": true, "soakSeconds": 90, "timeoutSeconds": 600,
                           "lastWave": true, "notGated": []})
    );
    let portforward = |p: &rollout::RolloutPrepared| {
        p.permissions
            .checks
            .iter()
            .filter(|c| c.to_string().starts_with("create pods/portforward"))
            .count()
    };
    assert_eq!(portforward(&prepared), 2, "each gated node's RPC");
    let off = rollout::prepare(&ops, rollout_input(&["a", "b"], 1, 3))
        .await
        .expect("prepare");
    assert!(
        off.head_text()
            .contains("Health gate: off (--no-health-gate)")
    );
    assert_eq!(portforward(&off), 0, "no gate, no RPC read");
    assert_eq!(
        off.gate_json()["healthGate"],
        serde_json::json!({"enabled": false})
    );
}
