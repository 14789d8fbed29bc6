//! Events about a SeiNode, created through the API, can be listed and watched back.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Event;
use kube::Resource;
use kube::api::{DynamicObject, ListParams, PostParams, WatchEvent, WatchParams};
use serde_json::json;

use crate::common::{TestNamespace, seinode_resource};

fn event_about(seinode: &DynamicObject, name: &str, reason: &str, message: &str) -> Event {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "involvedObject": {
            "apiVersion": "sei.io/v1alpha1", "kind": "SeiNode",
            "name": seinode.metadata.name, "namespace": seinode.metadata.namespace,
            "uid": seinode.metadata.uid, "resourceVersion": seinode.metadata.resource_version
        },
        "type": "Warning",
        "reason": reason,
        "message": message,
        "source": {"component": "seinode-controller"},
        "firstTimestamp": "2026-11-30T03:00:00Z",
        "lastTimestamp": "2026-11-30T03:00:00Z",
        "count": 1
    }))
    .expect("event json")
}

#[tokio::test]
async fn an_event_on_a_seinode_is_listed_and_watched_back() {
    let ns = TestNamespace::new("events").await;
    let mut seed = DynamicObject::new("seed-0", &seinode_resource());
    seed.data = json!({"spec": {
        "chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0",
        "seed": {"nodeKey": {"secret": {"secretName": "seed-node-key"}}}
    }});
    let seed = ns
        .seinodes()
        .create(&PostParams::default(), &seed)
        .await
        .expect("create seed");
    let events = ns.api::<Event>();
    let selector = format!(
        "involvedObject.uid={}",
        seed.meta().uid.as_deref().expect("uid")
    );

    let first = event_about(
        &seed,
        "seed-0.render-1",
        "StatefulSetRenderFailed",
        "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file",
    );
    events
        .create(&PostParams::default(), &first)
        .await
        .expect("create event");
    let listed = events
        .list(&ListParams::default().fields(&selector))
        .await
        .expect("list events");
    assert_eq!(listed.items.len(), 1);
    assert_eq!(
        listed.items[0].reason.as_deref(),
        Some("StatefulSetRenderFailed")
    );
    assert_eq!(listed.items[0].type_.as_deref(), Some("Warning"));

    // Watch from the list's resourceVersion: the next event on the same object arrives.
    let version = listed
        .metadata
        .resource_version
        .expect("list resourceVersion");
    let mut stream = events
        .watch(
            &WatchParams::default().fields(&selector).timeout(30),
            &version,
        )
        .await
        .expect("start watch")
        .boxed();
    let second = event_about(
        &seed,
        "seed-0.render-2",
        "StatefulSetRenderFailed",
        "Cannot render the StatefulSet: applying statefulset: boom",
    );
    events
        .create(&PostParams::default(), &second)
        .await
        .expect("create second event");
    let received = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(item) = stream.next().await {
            match item.expect("watch item") {
                WatchEvent::Added(event) => return event,
                WatchEvent::Bookmark(_) => continue,
                other => panic!("unexpected watch event {other:?}"),
            }
        }
        panic!("watch ended before the event arrived");
    })
    .await
    .expect("the event arrives on the watch within 30 s");
    assert_eq!(received.metadata.name.as_deref(), Some("seed-0.render-2"));
    assert_eq!(
        received.message.as_deref(),
        Some("Cannot render the StatefulSet: applying statefulset: boom")
    );
}
