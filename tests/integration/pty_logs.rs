//! The logs view's line filter on a real terminal (issue 37): the real `sei-console` in a
//! pseudo-terminal against the real control plane (kwok serves the pod's log from the CRI file
//! the sidecar add-on writes). `l` opens the seid log; `&` with a pattern keeps only the
//! matching lines and the bottom rule says so; a pattern matching nothing leaves no line; `t`
//! shows the timestamps; `ctrl-s` saves what is shown and names the file.
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use crate::common::TestNamespace;
use crate::common::console::{production_env, running_full_nodes};
use crate::pty::{Key, Terminal};

const START: Duration = Duration::from_secs(30);
const FRAME: Duration = Duration::from_secs(15);
const EXIT: Duration = Duration::from_secs(15);

#[tokio::test]
async fn pty_the_logs_filter_keeps_matching_lines_and_ctrl_s_saves_them() {
    let ns = TestNamespace::new("pty-logs").await;
    let state = tempfile::Builder::new()
        .prefix("pty-logs")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("tempdir");
    let names = ["logs-0".to_owned()];
    let image = "ghcr.io/sei-protocol/sei:v6.3.0";
    running_full_nodes(&ns, &names, image, &BTreeMap::new(), state.path()).await;

    let env: HashMap<String, String> = production_env();
    let mut terminal = Terminal::start(&["-n", &ns.name], &env, state.path(), 80, 24);
    terminal.wait_for_text("logs-0", START);
    terminal.type_text("l");
    terminal.wait_for_text("container started", FRAME);

    terminal.type_text("&");
    terminal.type_text("started");
    terminal.key(Key::Enter);
    terminal.wait_for_text("matching &started", FRAME);
    assert!(
        terminal.text().contains("container started"),
        "{}",
        terminal.text()
    );

    terminal.type_text("&");
    terminal.key(Key::Ctrl('u'));
    terminal.type_text("zzz-nothing");
    terminal.key(Key::Enter);
    terminal.wait_for_text("&zzz-nothing", FRAME);
    assert!(
        !terminal.text().contains("container started"),
        "a line matching nothing is left out:\n{}",
        terminal.text()
    );

    // Back to every line, with timestamps, saved.
    terminal.type_text("&");
    terminal.key(Key::Ctrl('u'));
    terminal.key(Key::Enter);
    terminal.type_text("t");
    terminal.wait_for_text("timestamps", FRAME);
    // The line now starts with its time (at 80 columns its end is past the edge).
    terminal.wait_for_text("Z seid stand-in of", FRAME);
    terminal.key(Key::Ctrl('s'));
    terminal.wait_for_text("saved 1 line", FRAME);
    let folder = state.path().join("sei-console/logs");
    let saved: Vec<std::path::PathBuf> = std::fs::read_dir(&folder)
        .map(|entries| entries.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    let [file] = saved.as_slice() else {
        panic!("one saved file under {}: {saved:?}", folder.display());
    };
    let text = std::fs::read_to_string(file).expect("the saved log");
    assert!(text.contains("container started"), "{text}");

    terminal.key(Key::Esc);
    terminal.type_text("q");
    let status = terminal.wait_exit(EXIT);
    assert!(status.success(), "{status:?}");
}
