//! Pre-flight of the console's own sidecar calls: kube-rbac-proxy authenticates bearer tokens
//! only, so an identity with a client certificate alone can read the fleet but never drive a
//! sidecar task through a port-forward. An action that would need one is refused before any
//! change, naming the fix, instead of changing the cluster and waiting at the first sidecar
//! task for ever (the executor retries a failed submission, as upstream's does).
use super::{Ops, OpsError};
use crate::actions::event::ActionKind;
use crate::api::TaskKind;
use crate::ports::SidecarCredential;
use crate::tasks::api_calls::{TaskCalls, task_calls};

/// What an operator can do about it, in the refusal.
pub const NO_BEARER_TOKEN_FIX: &str = "use a kubeconfig user with a bearer token (a token \
     from `kubectl create token SERVICEACCOUNT`, a tokenFile, or your cloud provider's exec \
     plugin), or set SEI_CONSOLE_SIDECAR_TOKEN_FILE to such a token, or reach the sidecars \
     another way (SEI_CONSOLE_SIDECAR_TRANSPORT=pod-proxy)";

impl Ops<'_> {
    /// Why this action cannot run with the sidecar credential at hand, if it needs the
    /// sidecar's task API: `nodes` with the tasks their plans run, `wait` whether the console
    /// follows them (without it the console makes no sidecar call), `reads_node_id` whether it
    /// reads a NodeID from the sidecar (a seed's bring-up) whoever executes. `None` when the
    /// credential is usable or the console will make no such call.
    pub async fn sidecar_credential_refusal(
        &self,
        kind: ActionKind,
        nodes: &[(String, Vec<TaskKind>)],
        wait: bool,
        reads_node_id: bool,
    ) -> Result<Option<String>, OpsError> {
        if self.settings.sidecar_credential == SidecarCredential::Usable || !wait {
            return Ok(None);
        }
        let sidecar_tasks: Vec<&str> = nodes
            .iter()
            .flat_map(|(_, tasks)| tasks)
            .filter(|task| matches!(task_calls(task), TaskCalls::Sidecar(_)))
            .map(TaskKind::as_str)
            .collect();
        let mut needs = Vec::new();
        // A Lease that cannot be read leaves `auto` to the embedded executor: assume it (the
        // permission checks name the missing read).
        let embedded = match self.executor_choice().await {
            Ok(choice) => choice.embedded,
            Err(_) => true,
        };
        if !sidecar_tasks.is_empty() && embedded {
            let mut names = sidecar_tasks;
            names.dedup();
            needs.push(format!(
                "the console executes the plan and submits {}",
                names.join(", ")
            ));
        }
        if reads_node_id {
            needs.push("the console reads the NodeID from /v0/node-id".to_owned());
        }
        if needs.is_empty() {
            return Ok(None);
        }
        let names: Vec<&str> = nodes.iter().map(|(name, _)| name.as_str()).collect();
        Ok(Some(format!(
            "refusing to run {} on {}: it needs the sidecar's task API ({}), and kube-rbac-proxy \
             behind the port-forward authenticates bearer tokens only, which the kubeconfig \
             identity lacks (a client certificate); nothing was changed; {NO_BEARER_TOKEN_FIX}",
            kind.name(),
            names.join(", "),
            needs.join("; "),
        )))
    }
}
