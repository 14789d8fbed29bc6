//! The TUI with a config file: overrides, problems, theme switch and filter saving.
use std::path::Path;

use crate::app::model::{Cmd, Model, Msg, SavedSetting};
use crate::app::settings::FlagOverrides;
use crate::app::tests::{demo_model, key, press};
use crate::app::update::update;
use crate::config::from_text;
use crate::config::{ExecutorMode, ThemeName, WaveDefaults};
use crate::keymap::{Action, Context, Key, KeyCode};

fn configured(text: &str, flags: FlagOverrides) -> Model {
    let mut model = demo_model();
    model.configure(&from_text(text, Path::new("/cfg/config.toml")), flags);
    model.refresh_views();
    model
}

#[test]
fn the_config_file_sets_theme_read_only_executor_waves_keys_and_filter() {
    let model = configured(
        r#"
theme = "light"
executor = "embedded"
read_only = true
[fleet]
filter = "mode:full"
[waves]
canary = 2
batch = 4
[keys.fleet]
open = ["l"]
"#,
        FlagOverrides::default(),
    );
    assert_eq!(model.settings.theme, ThemeName::Light);
    assert!(model.settings.guard.is_read_only());
    assert_eq!(model.settings.executor, ExecutorMode::Embedded);
    assert_eq!(
        model.settings.waves,
        WaveDefaults {
            canary: 2,
            batch: 4
        }
    );
    assert_eq!(model.filter.text, "mode:full");
    assert_eq!(
        model.listing.keys.len(),
        2,
        "two full nodes in the demo fleet"
    );
    assert_eq!(
        model.keymap.action(Context::Fleet, Key::char('l')),
        Some(Action::Open)
    );
    assert_eq!(
        model
            .keymap
            .action(Context::Fleet, Key::plain(KeyCode::Enter)),
        None
    );
    assert_eq!(
        model.settings.config_path.as_deref(),
        Some(Path::new("/cfg/config.toml"))
    );
}

#[test]
fn flags_win_over_the_file() {
    let model = configured(
        "theme = \"light\"\n",
        FlagOverrides {
            theme: Some(ThemeName::Plain),
            read_only: true,
        },
    );
    assert_eq!(model.settings.theme, ThemeName::Plain);
    assert!(model.settings.guard.is_read_only());
}

#[test]
fn a_filter_that_does_not_parse_is_reported_not_applied() {
    let model = configured(
        "[fleet]\nfilter = \"mode:nothing\"\n",
        FlagOverrides::default(),
    );
    assert!(model.filter.is_empty());
    assert!(
        model.settings.problems[0].contains("fleet.filter"),
        "{:?}",
        model.settings.problems
    );
}

#[test]
fn the_theme_key_cycles_and_asks_to_save() {
    let mut model = configured("", FlagOverrides::default());
    let cmds = press(&mut model, "T");
    assert_eq!(model.settings.theme, ThemeName::Light);
    assert_eq!(
        cmds,
        vec![Cmd::SaveSetting {
            path: "/cfg/config.toml".into(),
            setting: SavedSetting::Theme(ThemeName::Light),
        }]
    );
    press(&mut model, "TT");
    assert_eq!(model.settings.theme, ThemeName::Dark);
    update(
        &mut model,
        Msg::SettingSaved {
            setting: SavedSetting::Theme(ThemeName::Dark),
            result: Err(crate::app::errors::SettingSaveError::Write(
                std::sync::Arc::new(crate::config::edit::ConfigWriteError::Write {
                    path: "/cfg/config.toml".into(),
                    source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied"),
                }),
            )),
        },
    );
    let flash = model.flash.clone().expect("flash");
    assert!(flash.error && flash.text.contains("denied"), "{flash:?}");
}

