//! Why the node's pod could not come up, found before any change: its StatefulSet cannot be
//! rendered (the controller records `StatefulSetRenderFailed` and the plan retries
//! apply-statefulset for ever; a seed brought up so stays at Active 0/9), or its pod runs as a
//! ServiceAccount the namespace lacks (never created: the StatefulSet's FailedCreate, so a plan
//! would "complete" and the wait for the pod would run out). Such an action is blocked, with the
//! fix.
use super::Ops;
use crate::actions::render_fix::{PlatformSource, render_failure_fix};
use crate::api::SeiNode;
use crate::render::RenderError;

/// Why the node's pod could not be created, with the fix; `None` when nothing is missing (or
/// it cannot be told: an unreadable ServiceAccount is left to the permission checks and the
/// wait).
pub async fn missing_for_pod(ops: &Ops<'_>, node: &SeiNode) -> Option<String> {
    let statefulset = match ops.ports.renderer.statefulset(node) {
        Ok(statefulset) => statefulset,
        Err(error) => return Some(render_blocker(&error, &ops.settings.platform_source)),
    };
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

/// The blocked reason of a node whose StatefulSet cannot be rendered, with the fix when a
/// platform-config key is missing.
pub fn render_blocker(error: &RenderError, source: &PlatformSource) -> String {
    let fix =
        render_failure_fix(error, source).map_or(String::new(), |fix| format!("; fix: {fix}"));
    format!(
        "its StatefulSet cannot be rendered (the controller would record \
         StatefulSetRenderFailed): {error}{fix}"
    )
}
