//! Shared sub-types of the spec (api/v1alpha1/common_types.go).
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ResourceRequirements;
use serde::{Deserialize, Serialize};

use super::UnknownFields;

/// Where a node finds its peers: exactly one of the three sources (CRD rule).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PeerSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ec2_tags: Option<Ec2TagsPeerSource>,
    #[serde(default, rename = "static", skip_serializing_if = "Option::is_none")]
    pub static_: Option<StaticPeerSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<LabelPeerSource>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Peers discovered from EC2 instance tags.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ec2TagsPeerSource {
    pub region: String,
    pub tags: BTreeMap<String, String>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// A fixed list of `nodeId@host:port` addresses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StaticPeerSource {
    pub addresses: Vec<String>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Peers found by a label selector over SeiNodes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LabelPeerSource {
    pub selector: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// How a node obtains its initial state: exactly one of `s3` or `stateSync` (CRD rule).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotSource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s3: Option<S3SnapshotSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_sync: Option<StateSyncSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust_period: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc_servers: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backfill_blocks: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap_image: Option<String>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

impl SnapshotSource {
    /// `trustPeriod`, or `""` when unset (Go zero value).
    pub fn trust_period(&self) -> &str {
        self.trust_period.as_deref().unwrap_or("")
    }

    /// `backfillBlocks`, or 0 when unset.
    pub fn backfill_blocks(&self) -> i64 {
        self.backfill_blocks.unwrap_or(0)
    }

    /// `bootstrapImage`, or `""` when unset.
    pub fn bootstrap_image(&self) -> &str {
        self.bootstrap_image.as_deref().unwrap_or("")
    }

    /// `s3.targetHeight` when `s3` is set.
    pub fn s3_target_height(&self) -> Option<i64> {
        self.s3.as_ref().map(|s3| s3.target_height)
    }
}

/// Restore from an S3 snapshot at a height.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct S3SnapshotSource {
    pub target_height: i64,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Tendermint state sync (an empty object).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StateSyncSource {
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Snapshot production settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SnapshotGenerationConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tendermint: Option<TendermintSnapshotGenerationConfig>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Tendermint snapshot generation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TendermintSnapshotGenerationConfig {
    pub keep_recent: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish: Option<TendermintSnapshotPublishConfig>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Publish generated snapshots (an empty object).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TendermintSnapshotPublishConfig {
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Replayer result export.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultExportConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadow_result: Option<ShadowResultConfig>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Compare block results against a canonical RPC.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShadowResultConfig {
    pub canonical_rpc: String,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// The seictl sidecar container.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SidecarConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// CRD default 7777; absent here means "not written", the API server fills the default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// The data volume.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DataVolumeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<DataVolumeImport>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Import an existing PVC instead of creating one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataVolumeImport {
    pub pvc_name: String,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}
