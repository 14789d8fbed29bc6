//! The skeleton the three validate-* tasks share (upstream helpers in validate_signing_key.go):
//! fetch the Secret in the node's namespace, classify failures, and write the readiness condition
//! with the Validated / NotReady / Invalid reasons (`conclude`, every validator's `Execute`).
//! [`KeyFile`] is the whole check of one Tendermint key file in a Secret, which the node-key and
//! signing-key tasks each describe in a constant.
use jiff::Timestamp;
use k8s_openapi::api::core::v1::Secret;

use super::api_calls::{ApiCall, CallObject};
use super::{Cached, ExecuteError, TaskEnv, go_quote, set_node_condition};
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

/// Maps a check result onto the node condition, the task's state (Complete once the check
/// passed) and the Execute result: every Secret validator's `Execute`.
pub(crate) fn conclude(
    state: &mut Cached,
    node: &mut SeiNode,
    reasons: &ConditionReasons,
    result: Result<String, Check>,
    now: Timestamp,
) -> Result<(), ExecuteError> {
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
            *state = Cached::Complete;
            Ok(())
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
            Ok(())
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

/// One Tendermint key file in a Secret, as `validate-node-key` and `validate-signing-key` check
/// it: upstream's two `validate` bodies differ only in these words and the shape check.
pub(crate) struct KeyFile {
    /// The task, as its empty-params message names it (`validate-node-key`).
    pub task: &'static str,
    /// The Secret's data key holding the file.
    pub data_key: &'static str,
    /// What the file is, in the bad-shape message (`Tendermint node key`).
    pub what: &'static str,
    /// The rules, as the success message names them (`node-key`).
    pub rules: &'static str,
    /// The presence checks on the file's JSON.
    pub check_shape: fn(&[u8]) -> Result<(), KeyShapeError>,
}

impl KeyFile {
    /// Reads the Secret `name` in the node's namespace and checks the key file in it.
    pub(crate) async fn validate(
        &self,
        env: &TaskEnv<'_>,
        node: &SeiNode,
        name: &str,
    ) -> Result<String, Check> {
        if name.is_empty() {
            return Err(Check::Invalid(format!(
                "{}: secretName is empty",
                self.task
            )));
        }
        let secret = fetch_secret(env.cluster, node.namespace(), name).await?;
        let data = secret_data(&secret, self.data_key)
            .filter(|bytes| !bytes.is_empty())
            .ok_or_else(|| {
                Check::Invalid(format!(
                    "secret {} missing required data key {}",
                    go_quote(name),
                    go_quote(self.data_key)
                ))
            })?;
        (self.check_shape)(data).map_err(|inner| {
            Check::Invalid(format!(
                "secret {} data key {} is not a valid {}: {inner}",
                go_quote(name),
                go_quote(self.data_key),
                self.what
            ))
        })?;
        Ok(format!(
            "Secret {} passes all {} validation rules",
            go_quote(name),
            self.rules
        ))
    }
}

/// Go's `time.Time.String()`-like rendering is not reproducible exactly; RFC 3339 is close enough
/// for a human and stable for tests.
pub(crate) fn go_time(ts: Timestamp) -> String {
    ts.to_string()
}
