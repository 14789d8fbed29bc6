//! The seed probe against the P2P stand-in on 127.0.0.1: the healthy seed and each failure mode,
//! through the library (`p2p::probe`) and through `sei-console seed probe ID@HOST:PORT`.
//! Run with `--nocapture` to see every report as an operator would.
#[path = "p2p_standin/mod.rs"]
mod p2p_standin;

use std::time::Duration;

use p2p_standin::{ClientSeen, Misbehaviour, P2pStandin, StandinConfig};
use sei_console::actions::address::ExternalAddress;
use sei_console::p2p::tcp::TcpDialer;
use sei_console::p2p::{CheckName, Expected, ProbeReport, Verdict, probe, report};

const CHAIN: &str = "pacific-1";

fn expected(standin: &P2pStandin) -> Expected {
    Expected {
        node_id: Some(standin.node_id.clone()),
        node_id_source: "argument".to_owned(),
        address: ExternalAddress::parse(&standin.external_address()).expect("address"),
        chain_id: CHAIN.to_owned(),
    }
}

async fn probe_with(misbehaviour: Misbehaviour) -> (ProbeReport, P2pStandin) {
    let standin = P2pStandin::start(StandinConfig::healthy(CHAIN).with(misbehaviour)).await;
    let report = probe(&TcpDialer, &expected(&standin), Duration::from_millis(1500)).await;
    println!("--- {misbehaviour:?}\n{}", report::to_text(&report));
    (report, standin)
}

fn verdict(report: &ProbeReport, name: CheckName) -> Verdict {
    report
        .checks
        .iter()
        .find(|c| c.check == name)
        .map(|c| c.verdict)
        .expect("check present")
}

fn detail(report: &ProbeReport, name: CheckName) -> String {
    report
        .checks
        .iter()
        .find(|c| c.check == name)
        .map(|c| c.detail.clone())
        .expect("check present")
}

/// Only `failing` fail; checks after a failed phase are unknown, the rest pass.
fn assert_only(report: &ProbeReport, failing: &[CheckName]) {
    assert!(!report.ok, "{report:#?}");
    for check in &report.checks {
        if failing.contains(&check.check) {
            assert_eq!(check.verdict, Verdict::Fail, "{check:?}");
        } else {
            assert_ne!(check.verdict, Verdict::Fail, "{check:?}");
        }
    }
}

/// `misbehaviour` fails `check` alone, with `words` in its detail.
async fn fails_only(misbehaviour: Misbehaviour, check: CheckName, words: &str) {
    let (report, _standin) = probe_with(misbehaviour).await;
    assert_only(&report, &[check]);
    let why = detail(&report, check);
    assert!(why.contains(words), "{why}");
}

async fn client_seen(standin: &P2pStandin) -> ClientSeen {
    for _ in 0..100 {
        if let Some(seen) = standin.seen.lock().expect("lock").first().cloned() {
            return seen;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the stand-in recorded no connection");
}

#[tokio::test]
async fn a_healthy_seed_passes_every_check_and_the_probe_sends_nothing_more() {
    let (report, standin) = probe_with(Misbehaviour::Healthy).await;
    assert!(report.ok, "{report:#?}");
    assert_eq!(report.checks.len(), 7);
    assert_eq!(report.observed.node_id.as_deref(), Some(&*standin.node_id));
    assert_eq!(report.observed.pex_addresses.len(), 3);
    assert_eq!(
        report.origin.remote_address.as_deref(),
        Some(&*standin.external_address())
    );
    assert!(report.origin.local_address.is_some());
    assert!(report.timings.node_info_ms.is_some());
    let text = report::to_text(&report);
    assert!(text.contains("result: OK"), "{text}");

    let seen = client_seen(&standin).await;
    assert_eq!(
        seen.handshake_ok,
        Some(Ok(())),
        "the seed accepts our Handshake"
    );
    assert_eq!(seen.client_self_addr, Some(None), "we advertise no address");
    assert_eq!(seen.client_pex, 0, "a dialer sends no PEX addresses");
    let info = seen.node_info.expect("NodeInfo").expect("valid NodeInfo");
    assert_eq!(info.network, CHAIN);
    assert_eq!(info.moniker, "sei-console-probe");
    assert_eq!(
        seen.bytes_after_node_info, 0,
        "nothing beyond the handshake"
    );
}

#[tokio::test]
async fn a_seed_with_another_key_fails_the_node_id_check() {
    let (report, standin) = probe_with(Misbehaviour::WrongKey).await;
    // Its own self address and PEX are consistent with the key it has; only the ID is wrong.
    assert_only(&report, &[CheckName::NodeId]);
    assert!(detail(&report, CheckName::NodeId).contains(&standin.node_id));
}

#[tokio::test]
async fn a_bad_signature_fails_the_handshake() {
    let (report, _standin) = probe_with(Misbehaviour::BadSignature).await;
    assert_only(&report, &[CheckName::Handshake]);
    assert!(detail(&report, CheckName::Handshake).contains("signature"));
    assert_eq!(verdict(&report, CheckName::NodeId), Verdict::Unknown);
}

#[tokio::test]
async fn a_seed_on_another_network_fails_the_network_check() {
    fails_only(Misbehaviour::WrongNetwork, CheckName::Network, "atlantic-2").await;
}

#[tokio::test]
async fn a_seed_without_a_self_address_is_not_advertised() {
    fails_only(
        Misbehaviour::EmptySelfAddress,
        CheckName::SelfAddress,
        "never learn it",
    )
    .await;
}

#[tokio::test]
async fn a_loopback_listen_address_is_the_v0_0_69_failure() {
    fails_only(
        Misbehaviour::LoopbackListenAddress,
        CheckName::ListenAddress,
        "v0.0.69",
    )
    .await;
}

#[tokio::test]
async fn a_seed_handing_out_no_peers_fails_the_pex_check() {
    fails_only(
        Misbehaviour::NoPexAddresses,
        CheckName::PexAddresses,
        "(1 in all)",
    )
    .await;
}

#[tokio::test]
async fn stalls_end_at_the_timeout_and_name_the_phase() {
    for (misbehaviour, phase) in [
        (Misbehaviour::StallBeforePreface, "secret connection"),
        (Misbehaviour::StallAfterPreface, "Handshake"),
        (Misbehaviour::StallBeforeNodeInfo, "NodeInfo"),
    ] {
        let started = std::time::Instant::now();
        let (report, _standin) = probe_with(misbehaviour).await;
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "bounded in time"
        );
        assert_only(&report, &[CheckName::Handshake]);
        let why = detail(&report, CheckName::Handshake);
        assert!(
            why.contains(&format!("stalled during the {phase}")),
            "{why}"
        );
    }
}

#[tokio::test]
async fn oversized_messages_and_frames_are_refused_without_reading_them() {
    for (misbehaviour, words) in [
        (Misbehaviour::OversizedPreface, "preface of 1048576 bytes"),
        (
            Misbehaviour::OversizedHandshake,
            "Handshake of 16777216 bytes",
        ),
        (Misbehaviour::OversizedFrame, "5000 data bytes"),
    ] {
        let started = std::time::Instant::now();
        let (report, _standin) = probe_with(misbehaviour).await;
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "refused at once"
        );
        assert_only(&report, &[CheckName::Handshake]);
        let why = detail(&report, CheckName::Handshake);
        assert!(why.contains(words), "{why}");
    }
}

