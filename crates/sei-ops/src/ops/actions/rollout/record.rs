//! The record a rollout writes when it starts (`ops::rollout_record`), from what `prepare` found.
use super::RolloutPrepared;
use crate::ops::Ops;
use crate::ops::rollout_record::{
    GateRecord, NodeState, RecordKind, RecordNode, RolloutRecord, RolloutState,
};

impl RolloutPrepared {
    /// The record written when it starts: every node to roll pending.
    pub fn record(&self, ops: &Ops<'_>) -> RolloutRecord {
        let now = ops.ports.clock.now();
        let mut record = RolloutRecord {
            id: self.rollout_id.clone(),
            kind: match &self.input.undo_of {
                Some(of) => RecordKind::Undo { of: of.clone() },
                None => RecordKind::Rollout,
            },
            operator: ops.settings.operator.clone(),
            context: ops.settings.context.clone(),
            namespace: ops.namespace().to_owned(),
            image: self.input.image.to_string(),
            started: now,
            updated: now,
            state: RolloutState::Running,
            reason: None,
            waves: self.waves.clone(),
            wave: 0,
            gate: self.input.health_gate.map(|g| GateRecord {
                soak_seconds: g.soak.as_secs(),
                timeout_seconds: g.timeout.as_secs(),
            }),
            last_gate: None,
            nodes: Vec::new(),
            omitted_nodes: 0,
            abort: None,
            hold_after: self.input.hold_after,
            promote: None,
        };
        record.set_nodes(
            self.nodes
                .iter()
                .map(|n| RecordNode {
                    name: n.node.name().to_owned(),
                    from: n.node.spec.image.clone(),
                    to: self.input.image.to_string(),
                    state: NodeState::Pending,
                    plan: None,
                })
                .collect(),
        );
        record
    }

    pub fn names(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|n| n.node.name().to_owned())
            .collect()
    }
}
