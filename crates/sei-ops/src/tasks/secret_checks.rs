//! The skeleton the three validate-* tasks share (upstream helpers in validate_signing_key.go):
//! fetch the Secret in the node's namespace, classify failures, and write the readiness condition
//! with the Validated / NotReady / Invalid reasons.
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Secret;

use super::api_calls::{ApiCall, CallObject};
use super::{ExecuteError, go_quote, set_node_condition};
use crate::api::{ConditionStatus, ConditionType, Reason, SeiNode};
use crate::ports::{ClusterApi, ClusterObject, ObjectKind};

/// A validation failure before it is mapped to a condition and an Execute result.
pub(crate) enum Check {
    /// Wait: condition `…NotReady`, Execute returns nil.
    NotReady(String),
    /// Terminal: condition `…Invalid`, Execute returns the terminal error.
    Invalid(String),
}

/// Why a key file's JSON has not the shape upstream checks (presence only).
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeyShapeError {
    #[error("not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The fields missing, as upstream names them (`pub_key.type or pub_key.value`).
    #[error("missing {0}")]
    Missing(&'static str),
}

/// The Secret validators' one call: reading the Secret named in their params.
pub(crate) const API_CALLS: &[ApiCall] =
    &[ApiCall::new("get", "", "secrets", CallObject::InNamespace)];

/// The condition and its three reasons.
pub(crate) struct ConditionReasons {
    pub kind: ConditionType,
    pub validated: Reason,
    pub not_ready: Reason,
    pub invalid: Reason,
}

/// GET a Secret by name in `namespace` with the shared messages (NotFound, other, deleting).
pub(crate) async fn fetch_secret(
    cluster: &dyn ClusterApi,
    namespace: &str,
    name: &str,
) -> Result<Secret, Check> {
    match cluster.get(ObjectKind::Secret, namespace, name).await {
        Ok(Some(ClusterObject::Secret(secret))) => {
            if let Some(ts) = &secret.metadata.deletion_timestamp {
                return Err(Check::NotReady(format!(
                    "secret {} is being deleted (deletionTimestamp={})",
                    go_quote(name),
                    go_time(ts.0)
                )));
            }
            Ok(secret)
        }
        Ok(Some(_)) | Ok(None) => Err(Check::NotReady(format!(
            "secret {} not found in namespace {}",
            go_quote(name),
            go_quote(namespace)
        ))),
        Err(err) if err.is_not_found() => Err(Check::NotReady(format!(
            "secret {} not found in namespace {}",
            go_quote(name),
            go_quote(namespace)
        ))),
        Err(err) => Err(Check::NotReady(format!(
            "getting Secret {}: {err}",
            go_quote(name)
        ))),
    }
}

/// The bytes of a data key (`data`, falling back to `stringData` as the API server would merge).
pub(crate) fn secret_data<'a>(secret: &'a Secret, key: &str) -> Option<&'a [u8]> {
    secret
        .data
        .as_ref()
        .and_then(|data| data.get(key))
        .map(|bytes| bytes.0.as_slice())
        .or_else(|| {
            secret
                .string_data
                .as_ref()
                .and_then(|data| data.get(key))
                .map(|text| text.as_bytes())
        })
}

/// All data keys of a Secret.
pub(crate) fn secret_keys(secret: &Secret) -> Vec<&str> {
    let mut keys: Vec<&str> = secret
        .data
        .iter()
        .flat_map(|d| d.keys())
        .chain(secret.string_data.iter().flat_map(|d| d.keys()))
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Maps a check result onto the node condition and the Execute result.
pub(crate) fn conclude(
    node: &mut SeiNode,
    reasons: &ConditionReasons,
    result: Result<String, Check>,
    now: Timestamp,
) -> Result<bool, ExecuteError> {
    match result {
        Ok(message) => {
            set_node_condition(
                node,
                reasons.kind,
                ConditionStatus::True,
                reasons.validated,
                message,
                now,
            );
            Ok(true)
        }
        Err(Check::NotReady(message)) => {
            set_node_condition(
                node,
                reasons.kind,
                ConditionStatus::False,
                reasons.not_ready,
                message,
                now,
            );
            Ok(false)
        }
        Err(Check::Invalid(message)) => {
            set_node_condition(
                node,
                reasons.kind,
                ConditionStatus::False,
                reasons.invalid,
                message.clone(),
                now,
            );
            Err(ExecuteError::Terminal(message))
        }
    }
}

/// Go's `time.Time.String()`-like rendering is not reproducible exactly; RFC 3339 is close enough
/// for a human and stable for tests.
pub(crate) fn go_time(ts: Timestamp) -> String {
    ts.to_string()
}
