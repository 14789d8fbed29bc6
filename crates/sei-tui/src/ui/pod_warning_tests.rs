//! Issue 27, point 8 as the screens show it (fixed clock): a Running node whose pod the
//! scheduler cannot place shows its pod's FailedScheduling in the WARNING column, is marked
//! `▲` at any width, counted sick in the header and found by `/warning`.
use super::tests::render;
use super::theme::Theme;
use crate::api::NodeMode;
use crate::app::model::{Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample::{UNSCHEDULABLE, node, pod_warning, running, scheduling_pod};
use crate::fleet::store::Delta;
use crate::keymap::KeyCode;

/// The demo with `full-1` added: Running, its pod `full-1-0` Pending, judged unschedulable
/// three times (the last 40 s ago).
fn with_unschedulable_pod() -> Model {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    let deltas = [
        FleetDelta::Node(Delta::applied(running(node(
            "sei",
            "full-1",
            NodeMode::Full,
            7200,
        )))),
        FleetDelta::NodePod(Delta::applied(scheduling_pod(
            "sei", "full-1", "pod-a", None,
        ))),
        FleetDelta::PodWarning(Delta::applied(pod_warning(
            "sei",
            "full-1",
            "pod-a",
            "FailedScheduling",
            UNSCHEDULABLE,
            3,
            40,
        ))),
    ];
    for delta in deltas {
        update(&mut model, Msg::Delta { epoch, delta });
    }
    model
}

fn row_of<'a>(screen: &'a str, name: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no row {name} in\n{screen}"))
}

#[test]
fn a_pod_warning_marks_its_running_node_at_80x24() {
    let mut model = with_unschedulable_pod();
    let screen = render(&mut model, 80, 24, &Theme::dark());
    let row = row_of(&screen, "full-1");
    assert!(row.contains("▲ Run"), "{screen}");
    assert!(row.contains("⚠ pod FailedScheduling"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn a_pod_warning_marks_its_running_node_at_200x50() {
    let mut model = with_unschedulable_pod();
    let screen = render(&mut model, 200, 50, &Theme::dark());
    let row = row_of(&screen, "full-1");
    assert!(row.contains("▲ Running"), "{screen}");
    assert!(
        row.contains("⚠ Pod full-1-0: FailedScheduling ×3 40s"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn the_warning_filter_finds_a_node_by_its_pod_warning() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = with_unschedulable_pod();
        press(&mut model, "/warning");
        key(&mut model, KeyCode::Enter);
        let screen = render(&mut model, width, height, &Theme::dark());
        assert!(screen.contains("full-1"), "{screen}");
        assert!(!screen.contains("rpc-0 "), "{screen}");
        insta::assert_snapshot!(format!("pod_warning_filter_{width}x{height}"), screen);
    }
}
