//! The seven sidecar calls of [`SidecarApi`] on [`HttpSidecar`]: per-endpoint status mapping
//! (spec/sidecar.md sections 2 and 11).
use http::{Method, StatusCode};
use uuid::Uuid;

use super::http::{HttpSidecar, decode, error_text, status_error};
use crate::api::sidecar::{
    NodeIdResponse, SidecarStatus, StatusResponse, TaskRequest, TaskResult, TaskSubmitResponse,
    is_valid_node_id,
};
use crate::ports::{DeleteOutcome, SidecarApi, SidecarError, SidecarFuture, SidecarTarget};

impl HttpSidecar {
    async fn submit(
        &self,
        target: &SidecarTarget,
        request: &TaskRequest,
    ) -> Result<TaskSubmitResponse, SidecarError> {
        const CALL: &str = "submit task";
        let body = serde_json::to_vec(request).map_err(|err| SidecarError::Config {
            target: target.clone(),
            detail: format!("cannot encode the task request: {err}"),
        })?;
        let raw = self
            .call(
                target,
                Method::POST,
                "/v0/tasks",
                Some(body),
                self.timeouts.submit,
            )
            .await?;
        match raw.status {
            StatusCode::CREATED | StatusCode::ACCEPTED => {
                let answer: TaskSubmitResponse = decode(target, CALL, &raw.body)?;
                let expected = request.id.map(|id| id.to_string());
                let echoed_ok = match &expected {
                    Some(expected) => &answer.id == expected,
                    None => Uuid::parse_str(&answer.id).is_ok_and(|id| !id.is_nil()),
                };
                if !echoed_ok {
                    return Err(SidecarError::Protocol {
                        target: target.clone(),
                        call: CALL,
                        detail: format!(
                            "answered task ID {:?}, expected {}",
                            answer.id,
                            expected.as_deref().unwrap_or("a non-nil UUID")
                        ),
                    });
                }
                Ok(answer)
            }
            StatusCode::BAD_REQUEST => Err(SidecarError::Rejected {
                target: target.clone(),
                task_type: request.task_type.clone(),
                message: error_text(&raw.body),
            }),
            _ => Err(status_error(target, CALL, &raw)),
        }
    }

    async fn get(
        &self,
        target: &SidecarTarget,
        id: Uuid,
    ) -> Result<Option<TaskResult>, SidecarError> {
        const CALL: &str = "get task";
        let path = format!("/v0/tasks/{id}");
        let raw = self
            .call(target, Method::GET, &path, None, self.timeouts.call)
            .await?;
        match raw.status {
            StatusCode::OK => decode(target, CALL, &raw.body).map(Some),
            StatusCode::NOT_FOUND => Ok(None),
            _ => Err(status_error(target, CALL, &raw)),
        }
    }

    async fn list(&self, target: &SidecarTarget) -> Result<Vec<TaskResult>, SidecarError> {
        const CALL: &str = "list tasks";
        let raw = self
            .call(target, Method::GET, "/v0/tasks", None, self.timeouts.call)
            .await?;
        match raw.status {
            StatusCode::OK => decode(target, CALL, &raw.body),
            _ => Err(status_error(target, CALL, &raw)),
        }
    }

    async fn delete(
        &self,
        target: &SidecarTarget,
        id: Uuid,
    ) -> Result<DeleteOutcome, SidecarError> {
        const CALL: &str = "delete task";
        let path = format!("/v0/tasks/{id}");
        let raw = self
            .call(target, Method::DELETE, &path, None, self.timeouts.call)
            .await?;
        match raw.status {
            StatusCode::NO_CONTENT => Ok(DeleteOutcome::Deleted),
            StatusCode::NOT_FOUND => Ok(DeleteOutcome::NotFound),
            _ => Err(status_error(target, CALL, &raw)),
        }
    }

    async fn health(&self, target: &SidecarTarget) -> Result<bool, SidecarError> {
        const CALL: &str = "healthz";
        let raw = self
            .call(
                target,
                Method::GET,
                "/v0/healthz",
                None,
                self.timeouts.health,
            )
            .await?;
        match raw.status {
            StatusCode::OK => Ok(true),
            StatusCode::SERVICE_UNAVAILABLE => Ok(false),
            _ => Err(status_error(target, CALL, &raw)),
        }
    }

    async fn readiness_status(
        &self,
        target: &SidecarTarget,
    ) -> Result<SidecarStatus, SidecarError> {
        const CALL: &str = "status";
        let raw = self
            .call(target, Method::GET, "/v0/status", None, self.timeouts.call)
            .await?;
        match raw.status {
            StatusCode::OK => decode::<StatusResponse>(target, CALL, &raw.body).map(|s| s.status),
            _ => Err(status_error(target, CALL, &raw)),
        }
    }

    async fn fetch_node_id(&self, target: &SidecarTarget) -> Result<String, SidecarError> {
        const CALL: &str = "node-id";
        let raw = self
            .call(target, Method::GET, "/v0/node-id", None, self.timeouts.call)
            .await?;
        match raw.status {
            StatusCode::OK => {
                let answer: NodeIdResponse = decode(target, CALL, &raw.body)?;
                if answer.node_id.is_empty() {
                    return Err(SidecarError::Protocol {
                        target: target.clone(),
                        call: CALL,
                        detail: "node-id response missing nodeId field".to_owned(),
                    });
                }
                if !is_valid_node_id(&answer.node_id) {
                    return Err(SidecarError::Protocol {
                        target: target.clone(),
                        call: CALL,
                        detail: format!("{:?} is not 40 lowercase hex characters", answer.node_id),
                    });
                }
                Ok(answer.node_id)
            }
            StatusCode::INTERNAL_SERVER_ERROR => Err(SidecarError::NodeIdUnavailable {
                target: target.clone(),
                message: error_text(&raw.body),
            }),
            _ => Err(status_error(target, CALL, &raw)),
        }
    }
}

impl SidecarApi for HttpSidecar {
    fn submit_task<'a>(
        &'a self,
        target: &'a SidecarTarget,
        request: &'a TaskRequest,
    ) -> SidecarFuture<'a, TaskSubmitResponse> {
        Box::pin(self.submit(target, request))
    }

    fn get_task<'a>(
        &'a self,
        target: &'a SidecarTarget,
        id: Uuid,
    ) -> SidecarFuture<'a, Option<TaskResult>> {
        Box::pin(self.get(target, id))
    }

    fn list_tasks<'a>(&'a self, target: &'a SidecarTarget) -> SidecarFuture<'a, Vec<TaskResult>> {
        Box::pin(self.list(target))
    }

    fn delete_task<'a>(
        &'a self,
        target: &'a SidecarTarget,
        id: Uuid,
    ) -> SidecarFuture<'a, DeleteOutcome> {
        Box::pin(self.delete(target, id))
    }

    fn healthz<'a>(&'a self, target: &'a SidecarTarget) -> SidecarFuture<'a, bool> {
        Box::pin(self.health(target))
    }

    fn status<'a>(&'a self, target: &'a SidecarTarget) -> SidecarFuture<'a, SidecarStatus> {
        Box::pin(self.readiness_status(target))
    }

    fn node_id<'a>(&'a self, target: &'a SidecarTarget) -> SidecarFuture<'a, String> {
        Box::pin(self.fetch_node_id(target))
    }
}
