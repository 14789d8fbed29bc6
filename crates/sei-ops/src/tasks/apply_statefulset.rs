//! `apply-statefulset` (internal/task/apply_statefulset.go) and the `SyncStatefulSet` it shares
//! with the node controller loop (internal/noderesource/sync.go), spec sections 2.6 and 5.12.
use k8s_openapi::api::apps::v1::StatefulSet;

use super::api_calls::{ApiCall, CallObject};
use super::{Cached, ExecuteError, TaskEnv, WorkloadRenderer, set_owner};
use crate::api::SeiNode;
use crate::ports::{ClusterError, ClusterObject, ObjectKind, Propagation};
use crate::render::RenderError;

/// Reads the tracked StatefulSet, deletes an impostor (or one whose immutable fields changed),
/// and server-side applies the node's StatefulSet.
pub const API_CALLS: &[ApiCall] = &[
    ApiCall::new("get", "apps", "statefulsets", CallObject::NamedAfterNode),
    ApiCall::new("delete", "apps", "statefulsets", CallObject::NamedAfterNode),
    ApiCall::new("patch", "apps", "statefulsets", CallObject::NamedAfterNode),
    ApiCall::new("create", "apps", "statefulsets", CallObject::InNamespace),
];

#[derive(Debug, Clone, Default)]
pub struct ApplyStatefulSet {
    pub(crate) state: Cached,
}

impl ApplyStatefulSet {
    /// Render errors and API errors alike are transient: the plan retries them forever.
    pub async fn execute(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
    ) -> Result<(), ExecuteError> {
        match sync_statefulset(env, node).await {
            Err(err) => Err(ExecuteError::Transient(format!(
                "applying statefulset: {err}"
            ))),
            // Impostor deleted: wait for the next step to create ours.
            Ok(None) => Ok(()),
            Ok(Some(_)) => {
                self.state = Cached::Complete;
                Ok(())
            }
        }
    }
}

/// The node's StatefulSet cannot be rendered; `Display` is upstream's `generating statefulset: …`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("generating statefulset: {0}")]
pub struct StatefulSetRenderError(pub RenderError);

/// Why `SyncStatefulSet` failed; `Display` is the controller's wrapped message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyncStatefulSetError {
    #[error(transparent)]
    Render(#[from] StatefulSetRenderError),
    #[error("fetching tracked statefulset: {0}")]
    FetchTracked(ClusterError),
    #[error("deleting impostor statefulset: {0}")]
    DeleteImpostor(ClusterError),
    #[error("applying statefulset: {0}")]
    Apply(ClusterError),
    #[error("applying statefulset: unexpected object kind returned")]
    UnexpectedKind,
}

impl SyncStatefulSetError {
    /// The renderer's error, when rendering (not the API server) failed.
    pub fn render_error(&self) -> Option<&RenderError> {
        match self {
            Self::Render(StatefulSetRenderError(err)) => Some(err),
            Self::FetchTracked(_)
            | Self::DeleteImpostor(_)
            | Self::Apply(_)
            | Self::UnexpectedKind => None,
        }
    }
}

/// The StatefulSet `SyncStatefulSet` applies for `node`: rendered, owned by the node, scaled to
/// zero while the node is paused. Previews apply the same object as a dry run.
pub fn desired_statefulset(
    renderer: &dyn WorkloadRenderer,
    node: &SeiNode,
) -> Result<StatefulSet, StatefulSetRenderError> {
    let mut sts = renderer.statefulset(node).map_err(StatefulSetRenderError)?;
    set_owner(&mut sts.metadata, node);
    if node.spec.paused == Some(true) {
        sts.spec.replicas = Some(0);
    }
    Ok(sts)
}

