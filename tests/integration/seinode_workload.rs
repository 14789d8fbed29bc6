//! A StatefulSet shaped like the one sei-k8s-controller renders for a full node (native sidecar
//! init containers, node affinity on the node pool, the pool toleration, production resource
//! requests, a data PVC) schedules onto the pool's kwok Nodes, binds its PVC and becomes Ready.

use std::time::Duration;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{ConfigMap, Node, PersistentVolumeClaim, Pod, ServiceAccount};
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

use crate::common::{TestNamespace, platform_value, wait_for};

const MANAGER: &str = "sei-console-it";
const TIMEOUT: Duration = Duration::from_secs(60);
const SEID_IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

fn seid_security_context(read_only_root: bool) -> serde_json::Value {
    let mut context = json!({
        "runAsNonRoot": true, "runAsUser": 65532, "runAsGroup": 65532,
        "allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"}
    });
    if read_only_root {
        context["readOnlyRootFilesystem"] = json!(true);
    }
    context
}

fn full_node_statefulset(node: &str, namespace: &str, pool: &str) -> serde_json::Value {
    let labels = json!({"sei.io/node": node, "sei.io/chain": "pacific-1", "sei.io/role": "node"});
    let seid_ports: Vec<_> = [
        ("evm-rpc", 8545),
        ("evm-ws", 8546),
        ("grpc", 9090),
        ("rest", 1317),
        ("p2p", 26656),
        ("rpc", 26657),
        ("metrics", 26660),
    ]
    .iter()
    .map(|(name, port)| json!({"name": name, "containerPort": port, "protocol": "TCP"}))
    .collect();
    json!({
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": node, "namespace": namespace, "labels": labels},
        "spec": {
            "replicas": 1,
            "serviceName": node,
            "selector": {"matchLabels": {"sei.io/node": node}},
            "updateStrategy": {"type": "OnDelete"},
            "template": {
                "metadata": {"labels": labels, "annotations": {"karpenter.sh/do-not-disrupt": "true"}},
                "spec": {
                    "automountServiceAccountToken": true,
                    "serviceAccountName": platform_value("scheduling.serviceAccount"),
                    "shareProcessNamespace": true,
                    "securityContext": {"fsGroup": 65532, "fsGroupChangePolicy": "OnRootMismatch"},
                    "tolerations": [{
                        "key": platform_value("scheduling.tolerationKey"),
                        "value": pool, "effect": "NoSchedule"
                    }],
                    "affinity": {
                        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [{"matchExpressions": [{
                                "key": "karpenter.sh/nodepool", "operator": "In", "values": [pool]
                            }]}]
                        }},
                        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                            "topologyKey": "kubernetes.io/hostname",
                            "namespaceSelector": {},
                            "labelSelector": {"matchExpressions": [{
                                "key": "sei.io/dedicated-node", "operator": "In", "values": ["true"]
                            }]}
                        }]}
                    },
                    "volumes": [
                        {"name": "data", "persistentVolumeClaim": {"claimName": format!("data-{node}")}},
                        {"name": "sidecar-tmp", "emptyDir": {}},
                        {"name": "home", "emptyDir": {}},
                        {"name": "rbac-proxy-config", "configMap": {"name": format!("{node}-rbac-proxy-config")}}
                    ],
                    "initContainers": [
                        {
                            "name": "seid-init", "image": SEID_IMAGE,
                            "command": ["/bin/sh", "-c", "seid init pacific-1 --chain-id pacific-1 --home /home/nonroot/.sei"],
                            "env": [{"name": "HOME", "value": "/home/nonroot"}],
                            "volumeMounts": [
                                {"name": "data", "mountPath": "/home/nonroot/.sei"},
                                {"name": "home", "mountPath": "/home/nonroot"}
                            ],
                            "securityContext": seid_security_context(false)
                        },
                        {
                            "name": "sei-sidecar", "image": platform_value("images.sidecar"),
                            "restartPolicy": "Always",
                            "command": ["seictl", "serve"],
                            "ports": [{"name": "sidecar", "containerPort": 7777, "protocol": "TCP"}],
                            "volumeMounts": [
                                {"name": "home", "mountPath": "/home/nonroot"},
                                {"name": "data", "mountPath": "/home/nonroot/.sei"},
                                {"name": "sidecar-tmp", "mountPath": "/tmp"}
                            ],
                            "securityContext": seid_security_context(true)
                        },
                        {
                            "name": "kube-rbac-proxy", "image": platform_value("images.kubeRBACProxy"),
                            "restartPolicy": "Always",
                            "args": ["--insecure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:7777/"],
                            "ports": [{"name": "api", "containerPort": 8443, "protocol": "TCP"}],
                            "volumeMounts": [{"name": "rbac-proxy-config", "mountPath": "/etc/kube-rbac-proxy", "readOnly": true}],
                            "startupProbe": {"tcpSocket": {"port": 8443}, "initialDelaySeconds": 5, "periodSeconds": 5, "failureThreshold": 60},
                            "readinessProbe": {"httpGet": {"path": "/v0/healthz", "port": 8443}, "initialDelaySeconds": 2, "periodSeconds": 5, "failureThreshold": 6},
                            "securityContext": seid_security_context(true)
                        }
                    ],
                    "containers": [
                        {
                            "name": "seid", "image": SEID_IMAGE,
                            "command": ["/bin/bash", "-c"],
                            "args": ["exec seid start --home /home/nonroot/.sei"],
                            "ports": seid_ports,
                            "resources": {"requests": {"cpu": "32", "memory": "256Gi"}, "limits": {"memory": "256Gi"}},
                            "startupProbe": {"httpGet": {"path": "/v0/healthz", "port": 8443}, "initialDelaySeconds": 5, "periodSeconds": 5, "failureThreshold": 86400},
                            "readinessProbe": {"httpGet": {"path": "/lag_status", "port": 26657}, "initialDelaySeconds": 30, "periodSeconds": 10, "failureThreshold": 3, "timeoutSeconds": 5},
                            "volumeMounts": [
                                {"name": "data", "mountPath": "/home/nonroot/.sei"},
                                {"name": "home", "mountPath": "/home/nonroot"}
                            ],
                            "securityContext": seid_security_context(false)
                        },
                        {
                            "name": "cosmos-exporter", "image": platform_value("images.cosmosExporter"),
                            "ports": [{"name": "cosmos-metrics", "containerPort": 9300, "protocol": "TCP"}],
                            "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "384Mi"}},
                            "volumeMounts": [{"name": "sidecar-tmp", "mountPath": "/tmp"}],
                            "securityContext": seid_security_context(true)
                        }
                    ]
                }
            }
        }
    })
}

