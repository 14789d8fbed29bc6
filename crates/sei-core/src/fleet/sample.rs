//! Sample SeiNodes, Events, StatefulSets and Pods built from their JSON shapes, for tests,
//! snapshot screens and the benchmarks (which need large, realistic fleets).
use jiff::Timestamp;
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Event, Pod};
use serde_json::{Value, json};

use crate::api::{NodeMode, SeiNode};

/// The instant sample objects are relative to (snapshot tests use it as the fixed clock).
pub fn now() -> Timestamp {
    "2026-11-30T04:00:00Z".parse().expect("valid timestamp")
}

/// `now` minus `seconds`, as an RFC 3339 string.
pub fn ago(seconds: i64) -> String {
    now()
        .checked_sub(jiff::SignedDuration::from_secs(seconds))
        .expect("in range")
        .to_string()
}

pub const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
pub const OLD_IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.2.1";
pub const SIDECAR_IMAGE: &str = "ghcr.io/sei-protocol/seictl:v0.9.0";

fn mode_spec(mode: NodeMode, name: &str) -> (&'static str, Value) {
    match mode {
        NodeMode::Full => ("fullNode", json!({})),
        NodeMode::Archive => ("archive", json!({})),
        NodeMode::Replayer => (
            "replayer",
            json!({"snapshot": {"s3": {"targetHeight": 1000}}}),
        ),
        NodeMode::Validator => ("validator", json!({})),
        NodeMode::Seed => (
            "seed",
            json!({"nodeKey": {"secret": {"secretName": format!("{name}-node-key")}}}),
        ),
    }
}

/// A SeiNode with only a spec (as just applied), created `age_seconds` before `now`.
pub fn node(namespace: &str, name: &str, mode: NodeMode, age_seconds: i64) -> SeiNode {
    let (field, sub) = mode_spec(mode, name);
    let mut spec = json!({"chainId": "pacific-1", "image": IMAGE});
    spec[field] = sub;
    if mode == NodeMode::Replayer {
        spec["peers"] = json!([{"static": {"addresses": ["abc@peer.example:26656"]}}]);
    }
    serde_json::from_value(json!({
        "apiVersion": "sei.io/v1alpha1",
        "kind": "SeiNode",
        "metadata": {
            "namespace": namespace, "name": name,
            "uid": format!("uid-{namespace}-{name}"),
            "creationTimestamp": ago(age_seconds),
            "generation": 1,
        },
        "spec": spec,
    }))
    .expect("sample SeiNode decodes")
}

/// Merges `patch` into the node's JSON (a JSON merge patch, enough for samples).
pub fn patched(node: SeiNode, patch: Value) -> SeiNode {
    let mut value = serde_json::to_value(&node).expect("SeiNode encodes");
    merge(&mut value, patch);
    serde_json::from_value(value).expect("patched SeiNode decodes")
}

fn merge(target: &mut Value, patch: Value) {
    match (target, patch) {
        (Value::Object(target), Value::Object(patch)) => {
            for (key, value) in patch {
                if value.is_null() {
                    target.remove(&key);
                } else {
                    merge(target.entry(key).or_insert(Value::Null), value);
                }
            }
        }
        (target, patch) => *target = patch,
    }
}

pub fn condition(kind: &str, status: &str, reason: &str, message: &str, age_seconds: i64) -> Value {
    json!({
        "type": kind, "status": status, "reason": reason, "message": message,
        "lastTransitionTime": ago(age_seconds), "observedGeneration": 1,
    })
}

/// The init plan task order of a full node (spec/planner.md 4.1).
pub const FULL_INIT_TASKS: [&str; 7] = [
    "ensure-data-pvc",
    "apply-statefulset",
    "apply-service",
    "configure-genesis",
    "config-apply",
    "config-validate",
    "mark-ready",
];

/// The image-update plan of a Running full node (spec/planner.md 4.2).
pub const UPDATE_TASKS: [&str; 7] = [
    "apply-statefulset",
    "apply-service",
    "config-patch",
    "config-validate",
    "replace-pod",
    "observe-image",
    "mark-ready",
];

/// A plan over `kinds` with the first `done` tasks Complete. When `failed` is set, task `done`
/// failed after exhausting its retries and the plan is Failed.
pub fn plan(kinds: &[&str], done: usize, failed: Option<&str>) -> Value {
    let tasks: Vec<Value> = kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| {
            let mut task = json!({
                "type": kind,
                "id": format!("00000000-0000-5000-8000-{i:012}"),
                "status": "Pending",
                "maxRetries": 3,
                "params": {"note": "sample"},
            });
            if i < done {
                task["status"] = json!("Complete");
                task["submittedAt"] = json!(ago(600 - 60 * i as i64));
            } else if i == done {
                task["submittedAt"] = json!(ago(95));
                if let Some(error) = failed {
                    task["status"] = json!("Failed");
                    task["error"] = json!(error);
                    task["retryCount"] = json!(3);
                } else {
                    task["retryCount"] = json!(1);
                }
            }
            task
        })
        .collect();
    let mut plan = json!({
        "id": "6f1c2d3e-0000-4000-8000-000000000001",
        "phase": if failed.is_some() { "Failed" } else if done >= kinds.len() { "Complete" } else { "Active" },
        "tasks": tasks,
        "targetPhase": "Running",
        "failedPhase": "Failed",
    });
    if let Some(error) = failed {
        plan["failedTaskIndex"] = json!(done);
        plan["failedTaskDetail"] = json!({
            "type": kinds[done], "id": format!("00000000-0000-5000-8000-{done:012}"),
            "error": error, "retryCount": 3, "maxRetries": 3,
        });
    }
    plan
}

