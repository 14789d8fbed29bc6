use jiff::{SignedDuration, Timestamp};

use super::*;

fn answer(status: u16, body: &str) -> RpcAnswer {
    RpcAnswer {
        status,
        body: body.as_bytes().to_vec(),
    }
}

/// `/status` as sei-tendermint writes it over GET: the bare result object, int64s as strings.
fn status_body(height: u64, catching_up: bool, block_time: &str) -> String {
    format!(
        r#"{{"node_info":{{"protocol_version":{{"p2p":"8","block":"11","app":"0"}},
        "id":"6c8f8607dbe87077a62a2990ce07d94aaf749df7","listen_addr":"tcp://127.0.0.1:26656",
        "network":"arctic-1","version":"0.38.0","channels":"402021222330386061626300",
        "moniker":"full-0","other":{{"tx_index":"on","rpc_address":"tcp://127.0.0.1:26657"}}}},
        "application_info":{{"version":"1"}},
        "sync_info":{{"latest_block_hash":"AB","latest_app_hash":"CD",
        "latest_block_height":"{height}","latest_block_time":"{block_time}",
        "earliest_block_height":"1","max_peer_block_height":"{height}",
        "catching_up":{catching_up},"total_synced_time":"0","remaining_time":"0"}},
        "validator_info":{{"address":"AA","voting_power":"0"}}}}"#
    )
}

fn t(text: &str) -> Timestamp {
    text.parse().expect("time")
}

#[test]
fn get_status_answers_the_bare_result_object_with_numbers_as_strings() {
    let status = Status::parse(&answer(
        200,
        &status_body(1234, false, "2026-12-01T12:00:00.5Z"),
    ))
    .expect("bare /status");
    assert_eq!(status.latest_block_height, 1234);
    assert_eq!(status.max_peer_block_height, Some(1234));
    assert_eq!(status.latest_block_time, Some(t("2026-12-01T12:00:00.5Z")));
    assert!(!status.catching_up);
    assert_eq!(status.node_id, "6c8f8607dbe87077a62a2990ce07d94aaf749df7");
    assert_eq!(status.moniker, "full-0");
    assert_eq!(status.version, "0.38.0");
    assert_eq!(status.network, "arctic-1");
    assert!(status.caught_up());
}

