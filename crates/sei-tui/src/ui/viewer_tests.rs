//! Snapshots of the viewer (describe, YAML, events) and the `:` palette at 80x24 and 120x40.
use super::tests::render;
use super::theme::Theme;
use crate::app::model::Msg;
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::keymap::KeyCode;

#[test]
fn describe_viewer_at_80x24_and_120x40() {
    let mut model = demo_model();
    press(&mut model, "jjjj");
    press(&mut model, "d");
    insta::assert_snapshot!("describe_80x24", render(&mut model, 80, 24, &Theme::dark()));
    press(&mut model, "/warning");
    key(&mut model, KeyCode::Enter);
    insta::assert_snapshot!(
        "describe_searched_120x40",
        render(&mut model, 120, 40, &Theme::dark())
    );
}

#[test]
fn events_viewer_in_time_order_with_source() {
    let mut model = demo_model();
    press(&mut model, ":events");
    key(&mut model, KeyCode::Enter);
    insta::assert_snapshot!("events_80x24", render(&mut model, 80, 24, &Theme::dark()));
    insta::assert_snapshot!("events_120x40", render(&mut model, 120, 40, &Theme::dark()));
}

#[test]
fn palette_lists_completions_at_80x24_and_120x40() {
    let mut model = demo_model();
    model.contexts = vec!["kind-sei".into(), "prod-east".into(), "prod-west".into()];
    update(
        &mut model,
        Msg::Namespaces(Ok(vec!["default".into(), "sei".into()])),
    );
    press(&mut model, ":ctx p");
    key(&mut model, KeyCode::Tab);
    insta::assert_snapshot!("palette_80x24", render(&mut model, 80, 24, &Theme::dark()));
    key(&mut model, KeyCode::Esc);
    press(&mut model, ":ctx nope");
    key(&mut model, KeyCode::Enter);
    insta::assert_snapshot!(
        "palette_refusal_120x40",
        render(&mut model, 120, 40, &Theme::dark())
    );
}

#[test]
fn journal_viewer_newest_first_with_dry_runs_on_a() {
    use crate::app::journal_view::tests::sample_contents;
    let mut model = demo_model();
    press(&mut model, ":journal since:2h");
    key(&mut model, KeyCode::Enter);
    update(&mut model, Msg::Journal(Ok(sample_contents())));
    insta::assert_snapshot!("journal_80x24", render(&mut model, 80, 24, &Theme::plain()));
    press(&mut model, "a");
    insta::assert_snapshot!(
        "journal_dry_runs_120x40",
        render(&mut model, 120, 40, &Theme::plain())
    );
}
