//! Every upstream sample, and a node with every status field, round-trips losslessly.
use serde_json::{Value, json};

use super::*;

const SAMPLES: &[(&str, &str)] = &[
    (
        "pacific-1-full-node",
        include_str!("../../../../assets/samples/pacific-1-full-node.yaml"),
    ),
    (
        "pacific-1-shadow-replayer",
        include_str!("../../../../assets/samples/pacific-1-shadow-replayer.yaml"),
    ),
    (
        "pacific-1-snapshotter",
        include_str!("../../../../assets/samples/pacific-1-snapshotter.yaml"),
    ),
    (
        "pacific-1-state-syncer",
        include_str!("../../../../assets/samples/pacific-1-state-syncer.yaml"),
    ),
];

fn assert_lossless(name: &str, original: Value) {
    let node: SeiNode = serde_json::from_value(original.clone()).expect(name);
    let written = serde_json::to_value(&node).expect(name);
    assert_eq!(written, original, "{name} did not round-trip");
}

#[test]
fn every_upstream_sample_round_trips_losslessly() {
    for (name, yaml) in SAMPLES {
        let original: Value = serde_yaml_ng::from_str(yaml).expect(name);
        assert_lossless(name, original.clone());
        // Through YAML too.
        let node: SeiNode = serde_yaml_ng::from_str(yaml).expect(name);
        let again: Value =
            serde_yaml_ng::from_str(&serde_yaml_ng::to_string(&node).expect(name)).expect(name);
        assert_eq!(again, original, "{name} did not round-trip through YAML");
    }
}

#[test]
fn samples_have_the_expected_modes() {
    let modes: Vec<NodeMode> = SAMPLES
        .iter()
        .map(|(name, yaml)| {
            let node: SeiNode = serde_yaml_ng::from_str(yaml).expect(name);
            node.spec.mode().expect(name)
        })
        .collect();
    assert_eq!(
        modes,
        [
            NodeMode::Full,
            NodeMode::Replayer,
            NodeMode::Archive,
            NodeMode::Full
        ]
    );
}

#[test]
fn unknown_fields_are_preserved_and_reported() {
    // The state-syncer sample carries spec.genesis and spec.storage, which the CRD lacks.
    let yaml = SAMPLES[3].1;
    let node: SeiNode = serde_yaml_ng::from_str(yaml).expect("parse");
    assert!(node.spec.unknown.contains_key("genesis"));
    assert!(node.spec.unknown.contains_key("storage"));
    let value = serde_json::to_value(&node).expect("ser");
    assert_eq!(
        schema::unknown_field_paths(&value).expect("schema"),
        vec!["spec.genesis".to_owned(), "spec.storage".to_owned()]
    );
    let clean: Value = serde_yaml_ng::from_str(SAMPLES[0].1).expect("parse");
    assert!(
        schema::unknown_field_paths(&clean)
            .expect("schema")
            .is_empty()
    );
}

#[test]
fn node_with_full_status_and_foreign_plan_round_trips() {
    let original = json!({
        "apiVersion": "sei.io/v1alpha1",
        "kind": "SeiNode",
        "metadata": {"name": "v-0", "namespace": "ns", "generation": 4, "x-extra": null},
        "spec": {"chainId": "c", "image": "img", "paused": false, "externalAddress": "",
                 "validator": {"signingKey": {"secret": {"secretName": "sk"}},
                               "nodeKey": {"secret": {"secretName": "nk"}}},
                 "sidecar": {"port": 7777, "resources": {"limits": {"cpu": "1"}}}},
        "status": {
            "phase": "Running",
            "currentImage": "img",
            "currentSidecarImage": "",
            "phaseTransitionTime": "2024-05-01T12:00:00Z",
            "conditions": [{"type": "SidecarReady", "status": "True", "reason": "Ready",
                            "message": "sidecar returned 200", "observedGeneration": 4,
                            "lastTransitionTime": "2024-05-01T12:00:00Z"}],
            "resolvedPeers": ["a@h:26656"],
            "resolvedRPCWitnesses": [],
            "resolvedStateSyncers": ["h1:26657", "h2:26657"],
            "statefulSet": {"name": "v-0", "uid": "u"},
            "adoptedWorkflow": {"name": "w", "uid": "u2", "adoptedAt": "2024-05-01T12:00:00Z"},
            "endpoint": {"evmJsonRpc": "http://v-0.ns.svc:8545"},
            "plan": {
                "id": "p", "phase": "Failed", "targetPhase": "Running",
                "failedTaskIndex": 0,
                "failedTaskDetail": {"type": "future-task", "id": "t", "error": "boom",
                                     "retryCount": 1, "maxRetries": 2},
                "futurePlanField": {"x": 1},
                "tasks": [
                    {"type": "future-task", "id": "t", "status": "Failed", "error": "boom",
                     "params": null, "retryCount": 1, "maxRetries": 2,
                     "submittedAt": "2024-05-01T12:00:01Z"},
                    {"type": "configure-state-sync", "id": "t2", "status": "Pending",
                     "params": {"UseLocalSnapshot": true, "TrustPeriod": "", "BackfillBlocks": 0, "RpcServers": null}}
                ]
            }
        }
    });
    // metadata is k8s-openapi's ObjectMeta, which does not keep unknown keys.
    let mut expected = original.clone();
    expected["metadata"]
        .as_object_mut()
        .expect("meta")
        .remove("x-extra");
    let node: SeiNode = serde_json::from_value(original).expect("parse");
    assert_eq!(serde_json::to_value(&node).expect("ser"), expected);
    let plan = node
        .status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .expect("plan");
    assert_eq!(plan.tasks[0].kind, TaskKind::Unknown("future-task".into()));
    assert_eq!(plan.unknown.get("futurePlanField"), Some(&json!({"x": 1})));
}
