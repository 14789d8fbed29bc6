//! Copy and dump on a real terminal: the real `sei-console` in a pseudo-terminal against the
//! real control plane; `c` must reach the terminal as an OSC 52 sequence whose payload is the
//! node's name in base64 (read back by the terminal emulator's parser, as a terminal would take
//! it), `C` the row under the header, and `:dump` must write the fleet's table to the file
//! named, or under the state directory when none is.
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use base64::Engine;
use kube::api::{DynamicObject, PostParams};
use serde_json::json;

use crate::common::console::console_env;
use crate::common::{TestNamespace, seinode_resource};
use crate::pty::{Key, Terminal};

const START: Duration = Duration::from_secs(30);
const FRAME: Duration = Duration::from_secs(10);
const EXIT: Duration = Duration::from_secs(15);

/// Waits at most `timeout` for the `n`th OSC 52 copy; returns its decoded payload.
fn copied(terminal: &Terminal, n: usize, timeout: Duration) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        let copies = terminal.clipboard();
        if let Some((selection, payload)) = copies.get(n) {
            assert_eq!(selection, "c", "the clipboard selection");
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(payload)
                .expect("a base64 payload");
            return String::from_utf8(bytes).expect("UTF-8");
        }
        assert!(
            Instant::now() < deadline,
            "no OSC 52 copy {n} after {timeout:?}; copies {copies:?}; the screen:\n{}",
            terminal.text()
        );
        std::thread::sleep(Duration::from_millis(40));
    }
}

#[tokio::test]
async fn pty_c_copies_through_osc52_and_dump_writes_the_table() {
    let ns = TestNamespace::new("pty-copy").await;
    let state = tempfile::Builder::new()
        .prefix("pty-copy")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("tempdir");
    let mut node = DynamicObject::new("copy-0", &seinode_resource());
    node.metadata.labels = Some(BTreeMap::new());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0", "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");

    let env: HashMap<String, String> = console_env();
    let mut terminal = Terminal::start(&["-n", &ns.name], &env, state.path(), 80, 24);
    terminal.wait_for_text("copy-0", START);

    terminal.type_text("c");
    assert_eq!(copied(&terminal, 0, FRAME), "copy-0");
    terminal.wait_for_text("OSC 52", FRAME);

    terminal.type_text("C");
    let row = copied(&terminal, 1, FRAME);
    let mut lines = row.lines();
    assert!(lines.next().is_some_and(|l| l.starts_with("NAME")), "{row}");
    assert!(
        lines.next().is_some_and(|l| l.starts_with("copy-0")),
        "{row}"
    );

    // `:dump FILE` (relative: the console's working directory, the state dir here).
    terminal.type_text(":");
    terminal.type_text("dump fleet.txt");
    terminal.key(Key::Enter);
    terminal.wait_for_text("dumped the fleet (2 lines) to fleet.txt", FRAME);
    let dumped = std::fs::read_to_string(state.path().join("fleet.txt")).expect("the dump");
    assert!(
        dumped.starts_with("NAME") && dumped.contains("copy-0"),
        "{dumped}"
    );

    // `:dump` alone: under the state dir, named by the screen and the time.
    terminal.type_text(":");
    terminal.type_text("dump");
    terminal.key(Key::Enter);
    let folder = state.path().join("sei-console/dumps");
    let deadline = Instant::now() + FRAME;
    let dumps: Vec<String> = loop {
        let names: Vec<String> = std::fs::read_dir(&folder)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if !names.is_empty() || Instant::now() >= deadline {
            break names;
        }
        std::thread::sleep(Duration::from_millis(40));
    };
    assert!(
        matches!(dumps.as_slice(), [one] if one.starts_with("fleet-") && one.ends_with("Z.txt")),
        "{dumps:?}"
    );

    terminal.type_text("q");
    let status = terminal.wait_exit(EXIT);
    assert!(status.success(), "{status:?}");
}
