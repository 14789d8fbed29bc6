//! The console as operators run it: the real `sei-console` binary in a pseudo-terminal against
//! the real control plane (`tests/pty/`), every assertion on the screen a terminal emulator
//! parsed. The loop's terminal handling is what is under test here — raw mode, the event reader,
//! SIGWINCH, ctrl-c, the panic hook — so each scenario ends by checking the terminal is given
//! back: no raw mode, the main screen, the cursor shown.
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Duration;

use kube::api::{DynamicObject, PostParams};
use serde_json::json;

use crate::common::console::{
    console_env, node_reported_running, running_full_nodes_with_standins, sidecar_home,
};
use crate::common::{TestNamespace, seinode_resource};
use crate::pty::{Key, Terminal, row_of, row_text};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
/// The first frame, with the cluster listed.
const START: Duration = Duration::from_secs(30);
/// A keystroke's frame (drawn at once; generous for a loaded machine).
const FRAME: Duration = Duration::from_secs(10);
const EXIT: Duration = Duration::from_secs(15);
/// Holding a task in flight is a stand-in hook (tests/sidecar-standin/README.md).
const HOLD_FILE: &str = ".standin-hold-tasks";

/// The console's environment: the control plane's admin kubeconfig and the stand-ins' direct
/// sidecar router, as the other console tests use.
fn env() -> HashMap<String, String> {
    console_env()
}

/// A state directory whose config file picks the embedded executor (no controller runs here).
fn state_dir(prefix: &str) -> tempfile::TempDir {
    let state = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("tempdir");
    let config = state.path().join("sei-console");
    std::fs::create_dir_all(&config).expect("config dir");
    std::fs::write(config.join("config.toml"), "executor = \"embedded\"\n").expect("config");
    state
}

fn start(ns: &TestNamespace, state: &Path, cols: u16, rows: u16) -> Terminal {
    Terminal::start(&["-n", &ns.name], &env(), state, cols, rows)
}

