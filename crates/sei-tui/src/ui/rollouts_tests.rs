//! Issue 35 as the console shows it (fixed clock): a rollout held after its canary is in the
//! header and in the PLAN cell of its nodes' rows, at 80x24 and wide; `:rollouts` lists it as
//! `rollout status` prints it (the same `ops::rollout_view` text); an orphaned one names the
//! command that resumes it.
use super::tests::render;
use super::theme::Theme;
use crate::app::model::{Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::fleet::sample;
use crate::keymap::KeyCode;
use crate::ops::rollout_record::{NodeState, RolloutState};
use crate::ops::rollout_view::{RolloutView, RunnerView, sample as sample_view};

/// rpc-0 (canary, verified), rpc-1 and validator-0 (not started) rolling to seid:v2.
fn rollout(state: RolloutState) -> RolloutView {
    let mut view = sample_view(state, 3, sample::now());
    let names = ["rpc-0", "rpc-1", "validator-0"];
    for (node, name) in view.record.nodes.iter_mut().zip(names) {
        node.name = name.into();
    }
    view.record.waves = vec![
        vec!["rpc-0".into()],
        vec!["rpc-1".into(), "validator-0".into()],
    ];
    view.record.last_gate = Some("rpc-0: healthy: height 1207 (+38 in 60 s), 0 s behind".into());
    view
}

fn with(views: Vec<RolloutView>) -> Model {
    let mut model = demo_model();
    update(
        &mut model,
        Msg::Rollouts {
            context: "kind-sei".into(),
            read: Ok(views),
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
fn a_held_rollout_is_in_the_header_and_its_rows_at_80x24_and_wide() {
    let mut model = with(vec![rollout(RolloutState::Holding)]);
    let narrow = render(&mut model, 80, 24, &Theme::plain());
    assert!(narrow.contains("⟳ 1/3 held"), "{narrow}");
    assert!(row_of(&narrow, "rpc-1").contains("⏸ held"), "{narrow}");
    assert!(
        row_of(&narrow, "validator-0").contains("⏸ held · ✗ 5/7 config-validate"),
        "{narrow}"
    );
    assert!(!row_of(&narrow, "archive-0").contains("held"), "{narrow}");
    insta::assert_snapshot!("rollout_held_80x24", narrow);
    let wide = render(&mut model, 200, 14, &Theme::plain());
    assert!(
        wide.contains("⟳ rollout 20261130-040000-0000 1/3 held"),
        "{wide}"
    );
    assert!(
        row_of(&wide, "validator-0").contains("⏸ held · ✗ 5/7 config-validate r3/3"),
        "{wide}"
    );
    insta::assert_snapshot!("rollout_held_wide", wide);
}

#[test]
fn a_running_rollout_is_in_the_header_only_and_a_finished_one_nowhere() {
    let mut model = with(vec![rollout(RolloutState::Running)]);
    let screen = render(&mut model, 200, 14, &Theme::plain());
    assert!(screen.contains("1/3 running"), "{screen}");
    assert!(!row_of(&screen, "rpc-1").contains("⏸"), "{screen}");
    let mut model = with(vec![rollout(RolloutState::Done)]);
    let screen = render(&mut model, 200, 14, &Theme::plain());
    assert!(!screen.contains("⟳"), "{screen}");
}

#[test]
fn rollouts_view_lists_them_as_rollout_status_does() {
    let mut orphan = rollout(RolloutState::Running);
    orphan.record.id = "20261130-030000-0001".into();
    orphan.record.nodes[1].state = NodeState::Rolling;
    orphan.runner = RunnerView::Orphaned {
        holder: "sei-console-laptop-77".into(),
    };
    let held = rollout(RolloutState::Holding);
    let mut model = with(vec![held.clone(), orphan.clone()]);
    press(&mut model, ":rollouts");
    key(&mut model, KeyCode::Enter);
    let narrow = render(&mut model, 80, 24, &Theme::plain());
    insta::assert_snapshot!("rollouts_view_80x24", narrow);
    let wide = render(&mut model, 200, 50, &Theme::plain());
    // The CLI's words, line for line.
    for line in held.text().lines().chain(orphan.text().lines()) {
        assert!(wide.contains(line.trim_end()), "{line:?} not in\n{wide}");
    }
    assert!(wide.contains("resume: sei-console -n sei rollout rpc-0 rpc-1 validator-0"));
    insta::assert_snapshot!("rollouts_view_wide", wide);
}
