use super::*;
use crate::keymap::{Action, Context, Key, KeyCode};

fn decode_text(text: &str) -> LoadedConfig {
    from_text(text, Path::new("/cfg/config.toml"))
}

#[test]
fn the_shipped_file_is_exactly_the_defaults() {
    let loaded = decode_text(DEFAULT_CONFIG_TOML);
    assert_eq!(loaded.problems, Vec::<String>::new());
    assert_eq!(loaded.config, Config::default());
}

#[test]
fn every_setting_is_read() {
    let loaded = decode_text(
        r#"
theme = "light"
executor = "embedded"
read_only = true
[fleet]
filter = "mode:seed"
[waves]
canary = 2
batch = 5
[keys.fleet]
open = ["enter", "l"]
"#,
    );
    assert_eq!(loaded.problems, Vec::<String>::new());
    let config = loaded.config;
    assert_eq!(config.theme, ThemeName::Light);
    assert_eq!(config.executor, ExecutorMode::Embedded);
    assert!(config.read_only);
    assert_eq!(config.fleet_filter, "mode:seed");
    assert_eq!(
        config.waves,
        WaveDefaults {
            canary: 2,
            batch: 5
        }
    );
    assert_eq!(
        config.keys,
        vec![KeyOverride {
            context: Context::Fleet,
            action: Action::Open,
            keys: vec![Key::plain(KeyCode::Enter), Key::char('l')],
        }]
    );
}

#[test]
fn a_file_that_is_not_toml_gives_one_message_naming_the_line_and_all_defaults() {
    let loaded = decode_text("theme = \"light\"\nread_only = true\nbatch = = 3\n");
    assert_eq!(loaded.config, Config::default());
    assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
    let message = &loaded.problems[0];
    assert!(
        message.starts_with("config file /cfg/config.toml: line 3: "),
        "{message}"
    );
    assert!(
        message.ends_with("using the defaults for every setting"),
        "{message}"
    );
    assert!(!message.contains('\n'), "one line: {message}");
}

#[test]
fn a_bad_value_names_its_line_and_keeps_the_other_settings() {
    let loaded = decode_text("read_only = true\n\ntheme = \"purple\"\n[waves]\nbatch = 0\n");
    assert!(loaded.config.read_only);
    assert_eq!(loaded.config.theme, ThemeName::Dark);
    assert_eq!(loaded.config.waves.batch, 3);
    assert_eq!(
        loaded.problems,
        vec![
            "config file /cfg/config.toml: line 3: theme must be one of \"dark\", \"light\", \"plain\", not \"purple\"; using \"dark\"",
            "config file /cfg/config.toml: line 5: waves.batch must be a whole number of at least 1, not 0; using 3",
        ]
    );
}

#[test]
fn unknown_settings_and_bad_keys_are_reported_with_their_lines() {
    let loaded = decode_text(
        "colour = 1\n[keys.fleet]\nopen = [\"hyper-x\"]\nfly = [\"f\"]\n[keys.nowhere]\nquit = [\"x\"]\n",
    );
    assert!(loaded.config.keys.is_empty());
    let problems = loaded.problems.join("\n");
    assert!(
        problems.contains("line 1: unknown setting colour; ignored"),
        "{problems}"
    );
    assert!(
        problems.contains("line 3: keys.fleet.open: unknown key \"hyper-x\""),
        "{problems}"
    );
    assert!(
        problems.contains("line 4: keys.fleet.fly: unknown action"),
        "{problems}"
    );
    assert!(
        problems.contains("line 5: unknown screen keys.nowhere"),
        "{problems}"
    );
}

#[test]
fn key_overrides_replace_the_action_keys_in_the_keymap() {
    let loaded = decode_text("[keys.fleet]\nopen = [\"l\"]\n[keys.global]\nquit = [\"x\"]\n");
    let keymap = keys::keymap_with(&loaded.config.keys);
    assert_eq!(
        keymap.action(Context::Fleet, Key::char('l')),
        Some(Action::Open)
    );
    assert_eq!(
        keymap.action(Context::Fleet, Key::plain(KeyCode::Enter)),
        None
    );
    assert_eq!(
        keymap.action(Context::Node, Key::char('x')),
        Some(Action::Quit)
    );
    assert_eq!(keymap.action(Context::Node, Key::char('q')), None);
    // Untouched bindings stay.
    assert_eq!(
        keymap.action(Context::Fleet, Key::char('j')),
        Some(Action::Down)
    );
}

#[test]
fn missing_default_file_means_defaults_without_problems() {
    let dir = tempfile::tempdir().expect("tempdir");
    let loaded = load_default_location(Some(dir.path().join("config.toml")), &[]);
    assert_eq!(loaded.config, Config::default());
    assert!(loaded.problems.is_empty());
}

