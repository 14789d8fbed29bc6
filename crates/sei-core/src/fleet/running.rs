//! What runs, and since when (issue 33): the image the node's pod actually runs, read from its
//! main container's status (`status.containerStatuses[seid].image`/`imageID`, what the kubelet
//! reports, not what the spec asks), the image drift judged against it, since when a node has
//! drifted, and how long each task of a plan took.
//!
//! Why against what runs: `status.currentImage` is written by the plan's `observe-image` task
//! only, so a rollout stopped before that task (its console died, `q q`) leaves every node it
//! already replaced with `spec.image != currentImage` although their pods run the new image
//! (issue 33 saw `/drift` mark 4 nodes `≠img` while one pod ran another image). The
//! controller's own sense (`rows::drift`, spec against `currentImage`) stays what plans are
//! built from; the screens and `get` show drift as what runs.
use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::core::v1::{ContainerState, ContainerStateRunning, ContainerStatus, Pod};

use crate::api::{SeiNode, TaskPlan, TaskStatus};

/// The node's main container (seid), as the StatefulSet's pod template names it.
pub const MAIN_CONTAINER: &str = "seid";

/// The image a node's pod runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningImage {
    /// `containerStatuses[seid].image`.
    pub image: String,
    /// `containerStatuses[seid].imageID` (the digest the runtime resolved), when reported.
    pub image_id: Option<String>,
    /// When the container started running it (`state.running.startedAt`).
    pub since: Option<Timestamp>,
}

impl RunningImage {
    /// The image `pod`'s main container runs, when its status reports one.
    pub fn of(pod: &Pod) -> Option<RunningImage> {
        let status = pod
            .status
            .as_ref()?
            .container_statuses
            .as_ref()?
            .iter()
            .find(|c| c.name == MAIN_CONTAINER)?;
        (!status.image.is_empty()).then(|| RunningImage {
            image: status.image.clone(),
            image_id: Some(status.image_id.clone()).filter(|id| !id.is_empty()),
            since: status
                .state
                .as_ref()
                .and_then(|s| s.running.as_ref())
                .and_then(|r| r.started_at.as_ref())
                .map(|t| t.0),
        })
    }

    /// Whether this is the image `wanted` names: the same reference (a Docker Hub name with or
    /// without `docker.io/` and `library/`), or `wanted` pins a digest the runtime reports.
    pub fn is(&self, wanted: &str) -> bool {
        if normalized(&self.image) == normalized(wanted) {
            return true;
        }
        match wanted.split_once('@') {
            Some((_, digest)) => {
                self.image.ends_with(&format!("@{digest}"))
                    || self
                        .image_id
                        .as_deref()
                        .is_some_and(|id| id.ends_with(&format!("@{digest}")) || id == digest)
            }
            None => false,
        }
    }
}

/// `docker.io/library/x:1` and `x:1` are one image.
fn normalized(image: &str) -> &str {
    let image = image.strip_prefix("docker.io/").unwrap_or(image);
    image.strip_prefix("library/").unwrap_or(image)
}

/// Keeps of `pod`'s container statuses only the main container's image, image ID and start
/// (what [`RunningImage::of`] reads; the fleet's slim pods).
pub fn slim_container_statuses(
    statuses: Option<Vec<ContainerStatus>>,
) -> Option<Vec<ContainerStatus>> {
    let main = statuses?.into_iter().find(|c| c.name == MAIN_CONTAINER)?;
    let started_at = main
        .state
        .and_then(|s| s.running)
        .and_then(|r| r.started_at);
    Some(vec![ContainerStatus {
        name: main.name,
        image: main.image,
        image_id: main.image_id,
        state: started_at.map(|at| ContainerState {
            running: Some(ContainerStateRunning {
                started_at: Some(at),
            }),
            ..ContainerState::default()
        }),
        ..ContainerStatus::default()
    }])
}

/// Whether the node's image drifts: against what its pod runs when that is known, else (no
/// pod, or it reports no image yet) as the controller judges it, `spec.image` against
/// `status.currentImage` (empty counting as drift).
pub fn image_drift(
    spec_image: &str,
    current: Option<&str>,
    running: Option<&RunningImage>,
) -> bool {
    match running {
        Some(running) => !running.is(spec_image),
        None => current.unwrap_or("") != spec_image,
    }
}

