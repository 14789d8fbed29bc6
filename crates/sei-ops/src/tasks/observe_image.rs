//! `observe-image` (internal/task/observe_image.go), spec section 2.9: once the StatefulSet's
//! rollout is observed complete, stamp `currentImage` and `currentSidecarImage` in memory.
use super::api_calls::{ApiCall, CallObject};
use super::replace_pod::{fetch_statefulset, generation_stale};
use super::{Cached, ExecuteError, TaskEnv};
use crate::api::SeiNode;

/// Reads the StatefulSet's rollout status.
pub const API_CALLS: &[ApiCall] = &[ApiCall::new(
    "get",
    "apps",
    "statefulsets",
    CallObject::NamedAfterNode,
)];

#[derive(Debug, Clone, Default)]
pub struct ObserveImage {
    pub(crate) state: Cached,
}

impl ObserveImage {
    pub async fn execute(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
    ) -> Result<(), ExecuteError> {
        let Some(sts) = fetch_statefulset(env, node).await? else {
            return Ok(());
        };
        if generation_stale(&sts) {
            return Ok(());
        }
        let Some(replicas) = sts.spec.replicas else {
            return Ok(());
        };
        let updated = sts
            .status
            .as_ref()
            .and_then(|s| s.updated_replicas)
            .unwrap_or(0);
        if updated < replicas {
            return Ok(());
        }
        // Never inspects the containers: the spec is what the rollout converged to.
        let sidecar_image = match node.spec.sidecar.as_ref().and_then(|s| s.image.as_deref()) {
            Some(image) if !image.is_empty() => image.to_owned(),
            _ => env.renderer.platform_sidecar_image(),
        };
        let image = node.spec.image.clone();
        let status = node.status_mut();
        status.current_image = Some(image);
        status.current_sidecar_image = Some(sidecar_image);
        self.state = Cached::Complete;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::StatefulSetStatus;

    use super::*;
    use crate::ports::ClusterObject;
    use crate::tasks::WorkloadRenderer;
    use crate::tasks::testing::*;

    fn put_sts(h: &Harness, node: &SeiNode, replicas: Option<i32>, updated: i32, observed: i64) {
        let mut sts = h.renderer.statefulset(node).expect("render");
        sts.metadata.generation = Some(2);
        sts.spec.replicas = replicas;
        sts.status = Some(StatefulSetStatus {
            observed_generation: Some(observed),
            updated_replicas: Some(updated),
            ..StatefulSetStatus::default()
        });
        h.cluster.put(ClusterObject::StatefulSet(sts));
    }

    async fn run(h: &Harness, node: &mut SeiNode) -> Cached {
        let mut t = ObserveImage::default();
        assert_eq!(t.execute(&h.env(), node).await, Ok(()));
        t.state
    }

    fn current(node: &SeiNode) -> (String, String) {
        let s = node.status.clone().unwrap_or_default();
        (
            s.current_image().to_owned(),
            s.current_sidecar_image().to_owned(),
        )
    }

    #[tokio::test]
    async fn test_observe_image_rollout_complete_sets_current_image() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        put_sts(&h, &node, Some(1), 1, 2);
        assert_eq!(run(&h, &mut node).await, Cached::Complete);
        assert_eq!(current(&node).0, "ghcr.io/sei-protocol/seid:v1");
    }

    #[tokio::test]
    async fn test_observe_image_rollout_complete_stamps_sidecar_from_platform_default() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        put_sts(&h, &node, Some(1), 1, 2);
        run(&h, &mut node).await;
        assert_eq!(current(&node).1, "ghcr.io/sei-protocol/seictl:platform");
    }

    #[tokio::test]
    async fn test_observe_image_rollout_complete_stamps_sidecar_from_override() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        node.spec.sidecar = serde_json::from_value(serde_json::json!({"image": "custom:1"})).ok();
        put_sts(&h, &node, Some(1), 1, 2);
        run(&h, &mut node).await;
        assert_eq!(current(&node).1, "custom:1");
    }

    #[tokio::test]
    async fn test_observe_image_rolling_update_returns_running() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        put_sts(&h, &node, Some(1), 0, 2);
        assert_eq!(run(&h, &mut node).await, Cached::Running);
        assert_eq!(current(&node).0, "");
    }

    #[tokio::test]
    async fn test_observe_image_stale_generation_returns_running() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        put_sts(&h, &node, Some(1), 1, 1);
        assert_eq!(run(&h, &mut node).await, Cached::Running);
    }

    #[tokio::test]
    async fn test_observe_image_stateful_set_not_found_returns_running() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        assert_eq!(run(&h, &mut node).await, Cached::Running);
    }

    #[tokio::test]
    async fn test_observe_image_nil_replicas_returns_running() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        put_sts(&h, &node, None, 1, 2);
        assert_eq!(run(&h, &mut node).await, Cached::Running);
    }

    #[tokio::test]
    async fn paused_zero_replicas_passes_immediately() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        put_sts(&h, &node, Some(0), 0, 2);
        assert_eq!(run(&h, &mut node).await, Cached::Complete);
    }

    #[test]
    fn test_observe_image_deserialize_empty_params() {
        use crate::api::TaskKind;
        use crate::tasks::Task;
        assert!(Task::deserialize(&TaskKind::ObserveImage, "id", None).is_ok());
        assert!(
            Task::deserialize(
                &TaskKind::ObserveImage,
                "id",
                Some(&serde_json::Value::Null)
            )
            .is_ok()
        );
    }
}