/// Upstream `SyncStatefulSet`: render, own, delete an impostor (clearing `status.statefulSet` in
/// memory and returning `None`), else server-side apply and return the live object. The error's
/// text is the wrapped chain the `StatefulSetRenderFailed` event quotes.
pub async fn sync_statefulset(
    env: &TaskEnv<'_>,
    node: &mut SeiNode,
) -> Result<Option<StatefulSet>, SyncStatefulSetError> {
    let sts = desired_statefulset(env.renderer, node)?;
    let tracked = node.status.as_ref().and_then(|s| s.stateful_set.clone());
    if let Some(tracked) = tracked {
        let name = sts.metadata.name.clone().unwrap_or_default();
        match env
            .cluster
            .get(ObjectKind::StatefulSet, node.namespace(), &name)
            .await
        {
            Ok(Some(live)) if live.metadata().uid.as_deref() != Some(tracked.uid.as_str()) => {
                match env
                    .cluster
                    .delete(
                        ObjectKind::StatefulSet,
                        node.namespace(),
                        &name,
                        Propagation::Default,
                    )
                    .await
                {
                    Ok(_) => {}
                    Err(err) if err.is_not_found() => {}
                    Err(err) => return Err(SyncStatefulSetError::DeleteImpostor(err)),
                }
                node.status_mut().stateful_set = None;
                return Ok(None);
            }
            Ok(_) => {}
            Err(err) if err.is_not_found() => {}
            Err(err) => return Err(SyncStatefulSetError::FetchTracked(err)),
        }
    }
    match env.cluster.apply(&ClusterObject::StatefulSet(sts)).await {
        Ok(ClusterObject::StatefulSet(live)) => Ok(Some(live)),
        Ok(_) => Err(SyncStatefulSetError::UnexpectedKind),
        Err(err) => Err(SyncStatefulSetError::Apply(err)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::StatefulSetRef;
    use crate::ports::ClusterErrorKind;
    use crate::tasks::testing::*;

    #[tokio::test]
    async fn test_sync_statefulset_first_create() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let live = sync_statefulset(&h.env(), &mut node)
            .await
            .expect("sync")
            .expect("applied");
        assert!(live.metadata.uid.is_some());
        assert_eq!(h.cluster.count_calls("apply statefulsets a"), 1);
        let mut t = ApplyStatefulSet::default();
        assert_eq!(t.execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(t.state, Cached::Complete);
    }

    #[tokio::test]
    async fn test_sync_statefulset_impostor_deletes_then_apply() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        sync_statefulset(&h.env(), &mut node).await.expect("sync");
        node.status_mut().stateful_set = Some(StatefulSetRef {
            name: "a".into(),
            uid: "someone-else".into(),
            ..StatefulSetRef::default()
        });
        let mut t = ApplyStatefulSet::default();
        assert_eq!(t.execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(t.state, Cached::Running, "impostor deleted: wait");
        assert_eq!(h.cluster.count_calls("delete statefulsets a"), 1);
        assert!(
            node.status
                .as_ref()
                .and_then(|s| s.stateful_set.as_ref())
                .is_none()
        );
        // Second step: tracking cleared, so it applies without churn.
        let mut t = ApplyStatefulSet::default();
        assert_eq!(t.execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(t.state, Cached::Complete);
        assert_eq!(h.cluster.count_calls("delete"), 1);
    }

    #[tokio::test]
    async fn test_sync_statefulset_matching_uid_and_tracked_but_missing() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let live = sync_statefulset(&h.env(), &mut node)
            .await
            .expect("sync")
            .expect("live");
        node.status_mut().stateful_set = Some(StatefulSetRef {
            name: "a".into(),
            uid: live.metadata.uid.clone().unwrap_or_default(),
            ..StatefulSetRef::default()
        });
        assert!(
            sync_statefulset(&h.env(), &mut node)
                .await
                .expect("sync")
                .is_some()
        );
        h.cluster.remove(ObjectKind::StatefulSet, "ns", "a");
        assert!(
            sync_statefulset(&h.env(), &mut node)
                .await
                .expect("recreate")
                .is_some()
        );
        assert_eq!(h.cluster.count_calls("delete"), 0);
    }

    #[tokio::test]
    async fn test_sync_statefulset_paused_replicas_zero() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        node.spec.paused = Some(true);
        let live = sync_statefulset(&h.env(), &mut node)
            .await
            .expect("sync")
            .expect("live");
        assert_eq!(live.spec.replicas, Some(0));
    }

    #[tokio::test]
    async fn render_error_is_transient_with_the_wrapped_chain() {
        let h = Harness::new();
        *h.renderer.statefulset_error.lock().expect("lock") =
            Some(RenderError::SeedNodepoolMissing);
        let mut node = full_node("ns", "a");
        let mut t = ApplyStatefulSet::default();
        assert_eq!(
            t.execute(&h.env(), &mut node).await,
            Err(ExecuteError::Transient(
                "applying statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file".into()
            ))
        );
        h.cluster
            .fail_next("apply statefulsets", ClusterErrorKind::Other, "etcd down");
        *h.renderer.statefulset_error.lock().expect("lock") = None;
        let err = sync_statefulset(&h.env(), &mut node)
            .await
            .expect_err("apply fails");
        assert!(matches!(err, SyncStatefulSetError::Apply(_)), "{err:?}");
        assert_eq!(err.to_string(), "applying statefulset: etcd down");
        assert_eq!(err.render_error(), None);
    }

    #[tokio::test]
    async fn a_render_failure_keeps_the_renderer_error_typed() {
        let h = Harness::new();
        *h.renderer.statefulset_error.lock().expect("lock") =
            Some(RenderError::SeedNodepoolMissing);
        let err = sync_statefulset(&h.env(), &mut full_node("ns", "a"))
            .await
            .expect_err("render fails");
        assert_eq!(err.render_error(), Some(&RenderError::SeedNodepoolMissing));
        assert_eq!(h.cluster.count_calls("apply"), 0);
    }
}
