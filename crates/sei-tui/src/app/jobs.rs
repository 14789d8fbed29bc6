//! The console's action jobs, run by the effects in tokio tasks: the preview (`ops::<action>::
//! prepare`, the same use case as the commands) and the execution (`ops::<action>::run`) of
//! the prepared action, over each cluster's adapters as the port opens them
//! (`port::ActionCluster`), whose notes and plan progress come back as messages. The prepared
//! action (a seed's generated key included) waits here between preview and confirmation,
//! never in the model.
//!
//! A request of several clusters (a rollout of marked nodes of several clusters) is previewed per
//! cluster under its heading, with one question and `CONTEXT/NAME` typed names, and run through
//! `ops::across`.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use super::action::{
    ActionPreview, ActionRequest, Finished, LineTone, PermissionSummary, ProgressLine,
};
use super::action_error::ActionError;
use super::model::Msg;
use super::port::{ActionCluster, ActionJournal};
use crate::api::{PlanPhase, TaskStatus};
use crate::config::ExecutorMode;
use crate::executor::driver::{DriverConfig, Progress};
use crate::journal::Outcome;
use crate::ops::across::{self, ClusterPart, InTurn};
use crate::ops::action::{self, Previewed};
use crate::ops::follow::progress_text;
use crate::ops::{ActionLog, Note, OpsError, PermissionVerdict, Report, RunEnd, journal_entry};
use crate::ports::SystemClock;
use crate::ports::access::AccessError;

/// Prepared actions by dialog id (one per cluster of the request, in order), kept until
/// execution or cancel; never in the model.
pub type PendingActions = Arc<Mutex<HashMap<u64, Vec<Box<dyn Previewed>>>>>;

/// The cluster of each part of a request, in order.
pub type ClusterEnvs = Vec<Arc<dyn ActionCluster>>;

fn summary(verdict: &PermissionVerdict) -> PermissionSummary {
    let checked = verdict.checks.len();
    match verdict.error() {
        None => PermissionSummary {
            checked,
            denied: Vec::new(),
            error: None,
        },
        Some(AccessError::Denied(denials)) => PermissionSummary {
            checked,
            denied: denials
                .iter()
                .map(|d| match d.reason.as_str() {
                    "" => d.check.to_string(),
                    reason => format!("{} ({reason})", d.check),
                })
                .collect(),
            error: None,
        },
        Some(err) => PermissionSummary {
            checked,
            denied: Vec::new(),
            error: Some(err.to_string()),
        },
    }
}

/// One cluster's prepared part and what its preview says besides the action's own text.
struct PartPreview {
    context: String,
    prepared: Box<dyn Previewed>,
    platform_note: Option<String>,
    executor: String,
}

/// The preview of `request` through the same use cases as the commands, in each cluster it
/// goes to; the prepared action is kept under `id` for [`run`].
pub async fn prepare(
    envs: &ClusterEnvs,
    id: u64,
    request: &ActionRequest,
    executor: ExecutorMode,
    pending: &PendingActions,
) -> Result<ActionPreview, ActionError> {
    let several = request.parts.len() > 1;
    let mut parts = Vec::new();
    for (cluster, part) in envs.iter().zip(&request.parts) {
        let job = cluster
            .open(&part.namespace, request.options(executor))
            .await
            .map_err(|e| e.in_cluster(&part.context, several))?;
        let ops = job.ops();
        let prepared = part
            .operation
            .prepare_any(&ops)
            .await
            .map_err(|e| ActionError::from(e).in_cluster(&part.context, several))?;
        let executor = if !prepared.follows_a_plan() {
            String::new()
        } else {
            match ops.executor_choice().await {
                Ok(choice) => choice
                    .note
                    .unwrap_or_else(|| format!("executor: {}", executor.name())),
                Err(err) => format!("executor: {} (Lease unreadable: {err})", executor.name()),
            }
        };
        parts.push(PartPreview {
            context: part.context.clone(),
            prepared,
            platform_note: job.platform_note().map(str::to_owned),
            executor,
        });
    }
    let preview = match parts.as_slice() {
        [one] => one_preview(one),
        several => across_preview(several)?,
    };
    if let Ok(mut pending) = pending.lock() {
        pending.insert(id, parts.into_iter().map(|p| p.prepared).collect());
    }
    Ok(preview)
}

/// Why a prepared part cannot go on, in the dialog's words.
fn blocked(prepared: &dyn Previewed) -> Option<String> {
    match prepared.refusal() {
        Some(OpsError::Access(_)) => {
            Some("the permission checks did not pass; nothing would be changed".to_owned())
        }
        Some(other) => Some(other.to_string()),
        None => None,
    }
}

