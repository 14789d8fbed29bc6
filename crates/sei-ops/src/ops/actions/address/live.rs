//! The end of an address change: seid made to read the new config.toml, then the address it
//! advertises read back from outside, as a peer dialling it would see it.
//!
//! seid reads config.toml only at start (sei-tendermint `node/setup.go`: the Router's
//! `SelfAddress` and NodeInfo's `listen_addr` are both taken from `p2p.external-address` when
//! the node is built), so the update plan's config-patch alone changes nothing a peer sees.
//! The plan's `replace-pod` does not restart it either when the StatefulSet is unchanged — and
//! an address change alone never changes it: upstream's `replace-pod` is revision-gated (it
//! completes at once when `currentRevision == updateRevision`, `internal/task/replace_pod.go`).
//! That task stays in the plan as upstream builds it; the console adds its own restart step
//! after the plan (pod `<node>-0` deleted, its successor waited for Running and Ready), then
//! dials the new address with the seed probe's handshake and reads what the node advertises
//! (the Handshake's self address, NodeInfo's `listen_addr`).
use std::time::Duration;

use serde::Serialize;

use crate::actions::statefulset_diff::StatefulSetPreview;
use crate::ops::actions::restart::{PodState, Restarted, read_pod, restart_pod};
use crate::ops::seed_probe;
use crate::ops::{Note, Ops, Report};
use crate::ports::SidecarTarget;
use crate::ports::probe::{CheckName, ProbeOutcome, ProbeTarget, Verdict};

/// Why the restart is part of the action, in the preview and the end line.
pub const SEID_READS_CONFIG_AT_START: &str = "seid reads config.toml only at start";

/// One probe's bound (upstream's default `p2p.handshake-timeout`).
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the restarted seid may take to answer with the new address.
const VERIFY_DEADLINE: Duration = Duration::from_secs(30);
const VERIFY_POLL: Duration = Duration::from_secs(1);
/// Bound on the sidecar's `/v0/node-id` (the NodeID the probe expects).
const NODE_ID_TIMEOUT: Duration = Duration::from_secs(3);

/// How seid comes to run with the new address, as the preview says it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "how")]
pub enum RestartStep {
    /// After the plan the console deletes pod `pod` for its StatefulSet to create it again:
    /// the StatefulSet does not change, so the plan's `replace-pod` replaces no pod.
    Console { pod: String },
    /// The StatefulSet changes: the plan's `replace-pod` replaces pod `pod`.
    ByPlan { pod: String },
    /// No pod runs seid yet: it starts with the new config.toml when its pod is created.
    NoPod,
    /// `--no-restart`: config.toml is written, seid keeps the old address until its pod
    /// restarts.
    Skipped,
}

impl RestartStep {
    /// The step for a node whose pod is `pod` (when it exists) and whose StatefulSet diff is
    /// `statefulset`, unless the operator said `--no-restart`.
    pub fn choose(
        restart: bool,
        node: &str,
        pod: Option<&PodState>,
        statefulset: Option<&StatefulSetPreview>,
    ) -> RestartStep {
        let name = format!("{node}-0");
        match (restart, pod, statefulset) {
            (false, _, _) => RestartStep::Skipped,
            (true, None, _) => RestartStep::NoPod,
            (true, Some(_), Some(StatefulSetPreview::Changes { .. })) => {
                RestartStep::ByPlan { pod: name }
            }
            (true, Some(_), _) => RestartStep::Console { pod: name },
        }
    }

    /// The preview's lines for the step and the check after it.
    pub fn text(&self, address: &str) -> String {
        let step = match self {
            RestartStep::Console { pod } => format!(
                "Then: restart seid ({SEID_READS_CONFIG_AT_START}): delete pod {pod}; its \
                 StatefulSet creates it again (same spec, same volumes). The StatefulSet does \
                 not change, so the plan's replace-pod replaces no pod.\n"
            ),
            RestartStep::ByPlan { pod } => format!(
                "Restart: the StatefulSet changes, so the plan's replace-pod replaces pod \
                 {pod} and seid starts with the new config.toml ({SEID_READS_CONFIG_AT_START}).\n"
            ),
            RestartStep::NoPod => format!(
                "Restart: no pod runs seid now; it starts with the new config.toml when its pod \
                 is created ({SEID_READS_CONFIG_AT_START}).\n"
            ),
            RestartStep::Skipped => {
                return format!(
                    "Not restarted (--no-restart): config.toml gets the new address, but \
                     {SEID_READS_CONFIG_AT_START}: it keeps advertising the old one until its \
                     pod restarts (`sei-console restart NODE`).\n"
                );
            }
        };
        format!(
            "{step}Then: verify from outside: dial {address} as a peer would and read the \
             address seid advertises (P2P handshake: self address, NodeInfo listen_addr).\n"
        )
    }

    /// The API calls the step adds (the pod read and, for the console's restart, deleted).
    pub fn needs_pod_delete(&self) -> bool {
        matches!(self, RestartStep::Console { .. })
    }
}