/// Since when a node has drifted, and what says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftSince {
    pub at: Timestamp,
    /// `condition NodeUpdateInProgress`, `plan 1a2b3c4d`.
    pub source: String,
}

/// When the update that started the drift began: the `NodeUpdateInProgress` condition's
/// transition to True, else the Active plan's first submitted task. `None` when neither says.
pub fn drift_since(node: &SeiNode) -> Option<DriftSince> {
    let status = node.status.as_ref()?;
    if let Some(condition) = status
        .conditions()
        .iter()
        .find(|c| c.type_ == "NodeUpdateInProgress" && c.status == "True")
    {
        return Some(DriftSince {
            at: condition.last_transition_time.0,
            source: "condition NodeUpdateInProgress".to_owned(),
        });
    }
    let plan = status.plan.as_ref().filter(|p| p.is_active())?;
    let at = plan.tasks.iter().find_map(|t| t.submitted_at.as_ref())?.0;
    Some(DriftSince {
        at,
        source: format!("plan {}", plan.id.get(..8).unwrap_or(&plan.id)),
    })
}

/// How long each task of `plan` took, as far as the TaskPlan records it: it keeps only each
/// task's `submittedAt` (upstream has no completion time), so a Complete task took until the
/// next task was submitted; the task in flight has run since its submission (`Running`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskTook {
    /// Complete, from its submission to the next task's.
    Took(SignedDuration),
    /// In flight since its submission.
    Running(Timestamp),
    /// Not known (never submitted, or Complete with no later task submitted).
    Unknown,
}

/// [`TaskTook`] of each task of `plan`, in order.
pub fn task_durations(plan: &TaskPlan) -> Vec<TaskTook> {
    let current = plan.current_task_index();
    let submitted: Vec<Option<Timestamp>> = plan
        .tasks
        .iter()
        .map(|t| t.submitted_at.as_ref().map(|at| at.0))
        .collect();
    plan.tasks
        .iter()
        .enumerate()
        .map(|(i, task)| {
            let Some(start) = submitted[i] else {
                return TaskTook::Unknown;
            };
            match task.status {
                TaskStatus::Complete => submitted[i + 1..]
                    .iter()
                    .flatten()
                    .next()
                    .map_or(TaskTook::Unknown, |next| {
                        TaskTook::Took(next.duration_since(start))
                    }),
                _ if Some(i) == current && plan.is_active() => TaskTook::Running(start),
                _ => TaskTook::Unknown,
            }
        })
        .collect()
}

/// `12s`, `3m4s`, `1h2m`: a duration for the plan timeline.
pub fn duration_text(duration: SignedDuration) -> String {
    let seconds = duration.as_secs().max(0);
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => match s % 60 {
            0 => format!("{}m", s / 60),
            rest => format!("{}m{rest}s", s / 60),
        },
        s => match (s % 3600) / 60 {
            0 => format!("{}h", s / 3600),
            rest => format!("{}h{rest}m", s / 3600),
        },
    }
}

/// A task's TOOK cell at `now`: `12s`, `running 3m`, `-`.
pub fn took_text(took: TaskTook, now: Timestamp) -> String {
    match took {
        TaskTook::Took(duration) => duration_text(duration),
        TaskTook::Running(since) => format!("running {}", duration_text(now.duration_since(since))),
        TaskTook::Unknown => "-".to_owned(),
    }
}

/// What the pod runs, for the node screen and `describe`: `IMAGE (since 5m, ID)` (the ID only
/// when the runtime reported one), or why it is not known.
pub fn runs_text(running: Option<&RunningImage>, now: Timestamp) -> String {
    let Some(running) = running else {
        return "(no pod reports its image)".to_owned();
    };
    let mut notes = Vec::new();
    if running.since.is_some() {
        notes.push(format!("since {}", super::text::age(running.since, now)));
    }
    if let Some(id) = &running.image_id {
        notes.push(id.clone());
    }
    if notes.is_empty() {
        running.image.clone()
    } else {
        format!("{} ({})", running.image, notes.join(", "))
    }
}

/// ` since 6m (condition NodeUpdateInProgress)` after a drift mark, or nothing.
pub fn since_text(since: Option<&DriftSince>, now: Timestamp) -> String {
    since.map_or_else(String::new, |since| {
        format!(
            " since {} ({})",
            super::text::age(Some(since.at), now),
            since.source
        )
    })
}