#[test]
fn explicit_file_that_does_not_exist_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("nope.toml");
    let err = load(Some(&missing), &[]).expect_err("missing --config file");
    assert!(
        err.to_string().starts_with("cannot read config file "),
        "{err}"
    );
}

#[test]
fn a_file_over_the_size_limit_is_refused_before_reading_and_the_console_goes_on_with_defaults() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    // Valid TOML all along, only too big: a comment of two megabytes after a setting.
    let text = format!(
        "read_only = true\n# {}\n",
        "x".repeat(crate::limits::CONFIG_FILE.max_bytes * 2)
    );
    std::fs::write(&path, &text).expect("write");
    let size = text.len();
    let expected = format!(
        "config file {} refused before reading: over the limit of 1048576 bytes (read {size}); \
         using the defaults",
        path.display()
    );
    for loaded in [
        load(Some(&path), &[]).expect("an explicit file over the limit still opens the console"),
        load_default_location(Some(path.clone()), &[]),
    ] {
        assert_eq!(loaded.config, Config::default(), "read_only not taken");
        assert_eq!(loaded.problems, std::slice::from_ref(&expected));
    }
    // Saving a setting leaves it alone, saying why.
    let err = edit::save_theme(&path, ThemeName::Light).expect_err("refused");
    assert!(
        err.to_string()
            .contains("refused before reading: over the limit of 1048576 bytes"),
        "{err}"
    );
    assert_eq!(std::fs::metadata(&path).expect("meta").len() as usize, size);
}

#[test]
fn a_device_that_never_ends_is_read_no_further_than_the_limit() {
    // /dev/zero has no size to check first: the read itself stops past the limit.
    let loaded = load(Some(std::path::Path::new("/dev/zero")), &[]).expect("opens");
    assert_eq!(loaded.config, Config::default());
    assert!(
        loaded.problems[0].contains("over the limit of 1048576 bytes (read 1048577)"),
        "{:?}",
        loaded.problems
    );
}

const USER_FILE: &str = r#"# my console settings
theme = "dark"   # dark at night

# read-only on the prod laptop
read_only = true

[waves]
batch = 2 # small fleet
"#;

#[test]
fn saving_the_theme_keeps_comments_order_and_other_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, USER_FILE).expect("write");
    edit::save_theme(&path, ThemeName::Light).expect("save theme");
    let written = std::fs::read_to_string(&path).expect("read");
    assert_eq!(
        written,
        USER_FILE.replace("theme = \"dark\"", "theme = \"light\"")
    );
    assert_eq!(from_text(&written, &path).config.theme, ThemeName::Light);
}

#[test]
fn saving_the_filter_adds_its_table_at_the_end_and_keeps_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, USER_FILE).expect("write");
    edit::save_filter(&path, "kind-sei", "phase:Failed").expect("save filter");
    let written = std::fs::read_to_string(&path).expect("read");
    assert!(written.starts_with(USER_FILE), "{written}");
    assert!(
        written.contains("[fleet.filters]\nkind-sei = \"phase:Failed\"\n"),
        "{written}"
    );
    let loaded = from_text(&written, &path);
    assert_eq!(
        loaded
            .config
            .saved_filters
            .get("kind-sei")
            .map(String::as_str),
        Some("phase:Failed")
    );
    assert_eq!(
        loaded.config.fleet_filter, "",
        "the hand-written filter is left alone"
    );
    assert!(loaded.config.read_only);
    assert_eq!(loaded.config.waves.batch, 2);
}

#[test]
fn first_save_starts_from_the_commented_defaults() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("sub").join("config.toml");
    edit::save_filter(&path, "kind-sei", "mode:seed").expect("save");
    let written = std::fs::read_to_string(&path).expect("read");
    assert!(
        written.contains("[fleet.filters]\nkind-sei = \"mode:seed\"\n"),
        "{written}"
    );
    assert!(
        written.contains("# Opt-in: save the last filter"),
        "the comments stay"
    );
    let loaded = from_text(&written, &path);
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    assert_eq!(loaded.config.saved_filters.len(), 1);
}

#[test]
fn a_broken_file_is_never_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "theme = \n").expect("write");
    let err = edit::save_theme(&path, ThemeName::Plain).expect_err("broken");
    assert!(err.to_string().contains("line 1"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), "theme = \n");
}

#[test]
fn a_nesting_bomb_config_is_refused_naming_the_limit_and_not_saved_into() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    let bomb = format!("theme = {}\n", "[".repeat(100_000));
    std::fs::write(&path, &bomb).expect("write");
    let started = std::time::Instant::now();
    let loaded = from_text(&bomb, &path);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(loaded.config, Config::default());
    assert_eq!(
        loaded.problems,
        [format!(
            "config file {} refused before decoding: nested deeper than the limit of 32 levels \
             (line 1); using the defaults",
            path.display()
        )]
    );
    let refused = edit::save_theme(&path, ThemeName::Light).expect_err("not saved into");
    assert!(
        refused
            .to_string()
            .contains("nested deeper than the limit of 32 levels"),
        "{refused}"
    );
}

