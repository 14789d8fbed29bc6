//! Observed state of a SeiNode (api/v1alpha1/seinode_types.go, `SeiNodeStatus`).
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use serde::{Deserialize, Serialize};

use super::{ConditionType, TaskPlan, UnknownFields};

/// `SeiNodePhase`. A new node has no phase (`None`); the controller never writes `Pending`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    Pending,
    Initializing,
    Running,
    Failed,
    Terminating,
}

impl Phase {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Pending => "Pending",
            Phase::Initializing => "Initializing",
            Phase::Running => "Running",
            Phase::Failed => "Failed",
            Phase::Terminating => "Terminating",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Observed state of a SeiNode. Every field is optional and omitted when unset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeiNodeStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<Phase>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_sidecar_image: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<TaskPlan>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adopted_workflow: Option<AdoptedWorkflowRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_peers: Option<Vec<String>>,
    /// Deprecated upstream and never written; kept for fidelity (note the capital `RPC`).
    #[serde(
        default,
        rename = "resolvedRPCWitnesses",
        skip_serializing_if = "Option::is_none"
    )]
    pub resolved_rpc_witnesses: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_state_syncers: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stateful_set: Option<StatefulSetRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<NodeEndpointStatus>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

impl SeiNodeStatus {
    /// `currentImage`, or `""` ("not yet observed").
    pub fn current_image(&self) -> &str {
        self.current_image.as_deref().unwrap_or("")
    }

    /// `currentSidecarImage`, or `""` ("not yet observed").
    pub fn current_sidecar_image(&self) -> &str {
        self.current_sidecar_image.as_deref().unwrap_or("")
    }

    /// `resolvedPeers`, or an empty slice.
    pub fn resolved_peers(&self) -> &[String] {
        self.resolved_peers.as_deref().unwrap_or(&[])
    }

    /// `resolvedStateSyncers`, or an empty slice.
    pub fn resolved_state_syncers(&self) -> &[String] {
        self.resolved_state_syncers.as_deref().unwrap_or(&[])
    }

    /// `conditions`, or an empty slice.
    pub fn conditions(&self) -> &[Condition] {
        self.conditions.as_deref().unwrap_or(&[])
    }

    /// The condition of type `kind`, if present.
    pub fn condition(&self, kind: ConditionType) -> Option<&Condition> {
        super::find_condition(self.conditions(), kind)
    }
}

/// A workflow that has adopted this node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdoptedWorkflowRef {
    pub name: String,
    pub uid: String,
    pub adopted_at: Time,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// The StatefulSet the controller manages for this node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StatefulSetRef {
    pub name: String,
    pub uid: String,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Service endpoints, set only for Running full and archive nodes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeEndpointStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evm_json_rpc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evm_ws: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tendermint_rpc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tendermint_rest: Option<String>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}
