//! A rollout held after its canary, seen and aborted from the console (issue 35), on the real
//! control plane: a CLI process runs `rollout … --hold-after canary`; a console (its model and
//! effects over the real backend, no terminal) shows it held in its header and `:rollouts`
//! (read through `ConsolePort::read_rollouts`), its nodes' rows say so, and `X` on a node of it
//! previews the abort naming the rollout and what happens, then `y` aborts it: the runner stops
//! at its hold, the record says aborted, the journal has the `rollout-abort` line.
use std::collections::BTreeMap;
use std::time::Duration;

use jiff::Timestamp;
use sei_console::app::action::Stage;
use sei_console::app::model::{Model, Scope};
use sei_console::backend::KubeBackend;
use sei_console::config::ExecutorMode;
use sei_console::journal::Journal;
use sei_console::keymap::{Key, KeyCode};
use sei_console::kube::client::Connection;
use tokio::sync::mpsc;

use crate::common::TestNamespace;
use crate::common::console::{running_full_nodes_with_standins, spawn_console};
use crate::console_actions::{Console, action_env};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

fn console_on(ns: &TestNamespace, journal: &Journal) -> Console {
    let actions = action_env(journal, sei_console::rpc::node_rpc_for(None));
    let mut model = Model::new(
        Scope::one("test", Some(ns.name.clone())),
        Timestamp::now(),
        None,
    );
    model.settings.executor = ExecutorMode::Embedded;
    let (tx, rx) = mpsc::channel(4096);
    let connection = Connection {
        client: ns.client.clone(),
        context: "test".into(),
        default_namespace: ns.name.clone(),
        kube_config: None,
    };
    let mut effects = KubeBackend::new(connection, None)
        .with_actions(actions)
        .effects(tx);
    for cmd in model.init() {
        effects.run(cmd);
    }
    Console::from_parts(model, effects, rx)
}

#[tokio::test]
async fn a_held_rollout_is_in_the_console_header_and_x_aborts_it_from_the_console() {
    let ns = TestNamespace::new("rollout-console").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["ra", "rb", "rc"].map(str::to_owned).to_vec();
    let labels = BTreeMap::from([("fleet".to_owned(), "console".to_owned())]);
    running_full_nodes_with_standins(&ns, &names, OLD, &labels, state.path(), &[]).await;
    let runner = spawn_console(
        &[
            "rollout",
            "ra",
            "rb",
            "rc",
            "--no-health-gate",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--canary",
            "1",
            "--batch",
            "2",
            "--hold-after",
            "canary",
            "--executor",
            "embedded",
            "--yes",
        ],
        state.path(),
        &[],
    );
    let journal = Journal::at(state.path().join("console-journal.jsonl"));
    let mut console = console_on(&ns, &journal);
    console
        .ticking_until("the held rollout in the header", |m| {
            m.listing.keys.len() == 3
                && m.rollouts
                    .header()
                    .iter()
                    .any(|(full, _)| full.contains("1/3 held"))
        })
        .await;
    let id = console
        .model
        .rollouts
        .open()
        .map(|(_, v)| v.record.id.clone())
        .next()
        .expect("the rollout");
    let mark = console
        .model
        .rollouts
        .node_mark(&console.model.listing.keys[1]);
    assert_eq!(mark, Some("held"));
    // `:rollouts` says what `rollout status` says.
    console.type_text(":rollouts");
    console.key(Key::plain(KeyCode::Enter));
    let lines = sei_console::app::rollouts::lines(&console.model);
    assert!(
        lines.iter().any(|l| l.contains("state: holding"))
            && lines
                .iter()
                .any(|l| l.contains(&format!("rollout promote {id}"))),
        "{lines:?}"
    );
    console.key(Key::plain(KeyCode::Esc));

    // X (and enter on its empty form) on rb: the preview names the rollout and what an abort does; y aborts it.
    console.key(Key::char('j'));
    console.key(Key::char('X'));
    console.key(Key::plain(KeyCode::Enter));
    let preview = console.preview().await;
    let text = format!("{preview:?}");
    assert!(
        text.contains(&format!("abort rollout {id} at its next safe point"))
            && text.contains("finishes that plan"),
        "{text}"
    );
    console.key(Key::plain(KeyCode::Enter));
    console.key(Key::char('y'));
    let (end, _) = console.finished("the abort").await;
    let end = format!("{end:?}");
    assert!(
        end.contains(&format!("rollout {id} is aborted"))
            && end.contains("not changed: rb (still ")
            && end.contains("rc (still "),
        "{end}"
    );
    let ran = runner.finish(Duration::from_secs(60)).await;
    assert!(!ran.ok, "{ran:?}");
    let aborts: Vec<serde_json::Value> = std::fs::read_to_string(journal.path())
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|l: &serde_json::Value| l["action"] == "rollout-abort")
        .collect();
    assert_eq!(aborts.len(), 1, "{aborts:?}");
    assert_eq!(aborts[0]["outcome"], "succeeded");
    assert!(matches!(
        console.model.action.as_ref().map(|f| &f.stage),
        Some(Stage::Running { .. })
    ));
}
