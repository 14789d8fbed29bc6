//! The probe's verdicts: what the seed showed against what is published. Pure.
use serde::Serialize;

use super::address::{is_loopback, is_unspecified, parse_listen_address, same_address};
use super::probe::{Expected, Failure, Observed, Phase, Timings};
use super::wire::BLOCK_PROTOCOL;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckName {
    Reachable,
    Handshake,
    NodeId,
    SelfAddress,
    Network,
    ListenAddress,
    PexAddresses,
}

impl CheckName {
    pub fn label(self) -> &'static str {
        match self {
            CheckName::Reachable => "reachable",
            CheckName::Handshake => "handshake",
            CheckName::NodeId => "node ID",
            CheckName::SelfAddress => "self address",
            CheckName::Network => "network",
            CheckName::ListenAddress => "listen address",
            CheckName::PexAddresses => "PEX addresses",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    /// Not reached (an earlier phase failed) or nothing to compare with.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    pub check: CheckName,
    pub verdict: Verdict,
    pub detail: String,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Pass
    }
}

fn check(check: CheckName, verdict: Verdict, detail: impl Into<String>) -> Check {
    Check {
        check,
        verdict,
        detail: detail.into(),
    }
}

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
        let why = failure.map_or("not reached".to_owned(), |f| {
            format!("not reached: the {} failed", f.phase.label())
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

fn pex_check(observed: &Observed, node_id: &str) -> Check {
    let total = observed.pex_addresses.len();
    let others = observed
        .pex_addresses
        .iter()
        .filter(|a| a.node_id != node_id)
        .count();
    if others > 0 {
        check(
            CheckName::PexAddresses,
            Verdict::Pass,
            format!("hands out {others} peer address(es) besides its own ({total} in all)"),
        )
    } else {
        check(
            CheckName::PexAddresses,
            Verdict::Fail,
            format!(
                "hands out no peer besides itself ({total} in all): normal in its first minutes; \
                 after warm-up a seed with none is not doing its job (or runs with p2p.pex off)"
            ),
        )
    }
}
