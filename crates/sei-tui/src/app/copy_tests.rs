//! `c`/`C` (what is copied on each screen, and the status line) and `:dump` (the screen's
//! text, the default path, the written file, never over an existing one).
use super::copy::{Copied, status_line};
use super::model::{Cmd, Model, Msg};
use super::tests::{demo_model, key, press};
use super::update::update;
use crate::keymap::KeyCode;

/// Presses `keys` and reports what was left for the clipboard and the status line.
fn copy(model: &mut Model, keys: &str) -> String {
    press(model, keys);
    let flash = model
        .flash
        .as_ref()
        .map(|f| f.text.clone())
        .unwrap_or_default();
    let copied = model
        .clipboard
        .take()
        .unwrap_or_else(|| "(nothing)".to_owned());
    format!("[{keys}] {flash}\n{copied}\n")
}

#[test]
fn what_c_copies_on_each_screen() {
    let mut model = demo_model();
    let mut out = String::new();
    out.push_str(&copy(&mut model, "jc"));
    out.push_str(&copy(&mut model, "C"));
    // The node screen: the node's name (a seed's peer string once its NodeID is known).
    key(&mut model, KeyCode::Enter);
    out.push_str(&copy(&mut model, "c"));
    key(&mut model, KeyCode::Esc);
    // The viewer: the line at its top.
    out.push_str(&copy(&mut model, "djjc"));
    key(&mut model, KeyCode::Esc);
    // The doctor: the selected finding's fix command, or why there is none.
    out.push_str(&copy(&mut model, "Dc"));
    out.push_str(&copy(&mut model, "jc"));
    key(&mut model, KeyCode::Esc);
    // The logs: `C` (`c` picks the container), the newest line while following.
    let cmds = press(&mut model, "l");
    let epoch = cmds
        .iter()
        .find_map(|cmd| match cmd {
            Cmd::StreamLogs { epoch, .. } => Some(*epoch),
            _ => None,
        })
        .expect("the logs stream");
    out.push_str(&copy(&mut model, "C"));
    let lines = vec![
        "first line".to_owned(),
        "INF committed block height=42".to_owned(),
    ];
    update(&mut model, Msg::LogLines { epoch, lines });
    out.push_str(&copy(&mut model, "C"));
    insta::assert_snapshot!(out);
}

#[test]
fn a_long_or_multiline_copy_is_quoted_in_part_with_its_size() {
    let long = Copied {
        what: "the row of x".into(),
        text: "NAME  MODE\nx     full\n".into(),
    };
    assert_eq!(
        status_line(&long),
        "sent to the terminal's clipboard (OSC 52): the row of x \"NAME  MODE…\" (2 lines, 22 characters)"
    );
    let short = Copied {
        what: "node name".into(),
        text: "arctic-1-0".into(),
    };
    assert_eq!(
        status_line(&short),
        "sent to the terminal's clipboard (OSC 52): node name \"arctic-1-0\""
    );
}

#[test]
fn dump_writes_the_fleet_table_to_a_new_file_and_says_where() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("sub/fleet.txt");
    let mut model = demo_model();
    press(&mut model, ":");
    press(&mut model, &format!("dump {}", path.display()));
    let cmds = key(&mut model, KeyCode::Enter);
    let [
        Cmd::Dump {
            path: to,
            what,
            text,
        },
    ] = cmds.as_slice()
    else {
        panic!("one dump: {cmds:?}");
    };
    assert_eq!((to, what.as_str()), (&path, "fleet"));
    let first = text.lines().next().expect("a header");
    assert!(first.starts_with("NAME"), "{first}");
    assert_eq!(text.lines().count(), model.listing.keys.len() + 1);

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    for _ in 0..2 {
        runtime.block_on(super::dump::write(
            path.clone(),
            what.clone(),
            text.clone(),
            tx.clone(),
        ));
        let msg = rx.try_recv().expect("answered");
        update(&mut model, msg);
        let shown = model.flash.clone().expect("a status line");
        shown_lines(&shown.text, &path);
    }
    assert_eq!(std::fs::read_to_string(&path).expect("written"), *text);
    let second = model.flash.clone().expect("a status line");
    assert!(
        second.error && second.text.contains("exists: name another file"),
        "{second:?}"
    );
}

fn shown_lines(text: &str, path: &std::path::Path) {
    assert!(text.contains(&path.display().to_string()), "{text}");
}

#[test]
fn the_default_dump_goes_under_the_state_dir_named_by_screen_and_time() {
    let at = super::dump::default_path(
        std::path::Path::new("/state/sei-console"),
        "fleet",
        "2026-12-05T15:01:02Z".parse().expect("a time"),
    );
    assert_eq!(
        at,
        std::path::PathBuf::from("/state/sei-console/dumps/fleet-20261205T150102Z.txt")
    );
}
