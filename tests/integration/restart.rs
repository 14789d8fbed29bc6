//! `sei-console restart NODE` and the console's `R` against the real control plane (kwok runs
//! the pods, the StatefulSet controller creates them again): the preview shows the pod's state
//! and changes nothing, read-only refuses before any request, the restart deletes the pod and
//! waits until the new one (another UID) is Running and Ready; Console Event and journal.
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::ListParams;
use sei_console::app::action::Stage;
use sei_console::keymap::{Key, KeyCode};

use super::console_actions::console_on_a_running_node;
use crate::common::TestNamespace;
use crate::common::console::{console, running_full_nodes};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

/// The pod's UID and whether it is Ready.
async fn pod_uid(ns: &TestNamespace, name: &str) -> (String, bool) {
    let pod = ns.api::<Pod>().get(name).await.expect("get pod");
    let ready = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
    (pod.metadata.uid.unwrap_or_default(), ready)
}

fn journal_lines(state: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(state.join("sei-console/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("journal line"))
        .collect()
}

async fn restart_events(ns: &TestNamespace) -> Vec<Event> {
    let events = ns
        .api::<Event>()
        .list(&ListParams::default())
        .await
        .expect("events");
    events
        .items
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some("ConsolePodRestart"))
        .collect()
}

#[tokio::test]
async fn restart_previews_refuses_read_only_then_recreates_the_pod_and_waits_for_it() {
    let ns = TestNamespace::new("restart").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["full-0".to_owned()];
    running_full_nodes(&ns, &names, IMAGE, &BTreeMap::new(), state.path()).await;
    let (before, ready) = pod_uid(&ns, "full-0-0").await;
    assert!(ready, "the node's pod is Ready before the restart");

    // The preview: what will happen, the pod's state, the permission checks; nothing changed.
    let dry = console(
        &["restart", "full-0", "-n", &ns.name, "--dry-run"],
        state.path(),
    )
    .await;
    assert!(dry.ok, "{dry:?}");
    let preview = &dry.lines[0]["preview"];
    assert_eq!(preview["pod"], "full-0-0");
    assert_eq!(preview["current"]["phase"], "Running");
    assert_eq!(preview["current"]["ready"], true);
    assert_eq!(dry.result()["message"], "dry run: nothing was changed");
    assert_eq!(pod_uid(&ns, "full-0-0").await.0, before);

    // Read-only: refused before any request, journaled.
    let refused = console(
        &["restart", "full-0", "-n", &ns.name, "--read-only", "--yes"],
        state.path(),
    )
    .await;
    assert!(!refused.ok);
    assert!(
        refused
            .stderr
            .contains("read-only mode: refusing to run restart on full-0; nothing was sent"),
        "{}",
        refused.stderr
    );
    assert_eq!(pod_uid(&ns, "full-0-0").await.0, before);

    // The restart: the pod deleted, the StatefulSet's new pod waited for until Ready.
    let run = console(
        &["restart", "full-0", "-n", &ns.name, "--yes"],
        state.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");
    let message = run.result()["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with(&format!(
            "pod {}/full-0-0 created again: Running and Ready",
            ns.name
        )),
        "{run:?}"
    );
    assert!(
        run.notes().iter().any(|n| n.starts_with(
            "pod full-0-0 deleted for its StatefulSet to create it again (was Running, Ready"
        )),
        "{run:?}"
    );
    let (after, ready) = pod_uid(&ns, "full-0-0").await;
    assert_ne!(after, before, "a new pod");
    assert!(ready, "the new pod is Ready");
    let events = restart_events(&ns).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        events[0].involved_object.name.as_deref(),
        Some("full-0"),
        "on the SeiNode"
    );
    let outcomes: Vec<(String, String)> = journal_lines(state.path())
        .iter()
        .filter(|l| l["action"] == "restart")
        .map(|l| {
            (
                l["outcome"].as_str().unwrap_or("").to_owned(),
                l["nodes"][0].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let node = format!("{}/full-0", ns.name);
    assert_eq!(
        outcomes,
        [
            ("dry-run".to_owned(), node.clone()),
            ("refused".to_owned(), node.clone()),
            ("started".to_owned(), node.clone()),
            ("succeeded".to_owned(), node),
        ]
    );
}

#[tokio::test]
async fn restart_from_the_console_recreates_the_pod() {
    let (ns, mut console, journal, _state) = console_on_a_running_node("console-restart").await;
    let (before, _) = pod_uid(&ns, "full-0-0").await;
    console.key(Key::char('R'));
    // Nothing to fill: enter previews.
    console.key(Key::plain(KeyCode::Enter));
    let preview = console.preview().await;
    assert!(
        preview
            .text
            .contains("delete pod full-0-0; StatefulSet full-0 creates it again"),
        "{}",
        preview.text
    );
    assert!(
        preview.text.contains("pod now: Running, Ready"),
        "{}",
        preview.text
    );
    assert!(preview.permissions.allowed(), "{:?}", preview.permissions);
    assert_eq!(preview.blocked, None);
    assert_eq!(
        preview.confirm_names,
        Vec::<String>::new(),
        "a full node: y confirms"
    );
    console.key(Key::plain(KeyCode::Enter));
    assert!(matches!(
        console.model.action.as_ref().map(|f| &f.stage),
        Some(Stage::Confirm { .. })
    ));
    console.key(Key::char('y'));
    let (end, lines) = console.finished("the restart to finish").await;
    assert!(end.ok, "{end:?} {lines:#?}");
    assert!(
        end.message.contains("created again: Running and Ready"),
        "{end:?}"
    );
    let (after, ready) = pod_uid(&ns, "full-0-0").await;
    assert!(after != before && ready);
    let outcomes: Vec<String> = journal
        .read()
        .expect("journal")
        .entries
        .iter()
        .filter(|e| e.action.name() == "restart")
        .map(|e| e.outcome.name().to_owned())
        .collect();
    assert_eq!(outcomes, ["started", "succeeded"]);
    assert_eq!(restart_events(&ns).await.len(), 1);
}
