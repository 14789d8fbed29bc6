//! Wire types of the seictl sidecar HTTP API (spec/sidecar.md sections 2-3), serde only.
//!
//! Shapes follow what the sidecar actually sends, not only its OpenAPI document: `TaskResult`
//! carries `run`, unknown fields are ignored, and optional fields are omitted when empty so a
//! re-encoded value is byte-compatible with the Go encoder's output.
use std::fmt;
use std::str::FromStr;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// Port of kube-rbac-proxy in front of every sidecar; the controller always calls this port.
pub const SIDECAR_PROXY_PORT: u16 = 8443;
/// The sidecar's own listen port when `spec.sidecar.port` is unset (loopback inside the pod).
pub const SIDECAR_DEFAULT_PORT: u16 = 7777;
/// Paths kube-rbac-proxy lets through without authentication.
pub const UNAUTHENTICATED_PATHS: [&str; 4] =
    ["/v0/healthz", "/v0/startupz", "/v0/livez", "/v0/metrics"];

/// Task type strings registered by the sidecar (`sidecar/wire/wire.go`, seictl).
///
/// A type this crate does not know survives a round trip as `Other`, so listing a newer
/// sidecar's tasks never fails to decode.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum SidecarTaskType {
    ConfigApply,
    ConfigPatch,
    ConfigValidate,
    ConfigReload,
    MarkReady,
    MarkNotReady,
    ConfigureGenesis,
    ConfigureStateSync,
    SnapshotRestore,
    RestartSeid,
    StopSeid,
    ResetData,
    AwaitCondition,
    GenerateIdentity,
    GenerateGentx,
    UploadGenesisArtifacts,
    AssembleAndUploadGenesis,
    SetGenesisPeers,
    GovVote,
    GovSoftwareUpgrade,
    GovParamChange,
    SnapshotUpload,
    SnapshotUploadOnce,
    ResultExport,
    EvmLogicalDigest,
    /// A type string this crate does not know (kept verbatim).
    Other(String),
}

impl SidecarTaskType {
    /// Every known type, in the order of spec/sidecar.md section 6.
    pub const KNOWN: [SidecarTaskType; 25] = [
        Self::ConfigApply,
        Self::ConfigPatch,
        Self::ConfigValidate,
        Self::ConfigReload,
        Self::MarkReady,
        Self::MarkNotReady,
        Self::ConfigureGenesis,
        Self::ConfigureStateSync,
        Self::SnapshotRestore,
        Self::RestartSeid,
        Self::StopSeid,
        Self::ResetData,
        Self::AwaitCondition,
        Self::GenerateIdentity,
        Self::GenerateGentx,
        Self::UploadGenesisArtifacts,
        Self::AssembleAndUploadGenesis,
        Self::SetGenesisPeers,
        Self::GovVote,
        Self::GovSoftwareUpgrade,
        Self::GovParamChange,
        Self::SnapshotUpload,
        Self::SnapshotUploadOnce,
        Self::ResultExport,
        Self::EvmLogicalDigest,
    ];

    /// The wire string, e.g. `config-patch`.
    pub fn as_str(&self) -> &str {
        match self {
            Self::ConfigApply => "config-apply",
            Self::ConfigPatch => "config-patch",
            Self::ConfigValidate => "config-validate",
            Self::ConfigReload => "config-reload",
            Self::MarkReady => "mark-ready",
            Self::MarkNotReady => "mark-not-ready",
            Self::ConfigureGenesis => "configure-genesis",
            Self::ConfigureStateSync => "configure-state-sync",
            Self::SnapshotRestore => "snapshot-restore",
            Self::RestartSeid => "restart-seid",
            Self::StopSeid => "stop-seid",
            Self::ResetData => "reset-data",
            Self::AwaitCondition => "await-condition",
            Self::GenerateIdentity => "generate-identity",
            Self::GenerateGentx => "generate-gentx",
            Self::UploadGenesisArtifacts => "upload-genesis-artifacts",
            Self::AssembleAndUploadGenesis => "assemble-and-upload-genesis",
            Self::SetGenesisPeers => "set-genesis-peers",
            Self::GovVote => "gov-vote",
            Self::GovSoftwareUpgrade => "gov-software-upgrade",
            Self::GovParamChange => "gov-param-change",
            Self::SnapshotUpload => "snapshot-upload",
            Self::SnapshotUploadOnce => "snapshot-upload-once",
            Self::ResultExport => "result-export",
            Self::EvmLogicalDigest => "evm-logical-digest",
            Self::Other(other) => other,
        }
    }

