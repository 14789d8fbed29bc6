//! Issue 27, as the screens show it (fixed clock): one health verdict in the fleet at any
//! width (PHASE mark, header's sick count), `p` showing the last action after its dialog
//! closed, a rollout with nothing to do, and the footer at 60 columns.
use serde_json::json;

use super::tests::render;
use super::theme::Theme;
use crate::api::NodeMode;
use crate::app::action::{ActionPreview, Finished, PermissionSummary};
use crate::app::model::{Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample::{condition, node, patched, running};
use crate::fleet::store::Delta;
use crate::keymap::{Key, KeyCode};

/// The demo with `full-1` added: Running, its sidecar unreachable (the README demo's
/// pacific-1-full-1).
fn with_sick_node() -> Model {
    let mut model = demo_model();
    let sick = patched(
        running(node("sei", "full-1", NodeMode::Full, 7200)),
        json!({"status": {"conditions": [
            condition("Paused", "False", "NotPaused", "spec.paused is unset or false", 9000),
            condition("StateSyncReady", "False", "NotApplicable", "no snapshot", 9000),
            condition("SidecarReady", "Unknown", "Unreachable", "connection refused", 240),
        ]}}),
    );
    let epoch = model.scope_epoch;
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::applied(sick)),
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
fn a_sick_running_node_is_marked_at_80_columns_and_counted_apart() {
    let mut model = with_sick_node();
    let screen = render(&mut model, 80, 24, &Theme::dark());
    // Not `● Run` with its CONDITIONS dropped: the PHASE column carries the verdict.
    assert!(row_of(&screen, "full-1").contains("✗ Run"), "{screen}");
    assert!(row_of(&screen, "rpc-0").contains("● Run"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn a_sick_running_node_wide() {
    let mut model = with_sick_node();
    let screen = render(&mut model, 200, 50, &Theme::dark());
    assert!(row_of(&screen, "full-1").contains("✗ Running"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn the_sick_filter_finds_it_at_80x24_and_200x50() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = with_sick_node();
        press(&mut model, "/sick");
        key(&mut model, KeyCode::Enter);
        let screen = render(&mut model, width, height, &Theme::dark());
        assert!(screen.contains("full-1"), "{screen}");
        assert!(!screen.contains("rpc-0 "), "{screen}");
        insta::assert_snapshot!(format!("sick_filter_{width}x{height}"), screen);
    }
}

#[test]
fn the_node_screen_says_the_verdict() {
    let mut model = with_sick_node();
    press(&mut model, "/full-1");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    let screen = render(&mut model, 200, 50, &Theme::dark());
    assert!(
        screen.contains("phase            ● Running  ✗ SidecarReady/Unreachable"),
        "{screen}"
    );
}

fn preview(question: &str, nothing_to_do: Option<&str>) -> ActionPreview {
    ActionPreview {
        head: String::new(),
        text: "Image pin rollout of sei/rpc-0\n  spec.image: a -> b\n".into(),
        permissions: PermissionSummary {
            checked: 4,
            denied: Vec::new(),
            error: None,
        },
        executor: "executor: embedded (no Lease)".into(),
        blocked: None,
        confirm_names: Vec::new(),
        question: question.into(),
        nothing_to_do: nothing_to_do.map(str::to_owned),
    }
}

/// A rollout that ran and ended, its dialog closed with esc.
fn closed_rollout() -> Model {
    let mut model = demo_model();
    press(&mut model, "jj");
    press(&mut model, "i");
    key(&mut model, KeyCode::Enter);
    let id = model.action.as_ref().expect("flow").id;
    update(
        &mut model,
        Msg::ActionPrepared {
            id,
            result: Ok(preview("roll 1 node(s) to b?", None)),
        },
    );
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Enter);
    update(
        &mut model,
        Msg::ActionFinished {
            id,
            finished: Finished {
                ok: true,
                message: "rollout complete: 1 node(s) on b".into(),
            },
        },
    );
    key(&mut model, KeyCode::Esc);
    model
}

#[test]
fn p_shows_the_last_action_after_its_dialog_closed() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = closed_rollout();
        let closed = render(&mut model, width, height, &Theme::dark());
        assert!(!closed.contains("rollout complete"), "closed:\n{closed}");
        press(&mut model, "p");
        let screen = render(&mut model, width, height, &Theme::dark());
        assert!(!screen.contains("no action yet"), "{screen}");
        assert!(
            screen.contains("rollout complete: 1 node(s) on b"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("last_action_{width}x{height}"), screen);
    }
}

#[test]
fn a_rollout_with_nothing_to_do_says_so_and_asks_nothing() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = demo_model();
        press(&mut model, "jj");
        press(&mut model, "i");
        key(&mut model, KeyCode::Enter);
        let id = model.action.as_ref().expect("flow").id;
        let preview = ActionPreview {
            head: "sei/rpc-0: already on ghcr.io/sei-protocol/sei:v6.3.0\n".into(),
            text: String::new(),
            permissions: PermissionSummary {
                checked: 0,
                denied: Vec::new(),
                error: None,
            },
            executor: String::new(),
            blocked: None,
            confirm_names: Vec::new(),
            question: "roll 0 node(s) to ghcr.io/sei-protocol/sei:v6.3.0?".into(),
            nothing_to_do: Some("every node is already on ghcr.io/sei-protocol/sei:v6.3.0".into()),
        };
        update(
            &mut model,
            Msg::ActionPrepared {
                id,
                result: Ok(preview),
            },
        );
        key(&mut model, KeyCode::Enter);
        update(&mut model, Msg::Key(Key::char('y')));
        let screen = render(&mut model, width, height, &Theme::dark());
        assert!(!screen.contains("roll 0 node(s)"), "{screen}");
        assert!(screen.contains("nothing to do"), "{screen}");
        assert!(
            matches!(
                model.action.as_ref().map(|f| &f.stage),
                Some(crate::app::action::Stage::Preview { .. })
            ),
            "enter and y ask nothing"
        );
        insta::assert_snapshot!(format!("nothing_to_do_{width}x{height}"), screen);
    }
}

#[test]
fn the_footer_fits_60_columns() {
    let mut model = with_sick_node();
    let screen = render(&mut model, 60, 15, &Theme::dark());
    let footer = screen.lines().last().expect("footer");
    assert!(footer.starts_with("? help"), "{footer}");
    assert!(footer.ends_with("q quit"), "{footer}");
    insta::assert_snapshot!(screen);
}
