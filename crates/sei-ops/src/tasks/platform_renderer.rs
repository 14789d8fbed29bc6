//! [`WorkloadRenderer`] over the real renderer (`crate::render`) and a platform config: what the
//! embedded executor applies is exactly what `sei-console render` prints.
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, PersistentVolumeClaim, Service};

use super::WorkloadRenderer;
use crate::api::SeiNode;
use crate::platform::PlatformConfig;
use crate::render::{self, RenderError};

/// Renders with `crate::render` for one platform config.
#[derive(Debug, Clone)]
pub struct PlatformRenderer {
    pub platform: PlatformConfig,
}

impl PlatformRenderer {
    pub fn new(platform: PlatformConfig) -> Self {
        Self { platform }
    }
}

impl WorkloadRenderer for PlatformRenderer {
    fn statefulset(&self, node: &SeiNode) -> Result<StatefulSet, RenderError> {
        render::statefulset(node, &self.platform)
    }

    fn headless_service(&self, node: &SeiNode) -> Result<Service, RenderError> {
        Ok(render::headless_service(node))
    }

    fn data_pvc(&self, node: &SeiNode) -> Result<PersistentVolumeClaim, RenderError> {
        render::data_pvc(node, &self.platform)
    }

    fn rbac_proxy_config_map(&self, node: &SeiNode) -> Result<ConfigMap, RenderError> {
        Ok(render::rbac_proxy_config_map(node))
    }

    fn bootstrap_job(&self, node: &SeiNode) -> Result<Job, RenderError> {
        render::bootstrap_job(node, node.spec.snapshot_source(), &self.platform)
    }

    fn bootstrap_service(&self, node: &SeiNode) -> Result<Service, RenderError> {
        Ok(render::bootstrap_service(node))
    }

    fn platform_sidecar_image(&self) -> String {
        self.platform.images.sidecar.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::testing::full_node;

    #[test]
    fn seed_without_nodepool_seed_fails_with_the_upstream_message() {
        let mut platform = PlatformConfig::test_fixture();
        platform.scheduling.nodepool_seed.clear();
        let renderer = PlatformRenderer::new(platform);
        let mut seed = full_node("ns", "s");
        seed.spec.full_node = None;
        seed.spec.seed = serde_json::from_value(serde_json::json!({
            "nodeKey": {"secret": {"secretName": "s-node-key"}}
        }))
        .ok();
        assert_eq!(
            renderer.statefulset(&seed).map(|_| ()),
            Err(RenderError::SeedNodepoolMissing)
        );
        assert!(renderer.statefulset(&full_node("ns", "f")).is_ok());
    }
}
