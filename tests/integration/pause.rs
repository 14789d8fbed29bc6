//! `sei-console pause NODE` / `resume NODE` and the console's `z` / `Z` against the real
//! control plane (kwok runs the pods, the StatefulSet controller scales them): the preview shows
//! the StatefulSet going to zero replicas and changes nothing, a Failed node is refused with
//! upstream's reason, the pause patches `spec.paused` with the node's console-action record,
//! applies the StatefulSet (no live controller: the embedded executor) and waits for the pod
//! to be gone; "already paused" asks nothing; the resume brings the pod back Ready; Console
//! Events and journal lines for each.
use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Event, Pod};
use kube::api::{ListParams, Patch, PatchParams};
use sei_console::app::action::Stage;
use sei_console::fleet::console_actions::{ANNOTATION, Recorded, parse};
use sei_console::keymap::{Key, KeyCode};
use serde_json::json;

use super::console_actions::console_on_a_running_node;
use crate::common::TestNamespace;
use crate::common::console::{console, node_reported_running, running_full_nodes};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

async fn replicas(ns: &TestNamespace, name: &str) -> Option<i32> {
    let sts = ns
        .api::<StatefulSet>()
        .get(name)
        .await
        .expect("get StatefulSet");
    sts.spec.replicas
}

async fn pod_exists(ns: &TestNamespace, name: &str) -> bool {
    ns.api::<Pod>()
        .get_opt(name)
        .await
        .expect("get pod")
        .is_some()
}

async fn paused(ns: &TestNamespace, name: &str) -> Option<bool> {
    let node = ns.seinodes().get(name).await.expect("get SeiNode");
    node.data["spec"]["paused"].as_bool()
}

/// The actions the node's `sei.io/console-actions` record names, oldest first.
async fn recorded(ns: &TestNamespace, name: &str) -> Vec<String> {
    let node = ns.seinodes().get(name).await.expect("get SeiNode");
    let Some(value) = node
        .metadata
        .annotations
        .and_then(|a| a.get(ANNOTATION).cloned())
    else {
        return Vec::new();
    };
    match parse(&value) {
        Recorded::Actions { actions, .. } => actions
            .into_iter()
            .map(|a| format!("{} {}", a.action, a.detail))
            .collect(),
        Recorded::Unreadable(why) => panic!("unreadable record: {why}"),
    }
}

async fn event_messages(ns: &TestNamespace, reason: &str) -> Vec<String> {
    let events = ns
        .api::<Event>()
        .list(&ListParams::default())
        .await
        .expect("events");
    events
        .items
        .into_iter()
        .filter(|e| e.reason.as_deref() == Some(reason))
        .filter_map(|e| e.message)
        .collect()
}

