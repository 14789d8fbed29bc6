//! Issue 33 as the screens show it (fixed clock): an Active plan nobody runs is `▶ 4/7
//! orphaned` in the fleet row at 80x24 and wide, and the node screen names why and the command
//! that resumes it; the image the pod runs sits beside the spec's, and drift is judged against
//! it; the plan timeline has each task's duration.
use std::collections::BTreeSet;

use super::tests::render;
use super::theme::Theme;
use crate::app::model::{Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::runners::{ControllerSeen, ExecutorLease, Runners};
use crate::fleet::sample;
use crate::fleet::store::Delta;
use crate::keymap::KeyCode;

/// The demo after a read of the Leases: no controller, and rpc-1's Lease (its update plan
/// Active) held by a console of this machine that is gone.
fn with_orphan() -> Model {
    let mut model = demo_model();
    let runners = Runners {
        read_at: sample::now(),
        controller_namespace: "sei-k8s-controller-system".into(),
        controller: ControllerSeen::NotLive {
            reason: "no Lease bc1f5b0a.sei.io in namespace sei-k8s-controller-system".into(),
        },
        leases: Some(vec![ExecutorLease {
            namespace: "sei".into(),
            node: "rpc-1".into(),
            holder: "sei-console-laptop-4242".into(),
            renewed: Some(sample::now()),
            duration_seconds: 30,
            holder_gone: true,
        }]),
        checked: BTreeSet::from([(
            "sei".to_owned(),
            "rpc-1".to_owned(),
            "6f1c2d3e-0000-4000-8000-000000000001".to_owned(),
        )]),
    };
    update(
        &mut model,
        Msg::Runners {
            context: "kind-sei".into(),
            runners: Box::new(runners),
        },
    );
    model
}

fn row_of<'a>(screen: &'a str, name: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no row {name} in\n{screen}"))
}

#[test]
fn an_orphaned_plan_is_named_in_its_row_at_80x24_and_wide() {
    let mut model = with_orphan();
    let narrow = render(&mut model, 80, 24, &Theme::plain());
    assert!(
        row_of(&narrow, "rpc-1").contains("▶ 4/7 orphaned"),
        "{narrow}"
    );
    // Another Active plan (replayer-0's init) was not asked about: not judged.
    assert!(
        !row_of(&narrow, "replayer-0").contains("orphaned"),
        "{narrow}"
    );
    insta::assert_snapshot!("orphan_row_80x24", narrow);
    let wide = render(&mut model, 200, 14, &Theme::plain());
    assert!(row_of(&wide, "rpc-1").contains("▶ 4/7 orphaned"), "{wide}");
    insta::assert_snapshot!("orphan_row_wide", wide);
}

#[test]
fn a_live_lease_or_a_live_controller_is_no_orphan() {
    let mut model = with_orphan();
    let live = Runners {
        controller: ControllerSeen::Live {
            holder: "sei-k8s-controller-abc".into(),
        },
        ..model
            .fleet
            .iter()
            .next()
            .and_then(|f| f.runners().cloned())
            .expect("read")
    };
    update(
        &mut model,
        Msg::Runners {
            context: "kind-sei".into(),
            runners: Box::new(live),
        },
    );
    let screen = render(&mut model, 120, 24, &Theme::plain());
    assert!(!screen.contains("orphaned"), "{screen}");
}

/// rpc-1's pod still runs the old image while its spec asks for v6.4.0.
fn with_running_pods(model: &mut Model) {
    let epoch = model.scope_epoch;
    let mut old = sample::pod("sei", "rpc-1", true, 0, "rev-1");
    if let Some(statuses) = old
        .status
        .as_mut()
        .and_then(|s| s.container_statuses.as_mut())
    {
        statuses[0].state = serde_json::from_value(
            serde_json::json!({"running": {"startedAt": sample::ago(3600)}}),
        )
        .ok();
    }
    for pod in [old, sample::pod("sei", "rpc-0", true, 0, "rev-1")] {
        update(
            model,
            Msg::Delta {
                epoch,
                delta: FleetDelta::NodePod(Delta::applied(pod)),
            },
        );
    }
}

#[test]
fn the_image_the_pod_runs_is_beside_the_spec_s_and_drift_is_judged_against_it() {
    let mut model = with_orphan();
    with_running_pods(&mut model);
    let wide = render(&mut model, 200, 14, &Theme::plain());
    assert!(
        row_of(&wide, "rpc-1").contains("sei:v6.4.0 ≠image runs sei:v6.3.0"),
        "{wide}"
    );
    // `/drift`: rpc-1 runs another image; rpc-0 runs its spec's.
    press(&mut model, "/drift");
    key(&mut model, KeyCode::Enter);
    let drifted = render(&mut model, 200, 14, &Theme::plain());
    assert!(drifted.contains("rpc-1 "), "{drifted}");
    assert!(!drifted.contains("rpc-0 "), "{drifted}");
}

#[test]
fn the_node_screen_names_the_orphan_what_runs_since_when_and_each_task_s_duration() {
    let mut model = with_orphan();
    with_running_pods(&mut model);
    press(&mut model, "/rpc-1");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    let screen = render(&mut model, 200, 50, &Theme::plain());
    assert!(screen.contains("orphaned: no live controller"), "{screen}");
    assert!(
        screen.contains("resume it: sei-console exec rpc-1 -n sei --context kind-sei"),
        "{screen}"
    );
    assert!(
        screen.contains("runs             ghcr.io/sei-protocol/sei:v6.3.0 (since 1h)"),
        "{screen}"
    );
    // Wrapped at the spec column's width: the condition's name on the next row.
    assert!(screen.contains("≠image since 6m (condition"), "{screen}");
    assert!(screen.contains("TOOK"), "{screen}");
    insta::assert_snapshot!("orphan_node_screen_wide", screen);
    let narrow = render(&mut model, 80, 24, &Theme::plain());
    insta::assert_snapshot!("orphan_node_screen_80x24", narrow);
}
