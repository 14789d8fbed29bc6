//! The calls each task type makes, declared by the task's own file and gathered here with one
//! exhaustive match over [`TaskKind`]: a new task type does not compile until it says which
//! Kubernetes API calls (or which sidecar calls) it makes. `actions::permissions` turns these
//! into the permission checks asked before an action changes anything.
use crate::api::TaskKind;

use super::{
    apply_rbac_proxy_config, apply_service, apply_statefulset, bootstrap_await, bootstrap_deploy,
    bootstrap_teardown, ensure_pvc, observe_image, replace_pod, sidecar, validate_node_key,
    validate_operator_keyring, validate_signing_key,
};

/// Which object of the node's surroundings a Kubernetes call names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallObject {
    /// Any object in the node's namespace: collection verbs, `create`, and objects whose name
    /// comes from task params.
    InNamespace,
    /// The object named like the node (its StatefulSet, its Service).
    NamedAfterNode,
    /// The node's pod, `<node>-0`.
    NodePod,
    /// A cluster-scoped resource.
    ClusterScoped,
}

/// One Kubernetes API call a task makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApiCall {
    /// `get`, `list`, `create`, `patch`, `delete`.
    pub verb: &'static str,
    /// API group; empty for the core group.
    pub group: &'static str,
    pub resource: &'static str,
    pub object: CallObject,
}

impl ApiCall {
    pub const fn new(
        verb: &'static str,
        group: &'static str,
        resource: &'static str,
        object: CallObject,
    ) -> Self {
        Self {
            verb,
            group,
            resource,
            object,
        }
    }

    /// Server-side apply: `patch` on the object, and `create` when it does not exist yet.
    pub const fn server_side_apply(
        group: &'static str,
        resource: &'static str,
        object: CallObject,
    ) -> [Self; 2] {
        [
            Self::new("patch", group, resource, object),
            Self::new("create", group, resource, CallObject::InNamespace),
        ]
    }
}

/// One call to the node's seictl sidecar (`ports::SidecarApi`). What Kubernetes permission it
/// needs depends on the transport: through the API server's pod proxy the verb follows the
/// HTTP method; other transports need none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SidecarCall {
    /// `POST /v0/tasks`.
    SubmitTask,
    /// `GET /v0/tasks/{id}`.
    GetTask,
    /// `GET /v0/healthz` (the executor's probe of a Running node, not a task's call).
    Healthz,
}

