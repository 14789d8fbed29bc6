//! The node screen scrolls by line, clamps at its end, has `g`/`G` and shift-tab, and a failed
//! plan's failing task is on the first screen at 80x24.
use super::tests::{open, render};
use super::theme::Theme;
use crate::app::model::Model;
use crate::app::tests::{demo_model, key};
use crate::keymap::KeyCode;

/// The body of a drawn screen: the rows between the node title and the footer.
fn body(screen: &str) -> Vec<String> {
    let rows: Vec<&str> = screen.lines().collect();
    let title = rows
        .iter()
        .position(|r| r.contains("SeiNode sei/"))
        .expect("node title");
    rows[title + 1..rows.len() - 1]
        .iter()
        .map(|r| (*r).to_owned())
        .collect()
}

/// Presses `keys` one by one with a frame drawn before each, as a terminal would.
fn keys_drawn(model: &mut Model, width: u16, height: u16, keys: &[KeyCode]) -> String {
    for code in keys {
        render(model, width, height, &Theme::dark());
        key(model, *code);
    }
    render(model, width, height, &Theme::dark())
}

#[test]
fn the_first_j_scrolls_one_line_not_a_section() {
    let mut model = demo_model();
    open(&mut model, "rpc-1");
    let before = body(&render(&mut model, 80, 24, &Theme::dark()));
    let after = body(&keys_drawn(&mut model, 80, 24, &[KeyCode::Char('j')]));
    assert_eq!(after[..after.len() - 1], before[1..], "{after:#?}");
}

#[test]
fn sixty_j_stop_at_the_end_and_one_k_moves_back_at_once() {
    let mut model = demo_model();
    open(&mut model, "rpc-1");
    let end = keys_drawn(&mut model, 80, 24, &[KeyCode::Char('j'); 60]);
    let blank = body(&end).iter().filter(|r| r.trim().is_empty()).count();
    assert!(blank <= 3, "a blank pane\n{end}");
    let bottom = keys_drawn(&mut model, 80, 24, &[KeyCode::Char('G')]);
    assert_eq!(end, bottom, "60 j reach the end, as G does");
    let up = keys_drawn(&mut model, 80, 24, &[KeyCode::Char('k')]);
    assert_ne!(up, end, "one k after the end moves");
    let top = keys_drawn(&mut model, 80, 24, &[KeyCode::Char('g')]);
    assert!(top.contains("  Spec"), "{top}");
}

#[test]
fn a_column_that_fits_does_not_scroll_away() {
    let mut model = demo_model();
    open(&mut model, "rpc-1");
    let start = render(&mut model, 200, 50, &Theme::dark());
    let end = keys_drawn(&mut model, 200, 50, &[KeyCode::Char('j'); 60]);
    assert_eq!(start, end);
}

#[test]
fn g_and_shift_tab_are_in_the_node_help() {
    let help: Vec<(String, &str)> = crate::keymap::help_sections(crate::keymap::DEFAULT_BINDINGS)
        .into_iter()
        .find(|s| s.title == "Node")
        .expect("node section")
        .lines;
    for keys in ["g, home", "G, end", "shift-tab"] {
        assert!(help.iter().any(|(k, _)| k == keys), "{keys}: {help:?}");
    }
}

#[test]
fn shift_tab_focuses_the_pane_before_and_scrolls_to_it() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = demo_model();
        open(&mut model, "seed-0");
        let screen = keys_drawn(&mut model, width, height, &[KeyCode::BackTab]);
        assert!(screen.contains("▸ StatefulSet and Pods"), "{screen}");
        let screen = keys_drawn(&mut model, width, height, &[KeyCode::BackTab]);
        assert!(screen.contains("▸ Events"), "{screen}");
        insta::assert_snapshot!(format!("shift_tab_twice_{width}x{height}"), screen);
    }
}

#[test]
fn a_failed_plans_failing_task_is_on_the_first_screen() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = demo_model();
        open(&mut model, "validator-0");
        let screen = render(&mut model, width, height, &Theme::dark());
        let failing = screen
            .lines()
            .find(|r| r.contains("✗  config-validate"))
            .unwrap_or_else(|| panic!("{width}x{height}: failing task not shown\n{screen}"));
        assert!(failing.contains("3/3"), "{failing}");
        insta::assert_snapshot!(format!("failed_plan_first_screen_{width}x{height}"), screen);
    }
}

#[test]
fn the_end_of_the_node_screen_at_80x24_and_200x50() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = demo_model();
        open(&mut model, "rpc-1");
        let screen = keys_drawn(&mut model, width, height, &[KeyCode::Char('j'); 60]);
        insta::assert_snapshot!(format!("sixty_j_{width}x{height}"), screen);
    }
}
