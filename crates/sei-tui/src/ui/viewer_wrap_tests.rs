//! One viewer for describe, YAML, `:events` and `:journal`: long lines wrap at words (`w`
//! cuts them, h/l scroll sideways), search and g/G find rows of wrapped lines.
use super::tests::render;
use super::theme::Theme;
use crate::app::model::{Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::keymap::KeyCode;

const RENDER_MESSAGE_END: &str = "is not configured in the app-config file ×4";

fn events(width: u16, height: u16) -> (Model, String) {
    let mut model = demo_model();
    press(&mut model, ":events");
    key(&mut model, KeyCode::Enter);
    let screen = render(&mut model, width, height, &Theme::dark());
    (model, screen)
}

/// The screen's text with its rows joined, so a wrapped sentence reads as one.
fn joined(screen: &str) -> String {
    screen.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn events_show_the_whole_message_at_80_and_200_columns() {
    for (width, height) in [(80, 24), (200, 50)] {
        let (_, screen) = events(width, height);
        assert!(
            joined(&screen).contains(RENDER_MESSAGE_END),
            "{width}x{height}\n{screen}"
        );
        insta::assert_snapshot!(format!("events_wrapped_{width}x{height}"), screen);
    }
}

#[test]
fn the_journal_shows_its_nodes_and_detail_at_80_columns() {
    use crate::app::journal_view::tests::sample_contents;
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = demo_model();
        press(&mut model, ":journal since:2h");
        key(&mut model, KeyCode::Enter);
        update(&mut model, Msg::Journal(Ok(sample_contents())));
        let screen = render(&mut model, width, height, &Theme::plain());
        assert!(screen.contains("sei/seed-0"), "{screen}");
        assert!(
            screen.contains("ghcr.io/sei-protocol/sei:v6.5.0"),
            "{screen}"
        );
        insta::assert_snapshot!(format!("journal_wrapped_{width}x{height}"), screen);
    }
}

#[test]
fn describe_rows_end_at_a_word_at_80_columns() {
    let mut model = demo_model();
    press(&mut model, "jjjj");
    press(&mut model, "d");
    render(&mut model, 80, 24, &Theme::dark());
    press(&mut model, "G");
    let screen = render(&mut model, 80, 24, &Theme::dark());
    // The render failure's message, wrapped: no row ends inside a word of it.
    let text = joined(&screen);
    assert!(
        text.contains("scheduling.nodepoolSeed is not configured in the app-config file"),
        "{screen}"
    );
}

#[test]
fn w_cuts_lines_and_h_l_scroll_them_sideways() {
    for (width, height) in [(80, 24), (200, 50)] {
        let (mut model, wrapped) = events(width, height);
        press(&mut model, "w");
        let cut = render(&mut model, width, height, &Theme::dark());
        assert_ne!(cut, wrapped);
        assert!(cut.contains("· cut (w wraps, h/l scroll)"), "{cut}");
        assert!(!joined(&cut).contains(RENDER_MESSAGE_END), "{cut}");
        for _ in 0..40 {
            press(&mut model, "l");
        }
        let right = render(&mut model, width, height, &Theme::dark());
        assert!(right.contains("· from column"), "{right}");
        assert!(right.contains("app-config file ×4"), "{right}");
        insta::assert_snapshot!(format!("events_scrolled_sideways_{width}x{height}"), right);
        for _ in 0..40 {
            key(&mut model, KeyCode::Left);
        }
        assert_eq!(render(&mut model, width, height, &Theme::dark()), cut);
        press(&mut model, "w");
        assert_eq!(render(&mut model, width, height, &Theme::dark()), wrapped);
    }
}

#[test]
fn search_and_g_find_rows_of_wrapped_lines() {
    let mut model = demo_model();
    press(&mut model, ":journal since:1h");
    key(&mut model, KeyCode::Enter);
    update(
        &mut model,
        Msg::Journal(Ok(crate::app::journal_view::tests::sample_contents())),
    );
    // Events, at 80x12: more rows than the body holds.
    key(&mut model, KeyCode::Esc);
    press(&mut model, ":events");
    key(&mut model, KeyCode::Enter);
    let top = render(&mut model, 80, 12, &Theme::dark());
    press(&mut model, "G");
    let bottom = render(&mut model, 80, 12, &Theme::dark());
    assert!(bottom.contains("resource to retry. ×12"), "{bottom}");
    press(&mut model, "g");
    assert_eq!(render(&mut model, 80, 12, &Theme::dark()), top);
    press(&mut model, "/nodefailed");
    key(&mut model, KeyCode::Enter);
    let found = render(&mut model, 80, 12, &Theme::dark());
    assert!(found.contains("NodeFailed"), "{found}");
    assert!(found.contains("resource to retry. ×12"), "{found}");
}