#[tokio::test]
async fn a_seed_that_closes_instead_of_sending_node_info_rejected_us() {
    let (report, _standin) = probe_with(Misbehaviour::CloseBeforeNodeInfo).await;
    assert_only(&report, &[CheckName::Handshake]);
    assert!(detail(&report, CheckName::Handshake).contains("another network"));
    assert_eq!(verdict(&report, CheckName::Network), Verdict::Unknown);
    // The Handshake arrived, so what it carried is still judged.
    assert_eq!(verdict(&report, CheckName::SelfAddress), Verdict::Pass);
}

#[tokio::test]
async fn nothing_listening_fails_reachability() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("addr").port()
    };
    let expected = Expected {
        node_id: None,
        node_id_source: "unknown".to_owned(),
        address: ExternalAddress::parse(&format!("127.0.0.1:{port}")).expect("address"),
        chain_id: CHAIN.to_owned(),
    };
    let report = probe(&TcpDialer, &expected, Duration::from_secs(2)).await;
    println!("--- Unreachable\n{}", report::to_text(&report));
    assert_only(&report, &[CheckName::Reachable]);
    assert_eq!(verdict(&report, CheckName::Handshake), Verdict::Unknown);
}

/// The binary: exit 0 and a text report for a healthy seed; exit 1 and JSON for a failing one;
/// exit 2 for bad input.
#[tokio::test(flavor = "multi_thread")]
async fn the_command_exits_zero_only_when_everything_matches() {
    let healthy = P2pStandin::start(StandinConfig::healthy(CHAIN)).await;
    let broken =
        P2pStandin::start(StandinConfig::healthy(CHAIN).with(Misbehaviour::WrongNetwork)).await;
    let (good, bad) = (healthy.peer_string(), broken.peer_string());
    let outputs = tokio::task::spawn_blocking(move || {
        let run = |args: &[&str]| {
            assert_cmd::Command::cargo_bin("sei-console")
                .expect("binary")
                .args(args)
                .env("KUBECONFIG", "/nonexistent")
                .timeout(Duration::from_secs(20))
                .output()
                .expect("run")
        };
        (
            run(&[
                "seed",
                "probe",
                &good,
                "--chain-id",
                CHAIN,
                "--timeout",
                "3s",
            ]),
            run(&["seed", "probe", &bad, "--chain-id", CHAIN, "-o", "json"]),
            run(&["seed", "probe", &good]),
        )
    })
    .await
    .expect("join");
    let (ok, failed, no_chain) = outputs;
    let text = String::from_utf8_lossy(&ok.stdout);
    println!("--- command, healthy\n{text}");
    assert_eq!(ok.status.code(), Some(0), "{text}");
    assert!(
        text.contains("✓ network         pacific-1 = chain ID"),
        "{text}"
    );
    assert!(text.contains("(this machine, not a pod)"), "{text}");

    assert_eq!(failed.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&failed.stdout).expect("json");
    assert_eq!(json["ok"], false);
    let network = json["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["check"] == "network")
        .expect("network check");
    assert_eq!(network["verdict"], "fail");
    assert_eq!(json["observed"]["nodeInfo"]["network"], "atlantic-2");

    assert_eq!(no_chain.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&no_chain.stderr).contains("--chain-id is required"));
}
