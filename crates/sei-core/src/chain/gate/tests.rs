use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

use super::*;
use crate::chain::{LagStatus, NetInfo, Status};

fn t0() -> Timestamp {
    "2026-12-01T12:00:00Z".parse().expect("time")
}

fn at(seconds: i64) -> Timestamp {
    t0() + SignedDuration::from_secs(seconds)
}

fn settings(soak: u64, timeout: u64) -> GateSettings {
    GateSettings::new(Duration::from_secs(soak), Duration::from_secs(timeout)).expect("settings")
}

fn snapshot(height: u64, catching_up: bool, peers: u32, lag: Option<(u64, u16)>) -> Snapshot {
    Snapshot {
        status: Status {
            latest_block_height: height,
            latest_block_time: None,
            catching_up,
            max_peer_block_height: Some(height + u64::from(catching_up) * 50),
            node_id: "aa".into(),
            moniker: "m".into(),
            version: "v".into(),
            network: "c".into(),
        },
        lag: Ok(match lag {
            Some((lag, http_status)) => LagStatus {
                current_height: height,
                max_peer_height: height + lag,
                lag,
                lagging: true,
                http_status,
            },
            None => LagStatus {
                current_height: height,
                max_peer_height: height,
                lag: 0,
                lagging: false,
                http_status: 200,
            },
        }),
        net: Ok(NetInfo { n_peers: peers }),
    }
}

fn healthy(height: u64) -> Snapshot {
    snapshot(height, false, 3, None)
}

fn read(gate: &mut HealthGate, second: i64, outcome: Result<Snapshot, RpcFailure>) -> GateVerdict {
    gate.observe(Reading {
        at: at(second),
        outcome,
    });
    gate.verdict(at(second))
}

#[test]
fn a_caught_up_node_whose_height_advances_through_the_soak_passes() {
    let mut gate = HealthGate::new(settings(10, 60), t0());
    for second in (0..10).step_by(2) {
        let verdict = read(&mut gate, second, Ok(healthy(100 + second as u64)));
        assert_eq!(verdict, GateVerdict::Waiting, "at {second}s");
    }
    let line = gate.line(at(8));
    assert_eq!(line.height, Some(108));
    assert_eq!(line.gained, 8);
    assert!(line.caught_up);
    assert_eq!((line.soaked_seconds, line.soak_seconds), (8, 10));
    assert_eq!(line.problem, None);
    assert_eq!(line.to_string(), "height 108 (+8), caught up, soak 8/10s");
    assert_eq!(
        read(&mut gate, 10, Ok(healthy(110))),
        GateVerdict::Passed {
            from: 100,
            to: 110,
            soaked_seconds: 10
        }
    );
    assert_eq!(
        gate.verdict(at(10)).words().as_deref(),
        Some("health gate passed after 10s soak (caught up, height 100 -> 110)")
    );
}

#[test]
fn the_soak_starts_again_when_the_node_falls_behind() {
    let mut gate = HealthGate::new(settings(10, 60), t0());
    read(&mut gate, 0, Ok(healthy(100)));
    read(&mut gate, 6, Ok(snapshot(101, true, 3, None)));
    assert_eq!(read(&mut gate, 8, Ok(healthy(105))), GateVerdict::Waiting);
    assert_eq!(gate.line(at(16)).soaked_seconds, 8, "from 8 s, not 0 s");
    assert_eq!(read(&mut gate, 16, Ok(healthy(112))), GateVerdict::Waiting);
    assert!(matches!(
        read(&mut gate, 18, Ok(healthy(114))),
        GateVerdict::Passed { from: 105, .. }
    ));
}

#[test]
fn a_failed_read_during_the_soak_does_not_restart_it_but_the_gate_passes_only_on_an_answer() {
    let mut gate = HealthGate::new(settings(10, 60), t0());
    read(&mut gate, 0, Ok(healthy(100)));
    let failure = RpcFailure::Timeout(5);
    assert_eq!(read(&mut gate, 12, Err(failure)), GateVerdict::Waiting);
    assert!(matches!(
        read(&mut gate, 14, Ok(healthy(114))),
        GateVerdict::Passed { from: 100, .. }
    ));
}

#[test]
fn a_height_standing_still_past_the_stall_threshold_halts_before_the_timeout() {
    let mut gate = HealthGate::new(settings(5, 600), t0());
    for second in (0..=30).step_by(5) {
        assert_eq!(
            read(&mut gate, second, Ok(healthy(500))),
            GateVerdict::Waiting
        );
    }
    let verdict = read(&mut gate, 31, Ok(healthy(500)));
    assert_eq!(
        verdict,
        GateVerdict::Halted(Unhealthy::Stuck {
            height: 500,
            since: t0()
        })
    );
    assert_eq!(
        verdict.words().as_deref(),
        Some("health gate halted: height stuck at 500 since 2026-12-01T12:00:00Z")
    );
}

