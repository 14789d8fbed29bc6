//! A render failure checked against the present: the platform config the console has now
//! renders the seed, so its event is from before (and since when) instead of a stale fix; one
//! that still cannot render it gives the fix. The node screen and describe agree.
use super::tests::{open, render};
use super::theme::Theme;
use crate::actions::render_fix::{PlatformInUse, PlatformSource};
use crate::app::model::{Model, Msg};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::keymap::KeyCode;
use crate::platform::PlatformConfig;

const STALE_FIX: &str = "fix: set scheduling.nodepoolSeed";

fn joined(screen: &str) -> String {
    screen.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The demo fleet with the demo's platform file just read (after the seed's render failure),
/// its seed pool as given.
fn with_platform_file(seed_pool: &str) -> Model {
    let mut model = demo_model();
    let mut config = PlatformConfig::test_fixture();
    config.scheduling.nodepool_seed = seed_pool.into();
    let read_at = model.now;
    model.fleet.set_platform_in_use(PlatformInUse {
        source: PlatformSource::File("assets/demo/platform-config.yaml".into()),
        config: Some(config),
        read_at: Some(read_at),
    });
    model
}

/// The seed's Events pane (tab twice, a frame drawn before each key).
fn seed_events(model: &mut Model, width: u16, height: u16) -> String {
    open(model, "seed-0");
    for _ in 0..2 {
        render(model, width, height, &Theme::dark());
        key(model, KeyCode::Tab);
    }
    render(model, width, height, &Theme::dark())
}

#[test]
fn a_config_that_renders_the_seed_says_the_event_is_from_before() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = with_platform_file("sei-seed");
        let screen = seed_events(&mut model, width, height);
        assert!(
            !joined(&screen).contains(STALE_FIX),
            "{width}x{height}\n{screen}"
        );
        // Wide, the screen has two columns: each part is looked for on its own.
        for part in [
            "from before (last seen 40s ago, 03:59:20Z): the platform config file",
            "read 0s ago (04:00:00Z),",
            "renders the node now",
        ] {
            let found = screen.contains(part) || joined(&screen).contains(part);
            assert!(found, "{width}x{height}: {part}\n{screen}");
        }
        insta::assert_snapshot!(format!("render_from_before_{width}x{height}"), screen);
    }
}

#[test]
fn a_config_that_still_cannot_render_the_seed_gives_the_fix() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = with_platform_file("");
        let screen = seed_events(&mut model, width, height);
        assert!(
            screen.contains("fix: set scheduling.nodepoolSeed in the platform config file"),
            "{width}x{height}\n{screen}"
        );
        insta::assert_snapshot!(format!("render_still_fails_{width}x{height}"), screen);
    }
}

#[test]
fn describe_says_the_same_under_the_event() {
    for (width, height) in [(80, 24), (200, 50)] {
        let mut model = with_platform_file("sei-seed");
        open(&mut model, "seed-0");
        press(&mut model, "d");
        render(&mut model, width, height, &Theme::dark());
        press(&mut model, "G");
        let screen = render(&mut model, width, height, &Theme::dark());
        let text = joined(&screen);
        assert!(!text.contains(STALE_FIX), "{screen}");
        assert!(text.contains("from before (last seen 40s ago"), "{screen}");
        insta::assert_snapshot!(
            format!("describe_render_from_before_{width}x{height}"),
            screen
        );
    }
}

#[test]
fn the_config_map_read_by_the_watch_is_what_the_event_is_judged_against() {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    open(&mut model, "seed-0");
    update(
        &mut model,
        Msg::PlatformConfig {
            epoch,
            config: Box::new(PlatformConfig::test_fixture()),
        },
    );
    let screen = seed_events(&mut model, 200, 50);
    assert!(
        screen.contains("from before (last seen 40s ago"),
        "{screen}"
    );
    assert!(screen.contains("read 0s ago"), "{screen}");
}
