//! Chain-health findings: a node's chain verdict (`chain::Verdict`, judged over its RPC
//! readings by the console or read once by the command) as a ranked finding with its evidence
//! and fix. Pure.
use jiff::Timestamp;

use super::{Evidence, Finding, FindingClass, Fix, ObjectRef, Severity};
use crate::chain::{Concern, RpcFailure, Verdict};
use crate::fleet::health::{blocks, source_words};

/// The finding of one node's chain verdict, if it is one: stalled (critical), lagging, catching
/// up with one block-sync peer or an unreachable RPC (warning), catching up (info). A node with
/// no pod is left to the findings about its workload (its RPC cannot answer), and an in-sync or
/// unread node is no finding.
pub fn finding(
    context: &str,
    namespace: &str,
    node: &str,
    verdict: &Verdict,
    read_at: Option<Timestamp>,
) -> Option<Finding> {
    let object = ObjectRef {
        context: context.to_owned(),
        namespace: namespace.to_owned(),
        kind: "SeiNode",
        name: node.to_owned(),
        node: Some(node.to_owned()),
    };
    // Where the commands act, as the other findings' commands name it.
    let mut ns = String::new();
    if !context.is_empty() {
        ns.push_str(&format!(" --context {context}"));
    }
    if !namespace.is_empty() {
        ns.push_str(&format!(" -n {namespace}"));
    }
    let evidence = |detail: String| {
        vec![Evidence {
            source: "RPC :26657 (/status, /lag_status, /net_info)".into(),
            detail,
            at: read_at,
        }]
    };
    let logs = format!("sei-console logs {node}{ns}");
    // How much it matters is the chain's own judgement, which the fleet's verdict reads too.
    let severity = match verdict.concern()? {
        Concern::Critical => Severity::Critical,
        Concern::Warning => Severity::Warning,
        Concern::Info => Severity::Info,
    };
    let (class, summary, detail, fix) = match verdict {
        Verdict::Pending | Verdict::InSync { .. } => return None,
        Verdict::Stalled {
            height,
            since,
            threshold_seconds,
        } => (
            FindingClass::ChainStalled,
            format!("chain stalled at height {height}"),
            format!(
                "height {height} has not advanced since {since}, the time of its last block \
                 (stalled past {threshold_seconds} s)"
            ),
            Fix::says(format!(
                "read seid's log for why blocks stopped (its peers, consensus); if seid is stuck, \
                 restart the pod: `sei-console restart {node}{ns}` previews it"
            ))
            .command(logs),
        ),
        Verdict::Lagging {
            height,
            behind,
            source,
        } => (
            FindingClass::ChainLagging,
            format!("{} behind its chain", blocks(*behind)),
            format!(
                "height {height}, {} behind {}",
                blocks(*behind),
                source_words(*source)
            ),
            Fix::says("check its peers and resources (CPU, disk) in seid's log".to_owned())
                .command(logs),
        ),
        Verdict::CatchingUp {
            height,
            behind,
            one_peer: true,
        } => (
            FindingClass::ChainCatchingUp,
            "catching up with one block-sync peer: never reported caught up".to_owned(),
            format!(
                "height {height}{}; blocksync needs at least 2 peers to call a node caught up",
                behind.map(|b| format!(", {b} behind")).unwrap_or_default()
            ),
            Fix::says(
                "give it a second peer (spec.peers, or a reachable seed) so blocksync can finish"
                    .to_owned(),
            )
            .command(format!("sei-console describe {node}{ns}")),
        ),
        Verdict::CatchingUp { height, behind, .. } => (
            FindingClass::ChainCatchingUp,
            "catching up".to_owned(),
            format!(
                "height {height}{}",
                behind.map(|b| format!(", {b} behind")).unwrap_or_default()
            ),
            Fix::says("nothing to do while its height advances; watch it".to_owned()),
        ),
        Verdict::Unreachable { failure } => (
            FindingClass::ChainRpcUnreachable,
            "RPC unreachable: chain health unknown".to_owned(),
            failure.to_string(),
            match failure {
                RpcFailure::Forbidden(_) => Fix::says(
                    "ask for `create pods/portforward` in this namespace to read the node's RPC"
                        .to_owned(),
                ),
                _ => Fix::says("see whether seid runs and listens on 26657 in its log".to_owned())
                    .command(logs),
            },
        ),
    };
    Some(Finding {
        severity,
        class,
        object,
        summary,
        evidence: evidence(detail),
        fix,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().expect("timestamp")
    }

    #[test]
    fn a_stalled_chain_is_critical_with_the_height_and_since_when() {
        let verdict = Verdict::Stalled {
            height: 1200,
            since: at("2026-12-02T03:00:00Z"),
            threshold_seconds: 30,
        };
        let finding = finding(
            "kind",
            "sei",
            "rpc-0",
            &verdict,
            Some(at("2026-12-02T03:05:00Z")),
        )
        .expect("a finding");
        assert_eq!(finding.severity, Severity::Critical);
        assert_eq!(finding.class, FindingClass::ChainStalled);
        assert_eq!(finding.summary, "chain stalled at height 1200");
        assert!(
            finding.evidence[0]
                .detail
                .contains("since 2026-12-02T03:00:00Z")
        );
        assert_eq!(
            finding.fix.command.as_deref(),
            Some("sei-console logs rpc-0 --context kind -n sei")
        );
        assert!(
            finding
                .fix
                .summary
                .contains("sei-console restart rpc-0 --context kind -n sei")
        );
    }

    #[test]
    fn lagging_one_peer_catching_up_and_an_unreachable_rpc_are_warnings() {
        let lagging = Verdict::Lagging {
            height: 10,
            behind: 400,
            source: crate::chain::LagSource::Fleet,
        };
        let one_peer = Verdict::CatchingUp {
            height: 10,
            behind: Some(5),
            one_peer: true,
        };
        let refused = Verdict::Unreachable {
            failure: RpcFailure::Refused("connection refused".into()),
        };
        for (verdict, class) in [
            (lagging, FindingClass::ChainLagging),
            (one_peer, FindingClass::ChainCatchingUp),
            (refused, FindingClass::ChainRpcUnreachable),
        ] {
            let finding = finding("", "sei", "n", &verdict, None).expect("a finding");
            assert_eq!(
                (finding.severity, finding.class),
                (Severity::Warning, class)
            );
        }
    }

    #[test]
    fn a_lag_finding_names_its_source_in_words_and_counts_one_block_as_one() {
        let lagging = Verdict::Lagging {
            height: 10,
            behind: 1,
            source: crate::chain::LagSource::FleetReferenceUnreachable,
        };
        let finding = finding("", "sei", "n", &lagging, None).expect("a finding");
        assert_eq!(finding.summary, "1 block behind its chain");
        let detail = &finding.evidence[0].detail;
        assert!(
            detail.contains(
                "1 block behind the fleet top (the chain's reference RPC is unreachable)"
            ),
            "{detail}"
        );
        assert!(!detail.contains("FleetReferenceUnreachable"), "{detail}");
    }

    #[test]
    fn in_sync_unread_and_podless_nodes_are_no_finding_and_catching_up_is_info() {
        for verdict in [
            Verdict::InSync { height: 5 },
            Verdict::Pending,
            Verdict::Unreachable {
                failure: RpcFailure::NoPod("n-0".into()),
            },
        ] {
            assert_eq!(finding("", "sei", "n", &verdict, None), None);
        }
        let catching = Verdict::CatchingUp {
            height: 5,
            behind: None,
            one_peer: false,
        };
        let finding = finding("", "sei", "n", &catching, None).expect("a finding");
        assert_eq!(finding.severity, Severity::Info);
    }
}
