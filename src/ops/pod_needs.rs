//! What the node's rendered pod needs that the namespace lacks, found before any change: a pod
//! that runs as a missing ServiceAccount is never created (the StatefulSet's FailedCreate), so
//! a plan would "complete" and the wait for the pod would run out. Such an action is blocked,
//! with the fix.
use super::Ops;
use crate::api::SeiNode;

/// Why the node's pod could not be created, with the fix; `None` when nothing is missing (or
/// it cannot be told: a render failure is previewed elsewhere, an unreadable ServiceAccount is
/// left to the permission checks and the wait).
pub async fn missing_for_pod(ops: &Ops<'_>, node: &SeiNode) -> Option<String> {
    let statefulset = ops.ports.renderer.statefulset(node).ok()?;
    let pod = statefulset.spec.template.spec?;
    let account = pod
        .service_account_name
        .filter(|name| !name.is_empty() && name != "default")?;
    let namespace = node.namespace();
    match ops
        .ports
        .cluster
        .service_account_exists(namespace, &account)
        .await
    {
        Ok(false) => Some(format!(
            "ServiceAccount {account} does not exist in namespace {namespace}: the node's pod \
             runs as it (spec.serviceAccountName of StatefulSet {}), so no pod could be created \
             (FailedCreate); fix: kubectl -n {namespace} create serviceaccount {account}",
            node.name()
        )),
        Ok(true) | Err(_) => None,
    }
}
