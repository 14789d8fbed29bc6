//! The Rust model and the upstream CRD declare exactly the same property paths.
//!
//! `maximal_node` sets every field, written with exhaustive struct literals (no `..Default`),
//! so adding a field to a Rust type without adding it here does not compile.
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ResourceClaim, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use serde_json::{Value, json};

use super::*;

fn map(key: &str, value: &str) -> BTreeMap<String, String> {
    BTreeMap::from([(key.to_owned(), value.to_owned())])
}

fn none() -> UnknownFields {
    UnknownFields::new()
}

fn snapshot() -> SnapshotSource {
    SnapshotSource {
        s3: Some(S3SnapshotSource {
            target_height: 1,
            unknown: none(),
        }),
        state_sync: Some(StateSyncSource { unknown: none() }),
        trust_period: Some("1h".into()),
        rpc_servers: Some(vec!["h:1".into()]),
        backfill_blocks: Some(1),
        bootstrap_image: Some("b".into()),
        unknown: none(),
    }
}

fn snapshot_generation() -> SnapshotGenerationConfig {
    SnapshotGenerationConfig {
        tendermint: Some(TendermintSnapshotGenerationConfig {
            keep_recent: 2,
            publish: Some(TendermintSnapshotPublishConfig { unknown: none() }),
            unknown: none(),
        }),
        unknown: none(),
    }
}

fn secret(name: &str) -> SecretNameRef {
    SecretNameRef {
        secret_name: name.into(),
        unknown: none(),
    }
}

fn time() -> Time {
    Time(jiff::Timestamp::from_second(1_714_564_800).expect("time"))
}

fn maximal_spec() -> SeiNodeSpec {
    SeiNodeSpec {
        chain_id: "c".into(),
        image: "i".into(),
        peers: Some(vec![PeerSource {
            ec2_tags: Some(Ec2TagsPeerSource {
                region: "r".into(),
                tags: map("k", "v"),
                unknown: none(),
            }),
            static_: Some(StaticPeerSource {
                addresses: vec!["n@h:1".into()],
                unknown: none(),
            }),
            label: Some(LabelPeerSource {
                selector: map("k", "v"),
                namespace: Some("ns".into()),
                unknown: none(),
            }),
            unknown: none(),
        }]),
        overrides: Some(map("a.b", "c")),
        sidecar: Some(Box::new(SidecarConfig {
            image: Some("s".into()),
            port: Some(7777),
            resources: Some(ResourceRequirements {
                claims: Some(vec![ResourceClaim {
                    name: "c".into(),
                    request: Some("r".into()),
                }]),
                limits: Some(BTreeMap::from([("cpu".to_owned(), Quantity("1".into()))])),
                requests: Some(BTreeMap::from([("cpu".to_owned(), Quantity("1".into()))])),
            }),
            unknown: none(),
        })),
        pod_labels: Some(map("k", "v")),
        data_volume: Some(Box::new(DataVolumeSpec {
            import: Some(DataVolumeImport {
                pvc_name: "p".into(),
                unknown: none(),
            }),
            unknown: none(),
        })),
        full_node: Some(Box::new(FullNodeSpec {
            snapshot: Some(snapshot()),
            snapshot_generation: Some(snapshot_generation()),
            unknown: none(),
        })),
        archive: Some(Box::new(ArchiveSpec {
            snapshot_generation: Some(snapshot_generation()),
            unknown: none(),
        })),
        replayer: Some(Box::new(ReplayerSpec {
            snapshot: snapshot(),
            result_export: Some(ResultExportConfig {
                shadow_result: Some(ShadowResultConfig {
                    canonical_rpc: "u".into(),
                    unknown: none(),
                }),
                unknown: none(),
            }),
            unknown: none(),
        })),
        validator: Some(Box::new(ValidatorSpec {
            snapshot: Some(snapshot()),
            genesis_ceremony: Some(GenesisCeremonyNodeConfig {
                chain_id: "c".into(),
                staking_amount: "1".into(),
                account_balance: "2".into(),
                index: 0,
                unknown: none(),
            }),
            signing_key: Some(SigningKeySource {
                secret: Some(secret("sk")),
                unknown: none(),
            }),
            node_key: Some(NodeKeySource {
                secret: Some(secret("nk")),
                unknown: none(),
            }),
            operator_keyring: Some(OperatorKeyringSource {
                secret: Some(SecretOperatorKeyringSource {
                    secret_name: "opk".into(),
                    key_name: Some("node_admin".into()),
                    passphrase_secret_ref: PassphraseSecretRef {
                        secret_name: "pass".into(),
                        key: "k".into(),
                        unknown: none(),
                    },
                    seid_mount: Some(true),
                    unknown: none(),
                }),
                unknown: none(),
            }),
            unknown: none(),
        })),
        seed: Some(Box::new(SeedSpec {
            node_key: NodeKeySource {
                secret: Some(secret("seed")),
                unknown: none(),
            },
            unknown: none(),
        })),
        external_address: Some("h:26656".into()),
        paused: Some(true),
        unknown: none(),
    }
}

