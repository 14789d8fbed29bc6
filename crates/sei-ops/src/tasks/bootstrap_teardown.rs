//! `teardown-bootstrap` (internal/task/bootstrap_teardown.go), spec section 2.13: delete the
//! Job (foreground) and the Service, then complete at once without waiting for them to go.
use serde::Deserialize;

use super::api_calls::{ApiCall, CallObject};
use super::bootstrap_deploy::lookup_namespace;
use super::{Cached, ExecuteError, Poll, TaskEnv};
use crate::api::SeiNode;
use crate::ports::{ObjectKind, Propagation};

/// Reads and deletes the bootstrap Job and Service.
pub const API_CALLS: &[ApiCall] = &[
    ApiCall::new("get", "batch", "jobs", CallObject::InNamespace),
    ApiCall::new("delete", "batch", "jobs", CallObject::InNamespace),
    ApiCall::new("get", "", "services", CallObject::InNamespace),
    ApiCall::new("delete", "", "services", CallObject::InNamespace),
];

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct TeardownBootstrapParams {
    #[serde(default, rename = "jobname")]
    pub job_name: String,
    #[serde(default, rename = "servicename")]
    pub service_name: String,
    #[serde(default)]
    pub namespace: String,
}

#[derive(Debug, Clone)]
pub struct TeardownBootstrap {
    pub params: TeardownBootstrapParams,
    pub(crate) state: Cached,
}

impl TeardownBootstrap {
    pub fn new(params: TeardownBootstrapParams) -> Self {
        Self {
            params,
            state: Cached::Running,
        }
    }

    pub async fn execute(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
    ) -> Result<(), ExecuteError> {
        let ns = lookup_namespace(&self.params.namespace, node).to_owned();
        for (kind, name, propagation, what) in [
            (
                ObjectKind::Job,
                &self.params.job_name,
                Propagation::Foreground,
                "job",
            ),
            (
                ObjectKind::Service,
                &self.params.service_name,
                Propagation::Default,
                "service",
            ),
        ] {
            match env.cluster.get(kind, &ns, name).await {
                Ok(Some(_)) => match env.cluster.delete(kind, &ns, name, propagation).await {
                    Ok(_) => {}
                    Err(err) if err.is_not_found() => {}
                    Err(err) => {
                        return Err(ExecuteError::Transient(format!(
                            "deleting bootstrap {what}: {err}"
                        )));
                    }
                },
                Ok(None) => {}
                Err(err) if err.is_not_found() => {}
                Err(err) => {
                    return Err(ExecuteError::Transient(format!(
                        "fetching bootstrap {what} for deletion: {err}"
                    )));
                }
            }
        }
        self.state = Cached::Complete;
        Ok(())
    }

    pub async fn status(&mut self, env: &TaskEnv<'_>, node: &SeiNode) -> Poll {
        if self.state != Cached::Running {
            return self.state.poll();
        }
        let ns = lookup_namespace(&self.params.namespace, node);
        let job = env
            .cluster
            .get(ObjectKind::Job, ns, &self.params.job_name)
            .await;
        let service = env
            .cluster
            .get(ObjectKind::Service, ns, &self.params.service_name)
            .await;
        match (job, service) {
            (Ok(None), Ok(None)) => Poll::Complete,
            _ => Poll::Running,
        }
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::batch::v1::Job;
    use k8s_openapi::api::core::v1::Service;

    use super::*;
    use crate::ports::ClusterObject;
    use crate::tasks::testing::*;

    fn task() -> TeardownBootstrap {
        TeardownBootstrap::new(TeardownBootstrapParams {
            job_name: "a-bootstrap".into(),
            service_name: "a".into(),
            namespace: "ns".into(),
        })
    }

    fn put_both(h: &Harness) {
        h.cluster.put(ClusterObject::Job(Job {
            metadata: meta("ns", "a-bootstrap"),
            ..Job::default()
        }));
        h.cluster.put(ClusterObject::Service(Service {
            metadata: meta("ns", "a"),
            ..Service::default()
        }));
    }

    #[tokio::test]
    async fn test_teardown_bootstrap_execute_deletes_resources() {
        let h = Harness::new();
        put_both(&h);
        let mut node = full_node("ns", "a");
        let mut t = task();
        assert_eq!(t.execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(t.status(&h.env(), &node).await, Poll::Complete);
        assert_eq!(
            h.cluster
                .count_calls("delete jobs a-bootstrap (foreground)"),
            1
        );
        assert_eq!(h.cluster.count_calls("delete services a"), 1);
    }

    #[tokio::test]
    async fn test_teardown_bootstrap_execute_idempotent() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        assert_eq!(task().execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(h.cluster.count_calls("delete"), 0);
    }

    #[tokio::test]
    async fn test_teardown_bootstrap_status_complete_when_gone() {
        let h = Harness::new();
        let node = full_node("ns", "a");
        assert_eq!(task().status(&h.env(), &node).await, Poll::Complete);
    }

    #[tokio::test]
    async fn test_teardown_bootstrap_status_running_while_present() {
        let h = Harness::new();
        put_both(&h);
        let node = full_node("ns", "a");
        assert_eq!(task().status(&h.env(), &node).await, Poll::Running);
    }
}
