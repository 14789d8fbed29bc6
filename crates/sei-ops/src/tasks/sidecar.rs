//! Sidecar tasks (internal/task/sidecar.go, config.go, config_patch.go), spec section 4: the
//! stored params (Go field names, matched case-insensitively) become the seictl wire params,
//! client-side validation runs, and the task is POSTed with its deterministic ID on *every* step
//! while the planned task is `Pending` (the sidecar treats a repeated ID as idempotent); `Status`
//! polls `GET /v0/tasks/{id}`. Fire-and-forget types complete right after a successful submit.
use serde_json::{Map, Value};
use uuid::Uuid;

use super::api_calls::SidecarCall;
use super::{Cached, ExecuteError, Poll, TaskDecodeError, TaskEnv, go_quote, lowercase_keys};
use crate::api::sidecar::{SidecarTaskType, TaskRequest, TaskStatus as WireStatus};
use crate::api::{SeiNode, TaskKind};
use crate::ports::SidecarTarget;

/// sei-config modes a `config-apply` intent may name.
const INTENT_MODES: [&str; 4] = ["full", "validator", "seed", "archive"];

/// The sidecar calls of a sidecar task: the submit, then polling its result, except for the
/// fire-and-forget types, which complete on a successful submit.
pub fn sidecar_calls(kind: &TaskKind) -> &'static [SidecarCall] {
    if kind.is_fire_and_forget() {
        &[SidecarCall::SubmitTask]
    } else {
        &[SidecarCall::SubmitTask, SidecarCall::GetTask]
    }
}

#[derive(Debug, Clone)]
pub struct SidecarTask {
    pub kind: TaskKind,
    pub id: String,
    /// The wire `params` (None = omitted), or the client-side validation error.
    pub wire: Result<Option<Value>, InvalidParams>,
    pub(crate) state: Cached,
}