fn one_preview(part: &PartPreview) -> ActionPreview {
    let prepared = part.prepared.as_ref();
    let mut text = String::new();
    if let Some(note) = &part.platform_note {
        text.push_str(&format!("note: {note}\n"));
    }
    text.push_str(&prepared.text());
    ActionPreview {
        head: prepared.head(),
        text,
        permissions: summary(prepared.permissions()),
        executor: part.executor.clone(),
        blocked: blocked(prepared),
        confirm_names: prepared.confirm_names(),
        question: prepared.question(),
        nothing_to_do: prepared.nothing_to_do(),
    }
}

/// Every cluster's preview under its heading, one question naming them all, the validators and
/// seeds of every cluster typed as `CONTEXT/NAME` (`ops::across`, as the command asks).
fn across_preview(parts: &[PartPreview]) -> Result<ActionPreview, ActionError> {
    let mut preview = ActionPreview {
        head: String::new(),
        text: String::new(),
        permissions: PermissionSummary {
            checked: 0,
            denied: Vec::new(),
            error: None,
        },
        executor: String::new(),
        blocked: None,
        confirm_names: Vec::new(),
        question: String::new(),
        nothing_to_do: None,
    };
    let mut what = None;
    let mut counts = Vec::new();
    let mut executors = Vec::new();
    for part in parts {
        let (context, prepared) = (part.context.as_str(), part.prepared.as_ref());
        let Some((words, count)) = prepared.across() else {
            return Err(ActionError::OneClusterOnly(prepared.kind().name()));
        };
        what.get_or_insert(words);
        counts.push((context, count));
        let one = one_preview(part);
        preview
            .head
            .push_str(&format!("== cluster {context} ==\n{}", one.head));
        preview
            .text
            .push_str(&format!("== cluster {context} ==\n{}", one.text));
        preview.permissions.checked += one.permissions.checked;
        preview.permissions.denied.extend(
            one.permissions
                .denied
                .iter()
                .map(|d| format!("{context}: {d}")),
        );
        if let Some(error) = one.permissions.error {
            preview
                .permissions
                .error
                .get_or_insert(format!("{context}: {error}"));
        }
        if let Some(reason) = one.blocked {
            preview
                .blocked
                .get_or_insert(format!("cluster {context}: {reason}"));
        }
        executors.push(format!("{context}: {}", one.executor));
    }
    let names: Vec<(&str, Vec<String>)> = parts
        .iter()
        .map(|p| (p.context.as_str(), p.prepared.confirm_names()))
        .collect();
    let names: Vec<(&str, &[String])> = names.iter().map(|(c, n)| (*c, n.as_slice())).collect();
    preview.confirm_names = across::typed_names(&names);
    preview.question = across::question(&what.unwrap_or_default(), &counts);
    // Nothing to do only when no cluster has anything to do.
    let idle: Vec<String> = parts
        .iter()
        .filter_map(|p| Some(format!("{}: {}", p.context, p.prepared.nothing_to_do()?)))
        .collect();
    if idle.len() == parts.len() {
        preview.nothing_to_do = Some(idle.join("; "));
    }
    preview.executor = executors.join("; ");
    Ok(preview)
}

/// Sends notes and progress to the dialog. A full channel drops the line rather than block
/// the executor (the watch still shows the plan).
struct ChannelReport {
    id: u64,
    tx: mpsc::Sender<Msg>,
}

impl ChannelReport {
    fn send(&self, line: ProgressLine) {
        let _ = self.tx.try_send(Msg::ActionProgress { id: self.id, line });
    }
}

impl Report for ChannelReport {
    fn note(&self, note: &Note) {
        if let Note::Unrecorded(why) = note {
            let _ = self.tx.try_send(Msg::JournalUnwritable(why.clone()));
        }
        self.send(note_line(note));
    }

    fn progress(&self, node: &str, progress: &Progress, total: usize) {
        self.send(ProgressLine {
            node: Some(node.to_owned()),
            text: progress_text(progress, total),
            tone: tone_of(progress),
            at: None,
            live: false,
        });
    }
}