#[test]
fn a_json_rpc_wrapped_status_reads_the_same() {
    let bare = status_body(7, true, "2026-12-01T12:00:00Z");
    let wrapped = format!(r#"{{"jsonrpc":"2.0","id":-1,"result":{bare}}}"#);
    assert_eq!(
        Status::parse(&answer(200, &wrapped)),
        Status::parse(&answer(200, &bare))
    );
}

#[test]
fn caught_up_is_height_above_one_and_not_catching_up() {
    let at = "2026-12-01T12:00:00Z";
    let read = |h, c| Status::parse(&answer(200, &status_body(h, c, at))).expect("status");
    assert!(!read(1, false).caught_up(), "height 1 is not caught up");
    assert!(!read(50, true).caught_up());
    assert!(read(2, false).caught_up());
}

#[test]
fn lag_status_over_the_threshold_answers_http_417_with_the_result_as_body() {
    let lag = LagStatus::parse(&answer(
        417,
        r#"{"current_height":"100","max_peer_height":"900","lag":"800"}"#,
    ))
    .expect("417 carries the result");
    assert_eq!(
        lag,
        LagStatus {
            current_height: 100,
            max_peer_height: 900,
            lag: 800,
            lagging: true,
            http_status: 417
        }
    );
}

#[test]
fn lag_status_http_299_of_other_builds_is_lagging_too() {
    let lag = LagStatus::parse(&answer(
        299,
        r#"{"current_height":100,"max_peer_height":900,"lag":800}"#,
    ))
    .expect("299");
    assert!(lag.lagging);
    assert_eq!(lag.lag, 800);
}

#[test]
fn lag_status_http_200_is_within_the_threshold() {
    let lag = LagStatus::parse(&answer(
        200,
        r#"{"current_height":"100","max_peer_height":"101","lag":"1"}"#,
    ))
    .expect("200");
    assert!(!lag.lagging);
}

#[test]
fn a_get_error_answers_http_200_with_the_bare_error_object() {
    let body =
        r#"{"code":-32603,"message":"Internal error","data":"block sync reactor not ready"}"#;
    let expected = RpcFailure::Rpc {
        code: -32603,
        message: "Internal error: block sync reactor not ready".into(),
    };
    assert_eq!(LagStatus::parse(&answer(200, body)), Err(expected.clone()));
    assert_eq!(Status::parse(&answer(200, body)), Err(expected.clone()));
    assert_eq!(NetInfo::parse(&answer(200, body)), Err(expected));
}

#[test]
fn other_http_statuses_and_garbage_are_named() {
    assert_eq!(
        Status::parse(&answer(500, "boom")),
        Err(RpcFailure::Http {
            status: 500,
            body: "boom".into()
        })
    );
    let err = Status::parse(&answer(200, "<html>")).expect_err("not JSON");
    assert!(matches!(err, RpcFailure::BadAnswer(_)), "{err:?}");
    assert_eq!(err.word(), "bad answer");
}

#[test]
fn net_info_counts_peers() {
    let info = NetInfo::parse(&answer(
        200,
        r#"{"listening":true,"listeners":[],"n_peers":"2","peers":[{"node_id":"aa","url":"mconn://aa@127.0.0.1:1"},{"node_id":"bb","url":""}]}"#,
    ))
    .expect("net_info");
    assert_eq!(info.n_peers, 2);
}

fn snapshot(height: u64, catching_up: bool, block_time: Timestamp, peers: u32) -> Snapshot {
    let mut status = Status::parse(&answer(
        200,
        &status_body(height, catching_up, &block_time.to_string()),
    ))
    .expect("status");
    status.max_peer_block_height = Some(height);
    Snapshot {
        status,
        lag: Ok(LagStatus {
            current_height: height,
            max_peer_height: height,
            lag: 0,
            lagging: false,
            http_status: 200,
        }),
        net: Ok(NetInfo { n_peers: peers }),
    }
}

fn reading(at: Timestamp, snapshot: Snapshot) -> Reading {
    Reading {
        at,
        outcome: Ok(snapshot),
    }
}

const T0: &str = "2026-12-01T12:00:00Z";

fn secs(n: i64) -> SignedDuration {
    SignedDuration::from_secs(n)
}

#[test]
fn a_node_never_read_is_pending() {
    assert_eq!(
        NodeHealth::default().verdict(t(T0), ChainTop::default()),
        Verdict::Pending
    );
}

#[test]
fn an_advancing_caught_up_node_is_in_sync() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    health.record(reading(t0, snapshot(100, false, t0, 3)));
    health.record(reading(t0 + secs(5), snapshot(110, false, t0 + secs(5), 3)));
    assert_eq!(
        health.block_interval(),
        Some(SignedDuration::from_millis(500))
    );
    assert_eq!(
        health.verdict(t0 + secs(6), ChainTop::default()),
        Verdict::InSync { height: 110 }
    );
}

#[test]
fn one_reading_whose_block_is_older_than_the_threshold_is_stalled() {
    let t0 = t(T0);
    let mut fresh = NodeHealth::default();
    fresh.record(reading(t0, snapshot(110, false, t0 - secs(30), 3)));
    assert_eq!(
        fresh.verdict(t0, ChainTop::default()).state(),
        State::InSync
    );
    let mut old = NodeHealth::default();
    old.record(reading(t0, snapshot(110, false, t0 - secs(31), 3)));
    assert_eq!(
        old.verdict(t0, ChainTop::default()),
        Verdict::Stalled {
            height: 110,
            since: t0 - secs(31),
            threshold_seconds: 30
        }
    );
}

#[test]
fn a_verdict_is_judged_at_its_reading_so_a_slow_read_is_no_stall() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    health.record(reading(t0, snapshot(110, false, t0, 3)));
    // No reading for ten minutes (reads queued under load): the verdict is the reading's.
    assert_eq!(
        health.verdict(t0 + secs(600), ChainTop::default()),
        Verdict::InSync { height: 110 }
    );
}

#[test]
fn a_node_stalled_before_the_console_started_is_stalled_at_its_first_reading() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    health.record(reading(t0, snapshot(100, false, t0 - secs(600), 3)));
    assert_eq!(
        health.verdict(t0, ChainTop::default()),
        Verdict::Stalled {
            height: 100,
            since: t0 - secs(600),
            threshold_seconds: 30
        }
    );
}

