//! User plugins (`[[plugins]]`) as an operator runs them: the real `sei-console` in a
//! pseudo-terminal against the real control plane, a config file declaring plugins that run
//! `tests/plugin-standin/write-args` (it writes its arguments to a file); the file must hold the
//! selected node's variables, each argument whole (a list, never a shell's words), for a
//! background plugin, a foreground one (the console gives the terminal and takes it back) and
//! a `shell = true` one (the values in its environment). Read-only mode refuses a plugin not
//! marked read-only and runs nothing.
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use kube::api::{DynamicObject, PostParams};
use serde_json::json;

use crate::common::console::console_env;
use crate::common::{TestNamespace, seinode_resource};
use crate::pty::Terminal;

const START: Duration = Duration::from_secs(30);
const RUN: Duration = Duration::from_secs(15);
const EXIT: Duration = Duration::from_secs(15);
const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

/// Waits at most `timeout` for `path` to exist; returns its lines.
fn written(path: &Path, timeout: Duration) -> Vec<String> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            return text.lines().map(str::to_owned).collect();
        }
        assert!(
            Instant::now() < deadline,
            "{} not written after {timeout:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(40));
    }
}

#[tokio::test]
async fn pty_plugins_run_with_the_nodes_variables_in_the_background_and_foreground() {
    let ns = TestNamespace::new("pty-plugins").await;
    let state = tempfile::Builder::new()
        .prefix("pty-plugins")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("tempdir");
    let mut node = DynamicObject::new("plug-0", &seinode_resource());
    node.metadata.labels = Some(BTreeMap::new());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": IMAGE, "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");

    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/plugin-standin/write-args");
    let out = |name: &str| state.path().join(name);
    let config = format!(
        r#"
[[plugins]]
name = "bg"
key = "W"
command = "{script}"
args = ["{bg}", "$CONTEXT", "$NAMESPACE", "$NODE", "$POD", "$CHAIN", "$IMAGE", "two words"]
background = true

[[plugins]]
name = "fg"
key = "ctrl-e"
scopes = ["fleet"]
command = "{script}"
args = ["{fg}", "$NODE"]

[[plugins]]
name = "sh"
key = "O"
command = "{script} {sh} \"$NODE\" \"$1\""
args = ["first; not run"]
shell = true
background = true
"#,
        script = script.display(),
        bg = out("bg.txt").display(),
        fg = out("fg.txt").display(),
        sh = out("sh.txt").display(),
    );
    let config_dir = state.path().join("sei-console");
    std::fs::create_dir_all(&config_dir).expect("config dir");
    std::fs::write(config_dir.join("config.toml"), &config).expect("config");

    let env: HashMap<String, String> = console_env();
    let args = ["-n", ns.name.as_str()];
    let mut terminal = Terminal::start(&args, &env, state.path(), 80, 24);
    terminal.wait_for_text("plug-0", START);

    terminal.type_text("W");
    let context = written(&out("bg.txt"), RUN);
    assert_eq!(
        context[1..],
        [
            ns.name.clone(),
            "plug-0".into(),
            "plug-0-0".into(),
            "pacific-1".into(),
            IMAGE.into(),
            "two words".into()
        ],
        "{context:?}"
    );
    terminal.wait_for_text("plugin \"bg\" exited 0", RUN);
    let logs = std::fs::read_dir(state.path().join("sei-console/plugins"))
        .expect("the plugins' output folder")
        .count();
    assert_eq!(logs, 1);

    // The foreground plugin has the terminal, then the console takes it back.
    terminal.key(crate::pty::Key::Ctrl('e'));
    assert_eq!(written(&out("fg.txt"), RUN), ["plug-0"]);
    terminal.wait_for_text("plugin \"fg\" exited 0", RUN);
    terminal.wait_for_text("plug-0", RUN);

    // A shell plugin: the shell expands $NODE from its environment; its args are $1….
    terminal.type_text("O");
    assert_eq!(written(&out("sh.txt"), RUN), ["plug-0", "first; not run"]);

    terminal.type_text("q");
    let status = terminal.wait_exit(EXIT);
    assert!(status.success(), "{status:?}");

    // Read-only: the plugin not marked read_only is refused, nothing runs.
    std::fs::remove_file(out("bg.txt")).expect("remove");
    let args = ["-n", ns.name.as_str(), "--read-only"];
    let mut terminal = Terminal::start(&args, &env, state.path(), 80, 24);
    terminal.wait_for_text("plug-0", START);
    terminal.type_text("W");
    terminal.wait_for_text("read-only mode: plugin \"bg\" refused", RUN);
    std::thread::sleep(Duration::from_millis(500));
    assert!(!out("bg.txt").exists(), "a refused plugin ran");
    terminal.type_text("q");
    let status = terminal.wait_exit(EXIT);
    assert!(status.success(), "{status:?}");
}
