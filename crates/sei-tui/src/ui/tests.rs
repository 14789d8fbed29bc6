//! Snapshot tests of every screen on ratatui's TestBackend with the fixed sample clock.
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

use super::theme::Theme;
use super::view;
use crate::app::model::{Model, Msg, Scope};
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::fleet::FleetDelta;
use crate::fleet::sample;
use crate::fleet::store::Delta;
use crate::fleet::watches::WatchKind;
use crate::fleet::watches::WatchReport;
use crate::keymap::KeyCode;

/// Draws `model` at `width`x`height` and returns the screen as text.
pub fn render(model: &mut Model, width: u16, height: u16, theme: &Theme) -> String {
    update(model, Msg::Resize { width, height });
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|frame| view(model, theme, frame))
        .expect("draws");
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut line = String::new();
        for x in 0..buffer.area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn dark() -> Theme {
    Theme::dark()
}

#[test]
fn fleet_screen() {
    let mut model = demo_model();
    press(&mut model, "jj");
    insta::assert_snapshot!(render(&mut model, 200, 14, &dark()));
}

#[test]
fn fleet_screen_narrow_keeps_the_important_columns() {
    let mut model = demo_model();
    insta::assert_snapshot!(render(&mut model, 60, 12, &dark()));
}

#[test]
fn filter_screen() {
    let mut model = demo_model();
    press(&mut model, "/drift !mode:seed");
    insta::assert_snapshot!(render(&mut model, 160, 10, &dark()));
}

#[test]
fn filter_with_no_match() {
    let mut model = demo_model();
    press(&mut model, "/chain:arctic-1");
    key(&mut model, KeyCode::Enter);
    insta::assert_snapshot!(render(&mut model, 100, 8, &dark()));
}

#[test]
fn help_overlay() {
    let mut model = demo_model();
    press(&mut model, "?");
    insta::assert_snapshot!(render(&mut model, 100, 40, &dark()));
}

#[test]
fn stale_banner() {
    let mut model = demo_model();
    let epoch = model.scope_epoch;
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Failed {
                error:
                    "error trying to connect: tcp connect error: Connection refused (os error 111)"
                        .into(),
                forbidden: false,
            },
        },
    );
    update(
        &mut model,
        Msg::Tick(
            sample::now()
                .checked_add(jiff::SignedDuration::from_secs(12))
                .expect("t"),
        ),
    );
    insta::assert_snapshot!(render(&mut model, 160, 10, &dark()));
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Live,
        },
    );
    assert!(
        !render(&mut model, 160, 10, &dark()).contains("STALE"),
        "banner clears on recovery"
    );
}

#[test]
fn empty_fleet() {
    let scope = Scope {
        contexts: vec!["kind-sei".into()],
        namespace: Some("empty".into()),
    };
    let mut model = Model::new(scope, sample::now(), None);
    model.init();
    let epoch = model.scope_epoch;
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::RelistStarted),
        },
    );
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::RelistDone),
        },
    );
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Live,
        },
    );
    insta::assert_snapshot!(render(&mut model, 100, 8, &dark()));
}

#[test]
fn error_screens_forbidden_and_unreachable() {
    let scope = Scope {
        contexts: vec!["kind-sei".into()],
        namespace: Some("locked".into()),
    };
    let mut model = Model::new(scope.clone(), sample::now(), None);
    model.init();
    let epoch = model.scope_epoch;
    update(&mut model, Msg::Watch {
        epoch,
        kind: WatchKind::Nodes,
        report: WatchReport::Failed { error: "seinodes.sei.io is forbidden: User \"dev\" cannot list resource \"seinodes\" in API group \"sei.io\" in the namespace \"locked\"".into(), forbidden: true },
    });
    let forbidden = render(&mut model, 120, 8, &dark());
    let mut model = Model::new(scope, sample::now(), None);
    model.init();
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Failed {
                error: "error trying to connect: Connection refused".into(),
                forbidden: false,
            },
        },
    );
    let unreachable = render(&mut model, 120, 8, &dark());
    insta::assert_snapshot!(format!("{forbidden}---\n{unreachable}"));
}