/// A Running, in-sync node with healthy conditions.
pub fn running(node: SeiNode) -> SeiNode {
    let image = node.spec.image.clone();
    patched(
        node,
        json!({"status": {
            "phase": "Running",
            "currentImage": image,
            "currentSidecarImage": SIDECAR_IMAGE,
            "conditions": [
                condition("SidecarReady", "True", "Ready", "sidecar returned 200", 3000),
                condition("Paused", "False", "NotPaused", "spec.paused is unset or false", 7200),
            ],
        }}),
    )
}

/// An Event about `node` (core/v1, as the controller's recorder writes it).
pub fn event(
    node: &SeiNode,
    warning: bool,
    reason: &str,
    message: &str,
    count: i32,
    age_seconds: i64,
) -> Event {
    let name = node.metadata.name.clone().unwrap_or_default();
    event_about(
        "SeiNode",
        &name,
        node.metadata.namespace.as_deref().unwrap_or(""),
        warning,
        reason,
        message,
        count,
        age_seconds,
    )
}

/// An Event about any object.
#[allow(
    clippy::too_many_arguments,
    reason = "a test fixture spelling out every field of the Event it builds"
)]
pub fn event_about(
    kind: &str,
    name: &str,
    namespace: &str,
    warning: bool,
    reason: &str,
    message: &str,
    count: i32,
    age_seconds: i64,
) -> Event {
    serde_json::from_value(json!({
        "metadata": {"namespace": namespace, "name": format!("{name}.{}", reason.to_lowercase())},
        "involvedObject": {"kind": kind, "name": name, "namespace": namespace},
        "type": if warning { "Warning" } else { "Normal" },
        "reason": reason,
        "message": message,
        "count": count,
        "firstTimestamp": ago(age_seconds + 600),
        "lastTimestamp": ago(age_seconds),
        "source": {"component": "seinode-controller"},
    }))
    .expect("sample Event decodes")
}

/// The StatefulSet the controller renders for `name`.
pub fn statefulset(
    namespace: &str,
    name: &str,
    ready: i32,
    current: &str,
    update: &str,
) -> StatefulSet {
    serde_json::from_value(json!({
        "metadata": {"namespace": namespace, "name": name},
        "spec": {
            "replicas": 1, "serviceName": name,
            "selector": {"matchLabels": {"sei.io/node": name}},
            "template": {"metadata": {"labels": {"sei.io/node": name}}, "spec": {"containers": []}},
        },
        "status": {"replicas": 1, "readyReplicas": ready, "currentRevision": current, "updateRevision": update},
    }))
    .expect("sample StatefulSet decodes")
}

/// The node's pod `<name>-0` with seid and sidecar containers.
pub fn pod(namespace: &str, name: &str, ready: bool, restarts: i32, revision: &str) -> Pod {
    serde_json::from_value(json!({
        "metadata": {
            "namespace": namespace, "name": format!("{name}-0"),
            "labels": {"sei.io/node": name, "controller-revision-hash": revision},
        },
        "spec": {"containers": [
            {"name": "seid", "image": IMAGE},
            {"name": "sei-sidecar", "image": SIDECAR_IMAGE},
        ]},
        "status": {
            "phase": "Running",
            "containerStatuses": [
                {"name": "seid", "image": IMAGE, "imageID": "", "ready": ready, "restartCount": restarts},
                {"name": "sei-sidecar", "image": SIDECAR_IMAGE, "imageID": "", "ready": true, "restartCount": 0},
            ],
        },
    }))
    .expect("sample Pod decodes")
}

/// What the real kube-scheduler says of a pod that asks for a node pool no Node has.
pub const UNSCHEDULABLE: &str = "0/1 nodes are available: 1 node(s) didn't match Pod's node \
     affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for \
     scheduling.";

/// A Warning event of the pod `<node>-0` (pod uid `pod_uid`), `count` times, last `seen_ago`
/// seconds before `now`.
pub fn pod_warning(
    namespace: &str,
    node: &str,
    pod_uid: &str,
    reason: &str,
    message: &str,
    count: i32,
    seen_ago: i64,
) -> Event {
    serde_json::from_value(json!({
        "metadata": {"namespace": namespace, "name": format!("{node}-0.{reason}"),
                     "creationTimestamp": ago(seen_ago + 60),
                     "labels": {"noise": "dropped"}},
        "involvedObject": {"kind": "Pod", "namespace": namespace, "name": format!("{node}-0"),
                           "uid": pod_uid},
        "type": "Warning", "reason": reason, "message": message, "count": count,
        "lastTimestamp": ago(seen_ago), "source": {"component": "default-scheduler"},
    }))
    .expect("sample Event decodes")
}