#[test]
fn catching_up_from_peers_ahead_is_no_stall_and_far_behind_is_lagging() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    // Old block time: a block-syncing node's blocks are old; with peers ahead that is no stall.
    let mut syncing = snapshot(100, true, t0 - secs(3600), 1);
    syncing.status.max_peer_block_height = Some(150);
    health.record(reading(t0, syncing));
    assert_eq!(
        health.verdict(t0 + secs(1), ChainTop::default()),
        Verdict::CatchingUp {
            height: 100,
            behind: Some(50),
            one_peer: true
        }
    );
    let mut far = snapshot(150, true, t0 - secs(3000), 4);
    far.status.max_peer_block_height = Some(1000);
    health.record(reading(t0 + secs(5), far));
    assert_eq!(
        health.verdict(t0 + secs(6), ChainTop::default()),
        Verdict::Lagging {
            height: 150,
            behind: 850,
            source: LagSource::Peers
        }
    );
}

#[test]
fn one_block_sync_peer_following_the_chain_is_catching_up() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    health.record(reading(t0, snapshot(100, true, t0 - secs(1), 1)));
    assert_eq!(
        health.verdict(t0, ChainTop::default()),
        Verdict::CatchingUp {
            height: 100,
            behind: Some(0),
            one_peer: true
        }
    );
}

/// Issue 33: the demo's `pacific-1-full-1`, one block-sync peer (its validator gone), height 11,
/// its last block 407 s old, 394 behind the fleet: stalled, from one reading, not "catching
/// up with one block-sync peer".
#[test]
fn a_catching_up_node_whose_peers_are_not_ahead_and_whose_block_is_old_is_stalled() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    let mut snap = snapshot(11, true, t0 - secs(407), 0);
    snap.status.max_peer_block_height = Some(0);
    health.record(reading(t0, snap));
    let top = ChainTop {
        height: 405,
        source: Some(LagSource::Fleet),
    };
    let verdict = health.verdict(t0, top);
    assert_eq!(
        verdict,
        Verdict::Stalled {
            height: 11,
            since: t0 - secs(407),
            threshold_seconds: 30
        }
    );
    assert_eq!(verdict.concern(), Some(Concern::Critical));
}

fn failed(at: Timestamp, failure: RpcFailure) -> Reading {
    Reading {
        at,
        outcome: Err(failure),
    }
}

#[test]
fn a_timeout_is_never_a_stall() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    health.record(failed(t0, RpcFailure::Timeout(5)));
    assert_eq!(
        health.verdict(t0 + secs(600), ChainTop::default()),
        Verdict::Unreachable {
            failure: RpcFailure::Timeout(5)
        }
    );
    let mut after_good = NodeHealth::default();
    after_good.record(reading(t0, snapshot(100, false, t0, 3)));
    for n in 1..=5 {
        after_good.record(failed(t0 + secs(5 * n), RpcFailure::Timeout(5)));
        let state = after_good
            .verdict(t0 + secs(5 * n), ChainTop::default())
            .state();
        assert_ne!(state, State::Stalled, "after {n} timeouts");
    }
}

#[test]
fn one_failed_reading_among_good_ones_does_not_flip_the_verdict() {
    let t0 = t(T0);
    let top = ChainTop::default();
    let mut health = NodeHealth::default();
    health.record(reading(t0, snapshot(100, false, t0, 3)));
    health.record(failed(t0 + secs(5), RpcFailure::Timeout(5)));
    assert_eq!(
        health.verdict(t0 + secs(5), top),
        Verdict::InSync { height: 100 }
    );
    let basis = health.basis(t0 + secs(5)).expect("a basis");
    assert_eq!((basis.at, basis.failed_since), (t0, 1));
    health.record(reading(
        t0 + secs(10),
        snapshot(110, false, t0 + secs(10), 3),
    ));
    assert_eq!(
        health.verdict(t0 + secs(10), top),
        Verdict::InSync { height: 110 }
    );
    assert_eq!(health.failures(), 0);
}

