//! The node controller's StateSyncReady gate (internal/controller/node/statesync.go): resolves
//! `status.resolvedStateSyncers` from the spec's rpcServers or the platform's canonical
//! syncers (`PlatformConfig::syncers_for_chain`), and sets `StateSyncReady`, which [`super::state_sync_blocks_plan`] reads.
use super::PlanContext;
use super::planner::set_node_condition;
use crate::api::{ConditionStatus, ConditionType, Reason, SeiNode};
use crate::platform::go_quote;

/// A state-sync node needs at least this many witnesses.
pub const MIN_CANONICAL_SYNCERS: usize = 2;

fn sorted_unique(items: &[String]) -> Vec<String> {
    let mut out = items.to_vec();
    out.sort();
    out.dedup();
    out
}

/// Upstream `reconcileStateSyncGate`. `canonical_syncers` is the platform config's syncer list
/// for the node's chain (already parsed), or the error reading it. Returns whether planning is
/// blocked this reconcile.
pub fn reconcile_state_sync_gate<E: std::fmt::Display>(
    node: &mut SeiNode,
    canonical_syncers: Result<&[String], E>,
    ctx: &PlanContext,
) -> bool {
    let chain = go_quote(&node.spec.chain_id);
    let Some(snap) = node.spec.snapshot_source() else {
        node.status_mut().resolved_state_syncers = None;
        let message = "node does not bootstrap from a snapshot".to_owned();
        set_gate(
            node,
            ConditionStatus::False,
            Reason::NotApplicable,
            message,
            ctx,
        );
        return false;
    };
    let spec_syncers = sorted_unique(snap.rpc_servers.as_deref().unwrap_or(&[]));
    if spec_syncers.len() >= MIN_CANONICAL_SYNCERS {
        let message = format!(
            "{} rpc-servers declared on spec for chain {chain}",
            spec_syncers.len()
        );
        node.status_mut().resolved_state_syncers = Some(spec_syncers);
        set_gate(node, ConditionStatus::True, Reason::Ready, message, ctx);
        return false;
    }
    let syncers = match canonical_syncers {
        Ok(syncers) => syncers.to_vec(),
        Err(err) => {
            node.status_mut().resolved_state_syncers = None;
            let message = format!("reading canonical-syncer source for chain {chain}: {err}");
            set_gate(
                node,
                ConditionStatus::Unknown,
                Reason::SyncerSourceError,
                message,
                ctx,
            );
            return true;
        }
    };
    if syncers.len() < MIN_CANONICAL_SYNCERS {
        node.status_mut().resolved_state_syncers = None;
        let message = format!(
            "state sync requires >={MIN_CANONICAL_SYNCERS} canonical syncers configured for chain {chain}; found {} \u{2014} register syncers for the chain in the controller config, or declare >={MIN_CANONICAL_SYNCERS} spec.fullNode.snapshot.rpcServers on the SeiNode",
            syncers.len()
        );
        set_gate(
            node,
            ConditionStatus::False,
            Reason::NoSyncersConfigured,
            message,
            ctx,
        );
        return true;
    }
    let message = format!(
        "{} canonical syncers configured for chain {chain}",
        syncers.len()
    );
    node.status_mut().resolved_state_syncers = Some(syncers);
    set_gate(node, ConditionStatus::True, Reason::Ready, message, ctx);
    false
}

fn set_gate(
    node: &mut SeiNode,
    status: ConditionStatus,
    reason: Reason,
    message: String,
    ctx: &PlanContext,
) {
    set_node_condition(
        node,
        ConditionType::StateSyncReady,
        status,
        reason,
        message,
        ctx,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{SnapshotSource, StateSyncSource};
    use crate::planner::test_support::{ctx, full_node};

    fn state_sync_node(rpc_servers: Option<Vec<&str>>) -> SeiNode {
        let mut node = full_node("n");
        node.spec.full_node.as_mut().expect("full").snapshot = Some(SnapshotSource {
            state_sync: Some(StateSyncSource::default()),
            rpc_servers: rpc_servers.map(|v| v.into_iter().map(str::to_owned).collect()),
            ..SnapshotSource::default()
        });
        node
    }

    fn gate_condition(node: &SeiNode) -> (String, String, String) {
        let c = node
            .status
            .as_ref()
            .and_then(|s| s.condition(ConditionType::StateSyncReady))
            .expect("cond");
        (c.status.clone(), c.reason.clone(), c.message.clone())
    }

    #[test]
    fn node_without_snapshot_is_not_applicable() {
        let mut node = full_node("n");
        assert!(!reconcile_state_sync_gate(
            &mut node,
            Ok::<_, &str>(&[]),
            &ctx()
        ));
        assert_eq!(gate_condition(&node).1, "NotApplicable");
    }

    #[test]
    fn spec_rpc_servers_win_when_two_or_more() {
        let mut node = state_sync_node(Some(vec!["b:1", "a:1", "b:1"]));
        assert!(!reconcile_state_sync_gate(&mut node, Err("unused"), &ctx()));
        assert_eq!(
            gate_condition(&node).2,
            "2 rpc-servers declared on spec for chain \"pacific-1\""
        );
        assert_eq!(
            node.status.as_ref().expect("s").resolved_state_syncers(),
            ["a:1", "b:1"]
        );
    }

    #[test]
    fn too_few_syncers_block_with_the_controller_message() {
        let mut node = state_sync_node(None);
        let one = vec!["a:1".to_owned()];
        assert!(reconcile_state_sync_gate(
            &mut node,
            Ok::<_, &str>(&one),
            &ctx()
        ));
        let (status, reason, message) = gate_condition(&node);
        assert_eq!(
            (status.as_str(), reason.as_str()),
            ("False", "NoSyncersConfigured")
        );
        assert!(message.starts_with("state sync requires >=2 canonical syncers configured for chain \"pacific-1\"; found 1 \u{2014} register"));
        assert!(crate::planner::state_sync_blocks_plan(&node));
    }

    #[test]
    fn source_error_blocks_as_unknown() {
        let mut node = state_sync_node(None);
        assert!(reconcile_state_sync_gate(&mut node, Err("boom"), &ctx()));
        let (status, reason, message) = gate_condition(&node);
        assert_eq!(
            (status.as_str(), reason.as_str()),
            ("Unknown", "SyncerSourceError")
        );
        assert_eq!(
            message,
            "reading canonical-syncer source for chain \"pacific-1\": boom"
        );
    }

    #[test]
    fn canonical_syncers_resolve() {
        let mut node = state_sync_node(Some(vec!["only:1"]));
        let two = vec!["h1:26657".to_owned(), "h2:26657".to_owned()];
        assert!(!reconcile_state_sync_gate(
            &mut node,
            Ok::<_, &str>(&two),
            &ctx()
        ));
        assert_eq!(
            gate_condition(&node).2,
            "2 canonical syncers configured for chain \"pacific-1\""
        );
        assert_eq!(
            node.status.as_ref().expect("s").resolved_state_syncers(),
            two.as_slice()
        );
    }
}
