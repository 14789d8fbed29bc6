//! `status.plan`: TaskPlan, PlannedTask, FailedTaskInfo (spec/planner.md 1.5).
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde::{Deserialize, Deserializer, Serialize};

use super::{Phase, TaskKind, UnknownFields};

/// Overall state of a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PlanPhase {
    Active,
    Complete,
    Failed,
}

impl PlanPhase {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            PlanPhase::Active => "Active",
            PlanPhase::Complete => "Complete",
            PlanPhase::Failed => "Failed",
        }
    }
}

impl fmt::Display for PlanPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// State of one planned task. The controller's executor never writes `Running`: a task in
/// flight stays `Pending` (spec/planner.md section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TaskStatus {
    Pending,
    Running,
    Complete,
    Failed,
}

impl TaskStatus {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Pending => "Pending",
            TaskStatus::Running => "Running",
            TaskStatus::Complete => "Complete",
            TaskStatus::Failed => "Failed",
        }
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An ordered list of tasks, stored in `status.plan`. Field order matches the Go struct, so the
/// JSON is emitted in the same key order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskPlan {
    /// Random UUIDv4 per build (omitted when empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    pub phase: PlanPhase,
    pub tasks: Vec<PlannedTask>,
    /// Node phase set when the plan completes; `None` = no transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_phase: Option<Phase>,
    /// Node phase set when the plan fails; `None` = no transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_phase: Option<Phase>,
    /// Index of the failed task; `Some(0)` is emitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_task_index: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_task_detail: Option<FailedTaskInfo>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

impl TaskPlan {
    /// Whether the plan is still being executed.
    pub fn is_active(&self) -> bool {
        self.phase == PlanPhase::Active
    }

    /// Index of the first task that is not Complete (the one the executor works on).
    pub fn current_task_index(&self) -> Option<usize> {
        self.tasks
            .iter()
            .position(|task| task.status != TaskStatus::Complete)
    }

    /// Number of Complete tasks.
    pub fn completed_count(&self) -> usize {
        self.tasks
            .iter()
            .filter(|task| task.status == TaskStatus::Complete)
            .count()
    }
}

/// One task of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedTask {
    #[serde(rename = "type")]
    pub kind: TaskKind,
    /// UUIDv5 of `planID/type/index` (see `planner::ids`).
    pub id: String,
    pub status: TaskStatus,
    /// Stored payload. `None` = key absent; `Some(Value::Null)` = stored `"params": null`
    /// (what Go stores for a task type without params).
    #[serde(
        default,
        deserialize_with = "present_value",
        skip_serializing_if = "Option::is_none"
    )]
    /// Boxed: a plan's tasks are the bulk of a watched SeiNode, and an unset payload is then
    /// 8 bytes instead of 72.
    pub params: Option<Box<serde_json::Value>>,
    /// First successful Execute; cleared on retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_at: Option<Time>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub error: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_retries: i64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retry_count: i64,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// Diagnostics of the task that failed a plan. All five keys are always emitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedTaskInfo {
    #[serde(rename = "type")]
    pub kind: TaskKind,
    pub id: String,
    pub error: String,
    pub retry_count: i64,
    pub max_retries: i64,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

fn is_zero(value: &i64) -> bool {
    *value == 0
}

/// Deserializes a present key as `Some`, even when its value is JSON `null`.
fn present_value<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Box<serde_json::Value>>, D::Error> {
    serde_json::Value::deserialize(deserializer).map(|value| Some(Box::new(value)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn task(params: Option<serde_json::Value>) -> PlannedTask {
        PlannedTask {
            kind: TaskKind::MarkReady,
            id: "id".into(),
            status: TaskStatus::Pending,
            params: params.map(Box::new),
            submitted_at: None,
            error: String::new(),
            max_retries: 0,
            retry_count: 0,
            unknown: UnknownFields::new(),
        }
    }

    #[test]
    fn planned_task_omits_zero_fields() {
        let value = serde_json::to_value(task(Some(json!({})))).expect("serialize");
        assert_eq!(
            value,
            json!({"type":"mark-ready","id":"id","status":"Pending","params":{}})
        );
    }

    #[test]
    fn params_null_is_kept_distinct_from_absent() {
        let null: PlannedTask =
            serde_json::from_value(json!({"type":"x","id":"i","status":"Pending","params":null}))
                .expect("parse");
        assert_eq!(null.params.as_deref(), Some(&serde_json::Value::Null));
        assert_eq!(
            serde_json::to_value(&null).expect("ser")["params"],
            serde_json::Value::Null
        );
        let absent: PlannedTask =
            serde_json::from_value(json!({"type":"x","id":"i","status":"Pending"})).expect("parse");
        assert_eq!(absent.params, None);
        assert!(
            serde_json::to_value(&absent)
                .expect("ser")
                .get("params")
                .is_none()
        );
    }

    #[test]
    fn failed_task_index_zero_is_emitted_and_detail_keeps_all_keys() {
        let plan = TaskPlan {
            id: String::new(),
            phase: PlanPhase::Failed,
            tasks: vec![],
            target_phase: None,
            failed_phase: None,
            failed_task_index: Some(0),
            failed_task_detail: Some(FailedTaskInfo {
                kind: TaskKind::ConfigureGenesis,
                id: "t".into(),
                error: String::new(),
                retry_count: 0,
                max_retries: 0,
                unknown: UnknownFields::new(),
            }),
            unknown: UnknownFields::new(),
        };
        let text = serde_json::to_string(&plan).expect("serialize");
        assert_eq!(
            text,
            r#"{"phase":"Failed","tasks":[],"failedTaskIndex":0,"failedTaskDetail":{"type":"configure-genesis","id":"t","error":"","retryCount":0,"maxRetries":0}}"#
        );
    }
}