pub(super) fn open(model: &mut Model, name: &str) {
    press(model, "/");
    press(model, name);
    key(model, KeyCode::Enter);
    key(model, KeyCode::Enter);
    let epoch = model.detail_epoch;
    for delta in [
        FleetDelta::StatefulSet(Delta::applied(sample::statefulset(
            "sei",
            name,
            0,
            &format!("{name}-6d9f"),
            &format!("{name}-7c4b"),
        ))),
        FleetDelta::Pod(Delta::applied(sample::pod(
            "sei",
            name,
            false,
            2,
            &format!("{name}-6d9f"),
        ))),
        FleetDelta::DetailEvent(Delta::applied(sample::event_about(
            "Pod",
            &format!("{name}-0"),
            "sei",
            true,
            "BackOff",
            "Back-off restarting failed container seid",
            7,
            30,
        ))),
        FleetDelta::StatefulSetEvent(Delta::applied(sample::event_about(
            "StatefulSet",
            name,
            "sei",
            false,
            "SuccessfulCreate",
            &format!("create Pod {name}-0 in StatefulSet {name} successful"),
            1,
            300,
        ))),
    ] {
        update(model, Msg::Delta { epoch, delta });
    }
    for kind in WatchKind::DETAIL {
        update(
            model,
            Msg::Watch {
                epoch,
                kind,
                report: WatchReport::Live,
            },
        );
    }
}

#[test]
fn node_screen_wide_with_plan_in_progress() {
    let mut model = demo_model();
    open(&mut model, "rpc-1");
    insta::assert_snapshot!(render(&mut model, 200, 40, &dark()));
}

#[test]
fn node_screen_at_80x24_and_120x40() {
    let mut model = demo_model();
    open(&mut model, "rpc-1");
    insta::assert_snapshot!("node_screen_80x24", render(&mut model, 80, 24, &dark()));
    insta::assert_snapshot!("node_screen_120x40", render(&mut model, 120, 40, &dark()));
}

#[test]
fn node_screen_failed_plan_narrow() {
    let mut model = demo_model();
    open(&mut model, "validator-0");
    insta::assert_snapshot!(render(&mut model, 90, 40, &dark()));
}

#[test]
fn node_screen_seed_with_render_failure_events_pane() {
    let mut model = demo_model();
    open(&mut model, "seed-0");
    // Tab scrolls to the pane where the last frame drew it, as on a terminal.
    for _ in 0..2 {
        render(&mut model, 100, 30, &dark());
        key(&mut model, KeyCode::Tab);
    }
    insta::assert_snapshot!(render(&mut model, 100, 30, &dark()));
}

#[test]
fn node_screen_steady_state_without_plan() {
    let mut model = demo_model();
    open(&mut model, "rpc-0");
    let screen = render(&mut model, 160, 30, &dark());
    assert!(screen.contains("steady state: no plan"), "{screen}");
}

#[test]
fn every_screen_survives_tiny_and_odd_sizes() {
    let mut model = demo_model();
    for (w, h) in [(40, 10), (1, 1), (0, 0), (41, 11), (300, 5), (10, 200)] {
        render(&mut model, w, h, &dark());
        press(&mut model, "?");
        render(&mut model, w, h, &dark());
        press(&mut model, "?");
        press(&mut model, "/seed");
        render(&mut model, w, h, &dark());
        key(&mut model, KeyCode::Esc);
    }
    open(&mut model, "seed-0");
    for (w, h) in [(40, 10), (1, 1), (0, 0), (300, 5), (10, 200)] {
        render(&mut model, w, h, &dark());
        key(&mut model, KeyCode::Tab);
        render(&mut model, w, h, &Theme::light());
    }
}

#[test]
fn no_color_theme_draws_no_colour_and_keeps_every_status_as_text() {
    let mut model = demo_model();
    let theme = Theme::select(crate::config::ThemeName::Dark, true);
    let screen = render(&mut model, 200, 14, &theme);
    let mut terminal = Terminal::new(TestBackend::new(200, 14)).expect("terminal");
    terminal
        .draw(|frame| view(&model, &theme, frame))
        .expect("draws");
    for cell in terminal.backend().buffer().content() {
        assert_eq!(
            (cell.fg, cell.bg),
            (Color::Reset, Color::Reset),
            "no colour at all"
        );
    }
    for text in [
        "✗ Failed",
        "● Running",
        // Initializing, with a failing condition: the verdict's mark (issue 27).
        "✗ Initializing",
        "≠image",
        "⚠ StatefulSetRenderFailed",
        "✗ 5/7 config-validate",
    ] {
        assert!(screen.contains(text), "{text} missing:\n{screen}");
    }
}

#[test]
fn light_theme_renders_the_same_text() {
    let mut model = demo_model();
    let dark_text = render(&mut model, 160, 12, &dark());
    assert_eq!(render(&mut model, 160, 12, &Theme::light()), dark_text);
}

fn seed_with_node_id(lookup: crate::fleet::detail::NodeIdLookup) -> String {
    let mut model = demo_model();
    open(&mut model, "seed-0");
    let epoch = model.detail_epoch;
    let delta = FleetDelta::NodeId {
        key: crate::app::tests::demo_key("seed-0"),
        lookup,
    };
    update(&mut model, Msg::Delta { epoch, delta });
    render(&mut model, 160, 24, &dark())
}

