//! The console's side of the guard against fields the port does not know (issue 36 item 5): on
//! the skewed cluster of `crd_skew`, `z` (pause) on a node carrying `spec.maintenance` is
//! refused in the dialog with the command line's words and nothing sent; a wrong word typed
//! changes nothing; `allow-unknown-fields` typed asks for the preview again as the command
//! line's `--allow-unknown-fields`, which says what it overrides; the pause then runs, and the
//! journal and the node's console-action record say the override was given.
use std::path::Path;

use jiff::Timestamp;
use kube::api::{Api, DynamicObject};
use sei_console::app::action::Stage;
use sei_console::app::model::{Model, Scope};
use sei_console::backend::KubeBackend;
use sei_console::config::ExecutorMode;
use sei_console::fleet::console_actions::ANNOTATION;
use sei_console::journal::Journal;
use sei_console::keymap::{Key, KeyCode};
use sei_console::kube::client::Connection;
use tokio::sync::mpsc;

use crate::common::{repo_path, seinode_resource};
use crate::console_actions::{Console, action_env};

fn stage(console: &Console) -> Option<&Stage> {
    console.model.action.as_ref().map(|flow| &flow.stage)
}

/// Pauses `node` of `namespace` from a console on `client`'s cluster, through the refusal and
/// the typed override; the console's journal under `state`.
pub(crate) async fn a_console_pause_goes_on_only_when_the_override_is_typed(
    client: kube::Client,
    namespace: &str,
    node: &str,
    state: &Path,
) {
    let journal = Journal::at(state.join("console-journal.jsonl"));
    let mut actions = action_env(&journal, sei_console::rpc::node_rpc_for(None));
    // This cluster runs no controller: its platform config from the file, as `--platform-config`.
    actions.platform_file = Some(repo_path("assets/demo/platform-config.yaml"));
    let mut model = Model::new(
        Scope::one("test", Some(namespace.to_owned())),
        Timestamp::now(),
        None,
    );
    model.settings.executor = ExecutorMode::Embedded;
    let (tx, rx) = mpsc::channel(4096);
    let connection = Connection {
        client: client.clone(),
        context: "test".into(),
        default_namespace: namespace.to_owned(),
        kube_config: None,
    };
    let mut effects = KubeBackend::new(connection, None)
        .with_actions(actions)
        .effects(tx);
    for cmd in model.init() {
        effects.run(cmd);
    }
    let mut console = Console::from_parts(model, effects, rx);
    console
        .until("the node listed", |m| {
            m.listing.keys.iter().any(|k| &*k.name == node)
        })
        .await;
    for _ in 0..console.model.listing.keys.len() {
        if console
            .model
            .selected_key()
            .is_some_and(|k| &*k.name == node)
        {
            break;
        }
        console.key(Key::char('j'));
    }

    console.key(Key::char('z'));
    console.key(Key::plain(KeyCode::Enter));
    console
        .until("the refusal", |m| {
            m.action
                .as_ref()
                .is_some_and(|f| !matches!(f.stage, Stage::Preparing(_)))
        })
        .await;
    let Some(Stage::NotUnderstood { message, .. }) = stage(&console) else {
        panic!("not refused: {:#?}", console.model.action);
    };
    assert!(
        message.contains(&format!(
            "refusing to run pause on {node}: {node} carries fields sei-console does not know \
             (spec.maintenance)"
        )),
        "{message}"
    );
    assert!(message.contains("nothing was changed"), "{message}");

    // A wrong word: asked again, nothing sent.
    console.type_text("yes");
    console.key(Key::plain(KeyCode::Enter));
    let Some(Stage::NotUnderstood { error, .. }) = stage(&console) else {
        panic!("left the refusal: {:#?}", console.model.action);
    };
    assert_eq!(
        error.as_deref(),
        Some("type allow-unknown-fields exactly to go on, or esc: nothing was changed")
    );
    let nodes: Api<DynamicObject> = Api::namespaced_with(client, namespace, &seinode_resource());
    let before = nodes.get(node).await.expect("node");
    assert_eq!(before.data["spec"]["paused"], serde_json::Value::Null);

    console.key(Key::ctrl('u'));
    console.type_text("allow-unknown-fields");
    console.key(Key::plain(KeyCode::Enter));
    let preview = console.preview().await;
    let shown = format!("{}\n{}", preview.head, preview.text);
    assert!(
        shown.contains("going on as --allow-unknown-fields asks"),
        "{shown}"
    );
    assert_eq!(preview.blocked, None, "{shown}");
    console.key(Key::plain(KeyCode::Enter));
    console.key(Key::char('y'));
    let (end, lines) = console.finished("the pause").await;
    assert!(end.ok, "{end:?} {lines:#?}");

    let after = nodes.get(node).await.expect("node");
    assert_eq!(after.data["spec"]["paused"], true);
    let record = after
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(ANNOTATION))
        .cloned()
        .unwrap_or_default();
    assert!(record.contains("--allow-unknown-fields"), "{record}");
    let entries = journal.read().expect("journal").entries;
    let pauses: Vec<String> = entries
        .iter()
        .filter(|e| e.action.name() == "pause")
        .map(|e| format!("{} {}", e.outcome.name(), e.detail))
        .collect();
    assert!(
        pauses
            .iter()
            .any(|p| p.contains("--allow-unknown-fields") && !p.starts_with("refused")),
        "{pauses:#?}"
    );
}
