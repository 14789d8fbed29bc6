//! Task-level test doubles: a [`WorkloadRenderer`] fake, the [`Harness`] bundling it with the port
//! fakes of [`crate::ports::testing`] and a fixed clock, and node builders.
use std::collections::BTreeMap;
use std::sync::Mutex;

use jiff::Timestamp;
use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{
    ConfigMap, PersistentVolumeClaim, PersistentVolumeClaimSpec, Service,
    VolumeResourceRequirements,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::{TaskEnv, WorkloadRenderer};
use crate::api::{ConditionType, SeiNode, SeiNodeSpec};
// Task tests use the port fakes together with the task-level ones.
use crate::ports::testing::lock;
pub use crate::ports::testing::*;
use crate::render::RenderError;

/// A renderer producing minimal but well-formed objects; failures can be injected.
#[derive(Default)]
pub struct FakeRenderer {
    pub statefulset_error: Mutex<Option<RenderError>>,
    pub job_error: Mutex<Option<RenderError>>,
    pub required_storage: Mutex<Option<String>>,
    /// The pod template's `serviceAccountName`, when set (none by default).
    pub service_account: Mutex<Option<String>>,
}

fn node_labels(node: &SeiNode) -> BTreeMap<String, String> {
    BTreeMap::from([("sei.io/node".to_owned(), node.name().to_owned())])
}

impl WorkloadRenderer for FakeRenderer {
    fn statefulset(&self, node: &SeiNode) -> Result<StatefulSet, RenderError> {
        if let Some(err) = lock(&self.statefulset_error).clone() {
            return Err(err);
        }
        Ok(StatefulSet {
            metadata: meta(node.namespace(), node.name()),
            spec: StatefulSetSpec {
                replicas: Some(1),
                selector: LabelSelector {
                    match_labels: Some(node_labels(node)),
                    ..LabelSelector::default()
                },
                service_name: Some(node.name().to_owned()),
                template: k8s_openapi::api::core::v1::PodTemplateSpec {
                    spec: lock(&self.service_account).clone().map(|account| {
                        k8s_openapi::api::core::v1::PodSpec {
                            service_account_name: Some(account),
                            ..Default::default()
                        }
                    }),
                    ..Default::default()
                },
                ..StatefulSetSpec::default()
            },
            status: None,
        })
    }

    fn headless_service(&self, node: &SeiNode) -> Result<Service, RenderError> {
        Ok(Service {
            metadata: meta(node.namespace(), node.name()),
            ..Service::default()
        })
    }

    fn data_pvc(&self, node: &SeiNode) -> Result<PersistentVolumeClaim, RenderError> {
        let size = lock(&self.required_storage)
            .clone()
            .unwrap_or_else(|| "2000Gi".into());
        Ok(PersistentVolumeClaim {
            metadata: meta(node.namespace(), &format!("data-{}", node.name())),
            spec: Some(PersistentVolumeClaimSpec {
                access_modes: Some(vec!["ReadWriteOnce".into()]),
                resources: Some(VolumeResourceRequirements {
                    requests: Some(BTreeMap::from([("storage".to_owned(), Quantity(size))])),
                    ..VolumeResourceRequirements::default()
                }),
                ..PersistentVolumeClaimSpec::default()
            }),
            status: None,
        })
    }

    fn rbac_proxy_config_map(&self, node: &SeiNode) -> Result<ConfigMap, RenderError> {
        Ok(ConfigMap {
            metadata: meta(
                node.namespace(),
                &format!("{}-rbac-proxy-config", node.name()),
            ),
            ..ConfigMap::default()
        })
    }

    fn bootstrap_job(&self, node: &SeiNode) -> Result<Job, RenderError> {
        if let Some(err) = lock(&self.job_error).clone() {
            return Err(err);
        }
        Ok(Job {
            metadata: meta(node.namespace(), &format!("{}-bootstrap", node.name())),
            ..Job::default()
        })
    }

    fn bootstrap_service(&self, node: &SeiNode) -> Result<Service, RenderError> {
        self.headless_service(node)
    }

    fn platform_sidecar_image(&self) -> String {
        "ghcr.io/sei-protocol/seictl:platform".into()
    }
}

/// The three fakes plus a fixed clock.
pub struct Harness {
    pub cluster: FakeCluster,
    pub sidecar: FakeSidecar,
    pub renderer: FakeRenderer,
    pub now: Timestamp,
}

impl Default for Harness {
    fn default() -> Self {
        Self::new()
    }
}

impl Harness {
    pub fn new() -> Self {
        Self {
            cluster: FakeCluster::new(),
            sidecar: FakeSidecar::new(SidecarBehaviour::CompleteAtOnce),
            renderer: FakeRenderer::default(),
            now: Timestamp::from_second(1_800_000_000).unwrap_or(Timestamp::UNIX_EPOCH),
        }
    }

    pub fn env(&self) -> TaskEnv<'_> {
        TaskEnv {
            cluster: &self.cluster,
            sidecar: &self.sidecar,
            renderer: &self.renderer,
            now: self.now,
        }
    }
}

/// A fullNode with a UID and generation 1.
pub fn full_node(ns: &str, name: &str) -> SeiNode {
    let spec: SeiNodeSpec = serde_json::from_value(serde_json::json!({
        "chainId": "pacific-1", "image": "ghcr.io/sei-protocol/seid:v1", "fullNode": {}
    }))
    .unwrap_or_default();
    with_identity(SeiNode::new(ns, name, spec))
}

/// A validator with signing-key Secret `sk`.
pub fn validator_node(ns: &str, name: &str) -> SeiNode {
    let spec: SeiNodeSpec = serde_json::from_value(serde_json::json!({
        "chainId": "pacific-1", "image": "ghcr.io/sei-protocol/seid:v1",
        "validator": {"signingKey": {"secret": {"secretName": "sk"}}}
    }))
    .unwrap_or_default();
    with_identity(SeiNode::new(ns, name, spec))
}

fn with_identity(mut node: SeiNode) -> SeiNode {
    node.metadata.uid = Some(format!("node-uid-{}", node.name()));
    node.metadata.generation = Some(1);
    node
}

pub fn assert_condition(node: &SeiNode, kind: ConditionType, status: &str, reason: &str) {
    let condition = node
        .status
        .as_ref()
        .and_then(|s| s.condition(kind))
        .unwrap_or_else(|| panic!("no {kind} condition"));
    assert_eq!(condition.status, status, "{kind} status");
    assert_eq!(condition.reason, reason, "{kind} reason");
    assert_eq!(condition.observed_generation, Some(node.generation()));
}

pub fn condition_message(node: &SeiNode, kind: ConditionType) -> String {
    node.status
        .as_ref()
        .and_then(|s| s.condition(kind))
        .map(|c| c.message.clone())
        .unwrap_or_default()
}
