//! `replace-pod` (internal/task/replace_pod.go), spec section 2.8: with the OnDelete update
//! strategy, delete the StatefulSet's pods still at an old revision. Readiness-blind.
use k8s_openapi::api::apps::v1::StatefulSet;

use super::api_calls::{ApiCall, CallObject};
use super::{Cached, ExecuteError, TaskEnv, go_quote};
use crate::api::SeiNode;
use crate::ports::{ClusterObject, ObjectKind, Propagation};

/// Label the StatefulSet controller puts on each pod with its revision.
pub const REVISION_LABEL: &str = "controller-revision-hash";

/// Reads the StatefulSet, lists its pods and deletes the (single) pod at an old revision.
pub const API_CALLS: &[ApiCall] = &[
    ApiCall::new("get", "apps", "statefulsets", CallObject::NamedAfterNode),
    ApiCall::new("list", "", "pods", CallObject::InNamespace),
    ApiCall::new("delete", "", "pods", CallObject::NodePod),
];

#[derive(Debug, Clone, Default)]
pub struct ReplacePod {
    pub(crate) state: Cached,
}

/// Upstream `fetchStatefulSet`: the live StatefulSet (uncached read), `None` when absent.
pub(crate) async fn fetch_statefulset(
    env: &TaskEnv<'_>,
    node: &SeiNode,
) -> Result<Option<StatefulSet>, ExecuteError> {
    match env
        .cluster
        .get(ObjectKind::StatefulSet, node.namespace(), node.name())
        .await
    {
        Ok(Some(ClusterObject::StatefulSet(sts))) => Ok(Some(sts)),
        Ok(_) => Ok(None),
        Err(err) if err.is_not_found() => Ok(None),
        Err(err) => Err(ExecuteError::Transient(format!(
            "getting statefulset: {err}"
        ))),
    }
}

/// `status.observedGeneration < metadata.generation`: the controller has not seen the spec yet.
pub(crate) fn generation_stale(sts: &StatefulSet) -> bool {
    let observed = sts
        .status
        .as_ref()
        .and_then(|s| s.observed_generation)
        .unwrap_or(0);
    observed < sts.metadata.generation.unwrap_or(0)
}