    /// Types the controller marks Complete right after a successful submit, never polling them.
    pub fn is_fire_and_forget(&self) -> bool {
        matches!(self, Self::MarkReady | Self::ConfigValidate)
    }
}

impl fmt::Display for SidecarTaskType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SidecarTaskType {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self::from(s.to_owned()))
    }
}

impl From<String> for SidecarTaskType {
    fn from(value: String) -> Self {
        match Self::KNOWN.iter().find(|known| known.as_str() == value) {
            Some(known) => known.clone(),
            None => Self::Other(value),
        }
    }
}

impl From<SidecarTaskType> for String {
    fn from(value: SidecarTaskType) -> Self {
        match value {
            SidecarTaskType::Other(other) => other,
            known => known.as_str().to_owned(),
        }
    }
}

/// Body of `POST /v0/tasks`.
///
/// `id` is typed as a UUID so only canonical lowercase hyphenated IDs are ever sent: the sidecar
/// compares IDs as literal strings (spec section 4.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    #[serde(rename = "type")]
    pub task_type: SidecarTaskType,
    /// Task-specific params, a JSON object; omitted when `None` (the controller sends no params
    /// for `mark-ready`, `config-validate` and the other parameterless types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
}

impl TaskRequest {
    /// A request with a caller-chosen ID, as the controller always sends.
    pub fn new(id: Uuid, task_type: SidecarTaskType, params: Option<Value>) -> Self {
        Self {
            id: Some(id),
            task_type,
            params,
        }
    }
}

/// Body of a `201`/`202` answer to `POST /v0/tasks`: the ID echoed byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskSubmitResponse {
    pub id: String,
}

/// Lifecycle state of a sidecar task. There is no pending or queued state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskStatus {
    Running,
    Completed,
    Failed,
    /// A status string this crate does not know; treated as not terminal.
    #[serde(other)]
    Unknown,
}

impl TaskStatus {
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed)
    }
}

/// Body of `GET /v0/tasks/{id}` and the elements of `GET /v0/tasks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskResult {
    /// The stored ID string (any string the sidecar accepted, not necessarily canonical).
    pub id: String,
    #[serde(rename = "type")]
    pub task_type: SidecarTaskType,
    pub status: TaskStatus,
    /// Run number, starting at 1; incremented each time a failed task is resubmitted.
    /// Not in the OpenAPI document, always sent by the sidecar.
    #[serde(default)]
    pub run: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    /// The handler's structured result; may be present on failed tasks too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub submitted_at: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<Timestamp>,
}

impl TaskResult {
    /// The failure message the controller records for a failed task (spec section 4.5).
    pub fn failure_message(&self) -> String {
        match self.error.as_deref() {
            Some(error) if !error.is_empty() => error.to_owned(),
            _ => format!("task {} failed with unknown error", self.id),
        }
    }
}

/// The sidecar's error body, `{"error": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorResponse {
    pub error: String,
}

/// Readiness as text, the same flag `/v0/healthz` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SidecarStatus {
    Initializing,
    Ready,
}

/// Body of `GET /v0/status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusResponse {
    pub status: SidecarStatus,
}

/// Body of `GET /v0/node-id` (not in the OpenAPI document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeIdResponse {
    #[serde(default)]
    pub node_id: String,
}

