//! `apply-rbac-proxy-config` (internal/task/apply_rbac_proxy_config.go), spec section 2.5:
//! server-side apply of the kube-rbac-proxy ConfigMap; every failure is transient.
use super::api_calls::{ApiCall, CallObject};
use super::{Cached, ExecuteError, TaskEnv, set_owner};
use crate::api::SeiNode;
use crate::ports::ClusterObject;

/// Server-side applies the kube-rbac-proxy ConfigMap.
pub const API_CALLS: &[ApiCall] =
    &ApiCall::server_side_apply("", "configmaps", CallObject::InNamespace);

#[derive(Debug, Clone, Default)]
pub struct ApplyRbacProxyConfig {
    pub(crate) state: Cached,
}

impl ApplyRbacProxyConfig {
    pub async fn execute(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
    ) -> Result<(), ExecuteError> {
        let mut config_map = env
            .renderer
            .rbac_proxy_config_map(node)
            .map_err(|err| ExecuteError::Transient(err.to_string()))?;
        set_owner(&mut config_map.metadata, node);
        env.cluster
            .apply(&ClusterObject::ConfigMap(config_map))
            .await
            .map_err(|err| {
                ExecuteError::Transient(format!("applying rbac-proxy ConfigMap: {err}"))
            })?;
        self.state = Cached::Complete;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::{ClusterErrorKind, ObjectKind};
    use crate::tasks::testing::*;

    #[tokio::test]
    async fn applies_owned_config_map_and_completes() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let mut t = ApplyRbacProxyConfig::default();
        assert_eq!(t.execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(t.state, Cached::Complete);
        let cm = h
            .cluster
            .object(ObjectKind::ConfigMap, "ns", "a-rbac-proxy-config")
            .expect("applied");
        assert_eq!(
            cm.metadata().owner_references.as_ref().map(Vec::len),
            Some(1)
        );
        assert_eq!(h.cluster.count_calls("apply configmaps"), 1);
    }

    #[tokio::test]
    async fn apply_failure_is_transient() {
        let h = Harness::new();
        h.cluster
            .fail_next("apply configmaps", ClusterErrorKind::Forbidden, "forbidden");
        let mut node = full_node("ns", "a");
        let mut t = ApplyRbacProxyConfig::default();
        assert_eq!(
            t.execute(&h.env(), &mut node).await,
            Err(ExecuteError::Transient(
                "applying rbac-proxy ConfigMap: forbidden".into()
            ))
        );
    }
}
