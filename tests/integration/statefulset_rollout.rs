//! StatefulSets behave as on a real cluster: the controller manager creates Pods, the scheduler
//! binds them to kwok Nodes, kwok reports them Running/Ready with the spec's images, a rolling
//! update completes and a deleted Pod is recreated.

use std::time::Duration;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams};
use serde_json::json;

use crate::common::{TestNamespace, platform_value, wait_for};

const MANAGER: &str = "sei-console-it";
const TIMEOUT: Duration = Duration::from_secs(60);

fn statefulset(name: &str, image: &str, replicas: i32) -> serde_json::Value {
    let pool = platform_value("scheduling.nodepoolName");
    json!({
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "serviceName": name,
            "selector": {"matchLabels": {"app": name}},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "tolerations": [{
                        "key": platform_value("scheduling.tolerationKey"),
                        "value": pool, "effect": "NoSchedule"
                    }],
                    "containers": [{"name": "main", "image": image}]
                }
            }
        }
    })
}

fn is_ready(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

fn reported_images(pod: &Pod) -> Vec<String> {
    pod.status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .map(|statuses| statuses.iter().map(|s| s.image.clone()).collect())
        .unwrap_or_default()
}

/// Waits until exactly `replicas` Pods of `app` are Running, Ready and report `image`.
async fn wait_pods_ready_with(
    ns: &TestNamespace,
    app: &str,
    replicas: usize,
    image: &str,
) -> Vec<Pod> {
    let pods = ns.api::<Pod>();
    let selector = format!("app={app}");
    wait_for(
        &format!("{replicas} ready pods of {app} running {image}"),
        TIMEOUT,
        || async {
            let list = pods.list(&ListParams::default().labels(&selector)).await?;
            let done = list.items.len() == replicas
                && list.items.iter().all(|pod| {
                    pod.metadata.deletion_timestamp.is_none()
                        && is_ready(pod)
                        && pod.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
                        && reported_images(pod) == vec![image.to_string()]
                });
            Ok(done.then_some(list.items))
        },
    )
    .await
}

#[tokio::test]
async fn server_side_applied_statefulset_rolls_out_updates_and_recreates_deleted_pods() {
    let ns = TestNamespace::new("sts").await;
    let statefulsets = ns.api::<StatefulSet>();
    let apply = PatchParams::apply(MANAGER).force();
    let (name, v1, v2) = (
        "web",
        "registry.example/web:1.0",
        "registry.example/web:2.0",
    );

    statefulsets
        .patch(name, &apply, &Patch::Apply(statefulset(name, v1, 2)))
        .await
        .expect("server-side apply the StatefulSet");
    let pods = wait_pods_ready_with(&ns, name, 2, v1).await;
    for pod in &pods {
        let spec = pod.spec.as_ref().expect("pod spec");
        assert_eq!(spec.containers[0].image.as_deref(), Some(v1));
        let node = spec.node_name.as_deref().expect("pod is bound to a node");
        assert!(node.starts_with("kwok-"), "{node}");
    }

    // Rolling update: every pod replaced, revisions converge, new image reported.
    let applied = statefulsets
        .patch(name, &apply, &Patch::Apply(statefulset(name, v2, 2)))
        .await
        .expect("apply the new image");
    let generation = applied.metadata.generation.expect("generation");
    wait_for("the rolling update to complete", TIMEOUT, || async {
        let sts = statefulsets.get(name).await?;
        let status = sts.status.unwrap_or_default();
        let done = status.observed_generation == Some(generation)
            && status.update_revision.is_some()
            && status.update_revision == status.current_revision
            && status.updated_replicas == Some(2)
            && status.ready_replicas == Some(2);
        Ok(done.then_some(()))
    })
    .await;
    let pods = wait_pods_ready_with(&ns, name, 2, v2).await;

    // A deleted pod comes back (new UID), bound and Ready with the current image.
    let victim = &pods[0];
    let victim_name = victim.metadata.name.clone().expect("pod name");
    let victim_uid = victim.metadata.uid.clone().expect("pod uid");
    ns.api::<Pod>()
        .delete(&victim_name, &DeleteParams::default())
        .await
        .expect("delete a pod");
    let api = ns.api::<Pod>();
    wait_for(
        "the deleted pod to be recreated and Ready",
        TIMEOUT,
        || async {
            let pod = api.get_opt(&victim_name).await?;
            Ok(pod.filter(|p| {
                p.metadata.uid.as_deref() != Some(victim_uid.as_str())
                    && is_ready(p)
                    && reported_images(p) == vec![v2.to_string()]
            }))
        },
    )
    .await;
}