#[test]
fn contexts_are_read_in_order_once_and_a_bad_entry_is_named() {
    let loaded = decode_text("contexts = [\"arctic-1\", \"pacific-1\", \"arctic-1\", 3]\n");
    assert_eq!(loaded.config.contexts, ["arctic-1", "pacific-1"]);
    assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
    assert!(
        loaded.problems[0].contains("line 1: contexts holds 3"),
        "{:?}",
        loaded.problems
    );
    let loaded = decode_text("contexts = \"arctic-1\"\n");
    assert!(loaded.config.contexts.is_empty());
    assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
}

#[test]
fn doctor_task_thresholds_are_read_and_bad_ones_named() {
    let loaded = decode_text(
        r#"
[doctor.task_minutes]
default = 45
snapshot-restore = 600
replace-pod = 0
"#,
    );
    assert_eq!(
        loaded.problems,
        vec![
            "config file /cfg/config.toml: line 5: doctor.task_minutes.replace-pod must be a whole number of minutes of at least 1, not 0; keeping the default"
                .to_owned()
        ]
    );
    let doctor = loaded.config.doctor;
    assert_eq!(doctor.minutes_for("snapshot-restore"), 600);
    assert_eq!(doctor.minutes_for("replace-pod"), 15);
    assert_eq!(doctor.minutes_for("config-apply"), 45);
}

#[test]
fn a_registered_operator_actions_keys_are_overridden_by_its_name_and_others_are_unknown() {
    let text = "[keys.fleet]\npause = [\"x\"]\nunpause = [\"u\"]\n";
    let loaded = from_text_with(text, Path::new("/cfg/config.toml"), &["pause", "resume"]);
    assert_eq!(
        loaded.config.keys,
        [keys::KeyOverride {
            context: Context::Fleet,
            action: Action::Operator("pause"),
            keys: vec![Key::char('x')],
        }]
    );
    let problems = loaded.problems.join("\n");
    assert!(
        problems.contains("line 3: keys.fleet.unpause: unknown action (use one of: quit,")
            && problems.contains(", doctor, pause, resume); keeping the default keys"),
        "{problems}"
    );
}

#[test]
fn a_chain_reference_rpc_is_read_and_a_bad_one_is_one_line_that_loses_nothing_else() {
    let loaded = decode_text(
        r#"
theme = "light"
[chains."pacific-1"]
reference_rpc = "https://rpc.sei.example/"
[chains."atlantic-2"]
reference_rpc = "rpc.atlantic.example:26657"
[chains."arctic-1"]
reference_rpc = 26657
[waves]
batch = 5
"#,
    );
    let config = &loaded.config;
    assert_eq!(config.theme, ThemeName::Light);
    assert_eq!(config.waves.batch, 5);
    assert_eq!(
        config
            .reference_rpc
            .get("pacific-1")
            .map(|u| u.status_url()),
        Some("https://rpc.sei.example/status".to_owned())
    );
    assert_eq!(config.reference_rpc.len(), 1);
    assert_eq!(loaded.problems.len(), 2, "{:?}", loaded.problems);
    assert_eq!(
        loaded.problems[0],
        "config file /cfg/config.toml: line 6: chains.\"atlantic-2\".reference_rpc \
         \"rpc.atlantic.example:26657\" is not an http:// or https:// URL; atlantic-2 is \
         measured against the fleet top"
    );
    assert!(
        loaded.problems[1].starts_with("config file /cfg/config.toml: line 8: ")
            && loaded.problems[1].contains("must be an http(s) URL string"),
        "{}",
        loaded.problems[1]
    );
}

#[test]
fn notify_webhooks_are_read_and_a_bad_url_or_number_is_one_line_that_loses_nothing_else() {
    let loaded = decode_text(
        r#"
[notify]
webhooks = ["http://127.0.0.1:9000/hook", "hooks.example.com", 7]
timeout_seconds = 2
attempts = 0
[waves]
batch = 5
"#,
    );
    let config = &loaded.config;
    assert_eq!(config.waves.batch, 5);
    assert_eq!(
        config
            .notify
            .webhooks
            .iter()
            .map(|u| u.as_str())
            .collect::<Vec<_>>(),
        ["http://127.0.0.1:9000/hook"]
    );
    assert_eq!(config.notify.timeout, std::time::Duration::from_secs(2));
    assert_eq!(config.notify.attempts, 3, "a bad number keeps its default");
    assert_eq!(loaded.problems.len(), 3, "{:?}", loaded.problems);
    assert_eq!(
        loaded.problems[0],
        "config file /cfg/config.toml: line 3: notify.webhooks holds a URL that is not an \
         http:// or https:// URL; left out"
    );
    assert!(
        loaded.problems[2]
            .contains("notify.attempts must be a whole number from 1 to 10, not 0; using 3")
    );
}
