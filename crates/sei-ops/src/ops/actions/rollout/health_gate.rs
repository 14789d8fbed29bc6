//! The health gate of a rolled node, after its plan completed and its pod is Ready: its RPC
//! read through the `NodeRpc` port every [`HEALTH_POLL`], each reading stamped by the `Clock`
//! port and judged by the pure `chain::gate::HealthGate`, a live line per reading
//! (`Note::Gate`), then the verdict as a Console Event on the node. Seeds serve no RPC and
//! are not gated (the preview says so).
use std::time::Duration;

use super::{NodeToRoll, RolloutPrepared};
use crate::actions::permissions::health_gate_checks;
use crate::chain::Reading;
use crate::chain::gate::{GateSettings, GateVerdict, HealthGate, words};
use crate::ops::chain_health::{READ_TIMEOUT, read, serves_rpc};
use crate::ops::rollout_tracker::Tracker;
use crate::ops::{Note, Ops, Report};
use crate::ports::access::PermissionCheck;
use crate::ports::node_rpc::RpcTarget;

/// How often a gated node's RPC is read.
pub(super) const HEALTH_POLL: Duration = Duration::from_secs(2);
/// Every this many readings while a node soaks, the reading is written into the rollout's
/// record (`rollout status` and the console's `:rollouts` show it mid-soak).
const RECORD_EVERY: usize = 5;

/// How a node's health gate ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum GateEnd {
    /// Not gated: `--no-health-gate`, or a seed.
    NotGated,
    /// The verdict's words, for the journal line.
    Passed(String),
    /// Why the rollout halts at this node.
    Halted(String),
}

/// Gates `target` when the rollout asks for it and the node serves RPC.
pub(super) async fn gate(
    ops: &Ops<'_>,
    target: &NodeToRoll,
    settings: Option<GateSettings>,
    tracker: &Tracker<'_>,
    report: &dyn Report,
) -> GateEnd {
    let Some(settings) = settings else {
        return GateEnd::NotGated;
    };
    if !serves_rpc(&target.node) {
        return GateEnd::NotGated;
    }
    let name = target.node.name();
    let rpc_target = RpcTarget::new(ops.namespace(), name);
    let mut gate = HealthGate::new(settings, ops.ports.clock.now());
    let mut readings = 0usize;
    let verdict = loop {
        let outcome = read(ops.ports.node_rpc, &rpc_target, READ_TIMEOUT).await;
        let at = ops.ports.clock.now();
        gate.observe(Reading { at, outcome });
        let line = gate.line(at);
        let verdict = gate.verdict(at);
        if verdict == GateVerdict::Waiting && readings.is_multiple_of(RECORD_EVERY) {
            tracker
                .gate_reading(&format!("{name}: soaking: {line}"))
                .await;
        }
        readings += 1;
        report.note(&Note::Gate {
            node: name.to_owned(),
            line,
        });
        match verdict {
            GateVerdict::Waiting => tokio::time::sleep(HEALTH_POLL).await,
            ended => break ended,
        }
    };
    let words = verdict.words().unwrap_or_default();
    // The node as stored now: its UID ties the Event to this SeiNode.
    let uid = match ops.read_node(name).await {
        Ok(node) => node.metadata.uid.unwrap_or_default(),
        Err(_) => String::new(),
    };
    ops.event(super::KIND, name, &uid, &words, report).await;
    match verdict {
        GateVerdict::Halted(_) => GateEnd::Halted(words),
        _ => {
            report.note(&Note::Info(format!("{name}: {words}")));
            GateEnd::Passed(words)
        }
    }
}

impl RolloutPrepared {
    /// The preview's words for the gate: what each wave waits for, the seeds it cannot gate.
    pub fn gate_text(&self) -> String {
        if !self.input.wait {
            return "Health gate: none (--no-wait: nothing is waited for)\n".to_owned();
        }
        let Some(settings) = self.input.health_gate else {
            return "Health gate: off (--no-health-gate): a wave moves on once its plans \
                    completed and pods are Ready\n"
                .to_owned();
        };
        let mut text = format!(
            "Health gate (every wave, the last included): each node caught up (height > 1, not \
             catching up, /lag_status not lagging) with its height advancing through a {} soak; \
             a node not healthy within {} halts the rollout\n",
            words(settings.soak),
            words(settings.timeout)
        );
        let seeds: Vec<&str> = self
            .nodes
            .iter()
            .filter(|n| !serves_rpc(&n.node))
            .map(|n| n.node.name())
            .collect();
        if !seeds.is_empty() {
            text.push_str(&format!(
                "  not gated (seeds serve no RPC; check them with `seed probe NODE`): {}\n",
                seeds.join(", ")
            ));
        }
        text
    }

    /// The gate's calls: each gated node's RPC through a port-forward to its pod.
    pub(super) fn gate_checks(&self, namespace: &str) -> Vec<PermissionCheck> {
        if !self.input.wait || self.input.health_gate.is_none() {
            return Vec::new();
        }
        self.nodes
            .iter()
            .filter(|n| serves_rpc(&n.node))
            .flat_map(|n| health_gate_checks(namespace, n.node.name()))
            .collect()
    }

    /// The gate as the JSON preview line carries it.
    pub fn gate_json(&self) -> serde_json::Value {
        let seeds: Vec<&str> = self
            .nodes
            .iter()
            .filter(|n| !serves_rpc(&n.node))
            .map(|n| n.node.name())
            .collect();
        let gate = match (self.input.wait, self.input.health_gate) {
            (true, Some(settings)) => serde_json::json!({
                "enabled": true,
                "soakSeconds": settings.soak.as_secs(),
                "timeoutSeconds": settings.timeout.as_secs(),
                "lastWave": true,
                "notGated": seeds,
            }),
            _ => serde_json::json!({"enabled": false}),
        };
        serde_json::json!({"event": "healthGate", "healthGate": gate})
    }
}
