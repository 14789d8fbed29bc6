//! The console-action record on the SeiNode (`sei.io/console-actions`) against the real API
//! server, through the CLI as an operator runs it: a rollout, an address change and a seed
//! create each leave their entry on the node (who as the Console Event names them, what, when,
//! the plan), `describe` prints it, a sixth action keeps five, someone else's garbage is replaced
//! with a warning while the action goes on, and a dry run or a refused action writes nothing.

use k8s_openapi::api::core::v1::Event;
use kube::api::{ListParams, Patch, PatchParams};
use sei_console::fleet::console_actions::{ANNOTATION, ConsoleAction, Recorded, append, parse};
use serde_json::json;

use crate::common::TestNamespace;
use crate::common::console::{cli, node_reported_running};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The node's record as the API server holds it; `None` without the annotation.
async fn record(ns: &TestNamespace, name: &str) -> Option<Vec<ConsoleAction>> {
    let node = ns.seinodes().get(name).await.expect("get SeiNode");
    let value = node.metadata.annotations?.get(ANNOTATION)?.clone();
    match parse(&value) {
        Recorded::Actions { actions, dropped } => {
            assert_eq!(dropped, 0, "{value}");
            Some(actions)
        }
        Recorded::Unreadable(why) => panic!("unreadable record: {why}"),
    }
}

/// `(operator, what)` of the Console Event with `reason` on the node.
async fn console_event(ns: &TestNamespace, reason: &str) -> (String, String) {
    let events = ns
        .api::<Event>()
        .list(&ListParams::default())
        .await
        .expect("events");
    let message = events
        .items
        .iter()
        .find(|e| e.reason.as_deref() == Some(reason))
        .and_then(|e| e.message.clone())
        .expect("Console Event");
    let (by, what) = message
        .split_once(" via sei-console: ")
        .expect("operator via sei-console: what");
    (by.to_owned(), what.to_owned())
}

async fn set_annotations(ns: &TestNamespace, name: &str, annotations: serde_json::Value) {
    let patch = json!({"metadata": {"annotations": annotations}});
    ns.seinodes()
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("annotate");
}

fn rollout(
    ns: &TestNamespace,
    node: &str,
    extra: &[&str],
    state: &std::path::Path,
) -> std::process::Output {
    let mut args = vec![
        "rollout",
        "--no-health-gate",
        node,
        "-n",
        &ns.name,
        "--image",
        NEW,
    ];
    args.extend_from_slice(extra);
    cli(&args, state)
}

