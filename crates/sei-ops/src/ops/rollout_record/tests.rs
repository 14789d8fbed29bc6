use super::*;
use crate::ports::HolderProcess;

fn t(secs: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + secs).expect("ts")
}

fn record(state: RolloutState, nodes: usize) -> RolloutRecord {
    let mut record = RolloutRecord {
        id: new_id(t(0), uuid::Uuid::nil()),
        kind: RecordKind::Rollout,
        operator: "ops@example (context kind)".into(),
        context: "kind".into(),
        namespace: "sei".into(),
        image: "ghcr.io/sei/seid:v2".into(),
        started: t(0),
        updated: t(0),
        state,
        reason: None,
        waves: vec![vec!["n0".into()]],
        wave: 0,
        gate: Some(GateRecord {
            soak_seconds: 60,
            timeout_seconds: 600,
        }),
        last_gate: None,
        nodes: Vec::new(),
        omitted_nodes: 0,
        abort: None,
        hold_after: Some(HoldAfter::Canary),
        promote: None,
    };
    record.set_nodes(
        (0..nodes)
            .map(|i| RecordNode {
                name: format!("n{i}"),
                from: "ghcr.io/sei/seid:v1".into(),
                to: "ghcr.io/sei/seid:v2".into(),
                state: NodeState::Pending,
                plan: None,
            })
            .collect(),
    );
    record
}

#[test]
fn a_record_round_trips_through_its_lease_with_labels_kubectl_can_select() {
    let mut original = record(RolloutState::Running, 2);
    original.abort = Some(Request {
        by: "other".into(),
        at: t(3),
    });
    let lease = to_lease(&original, Some("sei-console-h-1"), t(5), Some("7".into()));
    assert_eq!(
        lease.metadata.name.as_deref(),
        Some("sei-console-rollout-20270115-080000-0000")
    );
    let labels = lease.metadata.labels.clone().expect("labels");
    assert_eq!(labels[MANAGED_BY], "sei-console");
    assert_eq!(labels[STATE_LABEL], "running");
    assert_eq!(labels[ROLLOUT_KEY], original.id);
    let read = from_lease(&lease).expect("read");
    assert_eq!(read.record, original);
    assert_eq!(read.holder.as_deref(), Some("sei-console-h-1"));
    assert_eq!(read.renewed, Some(t(5)));
}

#[test]
fn a_record_is_bounded_in_nodes_and_text() {
    let mut big = record(RolloutState::Running, MAX_RECORD_NODES + 50);
    assert_eq!(big.nodes.len(), MAX_RECORD_NODES);
    assert_eq!(big.omitted_nodes, 50);
    assert_eq!(big.progress(), (0, MAX_RECORD_NODES + 50));
    big.reason = Some(bounded(&"x".repeat(10_000)));
    let long_image = "r/".repeat(5_000);
    big.set_nodes(vec![RecordNode {
        name: "a".into(),
        from: long_image.clone(),
        to: long_image,
        state: NodeState::Pending,
        plan: None,
    }]);
    assert_eq!(big.nodes[0].from.chars().count(), MAX_TEXT);
    let lease = to_lease(&big, None, t(0), None);
    let size: usize = lease
        .metadata
        .annotations
        .iter()
        .flatten()
        .map(|(k, v)| k.len() + v.len())
        .sum();
    assert!(size < 8 * 1024, "{size}");
    let full = to_lease(
        &record(RolloutState::Running, MAX_RECORD_NODES),
        None,
        t(0),
        None,
    );
    let json = &full.metadata.annotations.expect("annotations")[ROLLOUT_KEY];
    assert!(json.len() < 128 * 1024, "{}", json.len());
}

#[test]
fn a_runner_that_stopped_heartbeating_or_whose_process_is_gone_is_orphaned() {
    let lease = to_lease(&record(RolloutState::Running, 1), Some("h"), t(0), None);
    let stored = from_lease(&lease).expect("read");
    assert_eq!(
        stored.runner(t(5), HolderProcess::Unknown),
        Runner::Live {
            holder: "h".into(),
            renewed_ago: 5
        }
    );
    assert_eq!(
        stored.runner(t(60), HolderProcess::Unknown),
        Runner::Orphaned {
            holder: "h".into(),
            renewed_ago: Some(60)
        }
    );
    assert!(matches!(
        stored.runner(t(1), HolderProcess::Exited),
        Runner::Orphaned { .. }
    ));
    let done =
        from_lease(&to_lease(&record(RolloutState::Done, 1), None, t(0), None)).expect("read");
    assert_eq!(done.runner(t(1), HolderProcess::Unknown), Runner::Finished);
}

#[test]
fn only_finished_records_older_than_the_bound_are_pruned() {
    let week = PRUNE_AFTER.as_secs() as i64;
    let stored = |state, updated| {
        let mut r = record(state, 1);
        r.id = format!("{}-{updated}", state.as_str());
        r.updated = t(updated);
        from_lease(&to_lease(&r, None, t(updated), None)).expect("read")
    };
    let records = [
        stored(RolloutState::Done, 0),
        stored(RolloutState::Aborted, 10),
        stored(RolloutState::Running, 0),
        stored(RolloutState::Halted, week),
    ];
    assert_eq!(
        prunable(&records, t(week + 5)),
        ["sei-console-rollout-done-0"]
    );
}

#[test]
fn the_changed_nodes_are_those_the_rollout_pinned_and_the_resume_command_names_the_rest() {
    let mut r = record(RolloutState::Aborted, 3);
    if let Some(n) = r.node_mut("n0") {
        n.state = NodeState::Rolled;
    }
    if let Some(n) = r.node_mut("n1") {
        n.state = NodeState::Rolling;
    }
    let (changed, unchanged) = r.changed_and_unchanged();
    assert_eq!(
        changed.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(),
        ["n0", "n1"]
    );
    assert_eq!(unchanged.len(), 1);
    assert_eq!(
        r.resume_command(),
        "sei-console -n sei rollout n0 n1 n2 --image ghcr.io/sei/seid:v2"
    );
}

#[test]
fn a_hold_comes_after_the_canary_or_each_wave_never_after_the_last() {
    let canary = HoldAfter::Canary;
    assert!(canary.holds_after(0, 3, true));
    assert!(!canary.holds_after(0, 3, false), "no canary wave");
    assert!(!canary.holds_after(1, 3, true));
    let each = HoldAfter::EachWave;
    assert!(each.holds_after(0, 3, false) && each.holds_after(1, 3, false));
    assert!(
        !each.holds_after(2, 3, false),
        "the last wave ends the rollout"
    );
    assert!(!canary.holds_after(0, 1, true));
}
