//! Mode sub-specs (api/v1alpha1/{full_node,archive,replayer,validator,seed}_types.go).
use serde::{Deserialize, Serialize};

use super::{ResultExportConfig, SnapshotGenerationConfig, SnapshotSource, UnknownFields};

/// Operator key name used when `operatorKeyring.secret.keyName` is empty.
pub const DEFAULT_OPERATOR_KEY_NAME: &str = "node_admin";
/// Key name used by genesis-ceremony gentx when no operator keyring is configured.
pub const GENTX_OPERATOR_KEY_NAME: &str = "validator";

/// A chain-following full node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FullNodeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_generation: Option<SnapshotGenerationConfig>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// An archive node. It has no snapshot source and never bootstraps.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArchiveSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_generation: Option<SnapshotGenerationConfig>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// A replayer: restores a snapshot and replays blocks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplayerSpec {
    pub snapshot: SnapshotSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_export: Option<ResultExportConfig>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// A seed node: its node key is required because its NodeID is published.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedSpec {
    pub node_key: NodeKeySource,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// A validator.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genesis_ceremony: Option<GenesisCeremonyNodeConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_key: Option<SigningKeySource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_key: Option<NodeKeySource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator_keyring: Option<OperatorKeyringSource>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

impl ValidatorSpec {
    /// `signingKey.secret.secretName`, or `""` when any level is unset.
    pub fn signing_key_secret_name(&self) -> &str {
        self.signing_key
            .as_ref()
            .and_then(|key| key.secret.as_ref())
            .map_or("", |secret| secret.secret_name.as_str())
    }

    /// `nodeKey.secret.secretName`, or `""` when any level is unset.
    pub fn node_key_secret_name(&self) -> &str {
        self.node_key
            .as_ref()
            .and_then(|key| key.secret.as_ref())
            .map_or("", |secret| secret.secret_name.as_str())
    }

    /// `operatorKeyring.secret`, when set.
    pub fn operator_keyring_secret(&self) -> Option<&SecretOperatorKeyringSource> {
        self.operator_keyring
            .as_ref()
            .and_then(|keyring| keyring.secret.as_ref())
    }
}

/// A Secret referenced by name (`{secretName}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretNameRef {
    pub secret_name: String,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Upstream `SecretSigningKeySource`.
pub type SecretSigningKeySource = SecretNameRef;
/// Upstream `SecretNodeKeySource`.
pub type SecretNodeKeySource = SecretNameRef;

/// Where the validator signing key lives.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SigningKeySource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<SecretSigningKeySource>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Where the Tendermint node key lives.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeKeySource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<SecretNodeKeySource>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Where the operator keyring lives.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OperatorKeyringSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<SecretOperatorKeyringSource>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Operator keyring data Secret plus its passphrase Secret.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretOperatorKeyringSource {
    pub secret_name: String,
    /// CRD default `node_admin`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_name: Option<String>,
    pub passphrase_secret_ref: PassphraseSecretRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seid_mount: Option<bool>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

impl SecretOperatorKeyringSource {
    /// `keyName`, or `node_admin` when empty (`ResolveOperatorKeyringUID`).
    pub fn effective_key_name(&self) -> &str {
        match self.key_name.as_deref() {
            None | Some("") => DEFAULT_OPERATOR_KEY_NAME,
            Some(name) => name,
        }
    }
}

/// A key inside a Secret.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PassphraseSecretRef {
    pub secret_name: String,
    pub key: String,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Genesis ceremony settings (set by the SeiNetwork controller).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenesisCeremonyNodeConfig {
    pub chain_id: String,
    pub staking_amount: String,
    pub account_balance: String,
    pub index: i32,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}
