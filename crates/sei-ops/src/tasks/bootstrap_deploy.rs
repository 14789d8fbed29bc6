//! `deploy-bootstrap-service` and `deploy-bootstrap-job` (internal/task/bootstrap_service.go,
//! bootstrap_job.go), spec section 2.13: plain CREATE; AlreadyExists completes; every error is
//! transient, render errors included (a Job without an S3 source retries forever).
use serde::Deserialize;

use super::api_calls::{ApiCall, CallObject};
use super::{Cached, ExecuteError, Poll, TaskEnv, set_owner};
use crate::api::SeiNode;
use crate::ports::{ClusterObject, ObjectKind};

/// Creates the bootstrap Service; `Status` reads it back.
pub const SERVICE_API_CALLS: &[ApiCall] = &[
    ApiCall::new("create", "", "services", CallObject::InNamespace),
    ApiCall::new("get", "", "services", CallObject::InNamespace),
];

/// Creates the bootstrap Job; `Status` reads it back.
pub const JOB_API_CALLS: &[ApiCall] = &[
    ApiCall::new("create", "batch", "jobs", CallObject::InNamespace),
    ApiCall::new("get", "batch", "jobs", CallObject::InNamespace),
];

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct BootstrapServiceParams {
    #[serde(default, rename = "servicename")]
    pub service_name: String,
    #[serde(default)]
    pub namespace: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct BootstrapJobParams {
    #[serde(default, rename = "jobname")]
    pub job_name: String,
    #[serde(default)]
    pub namespace: String,
}

/// The namespace of a bootstrap lookup: the params' when set, else the node's.
pub(crate) fn lookup_namespace<'a>(params_namespace: &'a str, node: &'a SeiNode) -> &'a str {
    if params_namespace.is_empty() {
        node.namespace()
    } else {
        params_namespace
    }
}

#[derive(Debug, Clone)]
pub struct DeployBootstrapService {
    pub params: BootstrapServiceParams,
    pub(crate) state: Cached,
}

impl DeployBootstrapService {
    pub fn new(params: BootstrapServiceParams) -> Self {
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
        let mut service = env
            .renderer
            .bootstrap_service(node)
            .map_err(|err| ExecuteError::Transient(err.to_string()))?;
        set_owner(&mut service.metadata, node);
        match env.cluster.create(&ClusterObject::Service(service)).await {
            Ok(_) => {}
            Err(err) if err.is_already_exists() => {}
            Err(err) => {
                return Err(ExecuteError::Transient(format!(
                    "creating bootstrap service: {err}"
                )));
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
        match env
            .cluster
            .get(ObjectKind::Service, ns, &self.params.service_name)
            .await
        {
            Ok(Some(_)) => Poll::Complete,
            _ => Poll::Running,
        }
    }
}

#[derive(Debug, Clone)]
pub struct DeployBootstrapJob {
    pub params: BootstrapJobParams,
    pub(crate) state: Cached,
}

impl DeployBootstrapJob {
    pub fn new(params: BootstrapJobParams) -> Self {
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
        let mut job = env.renderer.bootstrap_job(node).map_err(|err| {
            ExecuteError::Transient(format!("generating bootstrap job spec: {err}"))
        })?;
        set_owner(&mut job.metadata, node);
        match env.cluster.create(&ClusterObject::Job(job)).await {
            Ok(_) => {}
            Err(err) if err.is_already_exists() => {}
            Err(err) => {
                return Err(ExecuteError::Transient(format!(
                    "creating bootstrap job: {err}"
                )));
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
        match env
            .cluster
            .get(ObjectKind::Job, ns, &self.params.job_name)
            .await
        {
            Ok(Some(_)) => Poll::Complete,
            _ => Poll::Running,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::RenderError;
    use crate::tasks::testing::*;

    fn service_task() -> DeployBootstrapService {
        DeployBootstrapService::new(BootstrapServiceParams {
            service_name: "a".into(),
            namespace: "ns".into(),
        })
    }

    fn job_task() -> DeployBootstrapJob {
        DeployBootstrapJob::new(BootstrapJobParams {
            job_name: "a-bootstrap".into(),
            namespace: "ns".into(),
        })
    }

    #[tokio::test]
    async fn test_deploy_bootstrap_service_execute_creates_service() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let mut t = service_task();
        assert_eq!(t.execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(t.status(&h.env(), &node).await, Poll::Complete);
        assert!(h.cluster.object(ObjectKind::Service, "ns", "a").is_some());
    }

    #[tokio::test]
    async fn test_deploy_bootstrap_service_execute_idempotent() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        service_task()
            .execute(&h.env(), &mut node)
            .await
            .expect("first");
        let mut again = service_task();
        assert_eq!(again.execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(again.state, Cached::Complete);
    }

    #[tokio::test]
    async fn test_deploy_bootstrap_service_status_detects_existing() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let mut t = service_task();
        assert_eq!(t.status(&h.env(), &node).await, Poll::Running);
        service_task()
            .execute(&h.env(), &mut node)
            .await
            .expect("create");
        assert_eq!(service_task().status(&h.env(), &node).await, Poll::Complete);
    }

    #[tokio::test]
    async fn test_deploy_bootstrap_job_execute_creates_job() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let mut t = job_task();
        assert_eq!(t.execute(&h.env(), &mut node).await, Ok(()));
        assert_eq!(t.status(&h.env(), &node).await, Poll::Complete);
        let job = h
            .cluster
            .object(ObjectKind::Job, "ns", "a-bootstrap")
            .expect("job");
        assert_eq!(
            job.metadata().owner_references.as_ref().map(Vec::len),
            Some(1)
        );
    }

    #[tokio::test]
    async fn test_deploy_bootstrap_job_execute_nil_snapshot() {
        let h = Harness::new();
        *h.renderer.job_error.lock().expect("lock") = Some(RenderError::Bootstrap(
            "bootstrap job requires an S3 snapshot source (node ns/a)".into(),
        ));
        let mut node = full_node("ns", "a");
        assert_eq!(
            job_task().execute(&h.env(), &mut node).await,
            Err(ExecuteError::Transient(
                "generating bootstrap job spec: bootstrap job requires an S3 snapshot source (node ns/a)".into()
            ))
        );
    }
}
