//! Controller-side tasks and sidecar tasks of a node plan (upstream `internal/task/*.go`), one
//! file per upstream file, each with the controller's exact completion, retry and terminal rules
//! (spec/tasks-and-resources.md sections 1, 2, 4).
//!
//! A task is rebuilt from its planned `type`/`id`/`params` on every step (the controller keeps no
//! execution object between reconciles), then [`Task::execute`] is called while the planned task
//! is `Pending` and [`Task::status`] polls it. [`advance`] does both, as `advanceTask` does, and
//! returns a [`TaskOutcome`] for the executor's step function. Tasks reach the world only through
//! [`ClusterApi`], [`SidecarApi`] and a [`WorkloadRenderer`]; their writes to the node (conditions,
//! `currentImage`, `status.statefulSet`) are in-memory mutations the driver persists.
//!
//! Each task file declares the calls it makes (`API_CALLS`, the sidecar tasks' sidecar calls),
//! which `api_calls` gathers per `TaskKind` for the permission checks. A planned task that cannot
//! be rebuilt is a [`TaskDecodeError`]; the renderer seam returns the typed `RenderError`, and
//! `apply_statefulset::sync_statefulset` its own typed error; `testing` holds the in-memory fakes.
use jiff::Timestamp;
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, PersistentVolumeClaim, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::api::{
    ConditionStatus, ConditionType, ConditionUpdate, PlannedTask, Reason, SeiNode, TaskKind,
    set_condition,
};
use crate::ports::{ClusterApi, SidecarApi};
use crate::render::RenderError;

pub mod api_calls;
pub mod apply_rbac_proxy_config;
pub mod apply_service;
pub mod apply_statefulset;
pub mod bootstrap_await;
pub mod bootstrap_deploy;
pub mod bootstrap_teardown;
pub mod ensure_pvc;
pub mod observe_image;
mod outcome;
pub mod platform_renderer;
pub mod replace_pod;
mod secret_checks;
pub mod sidecar;
pub mod validate_node_key;
pub mod validate_operator_keyring;
pub mod validate_signing_key;

pub use outcome::{ExecutionStatus, TaskOutcome};

/// In-memory fakes of the ports, for unit tests and the executor benchmark.
#[cfg(any(test, feature = "testing"))]
pub mod testing;

/// Why `Execute` did not succeed. The executor branches on the variant, never on the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecuteError {
    /// Upstream `TerminalError`: the task and the whole plan fail, whatever `maxRetries` says.
    #[error("{0}")]
    Terminal(String),
    /// Any other error: logged, retried after 5 s; the planned task stays `Pending`.
    #[error("{0}")]
    Transient(String),
}

/// Why a planned task could not be rebuilt from its stored form (upstream registry lookup and
/// params decoding); `Display` is the message the failed plan records.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskDecodeError {
    #[error(
        "task type {} belongs to SeiNodeTask/SeiNetwork plans, not to node plans",
        go_quote(.0.as_str())
    )]
    GroupTask(TaskKind),
    #[error("unknown task type {}", go_quote(.0.as_str()))]
    UnknownType(TaskKind),
    /// A controller task's params do not decode.
    #[error("deserializing {kind} params: {detail}")]
    Params { kind: String, detail: String },
    /// A sidecar task's params do not decode, or fail the client-side shape checks.
    #[error("deserializing params for task {id}: {detail}")]
    SidecarParams { id: String, detail: String },
}

/// Upstream `ExecutionStatus` as reported by `Status()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    Running,
    Complete,
    /// `Failed`, with `Err()` text.
    Failed(String),
}

/// Renders the node's workload objects (implemented over `render::` by [`PlatformRenderer`]-style
/// adapters; tests pass fixed objects or failures). Errors are the renderer's, typed, so a fix
/// can be matched on them; their `Display` is the controller's message text.
pub trait WorkloadRenderer: Send + Sync {
    fn statefulset(&self, node: &SeiNode) -> Result<StatefulSet, RenderError>;
    fn headless_service(&self, node: &SeiNode) -> Result<Service, RenderError>;
    fn data_pvc(&self, node: &SeiNode) -> Result<PersistentVolumeClaim, RenderError>;
    fn rbac_proxy_config_map(&self, node: &SeiNode) -> Result<ConfigMap, RenderError>;
    fn bootstrap_job(&self, node: &SeiNode) -> Result<Job, RenderError>;
    fn bootstrap_service(&self, node: &SeiNode) -> Result<Service, RenderError>;
    /// `images.sidecar`, the platform default sidecar image (observe-image stamps it).
    fn platform_sidecar_image(&self) -> String;
}