/// The calls of one task type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskCalls {
    /// Executed by the controller (or the embedded executor) against the Kubernetes API.
    Kubernetes(&'static [ApiCall]),
    /// Executed by the node's sidecar; the executor makes these sidecar calls.
    Sidecar(&'static [SidecarCall]),
    /// A type this version does not know: the executor fails the plan (`unknown task type`)
    /// before making any call for it.
    Refused,
}

/// Group tasks of a SeiNodeDeployment (`update-node-image`, `await-nodes-running`,
/// `collect-and-set-peers`): the controller lists and patches the group's SeiNodes. Node plans
/// never hold them and the embedded executor refuses them, but what they would call is known.
const GROUP_TASK_CALLS: &[ApiCall] = &[
    ApiCall::new("list", "sei.io", "seinodes", CallObject::InNamespace),
    ApiCall::new("patch", "sei.io", "seinodes", CallObject::InNamespace),
];

/// The calls `kind` makes. Exhaustive on purpose: no fallback arm.
pub fn task_calls(kind: &TaskKind) -> TaskCalls {
    use TaskCalls::{Kubernetes, Refused, Sidecar};
    match kind {
        TaskKind::EnsureDataPvc => Kubernetes(ensure_pvc::API_CALLS),
        TaskKind::ValidateSigningKey => Kubernetes(validate_signing_key::API_CALLS),
        TaskKind::ValidateNodeKey => Kubernetes(validate_node_key::API_CALLS),
        TaskKind::ValidateOperatorKeyring => Kubernetes(validate_operator_keyring::API_CALLS),
        TaskKind::ApplyRbacProxyConfig => Kubernetes(apply_rbac_proxy_config::API_CALLS),
        TaskKind::ApplyStatefulSet => Kubernetes(apply_statefulset::API_CALLS),
        TaskKind::ApplyService => Kubernetes(apply_service::API_CALLS),
        TaskKind::ReplacePod => Kubernetes(replace_pod::API_CALLS),
        TaskKind::ObserveImage => Kubernetes(observe_image::API_CALLS),
        TaskKind::DeployBootstrapService => Kubernetes(bootstrap_deploy::SERVICE_API_CALLS),
        TaskKind::DeployBootstrapJob => Kubernetes(bootstrap_deploy::JOB_API_CALLS),
        TaskKind::AwaitBootstrapComplete => Kubernetes(bootstrap_await::API_CALLS),
        TaskKind::TeardownBootstrap => Kubernetes(bootstrap_teardown::API_CALLS),
        TaskKind::UpdateNodeImage | TaskKind::AwaitNodesRunning | TaskKind::CollectAndSetPeers => {
            Kubernetes(GROUP_TASK_CALLS)
        }
        TaskKind::SnapshotRestore
        | TaskKind::ConfigureGenesis
        | TaskKind::ConfigureStateSync
        | TaskKind::ConfigApply
        | TaskKind::ConfigPatch
        | TaskKind::ConfigValidate
        | TaskKind::MarkReady
        | TaskKind::AwaitCondition
        | TaskKind::RestartSeid
        | TaskKind::MarkNotReady
        | TaskKind::StopSeid
        | TaskKind::ResetData
        | TaskKind::GenerateIdentity
        | TaskKind::GenerateGentx
        | TaskKind::UploadGenesisArtifacts
        | TaskKind::AssembleAndUploadGenesis
        | TaskKind::SetGenesisPeers
        | TaskKind::GovVote
        | TaskKind::GovSoftwareUpgrade
        | TaskKind::GovParamChange
        | TaskKind::SnapshotUpload
        | TaskKind::SnapshotUploadOnce
        | TaskKind::ResultExport
        | TaskKind::ConfigReload
        | TaskKind::EvmLogicalDigest => Sidecar(sidecar::sidecar_calls(kind)),
        TaskKind::Unknown(_) => Refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskExecutor;

    #[test]
    fn every_known_task_type_declares_at_least_one_call_of_its_executor() {
        for kind in TaskKind::KNOWN {
            match (task_calls(kind), kind.executor()) {
                (TaskCalls::Kubernetes(calls), TaskExecutor::Controller) => {
                    assert!(!calls.is_empty(), "{kind} declares no Kubernetes call");
                }
                (TaskCalls::Sidecar(calls), TaskExecutor::Sidecar) => {
                    assert!(
                        calls.contains(&SidecarCall::SubmitTask),
                        "{kind}: {calls:?}"
                    );
                }
                (calls, executor) => panic!("{kind} ({executor:?}) declares {calls:?}"),
            }
        }
    }

    #[test]
    fn an_unknown_task_type_is_refused_without_a_call() {
        assert_eq!(
            task_calls(&TaskKind::parse("frobnicate")),
            TaskCalls::Refused
        );
    }

    #[test]
    fn fire_and_forget_sidecar_tasks_are_never_polled() {
        assert_eq!(
            task_calls(&TaskKind::MarkReady),
            TaskCalls::Sidecar(&[SidecarCall::SubmitTask])
        );
        assert_eq!(
            task_calls(&TaskKind::ConfigApply),
            TaskCalls::Sidecar(&[SidecarCall::SubmitTask, SidecarCall::GetTask])
        );
    }

    #[test]
    fn server_side_apply_patches_the_object_and_may_create_it() {
        assert_eq!(
            ApiCall::server_side_apply("", "services", CallObject::NamedAfterNode),
            [
                ApiCall::new("patch", "", "services", CallObject::NamedAfterNode),
                ApiCall::new("create", "", "services", CallObject::InNamespace),
            ]
        );
    }
}
