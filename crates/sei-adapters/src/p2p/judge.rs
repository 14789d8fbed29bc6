//! The probe's verdicts: what the seed showed against what is published. Pure.
pub use crate::ports::probe::{Check, CheckName, Verdict};

use super::address::{is_loopback, is_unspecified, parse_listen_address, same_address};
use super::probe::{Expected, Failure, Observed, Phase, Timings};
use super::wire::BLOCK_PROTOCOL;

fn check(check: CheckName, verdict: Verdict, detail: impl Into<String>) -> Check {
    Check {
        check,
        verdict,
        detail: detail.into(),
    }
}

/// How the checks came out: a check after a failed step is not reached, which is not a
/// failure of its own (issue 27: `7 of 7 checks did not pass` where 6 were never reached).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckCounts {
    pub passed: usize,
    pub failed: usize,
    /// Not reached: an earlier step failed.
    pub not_reached: usize,
    /// Reached but not decidable (no published NodeID to compare).
    pub undecided: usize,
}

impl CheckCounts {
    pub fn of(checks: &[Check]) -> CheckCounts {
        let mut counts = CheckCounts::default();
        for check in checks {
            match check.verdict {
                Verdict::Pass => counts.passed += 1,
                Verdict::Fail => counts.failed += 1,
                Verdict::Unknown if check.detail.starts_with(NOT_REACHED) => {
                    counts.not_reached += 1
                }
                Verdict::Unknown => counts.undecided += 1,
            }
        }
        counts
    }
}

/// How a check after a failed step begins its detail.
const NOT_REACHED: &str = "not reached";

/// The seven checks, in a fixed order.
pub fn judge(
    expected: &Expected,
    observed: &Observed,
    failure: Option<&Failure>,
    timings: &Timings,
) -> Vec<Check> {
    use CheckName::*;
    use Verdict::*;
    let not_reached = |name: CheckName| {
        let why = failure.map_or(NOT_REACHED.to_owned(), |f| {
            format!("{NOT_REACHED}: the {} failed", f.phase.label())
        });
        check(name, Unknown, why)
    };
    let mut checks = Vec::with_capacity(7);
    checks.push(match (failure, timings.connect_ms) {
        (Some(f), _) if f.phase == Phase::Connect => check(Reachable, Fail, &f.reason),
        (_, Some(ms)) => check(Reachable, Pass, format!("TCP connect in {ms} ms")),
        _ => not_reached(Reachable),
    });
    checks.push(match failure {
        Some(f) if f.phase == Phase::Connect => not_reached(Handshake),
        Some(f) => check(
            Handshake,
            Fail,
            format!("{}: {}", f.phase.label(), f.reason),
        ),
        None => check(
            Handshake,
            Pass,
            "secret connection, Handshake and NodeInfo completed",
        ),
    });
    let Some(node_id) = &observed.node_id else {
        for name in [NodeId, SelfAddress, Network, ListenAddress, PexAddresses] {
            checks.push(not_reached(name));
        }
        return checks;
    };
    checks.push(match &expected.node_id {
        Some(want) if want == node_id => check(
            NodeId,
            Pass,
            format!("{node_id} = published ({})", expected.node_id_source),
        ),
        Some(want) => check(
            NodeId,
            Fail,
            format!(
                "authenticates as {node_id}, published {want} ({}): peers dialling {want}@{} drop \
                 the connection",
                expected.node_id_source, expected.address
            ),
        ),
        None => check(
            NodeId,
            Unknown,
            format!(
                "authenticates as {node_id}; no published NodeID to compare ({})",
                expected.node_id_source
            ),
        ),
    });
    checks.push(match &observed.self_address {
        None => check(
            SelfAddress,
            Fail,
            "advertises no address: peers can dial it but never learn it through PEX \
             (p2p.external-address is empty)",
        ),
        Some(own) if same_address(&own.address, &expected.address) => {
            check(SelfAddress, Pass, format!("{own} = spec.externalAddress"))
        }
        Some(own) if is_loopback(&own.address.host) => check(
            SelfAddress,
            Fail,
            format!("advertises loopback {own}: no peer can dial that; not advertised"),
        ),
        Some(own) => check(
            SelfAddress,
            Fail,
            format!(
                "advertises {}, published {}: peers learn the wrong address",
                own.address, expected.address
            ),
        ),
    });
    let Some(info) = &observed.node_info else {
        checks.push(not_reached(Network));
        checks.push(not_reached(ListenAddress));
        checks.push(pex_check(observed, node_id));
        return checks;
    };
    let block = if info.block_protocol == BLOCK_PROTOCOL {
        String::new()
    } else {
        format!(
            "; block protocol {} (the probe speaks {BLOCK_PROTOCOL})",
            info.block_protocol
        )
    };
    checks.push(if info.network == expected.chain_id {
        check(Network, Pass, format!("{} = chain ID{block}", info.network))
    } else {
        check(
            Network,
            Fail,
            format!(
                "on network {:?}, the chain ID is {:?}: peers of the chain reject it{block}",
                info.network, expected.chain_id
            ),
        )
    });
    checks.push(match parse_listen_address(&info.listen_addr) {
        Err(e) => check(ListenAddress, Fail, e.to_string()),
        Ok(listen) if same_address(&listen, &expected.address) => check(
            ListenAddress,
            Pass,
            format!("{} = spec.externalAddress", info.listen_addr),
        ),
        Ok(listen) if is_loopback(&listen.host) => check(
            ListenAddress,
            Fail,
            format!(
                "listens on loopback {}: unreachable from any other machine (the sidecar \
                 before v0.0.69)",
                info.listen_addr
            ),
        ),
        Ok(listen) if is_unspecified(&listen.host) => check(
            ListenAddress,
            Pass,
            format!("{} (all interfaces)", info.listen_addr),
        ),
        Ok(_) => check(ListenAddress, Pass, info.listen_addr.clone()),
    });
    checks.push(pex_check(observed, node_id));
    checks
}

