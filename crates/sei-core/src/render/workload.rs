//! The StatefulSet, headless Service, data PVC and kube-rbac-proxy ConfigMap of a node.
use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec, StatefulSetUpdateStrategy};
use k8s_openapi::api::core::v1::{
    ConfigMap, PersistentVolumeClaim, PersistentVolumeClaimSpec, PodTemplateSpec, Service,
    ServicePort, ServiceSpec, VolumeResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::keys::assert_operator_keyring_containment;
use super::pod::node_pod_spec;
use super::resources::{default_storage_for_mode, parse_quantity};
use super::{
    RBAC_PROXY_PORT, RenderError, SEID_PORTS, data_pvc_name, node_mode, resource_labels,
    selector_labels, serves_seid_rpc,
};
use crate::api::SeiNode;
use crate::platform::{PlatformConfig, SeiConfigMode};

fn meta(node: &SeiNode, name: String) -> ObjectMeta {
    ObjectMeta {
        name: Some(name),
        namespace: Some(node.namespace().to_string()),
        labels: Some(resource_labels(node)),
        ..Default::default()
    }
}

/// Upstream `GenerateStatefulSet`: the node's single-replica, `OnDelete` StatefulSet. Errors, in
/// evaluation order: no kube-rbac-proxy image; a seed without `scheduling.nodepoolSeed`; the
/// seid probe guards; no cosmos-exporter image (non-seed); operator-keyring containment.
/// `replicas` is 1 here; the apply step forces 0 for a paused node (upstream `SyncStatefulSet`).
pub fn statefulset(node: &SeiNode, platform: &PlatformConfig) -> Result<StatefulSet, RenderError> {
    if platform.images.kube_rbac_proxy.is_empty() {
        return Err(RenderError::KubeRbacProxyImageMissing);
    }
    // No fallback pool for a seed: an empty value must not land it on the RPC-class pool.
    if !serves_seid_rpc(node) && platform.scheduling.nodepool_seed.is_empty() {
        return Err(RenderError::SeedNodepoolMissing);
    }
    let labels = resource_labels(node);
    let pod_spec = node_pod_spec(node, platform)?;
    assert_operator_keyring_containment(node, &pod_spec)?;
    Ok(StatefulSet {
        metadata: meta(node, node.name().to_string()),
        spec: StatefulSetSpec {
            replicas: Some(1),
            service_name: Some(node.name().to_string()),
            selector: LabelSelector {
                match_labels: Some(selector_labels(node)),
                match_expressions: None,
            },
            update_strategy: Some(StatefulSetUpdateStrategy {
                type_: Some("OnDelete".into()),
                rolling_update: None,
            }),
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    annotations: Some(BTreeMap::from([(
                        "karpenter.sh/do-not-disrupt".to_string(),
                        "true".to_string(),
                    )])),
                    ..Default::default()
                }),
                spec: Some(pod_spec),
            },
            ..Default::default()
        },
        status: None,
    })
}

fn service_port(name: &str, port: i32) -> ServicePort {
    ServicePort {
        name: Some(name.into()),
        port,
        target_port: Some(IntOrString::Int(port)),
        protocol: Some("TCP".into()),
        ..Default::default()
    }
}

/// Upstream `GenerateHeadlessService`: `clusterIP: None`, not-ready addresses published, the
/// seven seid ports (`grpc` with `appProtocol: kubernetes.io/h2c`) then `api` 8443 — eight
/// ports for every mode.
pub fn headless_service(node: &SeiNode) -> Service {
    let mut ports: Vec<ServicePort> = SEID_PORTS
        .iter()
        .map(|(name, port)| {
            let mut p = service_port(name, *port);
            if *name == "grpc" {
                p.app_protocol = Some("kubernetes.io/h2c".into());
            }
            p
        })
        .collect();
    ports.push(service_port("api", RBAC_PROXY_PORT));
    Service {
        metadata: meta(node, node.name().to_string()),
        spec: Some(ServiceSpec {
            cluster_ip: Some("None".into()),
            selector: Some(selector_labels(node)),
            ports: Some(ports),
            publish_not_ready_addresses: Some(true),
            ..Default::default()
        }),
        status: None,
    }
}

/// Upstream `GenerateDataPVC`: RWO, class and size per mode (seed: `storage.classDefault` and
/// `storage.sizeSeed` or 20Gi). Only the create path renders it; imported PVCs are never
/// rendered. An unparsable size is an error here (upstream panics).
pub fn data_pvc(
    node: &SeiNode,
    platform: &PlatformConfig,
) -> Result<PersistentVolumeClaim, RenderError> {
    let mode = node_mode(node);
    let (class, size) = default_storage_for_mode(mode, platform);
    let key = match mode {
        SeiConfigMode::Archive => "storage.sizeArchive",
        SeiConfigMode::Seed if !platform.storage.size_seed.is_empty() => "storage.sizeSeed",
        SeiConfigMode::Seed => "seed default size",
        SeiConfigMode::Full | SeiConfigMode::Validator => "storage.sizeDefault",
    };
    let size = parse_quantity(key, size)?.canonical();
    Ok(PersistentVolumeClaim {
        metadata: meta(node, data_pvc_name(node)),
        spec: Some(PersistentVolumeClaimSpec {
            access_modes: Some(vec!["ReadWriteOnce".into()]),
            storage_class_name: Some(class.to_string()),
            resources: Some(VolumeResourceRequirements {
                requests: Some(BTreeMap::from([("storage".to_string(), K8sQuantity(size))])),
                limits: None,
            }),
            ..Default::default()
        }),
        status: None,
    })
}

/// `<node>-rbac-proxy-config`.
pub fn rbac_proxy_config_map_name(node: &SeiNode) -> String {
    format!("{}-rbac-proxy-config", node.name())
}

/// Upstream `GenerateRBACProxyConfigMap`: one coarse SubjectAccessReview scoped to
/// `seinodetasks` of this node (group `sei.io`).
pub fn rbac_proxy_config_map(node: &SeiNode) -> ConfigMap {
    let config = format!(
        "authorization:\n  resourceAttributes:\n    apiGroup: sei.io\n    resource: seinodetasks\n    namespace: {}\n    name: {}\n",
        node.namespace(),
        node.name()
    );
    ConfigMap {
        metadata: meta(node, rbac_proxy_config_map_name(node)),
        data: Some(BTreeMap::from([("config.yaml".to_string(), config)])),
        ..Default::default()
    }
}