fn maximal_status() -> SeiNodeStatus {
    let task = PlannedTask {
        kind: TaskKind::MarkReady,
        id: "t".into(),
        status: TaskStatus::Failed,
        params: Some(Box::new(json!({}))),
        submitted_at: Some(time()),
        error: "e".into(),
        max_retries: 1,
        retry_count: 1,
        unknown: none(),
    };
    SeiNodeStatus {
        phase: Some(Phase::Running),
        current_image: Some("i".into()),
        current_sidecar_image: Some("s".into()),
        conditions: Some(vec![Condition {
            type_: "SidecarReady".into(),
            status: "True".into(),
            reason: "Ready".into(),
            message: "m".into(),
            observed_generation: Some(1),
            last_transition_time: time(),
        }]),
        phase_transition_time: Some(time()),
        plan: Some(TaskPlan {
            id: "p".into(),
            phase: PlanPhase::Failed,
            tasks: vec![task],
            target_phase: Some(Phase::Running),
            failed_phase: Some(Phase::Failed),
            failed_task_index: Some(0),
            failed_task_detail: Some(FailedTaskInfo {
                kind: TaskKind::MarkReady,
                id: "t".into(),
                error: "e".into(),
                retry_count: 1,
                max_retries: 1,
                unknown: none(),
            }),
            unknown: none(),
        }),
        adopted_workflow: Some(AdoptedWorkflowRef {
            name: "w".into(),
            uid: "u".into(),
            adopted_at: time(),
            unknown: none(),
        }),
        resolved_peers: Some(vec!["n@h:1".into()]),
        resolved_rpc_witnesses: Some(vec!["h:1".into()]),
        resolved_state_syncers: Some(vec!["h:1".into()]),
        stateful_set: Some(StatefulSetRef {
            name: "n".into(),
            uid: "u".into(),
            unknown: none(),
        }),
        endpoint: Some(NodeEndpointStatus {
            evm_json_rpc: Some("a".into()),
            evm_ws: Some("b".into()),
            tendermint_rpc: Some("c".into()),
            tendermint_rest: Some("d".into()),
            unknown: none(),
        }),
        unknown: none(),
    }
}

fn maximal_node() -> SeiNode {
    SeiNode {
        api_version: API_VERSION.into(),
        kind: KIND.into(),
        metadata: ObjectMeta {
            name: Some("n".into()),
            ..ObjectMeta::default()
        },
        spec: maximal_spec(),
        status: Some(maximal_status()),
        unknown: none(),
    }
}

/// Every property path the schema declares; `[]` stands for array items. Maps and
/// preserve-unknown-fields nodes end a path.
fn schema_paths(schema: &Value, path: &str, out: &mut Vec<String>) {
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (key, child) in props {
            let child_path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            out.push(child_path.clone());
            schema_paths(child, &child_path, out);
        }
    }
    if let Some(items) = schema.get("items") {
        schema_paths(items, &format!("{path}[]"), out);
    }
}

fn value_has_path(value: &Value, path: &str) -> bool {
    let mut current = vec![value];
    for segment in path.split('.') {
        let (key, arrays) = match segment.find('[') {
            Some(at) => (&segment[..at], segment[at..].matches("[]").count()),
            None => (segment, 0),
        };
        let mut next: Vec<&Value> = current.iter().filter_map(|v| v.get(key)).collect();
        for _ in 0..arrays {
            next = next.iter().filter_map(|v| v.as_array()).flatten().collect();
        }
        if next.is_empty() {
            return false;
        }
        current = next;
    }
    true
}

#[test]
fn every_crd_property_has_a_rust_field() {
    let schema = schema::open_api_schema().expect("schema");
    let written = serde_json::to_value(maximal_node()).expect("serialize");
    let mut paths = Vec::new();
    schema_paths(schema, "", &mut paths);
    assert!(
        paths.len() > 100,
        "schema walk found only {} paths",
        paths.len()
    );
    let missing: Vec<&String> = paths
        .iter()
        .filter(|path| !path.starts_with("metadata.") && !value_has_path(&written, path))
        .collect();
    assert!(
        missing.is_empty(),
        "CRD properties without a Rust field: {missing:?}"
    );
}

#[test]
fn every_rust_field_is_a_crd_property() {
    let written = serde_json::to_value(maximal_node()).expect("serialize");
    let extra = schema::unknown_field_paths(&written).expect("schema");
    assert!(
        extra.is_empty(),
        "Rust fields the CRD does not declare: {extra:?}"
    );
}

#[test]
fn maximal_node_round_trips() {
    let written = serde_json::to_value(maximal_node()).expect("serialize");
    let back: SeiNode = serde_json::from_value(written.clone()).expect("parse");
    assert_eq!(back, maximal_node());
    assert_eq!(serde_json::to_value(back).expect("serialize"), written);
}
