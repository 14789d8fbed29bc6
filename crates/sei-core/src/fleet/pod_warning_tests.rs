//! Issue 27: a Warning of a SeiNode's pod (FailedScheduling on `full-1-0`) reaches the fleet:
//! the WARNING column, the one verdict (▲ on a Running node), the header counts and the
//! filters; one the pod's present state has outlived does not; other pods cost no memory.
use super::columns::{Form, cell};
use super::filter::Filter;
use super::sample::{self, UNSCHEDULABLE, node, pod_warning, running, scheduling_pod};
use super::sort::{Column, Sort, listing};
use super::store::{Delta, ObjectKey};
use super::verdict::{ProblemKind, Severity};
use super::{Fleet, FleetDelta};
use crate::api::NodeMode;

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

/// full-0 and full-1 Running; full-1's pod `full-1-0` (uid pod-a) Pending, judged
/// unschedulable three times, last 40 s ago.
fn fleet_with_unschedulable_pod() -> Fleet {
    let mut fleet = Fleet::new(None);
    for name in ["full-0", "full-1"] {
        let node = running(node("sei", name, NodeMode::Full, 7200));
        fleet.apply(FleetDelta::Node(Delta::applied(node)));
    }
    fleet.apply(FleetDelta::NodePod(Delta::applied(scheduling_pod(
        "sei", "full-1", "pod-a", None,
    ))));
    fleet.apply(FleetDelta::PodWarning(Delta::applied(pod_warning(
        "sei",
        "full-1",
        "pod-a",
        "FailedScheduling",
        UNSCHEDULABLE,
        3,
        40,
    ))));
    fleet
}

#[test]
fn a_running_node_whose_pod_cannot_be_scheduled_is_sick_with_the_pod_warning_in_its_row() {
    let fleet = fleet_with_unschedulable_pod();
    let now = sample::now();
    let row = fleet.row(&key("full-1")).expect("row");
    let warning = row.warning().expect("the pod's warning");
    assert_eq!(warning.pod.as_deref(), Some("full-1-0"));
    assert_eq!(warning.reason, "FailedScheduling");
    assert_eq!(
        cell(Column::Warning, Form::Full, row, now),
        "⚠ Pod full-1-0: FailedScheduling ×3 40s"
    );
    assert_eq!(
        cell(Column::Warning, Form::Compact, row, now),
        "⚠ pod FailedScheduling"
    );
    assert_eq!(row.verdict.worst(), Some(Severity::Warning));
    assert_eq!(row.verdict.problems[0].kind, ProblemKind::PodWarning);
    assert_eq!(row.verdict.cell(), "▲ pod FailedScheduling");
    assert_eq!(cell(Column::Phase, Form::Compact, row, now), "▲ Run");
    assert!(row.is_sick());
    let counts = fleet.counts();
    assert_eq!((counts.sick, counts.warnings), (1, 1));
    for filter in ["warning", "sick"] {
        assert_eq!(names(&fleet, filter), ["full-1"], "/{filter}");
    }
    assert!(names(&fleet, "failed").is_empty());
    assert_eq!(names(&fleet, "healthy"), ["full-0"]);
    // Free text finds the pod's reason too.
    assert_eq!(names(&fleet, "failedscheduling"), ["full-1"]);
}

#[test]
fn a_pod_warning_the_pod_has_outlived_marks_nothing_and_the_row_follows_the_pod() {
    let mut fleet = fleet_with_unschedulable_pod();
    // The same pod scheduled since, Running and Ready 10 s ago: the FailedScheduling is stale.
    fleet.apply(FleetDelta::NodePod(Delta::applied(scheduling_pod(
        "sei",
        "full-1",
        "pod-a",
        Some(10),
    ))));
    let row = fleet.row(&key("full-1")).expect("row");
    assert_eq!(row.warning(), None, "{:?}", row.pod_warning);
    assert!(row.verdict.is_healthy(), "{:?}", row.verdict);
    assert_eq!(fleet.counts().sick, 0, "the counts follow the verdict");
    assert!(names(&fleet, "warning").is_empty());
    // A BackOff of that pod after it became Ready is live.
    fleet.apply(FleetDelta::PodWarning(Delta::applied(pod_warning(
        "sei",
        "full-1",
        "pod-a",
        "BackOff",
        "Back-off restarting failed container seid",
        2,
        5,
    ))));
    let row = fleet.row(&key("full-1")).expect("row");
    assert_eq!(row.verdict.summary(), "pod BackOff");
    // The warning of an earlier pod of the name is stale once another pod stands there.
    fleet.apply(FleetDelta::NodePod(Delta::applied(scheduling_pod(
        "sei",
        "full-1",
        "pod-b",
        Some(2),
    ))));
    assert!(fleet.row(&key("full-1")).expect("row").verdict.is_healthy());
}