/// Everything a task may touch besides the node itself.
pub struct TaskEnv<'a> {
    pub cluster: &'a dyn ClusterApi,
    pub sidecar: &'a dyn SidecarApi,
    pub renderer: &'a dyn WorkloadRenderer,
    pub now: Timestamp,
}

/// The status a task caches within one step (upstream `taskBase`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Cached {
    #[default]
    Running,
    Complete,
}

impl Cached {
    pub(crate) fn poll(&self) -> Poll {
        match self {
            Cached::Running => Poll::Running,
            Cached::Complete => Poll::Complete,
        }
    }
}

/// A planned task rebuilt from its stored form.
#[derive(Debug, Clone)]
pub enum Task {
    EnsureDataPvc(ensure_pvc::EnsureDataPvc),
    ValidateSigningKey(validate_signing_key::ValidateSigningKey),
    ValidateNodeKey(validate_node_key::ValidateNodeKey),
    ValidateOperatorKeyring(validate_operator_keyring::ValidateOperatorKeyring),
    ApplyRbacProxyConfig(apply_rbac_proxy_config::ApplyRbacProxyConfig),
    ApplyStatefulSet(apply_statefulset::ApplyStatefulSet),
    ApplyService(apply_service::ApplyService),
    ReplacePod(replace_pod::ReplacePod),
    ObserveImage(observe_image::ObserveImage),
    DeployBootstrapService(bootstrap_deploy::DeployBootstrapService),
    DeployBootstrapJob(bootstrap_deploy::DeployBootstrapJob),
    AwaitBootstrapComplete(bootstrap_await::AwaitBootstrapComplete),
    TeardownBootstrap(bootstrap_teardown::TeardownBootstrap),
    Sidecar(sidecar::SidecarTask),
}

impl Task {
    /// Upstream registry lookup + params decoding. The error's text is what the plan records.
    pub fn deserialize(
        kind: &TaskKind,
        id: &str,
        params: Option<&Value>,
    ) -> Result<Task, TaskDecodeError> {
        let kind_str = kind.as_str();
        Ok(match kind {
            TaskKind::EnsureDataPvc => Task::EnsureDataPvc(ensure_pvc::EnsureDataPvc::default()),
            TaskKind::ValidateSigningKey => Task::ValidateSigningKey(
                validate_signing_key::ValidateSigningKey::new(decode_params(kind_str, params)?),
            ),
            TaskKind::ValidateNodeKey => Task::ValidateNodeKey(
                validate_node_key::ValidateNodeKey::new(decode_params(kind_str, params)?),
            ),
            TaskKind::ValidateOperatorKeyring => Task::ValidateOperatorKeyring(
                validate_operator_keyring::ValidateOperatorKeyring::new(decode_params(
                    kind_str, params,
                )?),
            ),
            TaskKind::ApplyRbacProxyConfig => {
                Task::ApplyRbacProxyConfig(apply_rbac_proxy_config::ApplyRbacProxyConfig::default())
            }
            TaskKind::ApplyStatefulSet => {
                Task::ApplyStatefulSet(apply_statefulset::ApplyStatefulSet::default())
            }
            TaskKind::ApplyService => Task::ApplyService(apply_service::ApplyService::default()),
            TaskKind::ReplacePod => Task::ReplacePod(replace_pod::ReplacePod::default()),
            TaskKind::ObserveImage => Task::ObserveImage(observe_image::ObserveImage::default()),
            TaskKind::DeployBootstrapService => Task::DeployBootstrapService(
                bootstrap_deploy::DeployBootstrapService::new(decode_params(kind_str, params)?),
            ),
            TaskKind::DeployBootstrapJob => Task::DeployBootstrapJob(
                bootstrap_deploy::DeployBootstrapJob::new(decode_params(kind_str, params)?),
            ),
            TaskKind::AwaitBootstrapComplete => Task::AwaitBootstrapComplete(
                bootstrap_await::AwaitBootstrapComplete::new(decode_params(kind_str, params)?),
            ),
            TaskKind::TeardownBootstrap => Task::TeardownBootstrap(
                bootstrap_teardown::TeardownBootstrap::new(decode_params(kind_str, params)?),
            ),
            TaskKind::UpdateNodeImage
            | TaskKind::AwaitNodesRunning
            | TaskKind::CollectAndSetPeers => return Err(TaskDecodeError::GroupTask(kind.clone())),
            other if other.is_registered() => {
                Task::Sidecar(sidecar::SidecarTask::deserialize(other, id, params)?)
            }
            other => return Err(TaskDecodeError::UnknownType(other.clone())),
        })
    }

