//! `apply-service` (internal/task/apply_service.go), spec section 2.7: server-side apply of the
//! headless Service; every failure is transient.
use super::api_calls::{ApiCall, CallObject};
use super::{Cached, ExecuteError, TaskEnv, set_owner};
use crate::api::SeiNode;
use crate::ports::ClusterObject;

/// Server-side applies the node's headless Service.
pub const API_CALLS: &[ApiCall] =
    &ApiCall::server_side_apply("", "services", CallObject::NamedAfterNode);

#[derive(Debug, Clone, Default)]
pub struct ApplyService {
    pub(crate) state: Cached,
}

impl ApplyService {
    pub async fn execute(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
    ) -> Result<(), ExecuteError> {
        let mut service = env
            .renderer
            .headless_service(node)
            .map_err(|err| ExecuteError::Transient(err.to_string()))?;
        set_owner(&mut service.metadata, node);
        env.cluster
            .apply(&ClusterObject::Service(service))
            .await
            .map_err(|err| ExecuteError::Transient(format!("applying service: {err}")))?;
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
    async fn applies_service_and_completes_and_failures_are_transient() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let mut t = ApplyService::default();
        assert_eq!(t.execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(t.state, Cached::Complete);
        assert!(h.cluster.object(ObjectKind::Service, "ns", "a").is_some());
        h.cluster
            .fail_next("apply services", ClusterErrorKind::Other, "boom");
        let mut t = ApplyService::default();
        assert_eq!(
            t.execute(&h.env(), &mut node).await,
            Err(ExecuteError::Transient("applying service: boom".into()))
        );
        assert_eq!(t.state, Cached::Running);
    }
}
