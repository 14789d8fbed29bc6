//! User plugins in the console: keys taken by the screens refused at load, the variables of the
//! selected node, read-only refusal, the y/n question, background and foreground runs.
use super::model::{Cmd, Model};
use super::plugins::PluginRun;
use super::tests::{demo_model, key, press};
use crate::config::LoadedConfig;
use crate::keymap::KeyCode;

fn configured(text: &str) -> Model {
    let loaded: LoadedConfig =
        crate::config::from_text(text, std::path::Path::new("/cfg/config.toml"));
    assert_eq!(loaded.problems, Vec::<String>::new());
    let mut model = demo_model();
    model.configure(&loaded, Default::default());
    model
}

const PLUGINS: &str = r#"
[[plugins]]
name = "describe twice"
key = "d"
command = "true"

[[plugins]]
name = "where"
key = "W"
scopes = ["fleet"]
command = "echo"
args = ["$CONTEXT", "$NAMESPACE", "$NODE", "$POD", "$CHAIN", "$IMAGE"]
background = true

[[plugins]]
name = "ask"
key = "ctrl-g"
command = "echo"
args = ["$NODE"]
confirm = true
read_only = true

[[plugins]]
name = "again"
key = "W"
scopes = ["fleet"]
command = "true"
"#;

#[test]
fn a_key_the_screen_binds_is_refused_at_load_in_one_line() {
    let model = configured(PLUGINS);
    let names: Vec<&str> = model.plugins.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["where", "ask"]);
    assert_eq!(
        model.settings.problems,
        [
            "config file: line 2: plugin \"describe twice\": key d is taken on the fleet screen by Describe; plugin left out",
            "config file: line 23: plugin \"again\": key W is taken on the fleet screen by plugin \"where\"; plugin left out",
        ]
    );
    let help = super::plugins::help_lines(&model);
    assert_eq!(
        help[0],
        (
            "W".to_owned(),
            "where: echo $CONTEXT $NAMESPACE $NODE $POD $CHAIN $IMAGE [fleet, background]"
                .to_owned()
        )
    );
}

#[test]
fn a_background_plugin_runs_with_the_selected_nodes_variables() {
    let mut model = configured(PLUGINS);
    let cmds = press(&mut model, "jW");
    let [
        Cmd::RunPlugin(PluginRun {
            name, argv, env, ..
        }),
    ] = cmds.as_slice()
    else {
        panic!("one run: {cmds:?}");
    };
    let node = model.selected_key().expect("selected").name.to_string();
    assert_eq!(name, "where");
    assert_eq!(argv[0], "echo");
    assert_eq!(
        argv[1..4],
        ["kind-sei".to_owned(), "sei".into(), node.clone()]
    );
    assert_eq!(argv[4], format!("{node}-0"));
    assert!(env.contains(&("NODE".to_owned(), node)), "{env:?}");
    // Its scope is the fleet only: nothing on the node screen.
    key(&mut model, KeyCode::Enter);
    assert!(press(&mut model, "W").is_empty());
    assert!(model.foreground.is_none());
}

#[test]
fn read_only_refuses_a_plugin_unless_it_says_read_only_and_confirm_asks_first() {
    let mut model = configured(PLUGINS);
    model.settings.guard = crate::config::read_only::MutationGuard::new(true, false);
    assert!(press(&mut model, "W").is_empty());
    let flash = model.flash.clone().expect("said");
    assert!(
        flash.error
            && flash
                .text
                .starts_with("read-only mode: plugin \"where\" refused")
    );

    // `ask` may run read-only; it asks first, and only `y` runs it (in the foreground).
    super::update::update(
        &mut model,
        super::model::Msg::Key(crate::keymap::Key::ctrl('g')),
    );
    assert!(model.plugin_pending.is_some());
    assert!(
        model
            .flash
            .clone()
            .expect("asked")
            .text
            .starts_with("run plugin \"ask\": echo "),
        "{:?}",
        model.flash
    );
    press(&mut model, "n");
    assert!(model.plugin_pending.is_none() && model.foreground.is_none());
    super::update::update(
        &mut model,
        super::model::Msg::Key(crate::keymap::Key::ctrl('g')),
    );
    press(&mut model, "y");
    let run = model.foreground.clone().expect("the loop runs it");
    assert_eq!(run.argv.len(), 2);
}