#[test]
fn a_node_still_catching_up_at_the_timeout_halts_naming_it() {
    let mut gate = HealthGate::new(settings(5, 20), t0());
    for second in 0..20 {
        let verdict = read(
            &mut gate,
            second,
            Ok(snapshot(100 + second as u64, true, 3, None)),
        );
        assert_eq!(verdict, GateVerdict::Waiting, "at {second}s");
    }
    let verdict = read(&mut gate, 20, Ok(snapshot(120, true, 3, None)));
    assert_eq!(
        verdict,
        GateVerdict::Halted(Unhealthy::CatchingUp {
            height: 120,
            behind: Some(50)
        })
    );
    assert_eq!(
        verdict.words().as_deref(),
        Some("health gate halted: catching up (height 120, 50 behind)")
    );
}

#[test]
fn one_block_sync_peer_is_named_for_what_it_is() {
    let mut gate = HealthGate::new(settings(5, 20), t0());
    for second in 0..=20 {
        read(
            &mut gate,
            second,
            Ok(snapshot(100 + second as u64, true, 1, None)),
        );
    }
    let verdict = gate.verdict(at(20));
    assert!(
        matches!(
            verdict,
            GateVerdict::Halted(Unhealthy::OneBlockSyncPeer { height: 120 })
        ),
        "{verdict:?}"
    );
    assert!(
        verdict
            .words()
            .is_some_and(|w| w.contains("one block-sync peer"))
    );
}

#[test]
fn lag_status_417_keeps_a_caught_up_node_from_passing_and_is_named_with_its_status() {
    let mut gate = HealthGate::new(settings(5, 20), t0());
    for second in 0..=20 {
        read(
            &mut gate,
            second,
            Ok(snapshot(100 + second as u64, false, 3, Some((400, 417)))),
        );
    }
    let verdict = gate.verdict(at(20));
    assert_eq!(
        verdict.words().as_deref(),
        Some("health gate halted: lagging (lag 400, /lag_status 417)")
    );
    assert!(gate.line(at(20)).caught_up, "caught up as the SDK says");
}

#[test]
fn an_unreachable_rpc_at_the_timeout_halts_saying_why() {
    let mut gate = HealthGate::new(settings(5, 20), t0());
    for second in (0..=20).step_by(5) {
        read(
            &mut gate,
            second,
            Err(RpcFailure::Refused("connection refused".into())),
        );
    }
    let verdict = gate.verdict(at(20));
    assert_eq!(
        verdict.words().as_deref(),
        Some("health gate halted: RPC unreachable: refused: connection refused")
    );
    let line = gate.line(at(20));
    assert_eq!(line.height, None);
    assert!(
        line.to_string()
            .starts_with("height ?, not caught up, soak 0/5s: RPC unreachable")
    );
}

#[test]
fn a_height_that_never_moved_in_the_gate_is_named_stuck_at_the_timeout() {
    let mut gate = HealthGate::new(settings(5, 20), t0());
    for second in (0..=20).step_by(4) {
        read(&mut gate, second, Ok(healthy(77)));
    }
    assert_eq!(
        gate.verdict(at(20)),
        GateVerdict::Halted(Unhealthy::Stuck {
            height: 77,
            since: t0()
        })
    );
}

#[test]
fn a_gate_never_read_waits_then_halts_at_the_timeout() {
    let gate = HealthGate::new(settings(5, 20), t0());
    assert_eq!(gate.verdict(at(19)), GateVerdict::Waiting);
    assert_eq!(
        gate.verdict(at(20)),
        GateVerdict::Halted(Unhealthy::NotRead)
    );
}

#[test]
fn settings_read_from_the_form_and_refuse_a_timeout_shorter_than_the_soak() {
    assert_eq!(GateSettings::parse("off"), Ok(None));
    assert_eq!(
        GateSettings::parse("soak 90s, timeout 10m"),
        Ok(Some(settings(90, 600)))
    );
    assert_eq!(
        GateSettings::parse("soak 1m30s"),
        Ok(Some(settings(90, 600)))
    );
    assert_eq!(GateSettings::default().form_text(), "soak 1m, timeout 10m");
    assert!(
        GateSettings::parse("soak 10m, timeout 5m")
            .is_err_and(|e| e.to_string().contains("must be longer than the soak"))
    );
    assert!(GateSettings::parse("soak fast").is_err());
    assert!(GateSettings::parse("nap 5s").is_err());
    assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
    assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
    assert!(parse_duration("0s").is_err());
    assert!(parse_duration("5d").is_err());
}