/// A note as the dialog's line: a health gate's reading is the node's live line.
pub(crate) fn note_line(note: &Note) -> ProgressLine {
    let tone = if note.is_warning() {
        LineTone::Bad
    } else {
        LineTone::Info
    };
    match note {
        // The node's live line: replaces its last one in the dialog.
        Note::Gate { node, line } => ProgressLine {
            node: Some(node.clone()),
            text: format!("health gate: {line}"),
            tone: if line.problem.is_some() {
                LineTone::Info
            } else {
                LineTone::Good
            },
            at: None,
            live: true,
        },
        _ => ProgressLine {
            node: None,
            text: note.to_string(),
            tone,
            at: None,
            live: false,
        },
    }
}

fn tone_of(progress: &Progress) -> LineTone {
    match progress {
        Progress::TaskTransition { to, .. } if *to == TaskStatus::Failed => LineTone::Bad,
        Progress::TaskTransition { to, .. } if *to == TaskStatus::Complete => LineTone::Good,
        Progress::RenderFailed { .. } | Progress::TaskRetrying { .. } => LineTone::Bad,
        Progress::PlanFinished { phase, .. } if *phase == PlanPhase::Complete => LineTone::Good,
        Progress::PlanFinished { .. } => LineTone::Bad,
        _ => LineTone::Info,
    }
}

/// Executes the action prepared under `id` (cluster after cluster when it goes to several)
/// and reports its end.
pub async fn run(
    envs: ClusterEnvs,
    id: u64,
    request: ActionRequest,
    executor: ExecutorMode,
    pending: PendingActions,
    tx: mpsc::Sender<Msg>,
) {
    let report = ChannelReport { id, tx: tx.clone() };
    let prepared = pending.lock().ok().and_then(|mut p| p.remove(&id));
    let end = match prepared {
        Some(prepared) => execute(&envs, &request, executor, &prepared, &report).await,
        None => Err(ActionError::PreviewGone),
    };
    let end = end.unwrap_or_else(|error| RunEnd {
        ok: false,
        message: error.to_string(),
        ..RunEnd::done("")
    });
    let finished = Finished {
        ok: end.ok,
        message: end.message,
    };
    let _ = tx.send(Msg::ActionFinished { id, finished }).await;
}

async fn execute(
    envs: &ClusterEnvs,
    request: &ActionRequest,
    executor: ExecutorMode,
    prepared: &[Box<dyn Previewed>],
    report: &ChannelReport,
) -> Result<RunEnd, ActionError> {
    let mut jobs = Vec::new();
    for (cluster, part) in envs.iter().zip(&request.parts) {
        let job = cluster
            .open(&part.namespace, request.options(executor))
            .await?;
        if let Some(note) = job.platform_note() {
            report.note(&Note::Platform(note.to_owned()));
        }
        jobs.push(job);
    }
    if let ([job], [prepared]) = (jobs.as_slice(), prepared) {
        return Ok(action::execute(&job.ops(), prepared.as_ref(), report).await?);
    }
    let parts: Vec<ClusterPart<'_>> = jobs
        .iter()
        .zip(&request.parts)
        .zip(prepared)
        .map(|((job, part), prepared)| ClusterPart {
            context: &part.context,
            ops: job.ops(),
            prepared: prepared.as_ref(),
            report,
        })
        .collect();
    Ok(across::execute_in_turn(&parts, report).await.into_run_end())
}

/// Each cluster's turn said in the progress lines.
impl InTurn for ChannelReport {
    fn starting(&self, context: &str) {
        self.note(&Note::Info(format!("cluster {context}: rolling out")));
    }

    fn ended(&self, context: &str, end: &Result<RunEnd, OpsError>, halt: Option<&str>) {
        if let Ok(end) = end {
            self.note(&Note::Info(format!("cluster {context}: {}", end.message)));
        }
        if let Some(halt) = halt {
            self.note(&Note::Info(halt.to_owned()));
        }
    }
}

/// Journals an action refused before any request (read-only mode).
pub fn record_refusal(
    env: &ActionJournal,
    kind: crate::actions::event::ActionKind,
    namespace: &str,
    nodes: &[String],
    reason: String,
) -> Result<(), crate::journal::JournalError> {
    let Some(journal) = &env.journal else {
        return Err(crate::journal::JournalError::NoLocation);
    };
    let entry = journal_entry(
        &env.operator,
        &env.context,
        kind,
        namespace,
        nodes,
        "refused in the console",
        Outcome::Refused,
        Some(reason),
        &SystemClock,
    );
    ActionLog::append(journal, &entry)
}

/// Default pacing of followed plans in the console.
pub fn default_driver_config() -> DriverConfig {
    DriverConfig {
        deadline: Duration::from_secs(3600),
        // The operator is watching: stop with the fix rather than retry like the controller.
        halt_on_render_failure: true,
        ..DriverConfig::default()
    }
}
