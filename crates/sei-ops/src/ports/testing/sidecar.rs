//! The in-memory [`SidecarApi`]: tasks kept by ID like the seictl sidecar.
use std::collections::BTreeMap;
use std::sync::Mutex;

use jiff::Timestamp;
use uuid::Uuid;

use super::lock;
use crate::api::sidecar::{
    SidecarTaskType, TaskRequest, TaskResult, TaskStatus as WireStatus, TaskSubmitResponse,
};
use crate::ports::{DeleteOutcome, SidecarApi, SidecarError, SidecarFuture, SidecarTarget};

/// How the fake sidecar answers polls of a submitted task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SidecarBehaviour {
    /// Tasks complete as soon as they are submitted.
    CompleteAtOnce,
    /// Tasks stay running until [`FakeSidecar::finish`].
    StayRunning,
}

/// In-memory [`SidecarApi`] keeping tasks by ID like the seictl sidecar (a repeated ID is
/// idempotent).
pub struct FakeSidecar {
    pub behaviour: Mutex<SidecarBehaviour>,
    pub tasks: Mutex<BTreeMap<String, TaskResult>>,
    pub submits: Mutex<Vec<TaskRequest>>,
    pub polls: Mutex<Vec<Uuid>>,
    pub submit_failure: Mutex<Option<SidecarError>>,
    pub get_failure: Mutex<Option<SidecarError>>,
    /// The sidecar's ready flag (healthz 200 when set). A real sidecar answers 503 after a
    /// restart until a `mark-ready` task runs; clear it to model that restart.
    pub ready: Mutex<bool>,
    /// Tasks of this type on this node (`SidecarTarget::node`) fail as soon as submitted.
    pub failing: Mutex<Vec<(String, SidecarTaskType)>>,
    /// What `GET /v0/node-id` answers (40 zeros unless set).
    pub node_id: Mutex<String>,
}

impl FakeSidecar {
    pub fn new(behaviour: SidecarBehaviour) -> Self {
        Self {
            behaviour: Mutex::new(behaviour),
            tasks: Mutex::default(),
            submits: Mutex::default(),
            polls: Mutex::default(),
            submit_failure: Mutex::default(),
            get_failure: Mutex::default(),
            ready: Mutex::new(true),
            failing: Mutex::default(),
            node_id: Mutex::new("0".repeat(40)),
        }
    }

    /// Ends a running task with `status` (and an error message when failed).
    pub fn finish(&self, id: &str, status: WireStatus, error: Option<&str>) {
        if let Some(task) = lock(&self.tasks).get_mut(id) {
            task.status = status;
            task.error = error.map(str::to_owned);
        }
    }

    pub fn submits(&self) -> Vec<TaskRequest> {
        lock(&self.submits).clone()
    }

    pub fn forget(&self, id: &str) {
        lock(&self.tasks).remove(id);
    }
}

impl SidecarApi for FakeSidecar {
    fn submit_task<'a>(
        &'a self,
        target: &'a SidecarTarget,
        request: &'a TaskRequest,
    ) -> SidecarFuture<'a, TaskSubmitResponse> {
        Box::pin(async move {
            if let Some(err) = lock(&self.submit_failure).take() {
                return Err(err);
            }
            lock(&self.submits).push(request.clone());
            if request.task_type == SidecarTaskType::MarkReady {
                *lock(&self.ready) = true;
            }
            let id = request.id.unwrap_or_default().to_string();
            let fails = lock(&self.failing)
                .iter()
                .any(|(node, kind)| *node == target.node && *kind == request.task_type);
            let status = match *lock(&self.behaviour) {
                _ if fails => WireStatus::Failed,
                SidecarBehaviour::CompleteAtOnce => WireStatus::Completed,
                SidecarBehaviour::StayRunning => WireStatus::Running,
            };
            lock(&self.tasks)
                .entry(id.clone())
                .or_insert_with(|| TaskResult {
                    id: id.clone(),
                    task_type: request.task_type.clone(),
                    status,
                    run: 1,
                    params: request.params.clone(),
                    result: None,
                    error: fails.then(|| "injected failure".to_owned()),
                    submitted_at: Timestamp::UNIX_EPOCH,
                    completed_at: None,
                });
            Ok(TaskSubmitResponse { id })
        })
    }

    fn get_task<'a>(
        &'a self,
        _target: &'a SidecarTarget,
        id: Uuid,
    ) -> SidecarFuture<'a, Option<TaskResult>> {
        Box::pin(async move {
            lock(&self.polls).push(id);
            if let Some(err) = lock(&self.get_failure).take() {
                return Err(err);
            }
            Ok(lock(&self.tasks).get(&id.to_string()).cloned())
        })
    }

    fn list_tasks<'a>(&'a self, _target: &'a SidecarTarget) -> SidecarFuture<'a, Vec<TaskResult>> {
        Box::pin(async move { Ok(lock(&self.tasks).values().cloned().collect()) })
    }

    fn delete_task<'a>(
        &'a self,
        _target: &'a SidecarTarget,
        id: Uuid,
    ) -> SidecarFuture<'a, DeleteOutcome> {
        Box::pin(async move {
            Ok(match lock(&self.tasks).remove(&id.to_string()) {
                Some(_) => DeleteOutcome::Deleted,
                None => DeleteOutcome::NotFound,
            })
        })
    }

    fn healthz<'a>(&'a self, _target: &'a SidecarTarget) -> SidecarFuture<'a, bool> {
        Box::pin(async move { Ok(*lock(&self.ready)) })
    }

    fn status<'a>(
        &'a self,
        _target: &'a SidecarTarget,
    ) -> SidecarFuture<'a, crate::api::sidecar::SidecarStatus> {
        Box::pin(async move { Ok(crate::api::sidecar::SidecarStatus::Ready) })
    }

    fn node_id<'a>(&'a self, _target: &'a SidecarTarget) -> SidecarFuture<'a, String> {
        Box::pin(async move { Ok(lock(&self.node_id).clone()) })
    }
}