fn journal_lines(state: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(state.join("sei-console/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("journal line"))
        .filter(|l| l["action"] == "pause" || l["action"] == "resume")
        .map(|l| {
            format!(
                "{} {} {}",
                l["action"].as_str().unwrap_or(""),
                l["outcome"].as_str().unwrap_or(""),
                l["detail"].as_str().unwrap_or("")
            )
        })
        .collect()
}

#[tokio::test]
async fn pause_previews_scales_the_statefulset_to_zero_and_resume_brings_the_pod_back() {
    let ns = TestNamespace::new("pause").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["full-0".to_owned()];
    running_full_nodes(&ns, &names, IMAGE, &BTreeMap::new(), state.path()).await;
    assert_eq!(replicas(&ns, "full-0").await, Some(1));

    // The preview: the StatefulSet diff, the pod now; nothing changed.
    let dry = console(
        &["pause", "full-0", "-n", &ns.name, "--dry-run"],
        state.path(),
    )
    .await;
    assert!(dry.ok, "{dry:?}");
    let preview = &dry.lines[0]["preview"];
    assert_eq!(preview["paused"], true);
    assert_eq!(preview["pod"], "Running, Ready");
    let changes = serde_json::to_string(&preview["statefulset"]).expect("json");
    assert!(
        changes.contains(r#""path":"spec.replicas","before":1,"after":0"#),
        "{changes}"
    );
    assert_eq!(paused(&ns, "full-0").await, None);

    // The pause: spec.paused with the record, the StatefulSet at zero, the pod gone.
    let run = console(&["pause", "full-0", "-n", &ns.name, "--yes"], state.path()).await;
    assert!(run.ok, "{run:?}");
    let message = run.result()["message"].as_str().unwrap_or("");
    assert!(
        message.starts_with(&format!(
            "{}/full-0 paused: pod full-0-0 gone after",
            ns.name
        )),
        "{run:?}"
    );
    assert_eq!(paused(&ns, "full-0").await, Some(true));
    assert_eq!(replicas(&ns, "full-0").await, Some(0));
    assert!(!pod_exists(&ns, "full-0-0").await);
    assert_eq!(
        recorded(&ns, "full-0").await,
        ["pause spec.paused false -> true"]
    );
    let events = event_messages(&ns, "ConsoleNodePause").await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(
        events[0].ends_with("via sei-console: spec.paused false -> true"),
        "{events:?}"
    );

    // Already paused: said, nothing asked, nothing journaled.
    let again = console(&["pause", "full-0", "-n", &ns.name], state.path()).await;
    assert!(again.ok, "{again:?}");
    assert_eq!(
        again.result()["message"],
        format!("{}/full-0 is already paused: nothing to do", ns.name)
    );

    // The resume: the StatefulSet back at one, the pod Running and Ready.
    let resumed = console(&["resume", "full-0", "-n", &ns.name, "--yes"], state.path()).await;
    assert!(resumed.ok, "{resumed:?}");
    let message = resumed.result()["message"].as_str().unwrap_or("");
    assert!(
        message.contains("resumed: pod full-0-0 Running and Ready after"),
        "{resumed:?}"
    );
    assert_eq!(paused(&ns, "full-0").await, Some(false));
    assert_eq!(replicas(&ns, "full-0").await, Some(1));
    assert_eq!(
        recorded(&ns, "full-0").await,
        [
            "pause spec.paused false -> true",
            "resume spec.paused true -> false"
        ]
    );
    assert_eq!(event_messages(&ns, "ConsoleNodeResume").await.len(), 1);
    assert_eq!(
        journal_lines(state.path()),
        [
            "pause dry-run spec.paused true",
            "pause started spec.paused true",
            "pause succeeded spec.paused true",
            "resume started spec.paused false",
            "resume succeeded spec.paused false",
        ]
    );
}

#[tokio::test]
async fn a_failed_node_is_not_paused_with_upstreams_reason() {
    let ns = TestNamespace::new("pause-failed").await;
    let state = tempfile::tempdir().expect("tempdir");
    node_reported_running(&ns, "gone-0", IMAGE).await;
    ns.seinodes()
        .patch_status(
            "gone-0",
            &PatchParams::default(),
            &Patch::Merge(&json!({"status": {"phase": "Failed"}})),
        )
        .await
        .expect("status");
    let refused = console(&["pause", "gone-0", "-n", &ns.name, "--yes"], state.path()).await;
    assert!(!refused.ok, "{refused:?}");
    assert!(
        refused.stderr.contains(&format!(
            "{}/gone-0 is Failed: spec.paused has no effect on nodes in PhaseFailed; delete \
             and recreate to recover from a failed node; nothing was changed",
            ns.name
        )),
        "{refused:?}"
    );
    assert_eq!(paused(&ns, "gone-0").await, None);
    assert!(recorded(&ns, "gone-0").await.is_empty());
}

#[tokio::test]
async fn pause_and_resume_from_the_console_with_z_and_shift_z() {
    let (ns, mut console, journal, _state) = console_on_a_running_node("console-pause").await;
    console.key(Key::char('z'));
    // Nothing to fill: enter previews.
    console.key(Key::plain(KeyCode::Enter));
    let preview = console.preview().await;
    assert!(
        preview
            .text
            .contains("StatefulSet full-0 scales to 0 replicas"),
        "{}",
        preview.text
    );
    assert!(
        preview.text.contains("~ spec.replicas: 1 -> 0"),
        "{}",
        preview.text
    );
    assert!(preview.permissions.allowed(), "{:?}", preview.permissions);
    assert_eq!(preview.blocked, None);
    assert_eq!(
        preview.question,
        "pause full-0 (its pod full-0-0 terminates)?"
    );
    console.key(Key::plain(KeyCode::Enter));
    assert!(matches!(
        console.model.action.as_ref().map(|f| &f.stage),
        Some(Stage::Confirm { .. })
    ));
    console.key(Key::char('y'));
    let (end, lines) = console.finished("the pause to finish").await;
    assert!(end.ok, "{end:?} {lines:#?}");
    assert!(end.message.contains("paused: pod full-0-0 gone"), "{end:?}");
    assert_eq!(replicas(&ns, "full-0").await, Some(0));

    // Paused: `z` again says so and offers nothing to confirm.
    console.key(Key::plain(KeyCode::Esc));
    console.key(Key::char('z'));
    console.key(Key::plain(KeyCode::Enter));
    let again = console.preview().await;
    assert_eq!(
        again.blocked.as_deref(),
        Some(
            format!(
                "{}/full-0 is already paused: nothing to do; nothing was changed",
                ns.name
            )
            .as_str()
        )
    );
    console.key(Key::plain(KeyCode::Esc));

    console.key(Key::char('Z'));
    console.key(Key::plain(KeyCode::Enter));
    let preview = console.preview().await;
    assert!(
        preview.text.contains("~ spec.replicas: 0 -> 1"),
        "{}",
        preview.text
    );
    console.key(Key::plain(KeyCode::Enter));
    console.key(Key::char('y'));
    let (end, lines) = console.finished("the resume to finish").await;
    assert!(end.ok, "{end:?} {lines:#?}");
    assert!(
        end.message
            .contains("resumed: pod full-0-0 Running and Ready"),
        "{end:?}"
    );
    let outcomes: Vec<String> = journal
        .read()
        .expect("journal")
        .entries
        .iter()
        .filter(|e| e.action == "pause" || e.action == "resume")
        .map(|e| format!("{} {}", e.action.name(), e.outcome.name()))
        .collect();
    assert_eq!(
        outcomes,
        [
            "pause started",
            "pause succeeded",
            "resume started",
            "resume succeeded"
        ]
    );
}