/// The PEX addresses the seed handed out besides its own (the peers it knows now); `None`
/// before it authenticated.
pub fn pex_peers(observed: &Observed) -> Option<u32> {
    let node_id = observed.node_id.as_deref()?;
    Some(u32::try_from(others(observed, node_id)).unwrap_or(u32::MAX))
}

fn others(observed: &Observed, node_id: &str) -> usize {
    observed
        .pex_addresses
        .iter()
        .filter(|a| a.node_id != node_id)
        .count()
}

fn pex_check(observed: &Observed, node_id: &str) -> Check {
    let total = observed.pex_addresses.len();
    let others = others(observed, node_id);
    let fail = |detail: String| check(CheckName::PexAddresses, Verdict::Fail, detail);
    if others > 0 {
        check(
            CheckName::PexAddresses,
            Verdict::Pass,
            format!("hands out {others} peer address(es) besides its own ({total} in all)"),
        )
    } else if total == 0 && observed.self_address.is_some() {
        // With p2p.pex on, a listener's Handshake lists its own address first whenever it has
        // one (sei-tendermint `peerManager.Advertise`); none at all means PEX is off, which a
        // seed cannot run with (sei-tendermint refuses to start it): another kind of node.
        fail(
            "hands out no PEX addresses, not even its own: p2p.pex is off, so nobody learns \
             peers from it; a seed cannot run without PEX, so this is not a seed (a full node \
             or validator answers at this address?)"
                .to_owned(),
        )
    } else {
        // A seed hands out the peers it is connected to right now, not its address book.
        fail(format!(
            "hands out no peer besides itself ({total} in all): it is connected to none right \
             now; normal in its first minutes; after warm-up a seed with none is not doing its \
             job{}",
            if total == 0 {
                " (or runs with p2p.pex off)"
            } else {
                ""
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::address::ExternalAddress;
    use crate::p2p::address::NodeAddress;
    use crate::p2p::handshake::PeerNodeInfo;

    const ID: &str = "6c8f8607dbe87077a62a2990ce07d94aaf749df7";
    const OTHER: &str = "34750f98bd59fcfc946da45aaabe933be154a4b5";

    fn expected(node_id: Option<&str>) -> Expected {
        Expected {
            node_id: node_id.map(str::to_owned),
            node_id_source: "argument".into(),
            address: ExternalAddress::parse("seed-0.example.com:26656").expect("address"),
            chain_id: "pacific-1".into(),
            no_pod: None,
        }
    }

    fn observed(self_addr: Option<&str>, listen: &str) -> Observed {
        let addr = |text: &str| NodeAddress::parse(text).expect("address");
        Observed {
            node_id: Some(ID.into()),
            self_address: self_addr.map(addr),
            pex_addresses: vec![
                addr(&format!("{ID}@seed-0.example.com:26656")),
                addr(&format!("{OTHER}@10.0.0.1:26656")),
            ],
            node_info: Some(PeerNodeInfo {
                node_id: ID.into(),
                listen_addr: listen.into(),
                network: "pacific-1".into(),
                version: "0.35.0".into(),
                moniker: "seed-0".into(),
                channels: "00".into(),
                p2p_protocol: 8,
                block_protocol: BLOCK_PROTOCOL,
                app_protocol: 0,
            }),
        }
    }

    fn timings() -> Timings {
        Timings {
            connect_ms: Some(1.0),
            ..Timings::default()
        }
    }

    fn verdict(checks: &[Check], name: CheckName) -> Verdict {
        checks
            .iter()
            .find(|c| c.check == name)
            .map(|c| c.verdict)
            .expect("check")
    }

    /// Issue 27: a refused dial is one failed check; the six after it were never reached.
    #[test]
    fn checks_after_a_failed_connect_count_as_not_reached_not_failed() {
        let failure = Failure {
            phase: Phase::Connect,
            reason: "connection refused".into(),
        };
        let checks = judge(
            &expected(Some(ID)),
            &Observed::default(),
            Some(&failure),
            &Timings::default(),
        );
        assert_eq!(
            CheckCounts::of(&checks),
            CheckCounts {
                passed: 0,
                failed: 1,
                not_reached: 6,
                undecided: 0
            }
        );
    }

    #[test]
    fn a_published_seed_that_binds_all_interfaces_passes() {
        let own = format!("{ID}@SEED-0.example.com:26656");
        let checks = judge(
            &expected(Some(ID)),
            &observed(Some(&own), "tcp://0.0.0.0:26656"),
            None,
            &timings(),
        );
        assert!(checks.iter().all(Check::passed), "{checks:#?}");
    }

    #[test]
    fn loopback_or_another_self_address_fails() {
        for own in [
            format!("{ID}@127.0.0.1:26656"),
            format!("{ID}@seed-1.example.com:26656"),
            format!("{ID}@seed-0.example.com:26657"),
        ] {
            let checks = judge(
                &expected(Some(ID)),
                &observed(Some(&own), "tcp://0.0.0.0:26656"),
                None,
                &timings(),
            );
            assert_eq!(
                verdict(&checks, CheckName::SelfAddress),
                Verdict::Fail,
                "{own}"
            );
        }
    }

    #[test]
    fn loopback_listen_fails_unless_it_is_the_published_address() {
        let own = format!("{ID}@seed-0.example.com:26656");
        let checks = judge(
            &expected(Some(ID)),
            &observed(Some(&own), "tcp://localhost:26656"),
            None,
            &timings(),
        );
        assert_eq!(verdict(&checks, CheckName::ListenAddress), Verdict::Fail);
        let mut local = expected(Some(ID));
        local.address = ExternalAddress::parse("127.0.0.1:26656").expect("address");
        let checks = judge(
            &local,
            &observed(
                Some(&format!("{ID}@127.0.0.1:26656")),
                "tcp://127.0.0.1:26656",
            ),
            None,
            &timings(),
        );
        assert_eq!(verdict(&checks, CheckName::ListenAddress), Verdict::Pass);
        assert_eq!(verdict(&checks, CheckName::SelfAddress), Verdict::Pass);
    }

    #[test]
    fn an_unknown_published_node_id_is_not_a_pass() {
        let own = format!("{ID}@seed-0.example.com:26656");
        let checks = judge(
            &expected(None),
            &observed(Some(&own), "tcp://0.0.0.0:26656"),
            None,
            &timings(),
        );
        assert_eq!(verdict(&checks, CheckName::NodeId), Verdict::Unknown);
        assert!(!checks.iter().all(Check::passed));
    }

    #[test]
    fn another_block_protocol_is_named() {
        let own = format!("{ID}@seed-0.example.com:26656");
        let mut seen = observed(Some(&own), "tcp://0.0.0.0:26656");
        if let Some(info) = seen.node_info.as_mut() {
            info.block_protocol = 12;
        }
        let checks = judge(&expected(Some(ID)), &seen, None, &timings());
        let network = checks
            .iter()
            .find(|c| c.check == CheckName::Network)
            .expect("network");
        assert!(network.detail.contains("block protocol 12"), "{network:?}");
    }

    #[test]
    fn no_pex_addresses_at_all_from_an_advertised_seed_is_pex_off() {
        let own = format!("{ID}@seed-0.example.com:26656");
        let mut seen = observed(Some(&own), "tcp://0.0.0.0:26656");
        seen.pex_addresses.clear();
        let checks = judge(&expected(Some(ID)), &seen, None, &timings());
        let pex = checks
            .iter()
            .find(|c| c.check == CheckName::PexAddresses)
            .expect("pex");
        assert_eq!(pex.verdict, Verdict::Fail);
        assert!(pex.detail.contains("p2p.pex is off"), "{pex:?}");
        // Only its own address: PEX is on, it is connected to no peer.
        seen.pex_addresses = vec![NodeAddress::parse(&own).expect("address")];
        let checks = judge(&expected(Some(ID)), &seen, None, &timings());
        let pex = checks
            .iter()
            .find(|c| c.check == CheckName::PexAddresses)
            .expect("pex");
        assert!(
            pex.detail.contains("(1 in all): it is connected to none"),
            "{pex:?}"
        );
        assert!(!pex.detail.contains("pex off"), "{pex:?}");
    }
}
