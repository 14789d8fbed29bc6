//! Stored `params` per task type, exactly as Go's `json.Marshal` writes them
//! (`paramsForTaskType`, spec/planner.md 2.11).
//!
//! Controller task params have camelCase keys. seictl sidecar task structs have no JSON tags,
//! so their stored keys are the Go field names in TitleCase (`TargetHeight`); the sidecar wire
//! request uses camelCase instead. Go reads keys case-insensitively, so every struct here also
//! accepts the camelCase spelling when read back.
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::{SeiNode, SnapshotSource, TaskKind};

/// `{nodeName, namespace}`: ensure-data-pvc, apply-statefulset, apply-service,
/// apply-rbac-proxy-config, replace-pod, observe-image. Informational only: those tasks act on
/// the node being reconciled.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeRefParams {
    #[serde(default, alias = "NodeName")]
    pub node_name: String,
    #[serde(default, alias = "Namespace")]
    pub namespace: String,
}

/// `{secretName, namespace}`: validate-signing-key and validate-node-key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretRefParams {
    #[serde(default, alias = "SecretName")]
    pub secret_name: String,
    #[serde(default, alias = "Namespace")]
    pub namespace: String,
}

/// validate-operator-keyring.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidateOperatorKeyringParams {
    #[serde(default, alias = "SecretName")]
    pub secret_name: String,
    #[serde(default, alias = "KeyName")]
    pub key_name: String,
    #[serde(default, alias = "PassphraseSecretName")]
    pub passphrase_secret_name: String,
    #[serde(default, alias = "PassphraseSecretKey")]
    pub passphrase_secret_key: String,
    #[serde(default, alias = "Namespace")]
    pub namespace: String,
}

/// deploy-bootstrap-service.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployBootstrapServiceParams {
    #[serde(default, alias = "ServiceName")]
    pub service_name: String,
    #[serde(default, alias = "Namespace")]
    pub namespace: String,
}

/// deploy-bootstrap-job and await-bootstrap-complete.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BootstrapJobParams {
    #[serde(default, alias = "JobName")]
    pub job_name: String,
    #[serde(default, alias = "Namespace")]
    pub namespace: String,
}

/// teardown-bootstrap.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeardownBootstrapParams {
    #[serde(default, alias = "JobName")]
    pub job_name: String,
    #[serde(default, alias = "ServiceName")]
    pub service_name: String,
    #[serde(default, alias = "Namespace")]
    pub namespace: String,
}

/// snapshot-restore (seictl `SnapshotRestoreTask`, TitleCase).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotRestoreParams {
    #[serde(rename = "TargetHeight", alias = "targetHeight", default)]
    pub target_height: i64,
}

/// configure-genesis (seictl `ConfigureGenesisTask`, TitleCase).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigureGenesisParams {
    #[serde(rename = "ExpectedGenesisHash", alias = "expectedGenesisHash", default)]
    pub expected_genesis_hash: String,
}

/// configure-state-sync (seictl `ConfigureStateSyncTask`, TitleCase). `RpcServers` is `null`
/// when the node has no resolved syncers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigureStateSyncParams {
    #[serde(rename = "UseLocalSnapshot", alias = "useLocalSnapshot", default)]
    pub use_local_snapshot: bool,
    #[serde(rename = "TrustPeriod", alias = "trustPeriod", default)]
    pub trust_period: String,
    #[serde(rename = "BackfillBlocks", alias = "backfillBlocks", default)]
    pub backfill_blocks: i64,
    #[serde(rename = "RpcServers", alias = "rpcServers", default)]
    pub rpc_servers: Option<Vec<String>>,
}

/// generate-identity (TitleCase).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerateIdentityParams {
    #[serde(rename = "ChainID", alias = "chainId", default)]
    pub chain_id: String,
    #[serde(rename = "Moniker", alias = "moniker", default)]
    pub moniker: String,
}

/// generate-gentx (TitleCase).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerateGentxParams {
    #[serde(rename = "ChainID", alias = "chainId", default)]
    pub chain_id: String,
    #[serde(rename = "StakingAmount", alias = "stakingAmount", default)]
    pub staking_amount: String,
    #[serde(rename = "AccountBalance", alias = "accountBalance", default)]
    pub account_balance: String,
}

/// upload-genesis-artifacts (TitleCase).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UploadGenesisArtifactsParams {
    #[serde(rename = "NodeName", alias = "nodeName", default)]
    pub node_name: String,
}