#[tokio::test]
async fn seinode_shaped_statefulset_schedules_on_its_pool_binds_its_pvc_and_becomes_ready() {
    let ns = TestNamespace::new("seinode-sts").await;
    let apply = PatchParams::apply(MANAGER).force();
    let node = "pacific-1-full-0";
    let pool = platform_value("scheduling.nodepoolName");
    let service_account = platform_value("scheduling.serviceAccount");

    ns.api::<ServiceAccount>()
        .patch(
            &service_account,
            &apply,
            &Patch::Apply(json!({
                "apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": service_account}
            })),
        )
        .await
        .expect("apply ServiceAccount");
    ns.api::<PersistentVolumeClaim>()
        .patch(
            &format!("data-{node}"),
            &apply,
            &Patch::Apply(json!({
                "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"name": format!("data-{node}"), "labels": {"sei.io/node": node}},
                "spec": {
                    "accessModes": ["ReadWriteOnce"],
                    "storageClassName": platform_value("storage.classPerf"),
                    "resources": {"requests": {"storage": platform_value("storage.sizeDefault")}}
                }
            })),
        )
        .await
        .expect("apply data PVC");
    ns.api::<ConfigMap>()
        .patch(&format!("{node}-rbac-proxy-config"), &apply, &Patch::Apply(json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("{node}-rbac-proxy-config")},
            "data": {"config.yaml": format!(
                "authorization:\n  resourceAttributes:\n    apiGroup: sei.io\n    resource: seinodetasks\n    namespace: {}\n    name: {node}\n",
                ns.name
            )}
        })))
        .await
        .expect("apply rbac-proxy ConfigMap");
    let statefulsets = ns.api::<StatefulSet>();
    statefulsets
        .patch(
            node,
            &apply,
            &Patch::Apply(full_node_statefulset(node, &ns.name, &pool)),
        )
        .await
        .expect("server-side apply the SeiNode-shaped StatefulSet");

    let claims = ns.api::<PersistentVolumeClaim>();
    wait_for("the data PVC to bind", TIMEOUT, || async {
        let pvc = claims.get(&format!("data-{node}")).await?;
        let phase = pvc.status.and_then(|s| s.phase);
        Ok((phase.as_deref() == Some("Bound")).then_some(()))
    })
    .await;

    let pods = ns.api::<Pod>();
    let pod_name = format!("{node}-0");
    let pod = wait_for("the pod to be Running and Ready", TIMEOUT, || async {
        let pod = pods.get_opt(&pod_name).await?;
        Ok(pod.filter(|p| {
            let status = p.status.as_ref();
            status.and_then(|s| s.phase.as_deref()) == Some("Running")
                && status
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        }))
    })
    .await;

    let node_name = pod
        .spec
        .as_ref()
        .and_then(|s| s.node_name.clone())
        .expect("bound");
    let bound_node = Api::<Node>::all(ns.client.clone())
        .get(&node_name)
        .await
        .expect("node");
    let labels = bound_node.metadata.labels.unwrap_or_default();
    assert_eq!(
        labels.get("karpenter.sh/nodepool"),
        Some(&pool),
        "scheduled on {node_name}"
    );

    let status = pod.status.expect("pod status");
    let sidecars: Vec<_> = status
        .init_container_statuses
        .unwrap_or_default()
        .into_iter()
        .filter(|s| s.name != "seid-init")
        .map(|s| {
            (
                s.name,
                s.started,
                s.state.and_then(|st| st.running).is_some(),
            )
        })
        .collect();
    assert_eq!(
        sidecars,
        vec![
            ("sei-sidecar".to_string(), Some(true), true),
            ("kube-rbac-proxy".to_string(), Some(true), true)
        ]
    );
    let images: Vec<_> = status
        .container_statuses
        .unwrap_or_default()
        .into_iter()
        .map(|s| (s.name, s.image))
        .collect();
    assert_eq!(
        images,
        vec![
            ("seid".to_string(), SEID_IMAGE.to_string()),
            (
                "cosmos-exporter".to_string(),
                platform_value("images.cosmosExporter")
            )
        ]
    );

    wait_for(
        "the StatefulSet to report 1 ready replica",
        TIMEOUT,
        || async {
            let sts = statefulsets.get(node).await?;
            Ok((sts.status.and_then(|s| s.ready_replicas) == Some(1)).then_some(()))
        },
    )
    .await;
}