#[test]
fn a_filter_is_saved_only_when_remember_filter_is_on() {
    let mut model = configured("", FlagOverrides::default());
    press(&mut model, "/mode:seed");
    assert!(
        key(&mut model, KeyCode::Enter).is_empty(),
        "opt-in: nothing saved"
    );
    assert!(!model.filter_saved);
}

#[test]
fn a_saved_filter_opens_only_its_own_context_and_the_header_says_saved() {
    let text = "[fleet]\nfilter = \"\"\nremember_filter = true\n[fleet.filters]\nkind-sei = \"mode:seed\"\nprod = \"phase:Failed\"\n";
    let model = configured(text, FlagOverrides::default());
    assert_eq!(model.filter.text, "mode:seed");
    assert!(model.filter_saved);
    assert_eq!(model.listing.counts.shown, 1);
    let off = text.replace("remember_filter = true", "remember_filter = false");
    let model = configured(&off, FlagOverrides::default());
    assert!(
        model.filter.is_empty(),
        "saved filters are ignored unless opted in"
    );
}

#[test]
fn an_applied_filter_is_saved_per_context_and_clearing_saves_the_empty_one() {
    let mut model = configured(
        "[fleet]\nremember_filter = true\n",
        FlagOverrides::default(),
    );
    press(&mut model, "/mode:seed");
    let cmds = key(&mut model, KeyCode::Enter);
    assert_eq!(
        cmds,
        vec![Cmd::SaveSetting {
            path: "/cfg/config.toml".into(),
            setting: SavedSetting::Filter {
                context: "kind-sei".into(),
                filter: "mode:seed".into(),
            },
        }]
    );
    // Enter on the same filter again writes nothing.
    press(&mut model, "/");
    assert!(key(&mut model, KeyCode::Enter).is_empty());
    let cmds = key(&mut model, KeyCode::Esc);
    assert_eq!(
        cmds,
        vec![Cmd::SaveSetting {
            path: "/cfg/config.toml".into(),
            setting: SavedSetting::Filter {
                context: "kind-sei".into(),
                filter: String::new(),
            },
        }]
    );
}

#[test]
fn without_a_config_location_nothing_is_saved() {
    let mut model = demo_model();
    assert!(press(&mut model, "T").is_empty());
    assert_eq!(model.settings.theme, ThemeName::Light);
}

#[tokio::test]
async fn the_save_effect_writes_with_toml_edit_and_reports_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "# mine\ntheme = \"dark\" # keep\n\n[fleet]\nfilter = \"\"\n",
    )
    .expect("write");
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    crate::app::effects::save_setting(
        path.clone(),
        SavedSetting::Theme(ThemeName::Plain),
        tx.clone(),
    )
    .await;
    let filter = SavedSetting::Filter {
        context: "kind-sei".into(),
        filter: "drift".into(),
    };
    crate::app::effects::save_setting(path.clone(), filter, tx).await;
    for _ in 0..2 {
        match rx.recv().await {
            Some(Msg::SettingSaved { result, .. }) => assert!(result.is_ok(), "{result:?}"),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "# mine\ntheme = \"plain\" # keep\n\n[fleet]\nfilter = \"\"\n\n[fleet.filters]\nkind-sei = \"drift\"\n"
    );
}

/// No silent loss of the record (issue 26): `require_journal` reaches the actions' environment,
/// and a journal line that could not be written is said on the status line.
#[test]
fn require_journal_is_read_and_an_unwritable_journal_is_said_on_the_status_line() {
    let mut model = configured("require_journal = true\n", FlagOverrides::default());
    assert!(model.settings.require_journal);
    assert!(!demo_model().settings.require_journal);
    update(
        &mut model,
        Msg::JournalUnwritable(
            "no journal location: neither XDG_STATE_HOME nor HOME is set".into(),
        ),
    );
    let flash = model.flash.as_ref().expect("a status line");
    assert!(flash.error);
    assert_eq!(
        flash.text,
        "not recorded in the journal of console actions: no journal location: neither \
         XDG_STATE_HOME nor HOME is set"
    );
}