/// How the address change ended once its plan completed: the sentence for the end line, the
/// Event and the journal, and whether the action succeeded (verified live, or left not live
/// as asked with `--no-restart`).
#[derive(Debug, Clone, PartialEq)]
pub struct Live {
    pub ok: bool,
    pub verdict: String,
    pub probe: Option<ProbeOutcome>,
}

/// After the plan completed: restarts seid as `step` says (unless the plan already replaced
/// the pod, seen by its UID against `before`), then reads the advertised address back.
pub(super) async fn make_live(
    ops: &Ops<'_>,
    node: &str,
    address: &str,
    step: &RestartStep,
    before: Option<&PodState>,
    report: &dyn Report,
) -> Live {
    let not_verified = |verdict: String| Live {
        ok: false,
        verdict,
        probe: None,
    };
    if *step == RestartStep::Skipped {
        return Live {
            ok: true,
            verdict: format!(
                "external address {address} written to config.toml; not live: \
                 {SEID_READS_CONFIG_AT_START} and it was not restarted (--no-restart); \
                 `sei-console restart {node}` makes it live"
            ),
            probe: None,
        };
    }
    let pod_name = format!("{node}-0");
    let now = match read_pod(ops, &pod_name).await {
        Ok(pod) => pod.as_ref().map(PodState::of),
        Err(err) => return not_verified(format!("written, but not live: {err}")),
    };
    let restarted = match (before, now) {
        (_, None) => {
            return not_verified(format!(
                "external address {address} written to config.toml, but not live: no pod \
                 {pod_name} runs seid"
            ));
        }
        (Some(before), Some(now)) if before.uid == now.uid => {
            match restart_pod(ops, node, &now, report).await {
                Ok(Restarted { after, .. }) => format!(
                    "seid restarted (pod {pod_name} deleted; new pod started {})",
                    after.started_at.as_deref().unwrap_or("at an unknown time")
                ),
                Err(reason) => {
                    return not_verified(format!(
                        "external address {address} written to config.toml, but not live: \
                         {SEID_READS_CONFIG_AT_START} and the restart failed: {reason}"
                    ));
                }
            }
        }
        (_, Some(now)) => format!(
            "seid restarted by the plan (pod {pod_name} replaced; started {})",
            now.started_at.as_deref().unwrap_or("at an unknown time")
        ),
    };
    report.note(&Note::Info(restarted.clone()));
    let probe = advertised(ops, node, address, report).await;
    if advertises(&probe) {
        return Live {
            ok: true,
            verdict: format!(
                "external address {address} live: {restarted}; it advertises {address} in its \
                 P2P handshake ({})",
                seed_probe::origin_text(&probe.origin)
            ),
            probe: Some(probe),
        };
    }
    Live {
        ok: false,
        verdict: format!(
            "external address {address} written and {restarted}, but not verified: {}",
            seed_probe::outcome_line(&probe)
        ),
        probe: Some(probe),
    }
}

/// The node answers at the address as itself, on its chain, and advertises that address.
fn advertises(outcome: &ProbeOutcome) -> bool {
    let verdict = |name: CheckName| {
        outcome
            .checks
            .iter()
            .find(|c| c.check == name)
            .map_or(Verdict::Unknown, |c| c.verdict)
    };
    verdict(CheckName::Handshake) == Verdict::Pass
        && verdict(CheckName::SelfAddress) == Verdict::Pass
        && verdict(CheckName::NodeId) != Verdict::Fail
        && verdict(CheckName::Network) != Verdict::Fail
}

/// Dials `address` until the node advertises it or [`VERIFY_DEADLINE`] passes (the restarted
/// seid may take a moment to listen); the last outcome, its checks said.
async fn advertised(ops: &Ops<'_>, node: &str, address: &str, report: &dyn Report) -> ProbeOutcome {
    let sidecar = SidecarTarget::new(ops.namespace(), node);
    let (node_id, node_id_source) =
        match tokio::time::timeout(NODE_ID_TIMEOUT, ops.ports.sidecar.node_id(&sidecar)).await {
            Ok(Ok(id)) => (Some(id), "sidecar /v0/node-id".to_owned()),
            Ok(Err(err)) => (None, format!("sidecar /v0/node-id: {err}")),
            Err(_) => (None, "sidecar /v0/node-id: no answer".to_owned()),
        };
    let chain_id = ops
        .read_node(node)
        .await
        .map(|n| n.spec.chain_id)
        .unwrap_or_default();
    let target = ProbeTarget {
        node_id,
        node_id_source,
        address: address.to_owned(),
        chain_id,
        no_pod: None,
    };
    report.note(&Note::Info(format!(
        "verifying: dialling {} as a peer would, reading the address it advertises",
        target.peer()
    )));
    let started = tokio::time::Instant::now();
    loop {
        let outcome = ops.ports.prober.probe(&target, PROBE_TIMEOUT).await;
        if advertises(&outcome) || started.elapsed() >= VERIFY_DEADLINE {
            for line in seed_probe::check_lines(&outcome) {
                report.note(&Note::Info(line));
            }
            return outcome;
        }
        tokio::time::sleep(VERIFY_POLL).await;
    }
}