impl SidecarTask {
    /// Decodes stored params; only malformed JSON shapes fail here (as Go's `json.Unmarshal`).
    pub fn deserialize(
        kind: &TaskKind,
        id: &str,
        params: Option<&Value>,
    ) -> Result<Self, TaskDecodeError> {
        let invalid = |detail: String| TaskDecodeError::SidecarParams {
            id: id.to_owned(),
            detail,
        };
        let stored = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(map)) => match lowercase_keys(Value::Object(map.clone())) {
                Value::Object(map) => map,
                _ => Map::new(),
            },
            Some(other) => {
                return Err(invalid(format!(
                    "cannot unmarshal {} into params object",
                    json_kind(other)
                )));
            }
        };
        let wire = wire_params(kind, &stored).map_err(|e| invalid(e.to_string()))?;
        Ok(Self {
            kind: kind.clone(),
            id: id.to_owned(),
            wire,
            state: Cached::Running,
        })
    }

    fn target(node: &SeiNode) -> SidecarTarget {
        SidecarTarget::new(node.namespace(), node.name())
    }

    pub async fn execute(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
    ) -> Result<(), ExecuteError> {
        let id = Uuid::parse_str(&self.id).map_err(|err| {
            ExecuteError::Transient(format!("invalid task UUID {}: {err}", go_quote(&self.id)))
        })?;
        // Upstream marks the task Failed here but returns a plain error, so the executor never
        // sees the Failed status: an invalid task is retried forever, not failed.
        let params = match &self.wire {
            Ok(params) => params.clone(),
            Err(err) => {
                return Err(ExecuteError::Transient(format!(
                    "validating {}: {err}",
                    self.kind
                )));
            }
        };
        let request = TaskRequest::new(
            id,
            SidecarTaskType::from(self.kind.as_str().to_owned()),
            params,
        );
        env.sidecar
            .submit_task(&Self::target(node), &request)
            .await
            .map_err(|err| ExecuteError::Transient(format!("submitting {}: {err}", self.kind)))?;
        self.state = if self.kind.is_fire_and_forget() {
            Cached::Complete
        } else {
            Cached::Running
        };
        Ok(())
    }

    pub async fn status(&mut self, env: &TaskEnv<'_>, node: &SeiNode) -> Poll {
        if self.state != Cached::Running {
            return self.state.poll();
        }
        let id = match Uuid::parse_str(&self.id) {
            Ok(id) => id,
            Err(err) => {
                return Poll::Failed(format!("invalid task UUID {}: {err}", go_quote(&self.id)));
            }
        };
        match env.sidecar.get_task(&Self::target(node), id).await {
            Ok(Some(result)) => match result.status {
                WireStatus::Completed => Poll::Complete,
                WireStatus::Failed => Poll::Failed(result.failure_message()),
                WireStatus::Running | WireStatus::Unknown => Poll::Running,
            },
            // 404 and transport errors alike: keep polling.
            Ok(None) | Err(_) => Poll::Running,
        }
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A stored param of another JSON type than the wire's, in Go's `json.Unmarshal` words: the
/// plan fails.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParamTypeError {
    #[error("json: cannot unmarshal {found} into {go_type} field {key}")]
    Field {
        found: &'static str,
        go_type: &'static str,
        key: &'static str,
    },
    #[error("json: cannot unmarshal number {number} into int field {key}")]
    Number { number: String, key: &'static str },
}

impl ParamTypeError {
    fn field(found: &Value, go_type: &'static str, key: &'static str) -> ParamTypeError {
        ParamTypeError::Field {
            found: json_kind(found),
            go_type,
            key,
        }
    }
}

/// Params the sidecar's client-side validation refuses: the task is retried (as upstream).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidParams {
    #[error("config-apply: invalid intent: invalid mode {}", go_quote(.0))]
    ConfigApplyMode(String),
    #[error("config-patch: at least one file is required")]
    ConfigPatchNoFiles,
    #[error("generate-identity: chainId and moniker are required")]
    GenerateIdentity,
    #[error("generate-gentx: chainId, stakingAmount and accountBalance are required")]
    GenerateGentx,
    #[error("upload-genesis-artifacts: nodeName is required")]
    UploadGenesisArtifacts,
    #[error("await-condition: height condition requires targetHeight > 0")]
    AwaitHeight,
    #[error("await-condition: unknown condition {}", go_quote(.0))]
    AwaitCondition(String),
}

fn get_str(map: &Map<String, Value>, key: &'static str) -> Result<String, ParamTypeError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(ParamTypeError::field(other, "string", key)),
    }
}

fn get_i64(map: &Map<String, Value>, key: &'static str) -> Result<i64, ParamTypeError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n.as_i64().ok_or_else(|| ParamTypeError::Number {
            number: n.to_string(),
            key,
        }),
        Some(other) => Err(ParamTypeError::field(other, "int", key)),
    }
}

fn get_bool(map: &Map<String, Value>, key: &'static str) -> Result<bool, ParamTypeError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(ParamTypeError::field(other, "bool", key)),
    }
}

/// Outer `Err` = deserialize failure (fails the plan); inner `Err` = client-side validation
/// failure (retried forever); inner `Ok(None)` = no params on the wire.
type Wire = Result<Result<Option<Value>, InvalidParams>, ParamTypeError>;

fn object(entries: Vec<(&str, Value)>) -> Option<Value> {
    if entries.is_empty() {
        return None;
    }
    Some(Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    ))
}