#[tokio::test]
async fn a_rollout_records_its_entry_on_the_node_and_describe_prints_it() {
    let ns = TestNamespace::new("record-rollout").await;
    node_reported_running(&ns, "rpc-0", OLD).await;
    let state = tempfile::tempdir().expect("tempdir");

    let dry = rollout(&ns, "rpc-0", &["--dry-run"], state.path());
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    assert_eq!(record(&ns, "rpc-0").await, None, "a dry run writes nothing");

    let out = rollout(&ns, "rpc-0", &["--yes", "--no-wait"], state.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let node = ns.seinodes().get("rpc-0").await.expect("get");
    assert_eq!(node.data["spec"]["image"], NEW);
    let plan_id = node.data["status"]["plan"]["id"]
        .as_str()
        .expect("plan persisted")
        .to_owned();
    let actions = record(&ns, "rpc-0").await.expect("recorded");
    assert_eq!(actions.len(), 1, "{actions:?}");
    let entry = &actions[0];
    let (by, what) = console_event(&ns, "ConsoleImageRollout").await;
    assert_eq!(entry.by, by, "the operator as the Console Event names them");
    assert_eq!(entry.detail, what);
    assert_eq!(entry.detail, format!("image {OLD} -> {NEW}"));
    assert_eq!(entry.action, "rollout");
    assert_eq!(entry.plan.as_deref(), Some(plan_id.as_str()));
    let age = jiff::Timestamp::now().as_second() - entry.at.as_second();
    assert!((0..120).contains(&age), "recorded {age}s ago");

    // An address change now is refused (the update plan is Active): nothing is recorded.
    let refused = cli(
        &[
            "address",
            "rpc-0",
            "-n",
            &ns.name,
            "--external-address",
            "203.0.113.7:26656",
            "--yes",
        ],
        state.path(),
    );
    assert!(!refused.status.success(), "{}", text(&refused.stdout));
    assert!(
        text(&refused.stderr).contains("nothing was changed"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(record(&ns, "rpc-0").await.map(|a| a.len()), Some(1));

    let described = cli(&["describe", "rpc-0", "-n", &ns.name], state.path());
    assert!(described.status.success(), "{}", text(&described.stderr));
    let stdout = text(&described.stdout);
    let section = stdout
        .split("Console actions (sei.io/console-actions):\n")
        .nth(1)
        .expect("describe has the section");
    let first = section.lines().next().unwrap_or_default();
    assert!(
        first.contains(&format!(
            " ago {by} rollout image {OLD} -> {NEW} (plan {plan_id})"
        )),
        "{stdout}"
    );
    let json = cli(
        &["describe", "rpc-0", "-n", &ns.name, "-o", "json"],
        state.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(
        json["consoleActions"]["actions"][0]["plan"],
        plan_id.as_str()
    );
}

#[tokio::test]
async fn an_address_change_appends_and_a_sixth_action_keeps_five() {
    let ns = TestNamespace::new("record-address").await;
    node_reported_running(&ns, "rpc-0", OLD).await;
    let state = tempfile::tempdir().expect("tempdir");
    // Five earlier actions by a colleague, and an annotation of someone else's.
    let mut value: Option<String> = None;
    for n in 0..5 {
        let earlier = ConsoleAction {
            at: jiff::Timestamp::from_second(1_796_000_000 + n).expect("time"),
            by: "bob (context prod)".into(),
            action: "rollout".into(),
            detail: format!("image a:v{n} -> a:v{}", n + 1),
            plan: None,
        };
        value = Some(append(value.as_deref(), &earlier).value);
    }
    set_annotations(
        &ns,
        "rpc-0",
        json!({ANNOTATION: value, "team": "validators"}),
    )
    .await;

    let dry = cli(
        &[
            "address",
            "rpc-0",
            "-n",
            &ns.name,
            "--external-address",
            "203.0.113.7:26656",
            "--dry-run",
        ],
        state.path(),
    );
    assert!(dry.status.success(), "{}", text(&dry.stderr));
    assert_eq!(record(&ns, "rpc-0").await.map(|a| a.len()), Some(5));

    let out = cli(
        &[
            "address",
            "rpc-0",
            "-n",
            &ns.name,
            "--external-address",
            "203.0.113.7:26656",
            "--yes",
            "--no-wait",
        ],
        state.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let actions = record(&ns, "rpc-0").await.expect("recorded");
    let details: Vec<&str> = actions.iter().map(|a| a.detail.as_str()).collect();
    assert_eq!(
        details,
        [
            "image a:v1 -> a:v2",
            "image a:v2 -> a:v3",
            "image a:v3 -> a:v4",
            "image a:v4 -> a:v5",
            "external address (unset) -> 203.0.113.7:26656",
        ],
        "the oldest fell off, the newest is last"
    );
    let node = ns.seinodes().get("rpc-0").await.expect("get");
    assert_eq!(node.data["spec"]["externalAddress"], "203.0.113.7:26656");
    assert_eq!(
        actions[4].plan.as_deref(),
        node.data["status"]["plan"]["id"].as_str()
    );
    assert_eq!(
        node.metadata.annotations.expect("annotations").get("team"),
        Some(&"validators".to_owned()),
        "other annotations untouched"
    );
    let (by, what) = console_event(&ns, "ConsoleExternalAddress").await;
    assert_eq!(
        (actions[4].by.as_str(), actions[4].detail.as_str()),
        (by.as_str(), what.as_str())
    );
}

#[tokio::test]
async fn someone_elses_garbage_is_replaced_with_a_warning_and_the_rollout_goes_on() {
    let ns = TestNamespace::new("record-garbage").await;
    node_reported_running(&ns, "rpc-0", OLD).await;
    set_annotations(
        &ns,
        "rpc-0",
        json!({ANNOTATION: "{\"hand\": \"edited\"", "team": "x"}),
    )
    .await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = rollout(&ns, "rpc-0", &["--yes", "--no-wait"], state.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    let warnings: Vec<&str> = said.lines().filter(|l| l.contains(ANNOTATION)).collect();
    assert_eq!(warnings.len(), 1, "{said}");
    assert!(
        warnings[0].contains("was replaced: not a console action list: '{\"hand\": \"edited\"'")
            && warnings[0].contains("nothing but that value was lost"),
        "{said}"
    );
    let actions = record(&ns, "rpc-0").await.expect("recorded");
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].detail, format!("image {OLD} -> {NEW}"));
}

#[tokio::test]
async fn a_created_seed_carries_its_entry_from_the_start() {
    let ns = TestNamespace::new("record-seed").await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = cli(
        &[
            "seed",
            "create",
            "seed-0",
            "-n",
            &ns.name,
            "--chain-id",
            "pacific-1",
            "--image",
            OLD,
            "--yes",
            "--no-wait",
            "-o",
            "json",
        ],
        state.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let last: serde_json::Value =
        serde_json::from_str(stdout.lines().last().expect("result line")).expect("json");
    let node_id = last["nodeId"].as_str().expect("nodeId");
    let actions = record(&ns, "seed-0").await.expect("recorded at create");
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].action, "seed-create");
    assert_eq!(
        actions[0].detail,
        format!("seed created with NodeID {node_id} (Secret seed-0-node-key)")
    );
    assert_eq!(actions[0].plan, None, "--no-wait: the controller plans");
    let (by, _) = console_event(&ns, "ConsoleSeedCreate").await;
    assert_eq!(actions[0].by, by);
}