#[test]
fn node_screen_seed_peer_from_the_node_key_secret() {
    use crate::fleet::detail::{NodeIdLookup, NodeIdSource};
    insta::assert_snapshot!(seed_with_node_id(NodeIdLookup::Found {
        node_id: "8e0ce6da7bc451e8bea1ceadcb71ca14ce79776c".into(),
        source: NodeIdSource::Secret("seed-0-node-key".into()),
    }));
}

#[test]
fn node_screen_seed_peer_unknown_says_forbidden() {
    use crate::fleet::detail::NodeIdLookup;
    let screen = seed_with_node_id(NodeIdLookup::NotFound {
        reasons: vec![
            "Secret seed-0-node-key: forbidden".into(),
            "sidecar: not authorized to call the sidecar of sei/seed-0 (HTTP 403)".into(),
        ],
    });
    insta::assert_snapshot!(screen);
}

#[test]
fn a_broken_file_gives_defaults_and_a_banner_naming_the_line_until_a_key() {
    let mut model = demo_model();
    model.configure(
        &crate::config::from_text(
            "theme = \"light\"\nread_only = true\nbatch = = 3\n",
            std::path::Path::new("/cfg/config.toml"),
        ),
        crate::app::settings::FlagOverrides::default(),
    );
    model.refresh_views();
    assert_eq!(model.settings.theme, crate::config::ThemeName::Dark);
    assert!(!model.settings.guard.is_read_only());
    let banner = super::chrome::banner_line(&model).expect("banner");
    assert!(banner.contains("/cfg/config.toml"), "{banner}");
    assert!(banner.contains("line 3"), "{banner}");
    press(&mut model, "j");
    assert_eq!(super::chrome::banner_line(&model), None);
}

#[test]
fn fleet_at_80x24_keeps_name_phase_drift_plan_and_warning() {
    let mut model = demo_model();
    let screen = render(&mut model, 80, 24, &dark());
    for needed in [
        "NAME",
        "PHASE",
        "DRIFT",
        "PLAN",
        "WARNING",
        "≠img",
        "⚠ Node",
        "✗ Fail 1",
    ] {
        assert!(
            screen.contains(needed),
            "{needed} missing at 80 columns:\n{screen}"
        );
    }
    insta::assert_snapshot!(screen);
}

#[test]
fn fleet_at_120x40() {
    let mut model = demo_model();
    insta::assert_snapshot!(render(&mut model, 120, 40, &dark()));
}

#[test]
fn fleet_header_wraps_at_40_columns_and_keeps_every_count() {
    let mut model = demo_model();
    let screen = render(&mut model, 40, 10, &dark());
    // The Initializing replayer and the seed are not healthy: counted apart (issue 27).
    for needed in ["6", "✗ Fail 1", "▲sick 2", "● Run 3", "≠4", "⚠ 2"] {
        assert!(
            screen.contains(needed),
            "{needed} missing at 40 columns:\n{screen}"
        );
    }
    insta::assert_snapshot!(screen);
}

/// The column header line and the position of every title on it.
fn column_positions(screen: &str) -> Vec<(usize, String)> {
    let line = screen
        .lines()
        .find(|l| l.trim_start().starts_with("NAME"))
        .expect("a column header line");
    line.split_whitespace()
        .map(|title| (line.find(title).unwrap_or(0), title.to_owned()))
        .collect()
}

#[test]
fn typing_a_filter_moves_no_column_and_the_totals_stay_of_the_whole_scope() {
    let mut model = demo_model();
    let before = column_positions(&render(&mut model, 120, 20, &dark()));
    press(&mut model, "/rpc-1");
    let screen = render(&mut model, 120, 20, &dark());
    assert_eq!(column_positions(&screen), before, "{screen}");
    assert!(screen.contains("6 (1 shown)"), "{screen}");
    assert!(
        screen.contains("✗ Fail 1"),
        "the Failed node outside the filter is still counted:\n{screen}"
    );
}

#[test]
fn the_header_tells_a_saved_filter_from_a_typed_one() {
    let mut model = demo_model();
    press(&mut model, "/mode:seed");
    key(&mut model, KeyCode::Enter);
    let screen = render(&mut model, 120, 10, &dark());
    assert!(
        screen.contains("filter: mode:seed") && !screen.contains("saved filter"),
        "{screen}"
    );
    model.filter_saved = true;
    let screen = render(&mut model, 200, 10, &dark());
    assert!(screen.contains("saved filter: mode:seed"), "{screen}");
}