/// config-apply: sei-config's flat `ConfigIntent`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigIntent {
    #[serde(default, alias = "Mode")]
    pub mode: String,
    /// Dotted sei-config keys; Go writes map keys sorted.
    #[serde(
        default,
        alias = "Overrides",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub overrides: BTreeMap<String, String>,
    #[serde(default, alias = "TargetVersion", skip_serializing_if = "is_zero")]
    pub target_version: i64,
    #[serde(default, alias = "Incremental", skip_serializing_if = "is_false")]
    pub incremental: bool,
}

/// config-patch: `{"files": {"<file>": {<nested TOML table as JSON>}}}` (lowercase `files`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfigPatchParams {
    #[serde(default, alias = "Files")]
    pub files: BTreeMap<String, Value>,
}

fn is_zero(value: &i64) -> bool {
    *value == 0
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn to_value<T: Serialize>(params: &T) -> Value {
    // Serializing these plain structs into a Value cannot fail (string keys, no floats).
    serde_json::to_value(params).unwrap_or(Value::Null)
}

/// `{"nodeName","namespace"}`, built directly: it is in every plan, several times.
fn node_ref(node: &SeiNode) -> Value {
    let mut map = serde_json::Map::with_capacity(2);
    map.insert("nodeName".to_owned(), Value::String(node.name().to_owned()));
    map.insert(
        "namespace".to_owned(),
        Value::String(node.namespace().to_owned()),
    );
    Value::Object(map)
}

/// Upstream `paramsForTaskType`: the stored params of `kind` for `node`. `snap` is the snapshot
/// argument of the progression being built (not necessarily the spec's); `intent` feeds
/// config-apply. Types without params, and predicates that do not hold, give JSON `null`.
pub fn params_for_task(
    node: &SeiNode,
    kind: &TaskKind,
    snap: Option<&SnapshotSource>,
    intent: Option<&ConfigIntent>,
) -> Value {
    match kind {
        TaskKind::EnsureDataPvc
        | TaskKind::ApplyStatefulSet
        | TaskKind::ApplyService
        | TaskKind::ApplyRbacProxyConfig
        | TaskKind::ReplacePod
        | TaskKind::ObserveImage => node_ref(node),
        TaskKind::ValidateSigningKey => validate_signing_key_params(node),
        TaskKind::ValidateNodeKey => validate_node_key_params(node),
        TaskKind::ValidateOperatorKeyring => validate_operator_keyring_params(node),
        TaskKind::SnapshotRestore => to_value(&SnapshotRestoreParams {
            target_height: snap.and_then(SnapshotSource::s3_target_height).unwrap_or(0),
        }),
        TaskKind::ConfigureGenesis => to_value(&ConfigureGenesisParams::default()),
        TaskKind::ConfigApply => match intent {
            Some(intent) => to_value(intent),
            None => to_value(&ConfigIntent::default()),
        },
        TaskKind::ConfigureStateSync => to_value(&configure_state_sync_params(node)),
        TaskKind::ConfigValidate | TaskKind::MarkReady => Value::Object(serde_json::Map::new()),
        TaskKind::GenerateIdentity
        | TaskKind::GenerateGentx
        | TaskKind::UploadGenesisArtifacts
        | TaskKind::SetGenesisPeers => genesis_ceremony_params(node, kind),
        _ => Value::Null,
    }
}

/// Upstream `paramsForUpdateTask`: config-patch carries `patch`; everything else as
/// [`params_for_task`] with no snapshot and no intent.
pub fn params_for_update_task(node: &SeiNode, kind: &TaskKind, patch: &ConfigPatchParams) -> Value {
    if *kind == TaskKind::ConfigPatch {
        to_value(patch)
    } else {
        params_for_task(node, kind, None, None)
    }
}

fn validate_signing_key_params(node: &SeiNode) -> Value {
    if !super::needs_validate_signing_key(node) {
        return Value::Null;
    }
    let secret_name = node
        .spec
        .validator
        .as_ref()
        .map_or("", |v| v.signing_key_secret_name());
    to_value(&SecretRefParams {
        secret_name: secret_name.to_owned(),
        namespace: node.namespace().to_owned(),
    })
}

fn validate_node_key_params(node: &SeiNode) -> Value {
    if !super::needs_validate_node_key(node) {
        return Value::Null;
    }
    to_value(&SecretRefParams {
        secret_name: node.spec.node_key_secret_name().to_owned(),
        namespace: node.namespace().to_owned(),
    })
}

fn validate_operator_keyring_params(node: &SeiNode) -> Value {
    if !super::needs_validate_operator_keyring(node) {
        return Value::Null;
    }
    let Some(secret) = node
        .spec
        .validator
        .as_ref()
        .and_then(|v| v.operator_keyring_secret())
    else {
        return Value::Null;
    };
    to_value(&ValidateOperatorKeyringParams {
        secret_name: secret.secret_name.clone(),
        key_name: secret.effective_key_name().to_owned(),
        passphrase_secret_name: secret.passphrase_secret_ref.secret_name.clone(),
        passphrase_secret_key: secret.passphrase_secret_ref.key.clone(),
        namespace: node.namespace().to_owned(),
    })
}

/// Upstream `configureStateSyncTask`: built from the spec's snapshot source (not the
/// progression's argument) and `status.resolvedStateSyncers`, snapshotted at build time.
pub fn configure_state_sync_params(node: &SeiNode) -> ConfigureStateSyncParams {
    let snap = node.spec.snapshot_source();
    ConfigureStateSyncParams {
        use_local_snapshot: snap.is_some_and(|s| s.s3.is_some()),
        trust_period: snap.map_or("", SnapshotSource::trust_period).to_owned(),
        backfill_blocks: snap.map_or(0, SnapshotSource::backfill_blocks),
        rpc_servers: node
            .status
            .as_ref()
            .and_then(|s| s.resolved_state_syncers.clone()),
    }
}

fn genesis_ceremony_params(node: &SeiNode, kind: &TaskKind) -> Value {
    let Some(ceremony) = node
        .spec
        .validator
        .as_ref()
        .and_then(|v| v.genesis_ceremony.as_ref())
    else {
        return Value::Null;
    };
    match kind {
        TaskKind::GenerateIdentity => to_value(&GenerateIdentityParams {
            chain_id: ceremony.chain_id.clone(),
            moniker: node.name().to_owned(),
        }),
        TaskKind::GenerateGentx => to_value(&GenerateGentxParams {
            chain_id: ceremony.chain_id.clone(),
            staking_amount: ceremony.staking_amount.clone(),
            account_balance: ceremony.account_balance.clone(),
        }),
        TaskKind::UploadGenesisArtifacts => to_value(&UploadGenesisArtifactsParams {
            node_name: node.name().to_owned(),
        }),
        TaskKind::SetGenesisPeers => Value::Object(serde_json::Map::new()),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quirk_seictl_params_are_stored_title_case() {
        assert_eq!(
            to_value(&SnapshotRestoreParams { target_height: 7 }),
            json!({"TargetHeight": 7})
        );
        assert_eq!(
            to_value(&ConfigureGenesisParams::default()),
            json!({"ExpectedGenesisHash": ""})
        );
        assert_eq!(
            serde_json::to_string(&ConfigureStateSyncParams::default()).expect("ser"),
            r#"{"UseLocalSnapshot":false,"TrustPeriod":"","BackfillBlocks":0,"RpcServers":null}"#
        );
        assert_eq!(
            serde_json::to_string(&GenerateGentxParams::default()).expect("ser"),
            r#"{"ChainID":"","StakingAmount":"","AccountBalance":""}"#
        );
    }

    #[test]
    fn quirk_params_read_back_case_insensitively() {
        let title: SnapshotRestoreParams =
            serde_json::from_value(json!({"TargetHeight": 5})).expect("title");
        let camel: SnapshotRestoreParams =
            serde_json::from_value(json!({"targetHeight": 5})).expect("camel");
        assert_eq!(title, camel);
        let css: ConfigureStateSyncParams =
            serde_json::from_value(json!({"rpcServers": ["a:1"], "UseLocalSnapshot": true}))
                .expect("css");
        assert_eq!(css.rpc_servers, Some(vec!["a:1".to_owned()]));
        assert!(css.use_local_snapshot);
    }

    #[test]
    fn config_intent_omits_zero_version_and_incremental() {
        let intent = ConfigIntent {
            mode: "full".into(),
            overrides: BTreeMap::from([
                ("network.p2p.persistent_peers".to_owned(), String::new()),
                ("logging.level".to_owned(), "error".to_owned()),
            ]),
            ..ConfigIntent::default()
        };
        assert_eq!(
            serde_json::to_string(&intent).expect("ser"),
            r#"{"mode":"full","overrides":{"logging.level":"error","network.p2p.persistent_peers":""}}"#
        );
        assert_eq!(
            serde_json::to_string(&ConfigIntent::default()).expect("ser"),
            r#"{"mode":""}"#
        );
    }

    #[test]
    fn config_patch_uses_lowercase_files_key() {
        let patch = ConfigPatchParams {
            files: BTreeMap::from([("config.toml".to_owned(), json!({}))]),
        };
        assert_eq!(to_value(&patch), json!({"files": {"config.toml": {}}}));
    }
}
