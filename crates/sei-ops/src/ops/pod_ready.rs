//! Waiting for a node's pod `<node>-0` to be Ready, saying what is missing while it is not: a
//! plan can complete (the controller-side tasks only apply objects) while the StatefulSet creates
//! no pod at all, e.g. when the ServiceAccount the pod runs as does not exist.
use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;

use super::Ops;
use crate::actions::waves::pod_is_ready;
use crate::render::NODE_LABEL;

/// Why the node's pod is not Ready (yet), in the operator's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("pod {pod} not Ready after {waited:?}: {why}")]
pub struct NotReady {
    pub pod: String,
    pub waited: Duration,
    pub why: String,
}

/// Polls the node's pod every `poll` until it is Ready, at most `deadline`.
pub async fn wait_pod_ready(
    ops: &Ops<'_>,
    node: &str,
    deadline: Duration,
    poll: Duration,
) -> Result<(), NotReady> {
    let namespace = ops.namespace();
    let pod_name = format!("{node}-0");
    let selector = BTreeMap::from([(NODE_LABEL.to_owned(), node.to_owned())]);
    let polls = (deadline.as_millis() / poll.as_millis().max(1)).max(1);
    let mut why = String::new();
    for attempt in 0..=polls {
        if attempt > 0 {
            tokio::time::sleep(poll).await;
        }
        why = match ops.ports.cluster.list_pods(namespace, &selector).await {
            Ok(pods) => match pods
                .iter()
                .find(|p| p.metadata.name.as_deref() == Some(&pod_name))
            {
                Some(pod) if pod_is_ready(pod) => return Ok(()),
                Some(pod) => pod_not_ready(pod),
                None => no_pod(namespace, node),
            },
            Err(err) => format!("cannot list its pods: {err}"),
        };
    }
    let warnings = super::waiting::warnings(ops, node, None).await;
    why.push_str(&super::waiting::because(&warnings));
    Err(NotReady {
        pod: format!("{namespace}/{pod_name}"),
        waited: deadline,
        why,
    })
}

/// The pod exists: its phase, the conditions that are not True and waiting containers.
fn pod_not_ready(pod: &Pod) -> String {
    let Some(status) = pod.status.as_ref() else {
        return "no status yet".to_owned();
    };
    let mut parts = vec![format!(
        "phase {}",
        status.phase.as_deref().unwrap_or("unknown")
    )];
    for condition in status.conditions.iter().flatten() {
        if condition.status != "True" {
            parts.push(format!(
                "{} {}{}",
                condition.type_,
                condition.reason.as_deref().unwrap_or(&condition.status),
                condition
                    .message
                    .as_deref()
                    .map(|m| format!(": {m}"))
                    .unwrap_or_default()
            ));
        }
    }
    for container in status.container_statuses.iter().flatten() {
        if let Some(waiting) = container.state.as_ref().and_then(|s| s.waiting.as_ref()) {
            parts.push(format!(
                "container {} waiting: {}",
                container.name,
                waiting.reason.as_deref().unwrap_or("unknown")
            ));
        }
    }
    parts.join("; ")
}

fn no_pod(namespace: &str, node: &str) -> String {
    format!(
        "its StatefulSet has created no pod; usually a FailedCreate such as a missing \
         ServiceAccount (the platform's scheduling.serviceAccount) or a quota; \
         `kubectl describe statefulset {node} -n {namespace}` shows its events"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(json: serde_json::Value) -> Pod {
        serde_json::from_value(json).expect("pod")
    }

    #[test]
    fn a_pending_pod_says_why_it_is_not_ready() {
        let pending = pod(serde_json::json!({
            "metadata": {"name": "seed-0-0"},
            "status": {"phase": "Pending", "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                 "message": "0/4 nodes are available"}
            ]}
        }));
        assert!(!pod_is_ready(&pending));
        assert_eq!(
            pod_not_ready(&pending),
            "phase Pending; PodScheduled Unschedulable: 0/4 nodes are available"
        );
        let ready = pod(serde_json::json!({
            "metadata": {"name": "seed-0-0"},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
        }));
        assert!(pod_is_ready(&ready));
        assert!(no_pod("ns", "seed-0").contains("ServiceAccount"));
    }
}