    /// Upstream `Execute`: idempotent; may complete, wait (`Ok` without completing) or fail.
    pub async fn execute(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
    ) -> Result<(), ExecuteError> {
        match self {
            Task::EnsureDataPvc(t) => t.execute(env, node).await,
            Task::ValidateSigningKey(t) => t.execute(env, node).await,
            Task::ValidateNodeKey(t) => t.execute(env, node).await,
            Task::ValidateOperatorKeyring(t) => t.execute(env, node).await,
            Task::ApplyRbacProxyConfig(t) => t.execute(env, node).await,
            Task::ApplyStatefulSet(t) => t.execute(env, node).await,
            Task::ApplyService(t) => t.execute(env, node).await,
            Task::ReplacePod(t) => t.execute(env, node).await,
            Task::ObserveImage(t) => t.execute(env, node).await,
            Task::DeployBootstrapService(t) => t.execute(env, node).await,
            Task::DeployBootstrapJob(t) => t.execute(env, node).await,
            Task::AwaitBootstrapComplete(_) => Ok(()),
            Task::TeardownBootstrap(t) => t.execute(env, node).await,
            Task::Sidecar(t) => t.execute(env, node).await,
        }
    }

    /// Upstream `Status`.
    pub async fn status(&mut self, env: &TaskEnv<'_>, node: &SeiNode) -> Poll {
        match self {
            Task::EnsureDataPvc(t) => t.state.poll(),
            Task::ValidateSigningKey(t) => t.state.poll(),
            Task::ValidateNodeKey(t) => t.state.poll(),
            Task::ValidateOperatorKeyring(t) => t.state.poll(),
            Task::ApplyRbacProxyConfig(t) => t.state.poll(),
            Task::ApplyStatefulSet(t) => t.state.poll(),
            Task::ApplyService(t) => t.state.poll(),
            Task::ReplacePod(t) => t.state.poll(),
            Task::ObserveImage(t) => t.state.poll(),
            Task::DeployBootstrapService(t) => t.status(env, node).await,
            Task::DeployBootstrapJob(t) => t.status(env, node).await,
            Task::AwaitBootstrapComplete(t) => t.status(env, node).await,
            Task::TeardownBootstrap(t) => t.status(env, node).await,
            Task::Sidecar(t) => t.status(env, node).await,
        }
    }
}

/// One `advanceTask` (spec/planner.md 3.3) minus the plan bookkeeping, which the executor's step
/// function ([`crate::executor::record_outcome`]) does with the returned outcome: rebuild the
/// task, `Execute` it when `submit` (the planned task is `Pending`), then poll `Status`.
pub async fn advance(
    planned: &PlannedTask,
    submit: bool,
    env: &TaskEnv<'_>,
    node: &mut SeiNode,
) -> TaskOutcome {
    let mut task = match Task::deserialize(&planned.kind, &planned.id, planned.params.as_deref()) {
        Ok(task) => task,
        Err(err) => return TaskOutcome::Undeserializable(err.to_string()),
    };
    if submit {
        match task.execute(env, node).await {
            Ok(()) => {}
            Err(ExecuteError::Terminal(err)) => return TaskOutcome::TerminalError(err),
            Err(ExecuteError::Transient(err)) => return TaskOutcome::TransientError(err),
        }
    }
    TaskOutcome::Status(match task.status(env, node).await {
        Poll::Running => ExecutionStatus::Running,
        Poll::Complete => ExecutionStatus::Complete,
        Poll::Failed(error) => ExecutionStatus::Failed(Some(error)),
    })
}