/// True when `node_id` looks like a CometBFT node ID: 40 lowercase hex characters.
pub fn is_valid_node_id(node_id: &str) -> bool {
    node_id.len() == 40
        && node_id
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn task_request_omits_missing_params_and_writes_lowercase_id() {
        let id = Uuid::parse_str("0B7C1D2E-0000-4000-8000-000000000001").expect("uuid");
        let request = TaskRequest::new(id, SidecarTaskType::MarkReady, None);
        assert_eq!(
            serde_json::to_value(&request).expect("encode"),
            json!({"id": "0b7c1d2e-0000-4000-8000-000000000001", "type": "mark-ready"})
        );
    }

    #[test]
    fn task_request_keeps_params_object() {
        let id = Uuid::nil();
        let params = json!({"files": {"config.toml": {"p2p": {"persistent-peers": ""}}}});
        let request = TaskRequest::new(id, SidecarTaskType::ConfigPatch, Some(params.clone()));
        let encoded = serde_json::to_value(&request).expect("encode");
        assert_eq!(encoded["type"], "config-patch");
        assert_eq!(encoded["params"], params);
    }

    #[test]
    fn task_result_decodes_sidecar_body_with_run_and_unknown_fields() {
        let body = r#"{"id":"a","type":"config-apply","status":"failed","run":2,
            "error":"config-apply: invalid mode \"x\"","submittedAt":"2026-08-05T10:00:00.5Z",
            "completedAt":"2026-08-05T10:00:01Z","futureField":1}"#;
        let result: TaskResult = serde_json::from_str(body).expect("decode");
        assert_eq!(result.task_type, SidecarTaskType::ConfigApply);
        assert_eq!(result.status, TaskStatus::Failed);
        assert_eq!(result.run, 2);
        assert!(result.completed_at.is_some());
        assert_eq!(result.failure_message(), "config-apply: invalid mode \"x\"");
    }

    #[test]
    fn task_result_roundtrip_omits_empty_optionals_and_keeps_timestamp_text() {
        let body = json!({"id":"a","type":"mark-ready","status":"running","run":1,
            "submittedAt":"2026-08-05T10:00:00.123456789Z"});
        let result: TaskResult = serde_json::from_value(body.clone()).expect("decode");
        assert_eq!(serde_json::to_value(&result).expect("encode"), body);
    }

    #[test]
    fn failed_task_without_error_gets_controller_message() {
        let body = json!({"id":"t1","type":"mark-ready","status":"failed","run":1,
            "submittedAt":"2026-08-05T10:00:00Z"});
        let result: TaskResult = serde_json::from_value(body).expect("decode");
        assert_eq!(
            result.failure_message(),
            "task t1 failed with unknown error"
        );
    }

    #[test]
    fn unknown_task_type_and_status_survive_decoding() {
        let body = json!({"id":"a","type":"brand-new","status":"queued","run":1,
            "submittedAt":"2026-08-05T10:00:00Z"});
        let result: TaskResult = serde_json::from_value(body).expect("decode");
        assert_eq!(result.task_type, SidecarTaskType::Other("brand-new".into()));
        assert_eq!(result.status, TaskStatus::Unknown);
        assert!(!result.status.is_terminal());
        assert_eq!(String::from(result.task_type), "brand-new");
    }

    #[test]
    fn every_known_type_roundtrips_through_its_wire_string() {
        for known in SidecarTaskType::KNOWN {
            let parsed: SidecarTaskType = known.as_str().parse().expect("infallible");
            assert_eq!(parsed, known);
        }
    }

    #[test]
    fn status_and_node_id_bodies() {
        let status: StatusResponse =
            serde_json::from_str(r#"{"status":"Initializing"}"#).expect("decode");
        assert_eq!(status.status, SidecarStatus::Initializing);
        let node: NodeIdResponse = serde_json::from_str(r#"{"nodeId":"ab"}"#).expect("decode");
        assert_eq!(node.node_id, "ab");
        assert!(is_valid_node_id(&"0123456789abcdef".repeat(3)[..40]));
        assert!(!is_valid_node_id(&"A".repeat(40)));
        assert!(!is_valid_node_id("abc"));
    }

    #[test]
    fn fire_and_forget_types_match_the_controller() {
        let fire_and_forget: Vec<_> = SidecarTaskType::KNOWN
            .into_iter()
            .filter(SidecarTaskType::is_fire_and_forget)
            .collect();
        assert_eq!(
            fire_and_forget,
            [SidecarTaskType::ConfigValidate, SidecarTaskType::MarkReady]
        );
    }
}