fn wire_params(kind: &TaskKind, p: &Map<String, Value>) -> Wire {
    Ok(match kind {
        TaskKind::SnapshotRestore => {
            let height = get_i64(p, "targetheight")?;
            Ok(object(if height > 0 {
                vec![("targetHeight", height.into())]
            } else {
                vec![]
            }))
        }
        TaskKind::ConfigureGenesis => {
            let hash = get_str(p, "expectedgenesishash")?;
            Ok(object(if hash.is_empty() {
                vec![]
            } else {
                vec![("expectedGenesisHash", hash.into())]
            }))
        }
        TaskKind::ConfigureStateSync => {
            let mut entries = Vec::new();
            if get_bool(p, "uselocalsnapshot")? {
                entries.push(("useLocalSnapshot", Value::Bool(true)));
            }
            let trust = get_str(p, "trustperiod")?;
            if !trust.is_empty() {
                entries.push(("trustPeriod", trust.into()));
            }
            let backfill = get_i64(p, "backfillblocks")?;
            if backfill > 0 {
                entries.push(("backfillBlocks", backfill.into()));
            }
            match p.get("rpcservers") {
                Some(Value::Array(servers)) if !servers.is_empty() => {
                    entries.push(("rpcServers", Value::Array(servers.clone())));
                }
                None | Some(Value::Null) | Some(Value::Array(_)) => {}
                Some(other) => {
                    return Err(ParamTypeError::field(other, "[]string", "rpcServers"));
                }
            }
            Ok(object(entries))
        }
        TaskKind::ConfigApply => {
            let mode = get_str(p, "mode")?;
            let incremental = get_bool(p, "incremental")?;
            let target_version = get_i64(p, "targetversion")?;
            let overrides = match p.get("overrides") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(map)) => map.clone(),
                Some(other) => {
                    return Err(ParamTypeError::field(other, "map", "overrides"));
                }
            };
            if !INTENT_MODES.contains(&mode.as_str()) {
                Err(InvalidParams::ConfigApplyMode(mode))
            } else {
                let mut entries = vec![
                    ("mode", Value::String(mode)),
                    ("incremental", Value::Bool(incremental)),
                    ("targetVersion", target_version.into()),
                ];
                if !overrides.is_empty() {
                    entries.push(("overrides", Value::Object(overrides)));
                }
                Ok(object(entries))
            }
        }
        TaskKind::ConfigPatch => match p.get("files") {
            Some(Value::Object(files)) if !files.is_empty() => {
                Ok(object(vec![("files", Value::Object(files.clone()))]))
            }
            None | Some(Value::Null) | Some(Value::Object(_)) => {
                Err(InvalidParams::ConfigPatchNoFiles)
            }
            Some(other) => {
                return Err(ParamTypeError::field(other, "map", "files"));
            }
        },
        TaskKind::GenerateIdentity => {
            let chain = get_str(p, "chainid")?;
            let moniker = get_str(p, "moniker")?;
            if chain.is_empty() || moniker.is_empty() {
                Err(InvalidParams::GenerateIdentity)
            } else {
                Ok(object(vec![
                    ("chainId", chain.into()),
                    ("moniker", moniker.into()),
                ]))
            }
        }
        TaskKind::GenerateGentx => {
            let chain = get_str(p, "chainid")?;
            let staking = get_str(p, "stakingamount")?;
            let balance = get_str(p, "accountbalance")?;
            if chain.is_empty() || staking.is_empty() || balance.is_empty() {
                Err(InvalidParams::GenerateGentx)
            } else {
                Ok(object(vec![
                    ("chainId", chain.into()),
                    ("stakingAmount", staking.into()),
                    ("accountBalance", balance.into()),
                ]))
            }
        }
        TaskKind::UploadGenesisArtifacts => {
            let name = get_str(p, "nodename")?;
            if name.is_empty() {
                Err(InvalidParams::UploadGenesisArtifacts)
            } else {
                Ok(object(vec![("nodeName", name.into())]))
            }
        }
        TaskKind::AwaitCondition => {
            let condition = get_str(p, "condition")?;
            let height = get_i64(p, "targetheight")?;
            let action = get_str(p, "action")?;
            match condition.as_str() {
                "height" if height <= 0 => Err(InvalidParams::AwaitHeight),
                "height" | "catchingUp" => {
                    let mut entries = vec![("condition", Value::String(condition))];
                    if height > 0 {
                        entries.push(("targetHeight", height.into()));
                    }
                    if !action.is_empty() {
                        entries.push(("action", action.into()));
                    }
                    Ok(object(entries))
                }
                other => Err(InvalidParams::AwaitCondition(other.to_owned())),
            }
        }
        TaskKind::ConfigValidate
        | TaskKind::MarkReady
        | TaskKind::SetGenesisPeers
        | TaskKind::RestartSeid
        | TaskKind::MarkNotReady
        | TaskKind::StopSeid
        | TaskKind::ResetData => Ok(None),
        // Network and governance types: forward the stored object with lowerCamel keys and
        // zero values dropped (seictl's omitempty tags).
        _ => Ok(object(
            p.iter()
                .filter(|(_, v)| !is_zero(v))
                .map(|(k, v)| (k.as_str(), v.clone()))
                .collect(),
        )),
    })
}

fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ports::{SidecarError, SidecarTarget};
    use crate::tasks::testing::*;

    const ID: &str = "0b7c1d2e-0000-5000-8000-000000000001";

    fn task(kind: TaskKind, params: Value) -> SidecarTask {
        SidecarTask::deserialize(&kind, ID, Some(&params)).expect("deserialize")
    }

    #[test]
    fn stored_go_field_names_become_camel_case_wire_params() {
        assert_eq!(
            task(TaskKind::SnapshotRestore, json!({"TargetHeight": 42})).wire,
            Ok(Some(json!({"targetHeight": 42})))
        );
        assert_eq!(
            task(TaskKind::SnapshotRestore, json!({"TargetHeight": 0})).wire,
            Ok(None)
        );
        assert_eq!(
            task(
                TaskKind::ConfigureGenesis,
                json!({"ExpectedGenesisHash": ""})
            )
            .wire,
            Ok(None)
        );
        assert_eq!(
            task(TaskKind::ConfigureStateSync, json!({"UseLocalSnapshot": false, "TrustPeriod": "168h", "BackfillBlocks": 0, "RpcServers": ["a:1", "b:2"]})).wire,
            Ok(Some(json!({"trustPeriod": "168h", "rpcServers": ["a:1", "b:2"]})))
        );
        assert_eq!(task(TaskKind::MarkReady, json!({})).wire, Ok(None));
    }

    #[test]
    fn config_apply_sends_mode_incremental_target_version_always_and_overrides_when_set() {
        assert_eq!(
            task(TaskKind::ConfigApply, json!({"mode": "seed"})).wire,
            Ok(Some(
                json!({"mode": "seed", "incremental": false, "targetVersion": 0})
            ))
        );
        assert_eq!(
            task(
                TaskKind::ConfigApply,
                json!({"mode": "full", "overrides": {"a.b": "1"}})
            )
            .wire,
            Ok(Some(
                json!({"mode": "full", "incremental": false, "targetVersion": 0, "overrides": {"a.b": "1"}})
            ))
        );
        assert!(
            task(TaskKind::ConfigApply, json!({"mode": "bogus"}))
                .wire
                .is_err()
        );
    }

    #[test]
    fn test_config_patch_task_json_wire_format_uses_files_key() {
        let files = json!({"config.toml": {"p2p": {"external-address": "1.2.3.4:26656", "persistent-peers": ""}}});
        let t = task(TaskKind::ConfigPatch, json!({"files": files}));
        assert_eq!(t.wire, Ok(Some(json!({"files": files}))));
        assert_eq!(
            task(TaskKind::ConfigPatch, json!({"files": {}})).wire,
            Err(InvalidParams::ConfigPatchNoFiles)
        );
    }

    #[test]
    fn malformed_params_fail_deserialization() {
        let err = SidecarTask::deserialize(
            &TaskKind::SnapshotRestore,
            ID,
            Some(&json!({"TargetHeight": "x"})),
        )
        .expect_err("bad type");
        assert!(matches!(&err, TaskDecodeError::SidecarParams { id, .. } if id == ID));
        assert!(
            err.to_string()
                .starts_with(&format!("deserializing params for task {ID}: ")),
            "{err}"
        );
    }

    #[tokio::test]
    async fn polled_task_is_resubmitted_with_the_same_id_and_completes_when_sidecar_says_so() {
        let h = Harness::new();
        *h.sidecar.behaviour.lock().expect("lock") = SidecarBehaviour::StayRunning;
        let mut node = full_node("ns", "a");
        for _ in 0..2 {
            let mut t = task(TaskKind::ConfigApply, json!({"mode": "full"}));
            assert_eq!(t.execute(&h.env(), &mut node).await, Ok(()));
            assert_eq!(t.status(&h.env(), &node).await, Poll::Running);
        }
        let submits = h.sidecar.submits();
        assert_eq!(submits.len(), 2);
        assert!(
            submits
                .iter()
                .all(|r| r.id.map(|u| u.to_string()).as_deref() == Some(ID))
        );
        h.sidecar.finish(ID, WireStatus::Completed, None);
        let mut t = task(TaskKind::ConfigApply, json!({"mode": "full"}));
        assert_eq!(t.status(&h.env(), &node).await, Poll::Complete);
        h.sidecar.finish(ID, WireStatus::Failed, None);
        assert_eq!(
            t.status(&h.env(), &node).await,
            Poll::Failed(format!("task {ID} failed with unknown error"))
        );
    }

    #[tokio::test]
    async fn test_registry_workflow_hold_tasks_are_polled() {
        let h = Harness::new();
        *h.sidecar.behaviour.lock().expect("lock") = SidecarBehaviour::StayRunning;
        let mut node = full_node("ns", "a");
        for kind in [
            TaskKind::MarkNotReady,
            TaskKind::StopSeid,
            TaskKind::ResetData,
        ] {
            let mut t = task(kind.clone(), json!({}));
            t.execute(&h.env(), &mut node).await.expect("submit");
            assert_eq!(t.status(&h.env(), &node).await, Poll::Running, "{kind}");
        }
        assert_eq!(h.sidecar.polls.lock().expect("lock").len(), 3);
        let mut t = task(TaskKind::MarkReady, json!({}));
        t.execute(&h.env(), &mut node).await.expect("submit");
        assert_eq!(t.status(&h.env(), &node).await, Poll::Complete);
        assert_eq!(
            h.sidecar.polls.lock().expect("lock").len(),
            3,
            "mark-ready is never polled"
        );
    }

    #[tokio::test]
    async fn validation_and_submission_failures_are_transient() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let mut t = task(TaskKind::ConfigPatch, json!({}));
        assert_eq!(
            t.execute(&h.env(), &mut node).await,
            Err(ExecuteError::Transient(
                "validating config-patch: config-patch: at least one file is required".into()
            ))
        );
        *h.sidecar.submit_failure.lock().expect("lock") = Some(SidecarError::Unreachable {
            target: SidecarTarget::new("ns", "a"),
            detail: "connection refused".into(),
        });
        let mut t = task(TaskKind::MarkReady, json!({}));
        assert!(
            matches!(t.execute(&h.env(), &mut node).await, Err(ExecuteError::Transient(m)) if m.starts_with("submitting mark-ready: "))
        );
        let mut bad =
            SidecarTask::deserialize(&TaskKind::MarkReady, "not-a-uuid", None).expect("ok");
        assert!(
            matches!(bad.execute(&h.env(), &mut node).await, Err(ExecuteError::Transient(m)) if m.starts_with("invalid task UUID \"not-a-uuid\""))
        );
    }

    #[tokio::test]
    async fn not_found_and_errors_keep_polling() {
        let h = Harness::new();
        let node = full_node("ns", "a");
        let mut t = task(TaskKind::ConfigureGenesis, json!({}));
        assert_eq!(t.status(&h.env(), &node).await, Poll::Running);
        *h.sidecar.get_failure.lock().expect("lock") = Some(SidecarError::Unreachable {
            target: SidecarTarget::new("ns", "a"),
            detail: "x".into(),
        });
        assert_eq!(t.status(&h.env(), &node).await, Poll::Running);
    }
}
