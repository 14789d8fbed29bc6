//! The demo fleet in assets/demo/ (SeiNodes, their statuses, their events) passes the real API
//! server's validation of the upstream CRD, and covers what the demo promises.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::Event;
use kube::api::{DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::Value;

use crate::common::{TestNamespace, repo_path};

/// The demo's "@t-N" placeholders, as the demo script fills them (N seconds ago, RFC 3339).
fn with_times(text: &str) -> String {
    let now = jiff::Timestamp::now();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\"@t-") {
        out.push_str(&rest[..at + 1]);
        let digits: String = rest[at + 4..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if digits.is_empty() {
            // Not a placeholder (for example "@t-N" in a comment).
            out.push_str("@t-");
            rest = &rest[at + 4..];
            continue;
        }
        let seconds: i64 = digits.parse().expect("seconds after @t-");
        let time = now - jiff::SignedDuration::from_secs(seconds);
        out.push_str(&time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
        rest = &rest[at + 4 + digits.len()..];
    }
    out.push_str(rest);
    out
}

fn yaml_documents(text: &str) -> Vec<Value> {
    serde_yaml_ng::Deserializer::from_str(text)
        .map(|document| {
            let value: serde_yaml_ng::Value =
                serde::Deserialize::deserialize(document).expect("YAML document");
            serde_json::to_value(value).expect("YAML as JSON")
        })
        .filter(|value| !value.is_null())
        .collect()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo_path(path)).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

#[tokio::test]
async fn demo_fleet_statuses_and_events_pass_the_real_api_server() {
    let ns = TestNamespace::new("demo-fleet").await;
    let seinodes = ns.seinodes();

    let mut names = Vec::new();
    for document in yaml_documents(&read("assets/demo/fleet.yaml")) {
        if document["kind"] != "SeiNode" {
            continue;
        }
        let mut object: DynamicObject = serde_json::from_value(document).expect("SeiNode");
        object.metadata.namespace = Some(ns.name.clone());
        let created = seinodes
            .create(&PostParams::default(), &object)
            .await
            .unwrap_or_else(|e| panic!("create {:?}: {e}", object.metadata.name));
        names.push(created.metadata.name.expect("name"));
    }
    let modes: BTreeSet<String> = seinodes
        .list(&ListParams::default())
        .await
        .expect("list")
        .items
        .iter()
        .filter_map(|n| n.data["spec"].as_object())
        .flat_map(|spec| {
            ["fullNode", "archive", "replayer", "validator", "seed"]
                .into_iter()
                .filter(|mode| spec.contains_key(*mode))
                .map(String::from)
        })
        .collect();
    assert_eq!(modes.len(), 5, "every mode is in the demo fleet: {modes:?}");

    let mut phases = BTreeSet::new();
    let mut condition_statuses = BTreeSet::new();
    let mut plan_phases = BTreeSet::new();
    for name in &names {
        let patch = yaml_documents(&with_times(&read(&format!(
            "assets/demo/status/{name}.yaml"
        ))));
        let updated = seinodes
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch[0]))
            .await
            .unwrap_or_else(|e| panic!("status of {name} rejected: {e}"));
        let status = &updated.data["status"];
        phases.insert(status["phase"].as_str().expect("phase").to_string());
        for condition in status["conditions"].as_array().into_iter().flatten() {
            condition_statuses.insert(condition["status"].as_str().expect("status").to_string());
        }
        if let Some(phase) = status["plan"]["phase"].as_str() {
            plan_phases.insert(phase.to_string());
        }
    }
    let expected = |items: &[&str]| items.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        phases,
        expected(&["Failed", "Initializing", "Pending", "Running"])
    );
    assert_eq!(condition_statuses, expected(&["False", "True", "Unknown"]));
    assert_eq!(plan_phases, expected(&["Active", "Failed"]));

    let events = ns.api::<Event>();
    for mut document in yaml_documents(&with_times(&read("assets/demo/events.yaml"))) {
        let involved = document["involvedObject"]["name"]
            .as_str()
            .expect("name")
            .to_string();
        let node = seinodes.get(&involved).await.expect("involved SeiNode");
        document["metadata"]["namespace"] = Value::from(ns.name.clone());
        document["involvedObject"]["namespace"] = Value::from(ns.name.clone());
        document["involvedObject"]["uid"] = Value::from(node.metadata.uid.expect("uid"));
        let event: Event = serde_json::from_value(document).expect("Event");
        events
            .create(&PostParams::default(), &event)
            .await
            .expect("create event");
    }
    let render_failed = events
        .list(&ListParams::default().fields("reason=StatefulSetRenderFailed"))
        .await
        .expect("list events");
    assert_eq!(render_failed.items.len(), 1);
    let event = &render_failed.items[0];
    assert_eq!(event.type_.as_deref(), Some("Warning"));
    assert!(
        event
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("Cannot render the StatefulSet: ")),
        "{event:?}"
    );
    let seed = seinodes
        .get(&event.involved_object.name.clone().expect("name"))
        .await
        .expect("seed");
    assert!(
        seed.data["spec"]["seed"].is_object(),
        "the render failure is on the seed"
    );
}