async fn seinode(ns: &TestNamespace, name: &str, labels: BTreeMap<String, String>) {
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.metadata.labels = Some(labels);
    node.data = json!({"spec": {"chainId": "pacific-1", "image": OLD, "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
}

/// The table's header row (the one naming the NAME column).
fn header(screen: &vt100::Screen) -> String {
    row_of(screen, "NAME")
        .map(|row| row_text(screen, row))
        .unwrap_or_default()
}

/// `first–last of total` from the viewer's bottom rule.
fn viewer_position(screen: &vt100::Screen) -> Option<(usize, usize, usize)> {
    screen.contents().lines().find_map(|line| {
        let (before, total) = line.trim_end().rsplit_once(" of ")?;
        let (first, last) = before.rsplit_once(' ')?.1.split_once('–')?;
        Some((
            first.parse().ok()?,
            last.parse().ok()?,
            total.trim().parse().ok()?,
        ))
    })
}

fn assert_restored(terminal: &Terminal) {
    let problems = terminal.restore_problems();
    assert!(
        problems.is_empty(),
        "the terminal was not given back: {problems:?}; the screen:\n{}",
        terminal.text()
    );
}

#[tokio::test]
async fn pty_fleet_filter_node_screen_and_resizes_on_a_real_terminal() {
    let ns = TestNamespace::new("pty-fleet").await;
    let state = state_dir("pty-fleet");
    seinode(&ns, "alpha-0", BTreeMap::new()).await;
    seinode(&ns, "alpha-1", BTreeMap::new()).await;
    // Enough labels that its YAML is longer than a page even at 200x50.
    let labels = (0..60)
        .map(|i| (format!("pad-{i:02}"), "x".to_owned()))
        .collect();
    seinode(&ns, "beta-0", labels).await;

    let mut terminal = start(&ns, state.path(), 200, 50);
    let screen = terminal.wait_for("the fleet's three rows", START, |s| {
        let text = s.contents();
        ["alpha-0", "alpha-1", "beta-0"]
            .iter()
            .all(|name| text.contains(name))
    });
    terminal.assert_taken_over();
    let wide = header(&screen);
    assert!(
        wide.contains("MODE") && wide.contains("IMAGE"),
        "wide header: {wide}"
    );
    assert!(
        row_text(&screen, 49).contains("q quit"),
        "the key line on the last row:\n{}",
        screen.contents()
    );

    // `/` filters as typed; enter keeps the filter.
    terminal.type_text("/");
    terminal.type_text("beta");
    terminal.key(Key::Enter);
    terminal.wait_for("only beta-0 listed", FRAME, |s| {
        let text = s.contents();
        text.contains("beta-0") && !text.contains("alpha-0") && text.contains("(1 shown)")
    });

    // enter opens the node screen, esc comes back to the fleet.
    terminal.key(Key::Enter);
    terminal.wait_for_text(&format!("SeiNode {}/beta-0", ns.name), FRAME);
    terminal.key(Key::Esc);
    terminal.wait_for("the fleet again", FRAME, |s| {
        !s.contents().contains("SeiNode ") && header(s).contains("MODE")
    });

    // 200x50 -> 80x24: the console redraws for the new size (the key line on the last row, the
    // header wrapped onto a second row) ...
    terminal.resize(80, 24);
    terminal.wait_for("the 80x24 layout", FRAME, |s| {
        row_text(s, 23).contains("? help") && row_text(s, 1).trim_start().starts_with('│')
    });
    // ... and its own idea of the size follows (a page of the viewer is what fits): at the
    // bottom of the YAML the last line is on the screen.
    terminal.type_text("y");
    terminal.wait_for_text(&format!("yaml {}/beta-0", ns.name), FRAME);
    terminal.type_text("G");
    let screen = terminal.wait_for("the YAML's last line in view", FRAME, |s| {
        viewer_position(s).is_some_and(|(_, last, total)| last == total)
    });
    let (first, last, total) = viewer_position(&screen).expect("position");
    assert!(total > 60, "{first}–{last} of {total}");
    assert!(
        last - first < 24,
        "a page of 24 rows at most: {first}–{last} of {total}"
    );
    terminal.key(Key::Esc);

    // ... and back to 200x50.
    terminal.resize(200, 50);
    terminal.wait_for("the 200x50 layout", FRAME, |s| {
        header(s).contains("MODE") && row_text(s, 49).contains("q quit")
    });

    terminal.type_text("q");
    let status = terminal.wait_exit(EXIT);
    assert!(status.success(), "{status:?}");
    assert_restored(&terminal);
}

#[tokio::test]
async fn pty_an_image_rollout_dialog_cancelled_with_esc_changes_nothing() {
    let ns = TestNamespace::new("pty-cancel").await;
    let state = state_dir("pty-cancel");
    node_reported_running(&ns, "full-0", OLD).await;
    let before = ns.seinodes().get("full-0").await.expect("get");

    let mut terminal = start(&ns, state.path(), 200, 50);
    terminal.wait_for_text("full-0", START);
    terminal.type_text("i");
    terminal.wait_for_text("Image rollout", FRAME);
    terminal.key(Key::Ctrl('u'));
    terminal.type_text(NEW);
    terminal.key(Key::Enter);
    // The preview, computed against the cluster.
    let screen = terminal.wait_for_text("enter/y continue", Duration::from_secs(60));
    assert!(
        screen.contents().contains(&format!("{OLD} -> {NEW}")),
        "{}",
        screen.contents()
    );
    terminal.key(Key::Esc);
    terminal.wait_for("the dialog closed", FRAME, |s| {
        !s.contents().contains("Image rollout")
    });

    let after = ns.seinodes().get("full-0").await.expect("get");
    assert_eq!(after.data["spec"], before.data["spec"], "spec unchanged");
    assert_eq!(after.data["status"], before.data["status"], "no plan");
    assert_eq!(
        after.metadata.resource_version, before.metadata.resource_version,
        "nothing written to the SeiNode"
    );
    let journal = state.path().join("sei-console/journal.jsonl");
    let recorded = std::fs::read_to_string(&journal).unwrap_or_default();
    assert!(
        !recorded.contains("\"started\""),
        "no action journaled as started: {recorded}"
    );

    terminal.type_text("q");
    let status = terminal.wait_exit(EXIT);
    assert!(status.success(), "{status:?}");
    assert_restored(&terminal);
}

#[tokio::test]
async fn pty_ctrl_c_while_an_action_runs_asks_and_changes_nothing_unasked() {
    let ns = TestNamespace::new("pty-ctrl-c").await;
    let state = state_dir("pty-ctrl-c");
    let node = "full-0";
    running_full_nodes_with_standins(
        &ns,
        &[node.to_owned()],
        OLD,
        &BTreeMap::new(),
        state.path(),
        &[node],
    )
    .await;
    // The rollout's config-patch task stays in flight until released.
    let home = sidecar_home(&ns.name, node);
    std::fs::create_dir_all(&home).expect("home");
    std::fs::write(home.join(HOLD_FILE), "config-patch\n").expect("hold file");

    let mut terminal = start(&ns, state.path(), 200, 50);
    terminal.wait_for_text(node, START);
    terminal.type_text("i");
    terminal.wait_for_text("Image rollout", FRAME);
    terminal.key(Key::Ctrl('u'));
    terminal.type_text(NEW);
    // The health gate off (tab to its field, → to `off`): this node serves no RPC.
    terminal.key(Key::Text("\t"));
    terminal.key(Key::Text("\x1b[C"));
    terminal.wait_for_text("health gate off", FRAME);
    terminal.key(Key::Enter);
    terminal.wait_for_text("enter/y continue", Duration::from_secs(60));
    terminal.key(Key::Enter);
    terminal.wait_for_text("y/enter confirm", FRAME);
    terminal.type_text("y");
    terminal.wait_for_text("config-patch: submitted", Duration::from_secs(90));

    terminal.key(Key::Ctrl('c'));
    terminal.wait_for_text("press q or ctrl-c again to quit", FRAME);
    // Asked, not done: the console still runs, the terminal is still its own, the plan goes on.
    std::thread::sleep(Duration::from_secs(1));
    assert!(terminal.running(), "ctrl-c quit without asking");
    terminal.assert_taken_over();
    let stored = ns.seinodes().get(node).await.expect("get");
    assert_eq!(
        stored.data["status"]["plan"]["phase"], "Active",
        "{stored:?}"
    );

    std::fs::remove_file(home.join(HOLD_FILE)).expect("release the task");
    terminal.wait_for_text("rollout complete", Duration::from_secs(120));
    let stored = ns.seinodes().get(node).await.expect("get");
    assert_eq!(stored.data["spec"]["image"], NEW);
    assert_eq!(stored.data["status"]["currentImage"], NEW);

    // Nothing runs now: the result closes with esc and q quits at once.
    terminal.key(Key::Esc);
    terminal.type_text("q");
    let status = terminal.wait_exit(EXIT);
    assert!(status.success(), "{status:?}");
    assert_restored(&terminal);
}

/// At 80x24, `q` on the progress dialog asks (issue 33: it did nothing and said nothing), the
/// question wrapped so its instruction and its end are on screen; a second `q` quits and the
/// plan stays Active, orphaned: `get` names it and the command that resumes it.
#[tokio::test]
async fn pty_q_on_the_progress_dialog_at_80_columns_asks_then_quits_leaving_an_orphan() {
    let ns = TestNamespace::new("pty-q").await;
    let state = state_dir("pty-q");
    let node = "full-0";
    running_full_nodes_with_standins(
        &ns,
        &[node.to_owned()],
        OLD,
        &BTreeMap::new(),
        state.path(),
        &[node],
    )
    .await;
    let home = sidecar_home(&ns.name, node);
    std::fs::create_dir_all(&home).expect("home");
    std::fs::write(home.join(HOLD_FILE), "config-patch\n").expect("hold file");

    let mut terminal = start(&ns, state.path(), 80, 24);
    terminal.wait_for_text(node, START);
    terminal.type_text("i");
    terminal.wait_for_text("Image rollout", FRAME);
    terminal.key(Key::Ctrl('u'));
    terminal.type_text(NEW);
    terminal.key(Key::Text("\t"));
    terminal.key(Key::Text("\x1b[C"));
    terminal.wait_for_text("health gate off", FRAME);
    terminal.key(Key::Enter);
    terminal.wait_for_text("enter/y continue", Duration::from_secs(60));
    terminal.key(Key::Enter);
    terminal.wait_for_text("y/enter confirm", FRAME);
    terminal.type_text("y");
    terminal.wait_for_text("config-patch: submitted", Duration::from_secs(90));
    terminal.wait_for_text("q quit (asks first)", FRAME);

    terminal.type_text("q");
    let screen = terminal.wait_for_text("press q or ctrl-c again to quit", FRAME);
    let text = screen.contents();
    assert!(
        text.contains("resumes it)"),
        "the whole question is on screen at 80 columns:\n{text}"
    );
    std::thread::sleep(Duration::from_secs(1));
    assert!(terminal.running(), "the first q only asks");
    terminal.type_text("q");
    let status = terminal.wait_exit(EXIT);
    assert!(status.success(), "{status:?}");
    assert_restored(&terminal);

    let stored = ns.seinodes().get(node).await.expect("get");
    assert_eq!(stored.data["status"]["plan"]["phase"], "Active");
    // Nobody runs it now: the executor's Lease names a console that is gone.
    let state_path = state.path().to_owned();
    let namespace = ns.name.clone();
    let get = tokio::task::spawn_blocking(move || {
        crate::common::console::cli(&["get", "-n", &namespace, "-o", "json"], &state_path)
    })
    .await
    .expect("get");
    assert!(
        get.status.success(),
        "{}",
        String::from_utf8_lossy(&get.stderr)
    );
    let items: serde_json::Value = serde_json::from_slice(&get.stdout).expect("get -o json");
    let resume = items[0]["orphaned"]["resume"].as_str().unwrap_or_default();
    assert!(
        resume.starts_with(&format!("sei-console exec {node} -n {}", ns.name)),
        "{items:#}"
    );
    std::fs::remove_file(home.join(HOLD_FILE)).expect("release the task");
}

#[tokio::test]
async fn pty_a_panic_in_the_loop_gives_the_terminal_back() {
    let ns = TestNamespace::new("pty-panic").await;
    let state = state_dir("pty-panic");
    seinode(&ns, "full-0", BTreeMap::new()).await;
    let mut env = env();
    env.insert("SEI_CONSOLE_TEST_PANIC_AFTER_MS".into(), "3000".into());
    let mut terminal = Terminal::start(&["-n", &ns.name], &env, state.path(), 120, 30);
    terminal.wait_for_text("full-0", START);
    terminal.assert_taken_over();

    let status = terminal.wait_exit(EXIT);
    assert!(!status.success(), "a panic is a failure: {status:?}");
    assert_restored(&terminal);
    // The panic's message lands on the operator's own screen, after the console left its own.
    let screen = terminal.screen();
    assert!(
        screen.contents().contains("panic injected by a test build"),
        "{}",
        screen.contents()
    );
}

#[tokio::test]
async fn pty_a_config_file_over_the_size_limit_is_named_on_screen_and_the_console_runs() {
    let ns = TestNamespace::new("pty-config").await;
    let state = state_dir("pty-config");
    seinode(&ns, "full-0", BTreeMap::new()).await;
    // Valid TOML, only too big: read_only would be taken if the file were read.
    let config = state.path().join("sei-console/config.toml");
    let text = format!(
        "read_only = true\n# {}\n",
        "x".repeat(sei_console::limits::CONFIG_FILE.max_bytes)
    );
    std::fs::write(&config, text).expect("config");

    // Wide enough for the banner's whole line whatever the temp dir's path.
    let mut terminal = start(&ns, state.path(), 300, 40);
    let screen = terminal.wait_for_text("full-0", START);
    let text = screen.contents();
    assert!(
        text.contains("refused before reading: over the limit of 1048576 bytes"),
        "the first screen names the refusal:\n{text}"
    );
    assert!(!text.contains("READ-ONLY"), "defaults used:\n{text}");
    terminal.type_text("q");
    let status = terminal.wait_exit(EXIT);
    assert!(status.success(), "{status:?}");
    assert_restored(&terminal);
}