impl ReplacePod {
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
        let status = sts.status.clone().unwrap_or_default();
        let update_revision = status.update_revision.clone().unwrap_or_default();
        if update_revision.is_empty() {
            return Ok(());
        }
        if status.current_revision.as_deref() == Some(update_revision.as_str()) {
            self.state = Cached::Complete;
            return Ok(());
        }
        let name = sts.metadata.name.clone().unwrap_or_default();
        let spec = &sts.spec;
        let selector = spec.selector.match_labels.clone().unwrap_or_default();
        if selector.is_empty() {
            return Err(ExecuteError::Terminal(format!(
                "statefulset {} has no selector; cannot identify owned pods",
                go_quote(&name)
            )));
        }
        let replicas = spec.replicas.unwrap_or(1);
        if replicas > 1 {
            return Err(ExecuteError::Terminal(format!(
                "replace-pod does not support multi-replica StatefulSets (got replicas={replicas}); add ordinal-aware deletion before scaling up"
            )));
        }
        let pods = env
            .cluster
            .list_pods(node.namespace(), &selector)
            .await
            .map_err(|err| {
                ExecuteError::Transient(format!(
                    "listing pods for statefulset {}: {err}",
                    go_quote(&name)
                ))
            })?;
        let sts_uid = sts.metadata.uid.clone().unwrap_or_default();
        for pod in pods {
            let owned = pod
                .metadata
                .owner_references
                .iter()
                .flatten()
                .any(|r| r.kind == "StatefulSet" && r.uid == sts_uid);
            if !owned {
                continue;
            }
            let revision = pod
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get(REVISION_LABEL));
            let Some(revision) = revision else { continue };
            if *revision == update_revision || pod.metadata.deletion_timestamp.is_some() {
                continue;
            }
            let pod_name = pod.metadata.name.clone().unwrap_or_default();
            match env
                .cluster
                .delete(
                    ObjectKind::Pod,
                    node.namespace(),
                    &pod_name,
                    Propagation::Default,
                )
                .await
            {
                Ok(_) => {}
                Err(err) if err.is_not_found() => {}
                Err(err) => {
                    return Err(ExecuteError::Transient(format!(
                        "deleting pod {}: {err}",
                        go_quote(&pod_name)
                    )));
                }
            }
        }
        self.state = Cached::Complete;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::api::apps::v1::StatefulSetStatus;
    use k8s_openapi::api::core::v1::Pod;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{OwnerReference, Time};

    use super::*;
    use crate::ports::ClusterErrorKind;
    use crate::tasks::WorkloadRenderer;
    use crate::tasks::testing::*;

    /// Puts the node's StatefulSet with the given revisions; returns its UID.
    fn put_sts(
        h: &Harness,
        node: &SeiNode,
        current: &str,
        update: &str,
        replicas: i32,
        observed: i64,
    ) -> String {
        let mut sts = h.renderer.statefulset(node).expect("render");
        sts.metadata.generation = Some(2);
        sts.spec.replicas = Some(replicas);
        sts.status = Some(StatefulSetStatus {
            observed_generation: Some(observed),
            current_revision: Some(current.into()),
            update_revision: Some(update.into()),
            ..StatefulSetStatus::default()
        });
        let stored = h.cluster.put(ClusterObject::StatefulSet(sts));
        stored.metadata().uid.clone().unwrap_or_default()
    }

    fn put_pod(
        h: &Harness,
        name: &str,
        owner_uid: Option<&str>,
        revision: Option<&str>,
        terminating: bool,
    ) {
        let mut labels = BTreeMap::from([("sei.io/node".to_owned(), "a".to_owned())]);
        if let Some(rev) = revision {
            labels.insert(REVISION_LABEL.into(), rev.into());
        }
        let mut m = meta("ns", name);
        m.labels = Some(labels);
        m.owner_references = owner_uid.map(|uid| {
            vec![OwnerReference {
                kind: "StatefulSet".into(),
                uid: uid.into(),
                name: "a".into(),
                api_version: "apps/v1".into(),
                ..OwnerReference::default()
            }]
        });
        if terminating {
            m.deletion_timestamp = Some(Time(jiff::Timestamp::UNIX_EPOCH));
        }
        h.cluster.put(ClusterObject::Pod(Pod {
            metadata: m,
            ..Pod::default()
        }));
    }

    async fn run(h: &Harness) -> (Result<(), ExecuteError>, Cached) {
        let mut node = full_node("ns", "a");
        let mut t = ReplacePod::default();
        let r = t.execute(&h.env(), &mut node).await;
        (r, t.state)
    }

    fn pod_exists(h: &Harness, name: &str) -> bool {
        h.cluster.object(ObjectKind::Pod, "ns", name).is_some()
    }

    #[tokio::test]
    async fn test_replace_pod_stale_pod_deletes_and_completes() {
        let h = Harness::new();
        let uid = put_sts(&h, &full_node("ns", "a"), "r1", "r2", 1, 2);
        put_pod(&h, "a-0", Some(&uid), Some("r1"), false);
        assert_eq!(run(&h).await, (Ok(()), Cached::Complete));
        assert!(!pod_exists(&h, "a-0"));
    }

    #[tokio::test]
    async fn test_replace_pod_already_at_update_revision_no_op() {
        let h = Harness::new();
        let uid = put_sts(&h, &full_node("ns", "a"), "r2", "r2", 1, 2);
        put_pod(&h, "a-0", Some(&uid), Some("r2"), false);
        assert_eq!(run(&h).await, (Ok(()), Cached::Complete));
        assert!(pod_exists(&h, "a-0"));
        assert_eq!(h.cluster.count_calls("list pods"), 0);
    }

    #[tokio::test]
    async fn test_replace_pod_terminating_pod_skipped() {
        let h = Harness::new();
        let uid = put_sts(&h, &full_node("ns", "a"), "r1", "r2", 1, 2);
        put_pod(&h, "a-0", Some(&uid), Some("r1"), true);
        assert_eq!(run(&h).await, (Ok(()), Cached::Complete));
        assert_eq!(h.cluster.count_calls("delete"), 0);
    }

    #[tokio::test]
    async fn test_replace_pod_no_update_revision_yet_transient_wait() {
        let h = Harness::new();
        put_sts(&h, &full_node("ns", "a"), "", "", 1, 2);
        assert_eq!(run(&h).await, (Ok(()), Cached::Running));
    }

    #[tokio::test]
    async fn test_replace_pod_stateful_set_missing_transient_wait() {
        let h = Harness::new();
        assert_eq!(run(&h).await, (Ok(()), Cached::Running));
    }

    #[tokio::test]
    async fn test_replace_pod_fetch_stateful_set_missing_is_transient() {
        let h = Harness::new();
        let node = full_node("ns", "a");
        assert_eq!(fetch_statefulset(&h.env(), &node).await, Ok(None));
        h.cluster
            .fail_next("get statefulsets", ClusterErrorKind::Other, "boom");
        assert_eq!(
            fetch_statefulset(&h.env(), &node).await,
            Err(ExecuteError::Transient("getting statefulset: boom".into()))
        );
    }

    #[tokio::test]
    async fn test_replace_pod_stateful_set_generation_stale_transient_wait() {
        let h = Harness::new();
        let uid = put_sts(&h, &full_node("ns", "a"), "r1", "r2", 1, 1);
        put_pod(&h, "a-0", Some(&uid), Some("r1"), false);
        assert_eq!(run(&h).await, (Ok(()), Cached::Running));
        assert!(pod_exists(&h, "a-0"));
    }

    #[tokio::test]
    async fn test_replace_pod_pod_missing_revision_hash_label_and_not_owned_skipped() {
        let h = Harness::new();
        let uid = put_sts(&h, &full_node("ns", "a"), "r1", "r2", 1, 2);
        put_pod(&h, "a-0", Some(&uid), None, false);
        put_pod(&h, "a-1", None, Some("r1"), false);
        put_pod(&h, "a-2", Some("other-uid"), Some("r1"), false);
        assert_eq!(run(&h).await, (Ok(()), Cached::Complete));
        assert!(pod_exists(&h, "a-0") && pod_exists(&h, "a-1") && pod_exists(&h, "a-2"));
    }

    #[tokio::test]
    async fn test_replace_pod_multi_replica_terminal_error() {
        let h = Harness::new();
        put_sts(&h, &full_node("ns", "a"), "r1", "r2", 3, 2);
        let (r, _) = run(&h).await;
        assert!(
            matches!(r, Err(ExecuteError::Terminal(m)) if m.contains("replace-pod") && m.contains("multi-replica"))
        );
    }

    #[tokio::test]
    async fn test_replace_pod_guard_selector_and_replicas() {
        let h = Harness::new();
        let node = full_node("ns", "a");
        put_sts(&h, &node, "r1", "r2", 1, 2);
        if let Some(ClusterObject::StatefulSet(mut sts)) =
            h.cluster.object(ObjectKind::StatefulSet, "ns", "a")
        {
            sts.spec.selector.match_labels = Some(BTreeMap::new());
            h.cluster.put(ClusterObject::StatefulSet(sts));
        }
        let (r, _) = run(&h).await;
        assert_eq!(
            r,
            Err(ExecuteError::Terminal(
                "statefulset \"a\" has no selector; cannot identify owned pods".into()
            ))
        );
    }

    #[tokio::test]
    async fn test_replace_pod_delete_pod_not_found_tolerant() {
        let h = Harness::new();
        let uid = put_sts(&h, &full_node("ns", "a"), "r1", "r2", 1, 2);
        put_pod(&h, "a-0", Some(&uid), Some("r1"), false);
        h.cluster.fail_next(
            "delete pods a-0",
            ClusterErrorKind::NotFound,
            "pods \"a-0\" not found",
        );
        assert_eq!(run(&h).await, (Ok(()), Cached::Complete));
    }

    #[tokio::test]
    async fn test_replace_pod_owned_pods_filters_by_ownership() {
        let h = Harness::new();
        let uid = put_sts(&h, &full_node("ns", "a"), "r1", "r2", 1, 2);
        put_pod(&h, "a-0", Some(&uid), Some("r1"), false);
        put_pod(&h, "stray", None, Some("r1"), false);
        assert_eq!(run(&h).await.1, Cached::Complete);
        assert!(!pod_exists(&h, "a-0"));
        assert!(pod_exists(&h, "stray"));
    }
}