#[test]
fn three_failed_reads_in_a_row_are_unreachable() {
    let t0 = t(T0);
    let top = ChainTop::default();
    let mut health = NodeHealth::default();
    health.record(reading(t0, snapshot(100, false, t0, 3)));
    for n in 1..super::health::UNREACHABLE_AFTER {
        let at = t0 + secs(5 * i64::from(n));
        health.record(failed(at, RpcFailure::Refused("connection refused".into())));
        assert_eq!(health.verdict(at, top).state(), State::InSync, "{n}");
    }
    let at = t0 + secs(20);
    health.record(failed(at, RpcFailure::Refused("connection refused".into())));
    assert_eq!(health.verdict(at, top).state(), State::Unreachable);
    assert_eq!(
        health.basis(at),
        Some(super::health::Basis {
            at,
            failed_since: 0
        })
    );
}

#[test]
fn a_stale_good_reading_is_not_held_over_a_failure() {
    let t0 = t(T0);
    let top = ChainTop::default();
    let mut health = NodeHealth::default();
    health.record(reading(t0, snapshot(100, false, t0, 3)));
    let stale = t0 + super::health::STALE_AFTER + secs(1);
    health.record(failed(stale, RpcFailure::Timeout(5)));
    assert_eq!(health.verdict(stale, top).state(), State::Unreachable);
    // Held while fresh, and no longer once its reading goes stale.
    let mut held = NodeHealth::default();
    held.record(reading(t0, snapshot(100, false, t0, 3)));
    held.record(failed(t0 + secs(60), RpcFailure::Timeout(5)));
    assert_eq!(held.verdict(t0 + secs(60), top).state(), State::InSync);
    assert_eq!(held.verdict(stale, top).state(), State::Unreachable);
}

#[test]
fn no_pod_and_forbidden_are_answers_and_unreachable_at_once() {
    let t0 = t(T0);
    for failure in [
        RpcFailure::NoPod("full-0-0".into()),
        RpcFailure::Forbidden("cannot create pods/portforward".into()),
    ] {
        let mut health = NodeHealth::default();
        health.record(reading(t0, snapshot(100, false, t0, 3)));
        health.record(failed(t0 + secs(5), failure.clone()));
        assert_eq!(
            health.verdict(t0 + secs(5), ChainTop::default()),
            Verdict::Unreachable { failure }
        );
    }
}

#[test]
fn lag_status_over_its_threshold_is_lagging() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    let mut snap = snapshot(100, false, t0, 3);
    snap.lag = Ok(LagStatus {
        current_height: 100,
        max_peer_height: 900,
        lag: 800,
        lagging: true,
        http_status: 417,
    });
    health.record(reading(t0, snap));
    assert_eq!(
        health.verdict(t0, ChainTop::default()),
        Verdict::Lagging {
            height: 100,
            behind: 800,
            source: LagSource::LagStatus
        }
    );
}

#[test]
fn behind_the_highest_node_of_its_chain_is_lagging() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    health.record(reading(t0, snapshot(1000, false, t0, 3)));
    let near = ChainTop {
        height: 1000 + super::health::LAG_BLOCKS,
        source: Some(LagSource::Fleet),
    };
    assert_eq!(health.verdict(t0, near).state(), State::InSync);
    let far = ChainTop {
        height: 1001 + super::health::LAG_BLOCKS,
        source: Some(LagSource::Reference),
    };
    assert_eq!(
        health.verdict(t0, far),
        Verdict::Lagging {
            height: 1000,
            behind: 301,
            source: LagSource::Reference
        }
    );
}

#[test]
fn an_unreachable_rpc_says_why_and_keeps_the_last_good_reading() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    health.record(reading(t0, snapshot(100, false, t0, 3)));
    health.record(Reading {
        at: t0 + secs(5),
        outcome: Err(RpcFailure::Forbidden(
            "User \"x\" cannot create pods/portforward".into(),
        )),
    });
    let verdict = health.verdict(t0 + secs(5), ChainTop::default());
    assert_eq!(verdict.state(), State::Unreachable);
    assert_eq!(health.height(), Some(100));
    let Verdict::Unreachable { failure } = verdict else {
        panic!("unreachable");
    };
    assert_eq!(failure.word(), "forbidden");
}

#[test]
fn an_older_reading_arriving_late_is_ignored() {
    let t0 = t(T0);
    let mut health = NodeHealth::default();
    health.record(reading(t0 + secs(5), snapshot(110, false, t0 + secs(5), 3)));
    health.record(reading(t0, snapshot(100, false, t0, 3)));
    assert_eq!(health.height(), Some(110));
}
