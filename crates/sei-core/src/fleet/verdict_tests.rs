//! The one health verdict (issue 27): a Running node with a failing condition, a render
//! failure, a failed plan or a chain problem is not healthy, and every place that reads the
//! verdict (PHASE cell, header counts, filters) agrees.
use super::columns::{Form, cell};
use super::filter::Filter;
use super::sample::{self, condition, node, patched, running};
use super::sort::{Column, Sort, listing};
use super::store::{Delta, ObjectKey};
use super::verdict::{ProblemKind, Severity};
use super::{Fleet, FleetDelta};
use crate::api::{NodeMode, Phase};
use crate::chain::{Reading, RpcFailure};
use serde_json::json;

/// pacific-1-full-1 of the demo: Running, its sidecar unreachable.
fn sidecar_unreachable() -> crate::api::SeiNode {
    patched(
        running(node("sei", "full-1", NodeMode::Full, 7200)),
        json!({"status": {"conditions": [
            condition("Paused", "False", "NotPaused", "spec.paused is unset or false", 9000),
            condition("StateSyncReady", "False", "NotApplicable", "no snapshot", 9000),
            condition("SidecarReady", "Unknown", "Unreachable", "connection refused", 240),
        ]}}),
    )
}

fn fleet_of(nodes: Vec<crate::api::SeiNode>) -> Fleet {
    let mut fleet = Fleet::new(None);
    for node in nodes {
        fleet.apply(FleetDelta::Node(Delta::applied(node)));
    }
    fleet
}

fn key(name: &str) -> ObjectKey {
    ObjectKey::new("sei", name)
}

fn names(fleet: &Fleet, filter: &str) -> Vec<String> {
    let filter = Filter::parse(filter).expect("filter");
    listing(fleet, &filter, Sort::default())
        .keys
        .iter()
        .map(|k| k.name.to_string())
        .collect()
}

#[test]
fn a_running_node_with_a_failing_condition_is_sick_on_every_reading() {
    let healthy = running(node("sei", "full-0", NodeMode::Full, 7200));
    let fleet = fleet_of(vec![healthy, sidecar_unreachable()]);
    let row = fleet.row(&key("full-1")).expect("row");
    assert_eq!(row.verdict.worst(), Some(Severity::Critical));
    assert_eq!(row.verdict.problems[0].kind, ProblemKind::ConditionFailing);
    assert_eq!(row.verdict.summary(), "SidecarReady/Unreachable");
    // The PHASE column is never dropped: its compact form carries the mark at 80 columns.
    let now = sample::now();
    assert_eq!(cell(Column::Phase, Form::Compact, row, now), "✗ Run");
    assert_eq!(cell(Column::Phase, Form::Full, row, now), "✗ Running");
    let well = fleet.row(&key("full-0")).expect("row");
    assert!(well.verdict.is_healthy());
    assert_eq!(cell(Column::Phase, Form::Compact, well, now), "● Run");
    // The header counts it apart from the Running one.
    let counts = fleet.counts();
    let running: usize = counts
        .by_phase
        .iter()
        .filter(|(k, _)| k.1.0 == Some(Phase::Running))
        .map(|(_, n)| *n)
        .sum();
    assert_eq!((running, counts.sick), (1, 1));
    for filter in ["failed", "warning", "sick"] {
        assert_eq!(names(&fleet, filter), ["full-1"], "/{filter}");
    }
    assert_eq!(names(&fleet, "healthy"), ["full-0"]);
    assert_eq!(row.verdict.cell(), "✗ SidecarReady/Unreachable");
}

#[test]
fn chain_problems_make_a_node_sick_but_catching_up_and_no_pod_do_not() {
    let mut fleet = fleet_of(vec![running(node("sei", "rpc-0", NodeMode::Full, 7200))]);
    let now = sample::now();
    let read = |failure: RpcFailure| Reading {
        at: now,
        outcome: Err(failure),
    };
    fleet.record_health(&key("rpc-0"), read(RpcFailure::Refused("refused".into())));
    fleet.judge_health(now, &Default::default());
    let row = fleet.row(&key("rpc-0")).expect("row");
    assert_eq!(row.verdict.worst(), Some(Severity::Warning));
    assert_eq!(row.verdict.summary(), "RPC unreachable (refused)");
    assert_eq!(cell(Column::Phase, Form::Compact, row, now), "▲ Run");
    assert_eq!(fleet.counts().sick, 1);
    assert_eq!(names(&fleet, "sick"), ["rpc-0"]);
    assert_eq!(names(&fleet, "failed"), Vec::<String>::new());
    // The same node with no pod: the RPC cannot answer, the workload findings say why.
    fleet.record_health(&key("rpc-0"), read(RpcFailure::NoPod("rpc-0-0".into())));
    fleet.judge_health(now, &Default::default());
    let row = fleet.row(&key("rpc-0")).expect("row");
    assert!(row.verdict.is_healthy(), "{:?}", row.verdict);
    assert_eq!(fleet.counts().sick, 0, "the counts follow the verdict");
}

#[test]
fn a_failed_node_is_counted_failed_not_sick_and_a_render_failure_is_critical() {
    let (nodes, events) = sample::demo_fleet();
    let mut fleet = fleet_of(nodes);
    for event in events {
        fleet.apply(FleetDelta::NodeEvent(Delta::applied(event)));
    }
    let seed = fleet.row(&key("seed-0")).expect("seed");
    assert_eq!(seed.verdict.problems[0].kind, ProblemKind::RenderFailed);
    assert!(seed.is_sick());
    let validator = fleet.row(&key("validator-0")).expect("validator");
    assert_eq!(validator.verdict.worst(), Some(Severity::Critical));
    assert!(!validator.is_sick(), "its phase says it already");
    assert_eq!(
        cell(Column::Phase, Form::Compact, validator, sample::now()),
        "✗ Fail"
    );
}
