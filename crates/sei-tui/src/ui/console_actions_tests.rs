//! The node screen's "Console actions" (the node's `sei.io/console-actions` record): who, what
//! and when, newest last above the Events, at 80x24 and wide with the fixed sample clock; an
//! unreadable record is one line saying so.
use super::tests::{open, render};
use super::theme::Theme;
use crate::app::model::{Model, Msg};
use crate::app::tests::demo_model;
use crate::app::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::console_actions::{ANNOTATION, ConsoleAction, append};
use crate::fleet::sample;
use crate::fleet::store::Delta;
use crate::keymap::KeyCode;

/// The demo fleet with rpc-1's annotation set to `value`.
fn with_record(value: &str) -> Model {
    let mut model = demo_model();
    let (nodes, _) = sample::demo_fleet();
    let mut node = nodes
        .into_iter()
        .find(|n| n.metadata.name.as_deref() == Some("rpc-1"))
        .expect("rpc-1 in the demo fleet");
    node.metadata
        .annotations
        .get_or_insert_with(Default::default)
        .insert(ANNOTATION.to_owned(), value.to_owned());
    let epoch = model.scope_epoch;
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::Applied(Box::new(node))),
        },
    );
    model
}

/// Two actions by two colleagues: an address change 3 h ago, the rollout 12 minutes ago.
fn two_actions() -> String {
    let ago = |s: i64| {
        sample::now()
            .checked_sub(jiff::SignedDuration::from_secs(s))
            .expect("time")
    };
    let address = ConsoleAction {
        at: ago(3 * 3600),
        by: "bob@example.com (context prod-eu)".into(),
        action: "address".into(),
        detail: "external address (unset) -> 203.0.113.7:26656".into(),
        plan: Some("6f1c2d3e-0000-4000-8000-0000000000a1".into()),
    };
    let rollout = ConsoleAction {
        at: ago(12 * 60),
        by: "alice (context prod)".into(),
        action: "rollout".into(),
        detail: "image ghcr.io/sei-protocol/sei:v6.3.0 -> ghcr.io/sei-protocol/sei:v6.4.0".into(),
        plan: Some("6f1c2d3e-0000-4000-8000-000000000001".into()),
    };
    let first = append(None, &address).value;
    append(Some(&first), &rollout).value
}

#[test]
fn console_actions_80x24() {
    let mut model = with_record(&two_actions());
    open(&mut model, "rpc-1");
    // Tab to the Events: the console actions come into view with them.
    key_tabs(&mut model, 2);
    let screen = render(&mut model, 80, 24, &Theme::dark());
    assert!(screen.contains("Console actions"), "{screen}");
    insta::assert_snapshot!(screen);
}

#[test]
fn console_actions_wide() {
    let mut model = with_record(&two_actions());
    open(&mut model, "rpc-1");
    let screen = render(&mut model, 200, 50, &Theme::dark());
    assert!(
        screen
            .contains("12m ago alice (context prod) rollout image ghcr.io/sei-protocol/sei:v6.3.0"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn an_unreadable_record_is_one_line_saying_so() {
    let garbage = format!("{{\"oops\": \"{}\"}}", "z".repeat(3000));
    let mut model = with_record(&garbage);
    open(&mut model, "rpc-1");
    let screen = render(&mut model, 200, 50, &Theme::dark());
    let lines: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("✖ unreadable"))
        .collect();
    assert_eq!(lines.len(), 1, "{screen}");
    assert!(
        lines[0].contains("✖ unreadable: not a console action list: '{\"oops\": \"zzz")
            && lines[0].contains("zzz'… (3012 characters)"),
        "{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn a_node_without_a_record_shows_no_section() {
    let mut model = demo_model();
    open(&mut model, "rpc-1");
    let screen = render(&mut model, 200, 50, &Theme::dark());
    assert!(!screen.contains("Console actions"), "{screen}");
}

/// Tabs with a frame drawn before each, as on a terminal (tab scrolls to where the last frame
/// drew the pane).
fn key_tabs(model: &mut Model, n: usize) {
    for _ in 0..n {
        render(model, 80, 24, &Theme::dark());
        crate::app::tests::key(model, KeyCode::Tab);
    }
}
