//! `await-bootstrap-complete` (internal/task/bootstrap_await.go), spec section 2.13: Execute is
//! a no-op; Status reads the Job's conditions.
use super::api_calls::{ApiCall, CallObject};
use super::bootstrap_deploy::{BootstrapJobParams, lookup_namespace};
use super::{Poll, TaskEnv};
use crate::api::SeiNode;
use crate::ports::{ClusterObject, ObjectKind};

/// Reads the bootstrap Job's conditions.
pub const API_CALLS: &[ApiCall] = &[ApiCall::new(
    "get",
    "batch",
    "jobs",
    CallObject::InNamespace,
)];

#[derive(Debug, Clone)]
pub struct AwaitBootstrapComplete {
    pub params: BootstrapJobParams,
}

impl AwaitBootstrapComplete {
    pub fn new(params: BootstrapJobParams) -> Self {
        Self { params }
    }

    pub async fn status(&mut self, env: &TaskEnv<'_>, node: &SeiNode) -> Poll {
        let ns = lookup_namespace(&self.params.namespace, node);
        let job = match env
            .cluster
            .get(ObjectKind::Job, ns, &self.params.job_name)
            .await
        {
            Ok(Some(ClusterObject::Job(job))) => job,
            Ok(_) => {
                return Poll::Failed(format!("bootstrap job {} not found", self.params.job_name));
            }
            Err(err) if err.is_not_found() => {
                return Poll::Failed(format!("bootstrap job {} not found", self.params.job_name));
            }
            Err(_) => return Poll::Running,
        };
        let conditions = job.status.and_then(|s| s.conditions).unwrap_or_default();
        if conditions
            .iter()
            .any(|c| c.type_ == "Complete" && c.status == "True")
        {
            return Poll::Complete;
        }
        if let Some(failed) = conditions
            .iter()
            .find(|c| c.type_ == "Failed" && c.status == "True")
        {
            let reason = failed.message.clone().filter(|m| !m.is_empty());
            return Poll::Failed(format!(
                "bootstrap job failed: {}",
                reason.unwrap_or_else(|| "bootstrap job failed".into())
            ));
        }
        Poll::Running
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::batch::v1::{Job, JobCondition, JobStatus};

    use super::*;
    use crate::tasks::testing::*;

    fn put_job(h: &Harness, condition: Option<(&str, &str)>) {
        let conditions = condition.map(|(kind, message)| {
            vec![JobCondition {
                type_: kind.into(),
                status: "True".into(),
                message: Some(message.into()),
                ..JobCondition::default()
            }]
        });
        h.cluster.put(ClusterObject::Job(Job {
            metadata: meta("ns", "a-bootstrap"),
            status: Some(JobStatus {
                conditions,
                ..JobStatus::default()
            }),
            ..Job::default()
        }));
    }

    async fn poll(h: &Harness) -> Poll {
        let node = full_node("ns", "a");
        AwaitBootstrapComplete::new(BootstrapJobParams {
            job_name: "a-bootstrap".into(),
            namespace: "ns".into(),
        })
        .status(&h.env(), &node)
        .await
    }

    #[tokio::test]
    async fn test_await_bootstrap_complete_job_running() {
        let h = Harness::new();
        put_job(&h, None);
        assert_eq!(poll(&h).await, Poll::Running);
    }

    #[tokio::test]
    async fn test_await_bootstrap_complete_job_complete() {
        let h = Harness::new();
        put_job(&h, Some(("Complete", "")));
        assert_eq!(poll(&h).await, Poll::Complete);
    }

    #[tokio::test]
    async fn test_await_bootstrap_complete_job_failed() {
        let h = Harness::new();
        put_job(&h, Some(("Failed", "BackoffLimitExceeded")));
        assert_eq!(
            poll(&h).await,
            Poll::Failed("bootstrap job failed: BackoffLimitExceeded".into())
        );
    }

    #[tokio::test]
    async fn test_await_bootstrap_complete_job_not_found() {
        let h = Harness::new();
        assert_eq!(
            poll(&h).await,
            Poll::Failed("bootstrap job a-bootstrap not found".into())
        );
    }
}