#[test]
fn the_newer_of_the_node_s_own_warning_and_its_pod_s_is_shown_and_both_are_judged() {
    let mut fleet = fleet_with_unschedulable_pod();
    let node = fleet.nodes.get(&key("full-1")).expect("node").clone();
    // The node's own Warning, older than the pod's (40 s).
    let own = sample::event(&node, true, "SidecarUnreachable", "dial refused", 1, 300);
    fleet.apply(FleetDelta::NodeEvent(Delta::applied(own)));
    let row = fleet.row(&key("full-1")).expect("row");
    assert_eq!(
        row.warning().and_then(|w| w.pod.as_deref()),
        Some("full-1-0")
    );
    assert_eq!(
        row.verdict.summary(),
        "SidecarUnreachable, pod FailedScheduling"
    );
    // A newer one of its own is shown instead.
    let newer = sample::event(&node, true, "SidecarUnreachable", "dial refused", 2, 5);
    fleet.apply(FleetDelta::NodeEvent(Delta::applied(newer)));
    let row = fleet.row(&key("full-1")).expect("row");
    assert_eq!(row.warning().map(|w| w.pod.is_none()), Some(true));
}

#[test]
fn only_the_warnings_of_a_seinode_s_pod_are_kept_slimmed_and_a_relist_drops_the_rest() {
    let mut fleet = fleet_with_unschedulable_pod();
    // A pod of another workload in the namespace, and a Normal event: neither is kept.
    let mut other = pod_warning("sei", "web", "pod-w", "BackOff", "x", 1, 5);
    other.involved_object.name = Some("web-7c9f-abcde".into());
    fleet.apply(FleetDelta::PodWarning(Delta::applied(other)));
    let mut normal = pod_warning("sei", "full-0", "pod-n", "Scheduled", "ok", 1, 5);
    normal.type_ = Some("Normal".into());
    fleet.apply(FleetDelta::PodWarning(Delta::applied(normal)));
    assert_eq!(fleet.pod_warnings.len(), 1);
    let (_, kept) = fleet.pod_warnings.iter().next().expect("kept");
    assert_eq!(kept.metadata.labels, None, "labels dropped");
    // A kubelet's message of kilobytes is cut.
    let long = "x".repeat(5_000);
    let mut loud = pod_warning("sei", "full-0", "pod-z", "Failed", &long, 1, 5);
    loud.metadata.name = Some("full-0-0.loud".into());
    fleet.apply(FleetDelta::PodWarning(Delta::applied(loud)));
    let row = fleet.row(&key("full-0")).expect("row");
    let message = &row.pod_warning.as_ref().expect("full-0's").message;
    assert_eq!(message.chars().count(), 301, "cut with …");
    // A relist that no longer lists full-1's warning (it expired) clears the row.
    fleet.apply(FleetDelta::PodWarning(Delta::RelistStarted));
    fleet.apply(FleetDelta::PodWarning(Delta::RelistDone));
    assert!(fleet.pod_warnings.is_empty());
    assert!(fleet.rows().all(|row| row.verdict.is_healthy()));
    // Pods are kept slimmed: no containers, no labels.
    let (_, pod) = fleet.node_pods.iter().next().expect("full-1-0 is kept");
    let pod = pod.clone();
    assert_eq!(pod.metadata.labels, None);
    assert!(pod.spec.expect("spec").containers.is_empty());
}

#[test]
fn a_pod_warning_that_arrives_before_its_node_reaches_the_row_when_the_node_does() {
    let mut fleet = Fleet::new(None);
    fleet.apply(FleetDelta::PodWarning(Delta::applied(pod_warning(
        "sei",
        "full-1",
        "pod-a",
        "FailedScheduling",
        UNSCHEDULABLE,
        1,
        40,
    ))));
    let node = running(node("sei", "full-1", NodeMode::Full, 7200));
    fleet.apply(FleetDelta::Node(Delta::applied(node)));
    let row = fleet.row(&key("full-1")).expect("row");
    assert_eq!(row.verdict.summary(), "pod FailedScheduling");
}