/// The pod `<node>-0` (uid `uid`) as the scheduler left it: Pending and Unschedulable, or
/// scheduled onto a Node, Running and Ready since `ready_ago` seconds before `now`.
pub fn scheduling_pod(namespace: &str, node: &str, uid: &str, ready_ago: Option<i64>) -> Pod {
    let (spec, status) = match ready_ago {
        None => (
            json!({"containers": [{"name": "seid", "image": IMAGE}]}),
            json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                   "reason": "Unschedulable", "lastTransitionTime": ago(600)}]}),
        ),
        Some(at) => (
            json!({"nodeName": "kwok-node-0", "containers": [{"name": "seid", "image": IMAGE}]}),
            json!({"phase": "Running", "conditions": [
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": ago(at + 5)},
                {"type": "Ready", "status": "True", "lastTransitionTime": ago(at)}]}),
        ),
    };
    serde_json::from_value(json!({
        "metadata": {"namespace": namespace, "name": format!("{node}-0"), "uid": uid,
                     "creationTimestamp": ago(900), "labels": {"sei.io/node": node}},
        "spec": spec, "status": status,
    }))
    .expect("sample Pod decodes")
}

/// The demo fleet the snapshot screens show: every mode, every kind of trouble.
pub fn demo_fleet() -> (Vec<SeiNode>, Vec<Event>) {
    let ns = "sei";
    let rpc = running(node(ns, "rpc-0", NodeMode::Full, 9 * 86_400));
    let archive = running(node(ns, "archive-0", NodeMode::Archive, 20 * 86_400));
    let updating = patched(
        running(node(ns, "rpc-1", NodeMode::Full, 3 * 86_400)),
        json!({"spec": {"image": "ghcr.io/sei-protocol/sei:v6.4.0"},
        "status": {"plan": plan(&UPDATE_TASKS, 4, None), "conditions": [
            condition("SidecarReady", "True", "Ready", "sidecar returned 200", 3000),
            condition("NodeUpdateInProgress", "True", "UpdateStarted", "image drift: spec ghcr.io/sei-protocol/sei:v6.4.0, current ghcr.io/sei-protocol/sei:v6.3.0", 400),
        ]}}),
    );
    let failed = patched(
        node(ns, "validator-0", NodeMode::Validator, 2 * 3600),
        json!({"status": {"phase": "Failed", "plan": plan(&FULL_INIT_TASKS, 5, Some("config-validate: seid config is invalid: p2p.laddr is empty"))}}),
    );
    let initializing = patched(
        node(ns, "replayer-0", NodeMode::Replayer, 900),
        json!({"status": {"phase": "Initializing", "plan": plan(&FULL_INIT_TASKS, 2, None), "conditions": [
            condition("StateSyncReady", "False", "NoSyncersConfigured", "state sync requires >=2 canonical syncers configured for chain \"pacific-1\"; found 0", 800),
        ]}}),
    );
    let seed = node(ns, "seed-0", NodeMode::Seed, 300);
    let seed = patched(
        seed,
        json!({"spec": {"externalAddress": "seed-0.sei.example:26656"}}),
    );
    let events = vec![
        event(
            &seed,
            true,
            "StatefulSetRenderFailed",
            "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file",
            4,
            40,
        ),
        event(
            &failed,
            true,
            "NodeFailed",
            "SeiNode is in Failed state. Delete and recreate the resource to retry.",
            12,
            20,
        ),
        event(
            &rpc,
            false,
            "PhaseTransition",
            "Phase changed from Initializing to Running",
            1,
            8 * 86_400,
        ),
    ];
    (
        vec![rpc, archive, updating, failed, initializing, seed],
        events,
    )
}

/// `n` nodes spread over namespaces, modes and states, for the benchmarks.
pub fn large_fleet(n: usize) -> Vec<SeiNode> {
    (0..n).map(large_fleet_node).collect()
}

/// Node `i` of [`large_fleet`], built on its own so a benchmark can feed nodes one at a time.
pub fn large_fleet_node(i: usize) -> SeiNode {
    let modes = NodeMode::ALL;
    let ns = format!("chain-{}", i % 20);
    let base = node(
        &ns,
        &format!("node-{i:05}"),
        modes[i % modes.len()],
        (i as i64 % 5000) * 60,
    );
    match i % 10 {
        0 => patched(
            running(base),
            json!({"status": {"plan": plan(&UPDATE_TASKS, i % 7, None)}}),
        ),
        1 => patched(
            base,
            json!({"status": {"phase": "Initializing", "plan": plan(&FULL_INIT_TASKS, i % 7, None)}}),
        ),
        2 => patched(
            base,
            json!({"status": {"phase": "Failed", "plan": plan(&FULL_INIT_TASKS, 3, Some("task failed"))}}),
        ),
        _ => running(base),
    }
}