/// Upstream params decoding: absent/empty/null params → zero value; otherwise JSON with keys
/// matched case-insensitively and unknown keys ignored (Go `encoding/json`).
pub(crate) fn decode_params<T: DeserializeOwned + Default>(
    kind: &str,
    params: Option<&Value>,
) -> Result<T, TaskDecodeError> {
    let Some(value) = params else {
        return Ok(T::default());
    };
    let value = match value {
        Value::Null => return Ok(T::default()),
        Value::Object(map) if map.is_empty() => return Ok(T::default()),
        other => other.clone(),
    };
    serde_json::from_value(lowercase_keys(value)).map_err(|err| TaskDecodeError::Params {
        kind: kind.to_owned(),
        detail: err.to_string(),
    })
}

/// Lower-cases top-level object keys, so params structs declared with lowercase serde names match
/// keys however they were cased (Go's case-insensitive field matching).
pub(crate) fn lowercase_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| (key.to_lowercase(), value))
                .collect(),
        ),
        other => other,
    }
}

/// Go `%q` for the plain strings in task messages.
pub(crate) fn go_quote(text: &str) -> String {
    crate::platform::go_quote(text)
}

/// The controller owner reference every rendered node object carries.
pub fn owner_reference(node: &SeiNode) -> OwnerReference {
    OwnerReference {
        api_version: crate::api::API_VERSION.into(),
        kind: crate::api::KIND.into(),
        name: node.name().into(),
        uid: node.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// `SetControllerReference`: replaces any owner reference to the same node and adds ours.
pub(crate) fn set_owner(meta: &mut ObjectMeta, node: &SeiNode) {
    let owner = owner_reference(node);
    let refs = meta.owner_references.get_or_insert_with(Vec::new);
    refs.retain(|r| !(r.kind == owner.kind && r.name == owner.name));
    refs.push(owner);
}

/// Whether `meta` is controlled by an owner with `uid`.
pub(crate) fn is_controlled_by(meta: &ObjectMeta, uid: &str) -> bool {
    meta.owner_references
        .iter()
        .flatten()
        .any(|r| r.controller == Some(true) && r.uid == uid)
}

/// Upserts a condition on the in-memory node with the node's generation.
pub(crate) fn set_node_condition(
    node: &mut SeiNode,
    kind: ConditionType,
    status: ConditionStatus,
    reason: Reason,
    message: String,
    now: Timestamp,
) {
    let observed_generation = node.generation();
    let conditions = node.status_mut().conditions.get_or_insert_with(Vec::new);
    set_condition(
        conditions,
        ConditionUpdate {
            kind,
            status,
            reason,
            message,
            observed_generation,
        },
        now,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_error(kind: TaskKind, params: Option<Value>) -> TaskDecodeError {
        Task::deserialize(&kind, "id", params.as_ref()).expect_err("refused")
    }

    #[test]
    fn refused_types_and_bad_params_keep_the_controllers_messages() {
        let unknown = decode_error(TaskKind::parse("frobnicate"), None);
        assert_eq!(unknown.to_string(), r#"unknown task type "frobnicate""#);
        // Known to seictl but not in the controller's registry.
        let unregistered = decode_error(TaskKind::SnapshotUpload, None);
        assert_eq!(
            unregistered,
            TaskDecodeError::UnknownType(TaskKind::SnapshotUpload)
        );
        let group = decode_error(TaskKind::UpdateNodeImage, None);
        assert_eq!(
            group.to_string(),
            r#"task type "update-node-image" belongs to SeiNodeTask/SeiNetwork plans, not to node plans"#
        );
        let params = decode_error(
            TaskKind::ValidateNodeKey,
            Some(serde_json::json!({"secretName": 7})),
        );
        assert!(
            matches!(&params, TaskDecodeError::Params { kind, .. } if kind == "validate-node-key"),
            "{params:?}"
        );
        assert!(
            params
                .to_string()
                .starts_with("deserializing validate-node-key params: "),
            "{params}"
        );
    }
}
