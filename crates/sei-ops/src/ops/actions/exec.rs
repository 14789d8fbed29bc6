//! Executing a node's plan now, as an action under the contract: the plan the planner would
//! build (persisted only when no Active plan exists, resourceVersion lock; an Active one is
//! resumed), then followed to its end by the embedded executor or a live controller. It writes
//! the node's status and drives tasks that apply StatefulSets, create PVCs and submit sidecar
//! tasks, so it gets what every action gets: the read-only refusal and the node's Lease from
//! the preamble, a Console Event and the journal's lines.
//!
//! `run` persists through `Driver::persist_as` with the previewed plan ID, posts the Console Event
//! naming the plan (`ConsolePlanExec`) and journals `started`, follows the plan, then journals
//! `succeeded` or `failed`. It writes no `sei.io/console-actions` record: only `status` is written,
//! and the record lives in metadata.
use crate::actions::event::ActionKind;
use crate::actions::permissions::plan_checks;
use crate::api::{Phase, TaskPlan};
use crate::config::ExecutorMode;
use crate::executor::driver::{Persisted, Progress};
use crate::journal::Outcome;
use crate::ops::action::{ActionFuture, Operation, PreviewLine, Previewed};
use crate::ops::follow::{ExecutorChoice, FollowEnd};
use crate::ops::skew::SkewScope;
use crate::ops::{Note, Ops, OpsError, PermissionVerdict, Report, RunEnd, needs_typed_name};
use crate::planner::{self, NoPlanReason, PlanContext, Resolution};
use crate::ports::access::PermissionCheck;

/// The journal's and Events' name of this action.
pub const KIND: ActionKind = ActionKind::new("exec", "ConsolePlanExec");
/// Its names for `ops::actions::all()` (the journal's list of actions).
pub const KINDS: &[ActionKind] = &[KIND];

/// An exec as the operator asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecInput {
    pub node: String,
    pub dry_run: bool,
}

/// Everything known before the plan is persisted.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecPrepared {
    pub input: ExecInput,
    pub namespace: String,
    /// The node's UID (its Event's object).
    pub uid: String,
    /// The ID of the plan shown; a new plan is persisted with it.
    pub plan_id: uuid::Uuid,
    pub executor: ExecutorChoice,
    /// The plan `persist` would build or resume now; `None` when there is nothing to do.
    pub plan: Option<TaskPlan>,
    /// The plan shown is the node's Active plan, resumed rather than built.
    pub resumed: bool,
    /// Why there is no plan (the status is still refreshed as a reconcile would).
    pub no_plan: Option<String>,
    pub permissions: PermissionVerdict,
    pub confirm_names: Vec<String>,
}

fn task_names(plan: &TaskPlan) -> Vec<String> {
    plan.tasks.iter().map(|t| t.kind.to_string()).collect()
}

/// Resolves the executor, and previews and checks the plan (the read-only refusal is the
/// preamble's, `action::prepare`).
pub async fn prepare(ops: &Ops<'_>, input: ExecInput) -> Result<ExecPrepared, OpsError> {
    let node = input.node.as_str();
    let executor = ops.executor_choice().await?;
    let mut stored = ops.read_node(node).await?;
    let uid = stored.metadata.uid.clone().unwrap_or_default();
    let confirm_names = if needs_typed_name(&stored) {
        vec![node.to_owned()]
    } else {
        Vec::new()
    };
    ops.resolve_peers(&mut stored).await?;
    let plan_id = uuid::Uuid::new_v4();
    let ctx = PlanContext::new(&ops.settings.platform.images.sidecar, ops.ports.clock.now())
        .with_plan_id(plan_id);
    let phase = stored.status.as_ref().and_then(|s| s.phase);
    // As the driver's persist: a Failed or paused node gets no plan.
    let (plan, resumed, no_plan) = if phase == Some(Phase::Failed) {
        (None, false, Some(NoPlanReason::Failed.to_string()))
    } else if stored.spec.is_paused() {
        (None, false, Some(NoPlanReason::Paused.to_string()))
    } else {
        let plan_now =
            |node: &crate::api::SeiNode| node.status.as_ref().and_then(|s| s.plan.clone());
        match planner::resolve_plan(&mut stored, &ctx) {
            Ok(Resolution::Built) => (plan_now(&stored), false, None),
            Ok(Resolution::Resumed { .. }) => (plan_now(&stored), true, None),
            Ok(Resolution::StateSyncBlocked) => (
                None,
                false,
                Some("state sync enabled but not ready; not building plan".to_owned()),
            ),
            Ok(Resolution::SteadyState) => {
                (None, false, Some(NoPlanReason::SteadyState.to_string()))
            }
            Err(err) => return Err(OpsError::Step(format!("cannot build a plan: {err}"))),
        }
    };
    let mut scope = ops.scope();
    scope.executor = if executor.embedded {
        ExecutorMode::Embedded
    } else {
        ExecutorMode::Controller
    };
    let namespace = ops.namespace();
    let mut checks = match &plan {
        Some(plan) => {
            let tasks: Vec<_> = plan.tasks.iter().map(|t| t.kind.clone()).collect();
            plan_checks(&scope, namespace, node, &tasks)
        }
        // Only reading and the status write when there is nothing to execute.
        None => vec![
            PermissionCheck::new("get", "sei.io", "seinodes", namespace, node),
            PermissionCheck::new("patch", "sei.io", "seinodes", namespace, node)
                .subresource("status"),
        ],
    };
    // The Console Event of a persisted or resumed plan.
    let event = PermissionCheck::new("create", "", "events", namespace, "");
    if plan.is_some() && !checks.contains(&event) {
        checks.push(event);
    }
    let permissions = ops.check(checks, !input.dry_run).await;
    Ok(ExecPrepared {
        input,
        namespace: namespace.to_owned(),
        uid,
        plan_id,
        executor,
        plan,
        resumed,
        no_plan,
        permissions,
        confirm_names,
    })
}

impl ExecPrepared {
    /// `plan for NS/NODE: N tasks: a, b` (the plan the run persists or resumes), or why there
    /// is none; then who executes it.
    fn text(&self) -> String {
        let (namespace, node) = (&self.namespace, &self.input.node);
        let mut text = match (&self.plan, &self.no_plan) {
            (Some(plan), _) if self.resumed => format!(
                "plan for {namespace}/{node}: {} already Active ({} of {} tasks complete), \
                 resumed: {}\n",
                plan.id,
                plan.completed_count(),
                plan.tasks.len(),
                task_names(plan).join(", ")
            ),
            (Some(plan), _) => format!(
                "plan for {namespace}/{node}: {} tasks: {}\n",
                plan.tasks.len(),
                task_names(plan).join(", ")
            ),
            (None, reason) => format!(
                "no plan for {namespace}/{node}: {}; its status is refreshed as the \
                 controller's reconcile would\n",
                reason.as_deref().unwrap_or("nothing to do")
            ),
        };
        if self.plan.is_some() {
            text.push_str(if self.executor.embedded {
                "  executed by this console (embedded executor)\n"
            } else {
                "  executed by the live controller; the console follows it\n"
            });
        }
        text
    }
}

impl Operation for ExecInput {
    type Prepared = ExecPrepared;

    fn kind(&self) -> ActionKind {
        KIND
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.node.clone()]
    }

    fn detail(&self) -> String {
        "execute the plan the planner builds now".to_owned()
    }

    fn dry_run(&self) -> bool {
        self.dry_run
    }

    fn summary(&self, namespace: &str) -> String {
        format!("execute the plan of {namespace}/{}", self.node)
    }

    fn prepare<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, ExecPrepared> {
        Box::pin(prepare(ops, self.clone()))
    }

    /// Writes the plan; a live controller executes it.
    fn skew_scope(&self) -> SkewScope {
        SkewScope {
            writes: &["status.plan"],
            hands_off: true,
        }
    }
}

impl Previewed for ExecPrepared {
    fn kind(&self) -> ActionKind {
        KIND
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.input.node.clone()]
    }

    fn detail(&self) -> String {
        Operation::detail(&self.input)
    }

    fn text(&self) -> String {
        ExecPrepared::text(self)
    }

    /// The executor chosen for `auto` first (a note, as before the action had a preview), then
    /// the plan.
    fn preview_lines(&self) -> Vec<PreviewLine> {
        let mut lines: Vec<PreviewLine> = self
            .executor
            .note
            .iter()
            .map(|note| PreviewLine::Note(Note::Executor(note.clone())))
            .collect();
        let json = serde_json::json!({"event": "preview", "preview": {
            "namespace": self.namespace, "node": self.input.node,
            "planId": self.plan.as_ref().map(|p| p.id.clone()),
            "resumed": self.resumed,
            "tasks": self.plan.as_ref().map(task_names),
            "noPlan": self.no_plan, "embedded": self.executor.embedded,
        }});
        lines.push(PreviewLine::Preview {
            text: ExecPrepared::text(self),
            json,
        });
        lines
    }

    fn refusal(&self) -> Option<OpsError> {
        self.permissions.refusal()
    }

    fn permissions(&self) -> &PermissionVerdict {
        &self.permissions
    }

    fn confirm_names(&self) -> Vec<String> {
        self.confirm_names.clone()
    }

    fn question(&self) -> String {
        let node = &self.input.node;
        match &self.plan {
            Some(plan) if self.resumed => format!("resume plan {} of {node}?", plan.id),
            Some(plan) => format!("execute this plan of {node} ({} tasks)?", plan.tasks.len()),
            None => format!("refresh the status of {node} (no plan to execute)?"),
        }
    }

    fn lease(&self) -> Option<String> {
        Some(self.input.node.clone())
    }

    /// Persists the plan (or finds the Active one), records it, and follows it.
    fn run<'a>(&'a self, ops: &'a Ops<'a>, report: &'a dyn Report) -> ActionFuture<'a, RunEnd> {
        Box::pin(persist_and_follow(ops, self, report))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

async fn persist_and_follow(
    ops: &Ops<'_>,
    prepared: &ExecPrepared,
    report: &dyn Report,
) -> Result<RunEnd, OpsError> {
    let namespace = ops.namespace();
    let name = prepared.input.node.as_str();
    let (nodes, detail) = (vec![name.to_owned()], Operation::detail(&prepared.input));
    let persisted = ops
        .driver()
        .persist_as(
            namespace,
            name,
            &ops.settings.platform.images.sidecar,
            Some(prepared.plan_id),
        )
        .await;
    let persisted = match persisted {
        Ok(persisted) => persisted,
        Err(err) => {
            let why = OpsError::Step(format!("{namespace}/{name}: persisting the plan: {err}"));
            return Ok(ops.finish(KIND, &nodes, &detail, name, Err(why), report));
        }
    };
    let (first, total, plan_id, what) = match &persisted {
        Persisted::Built(plan) => (
            Progress::PlanPersisted {
                plan_id: plan.id.clone(),
                tasks: task_names(plan),
                phase: None,
            },
            plan.tasks.len(),
            plan.id.clone(),
            format!(
                "plan {} persisted: {} tasks: {}",
                plan.id,
                plan.tasks.len(),
                task_names(plan).join(", ")
            ),
        ),
        Persisted::Resumed(plan) => (
            Progress::PlanResumed {
                plan_id: plan.id.clone(),
                complete: plan.completed_count(),
                total: plan.tasks.len(),
            },
            plan.tasks.len(),
            plan.id.clone(),
            format!(
                "plan {} resumed: {} of {} tasks complete",
                plan.id,
                plan.completed_count(),
                plan.tasks.len()
            ),
        ),
        Persisted::None(reason) => {
            let line = Progress::NoPlan {
                reason: reason.clone(),
            };
            report.progress(name, &line, 0);
            let message = format!("{namespace}/{name}: no plan to execute: {reason}");
            return Ok(ops.finish(KIND, &nodes, &detail, name, Ok(message), report));
        }
    };
    report.progress(name, &first, total);
    ops.event(KIND, name, &prepared.uid, &what, report).await;
    ops.journal(KIND, &nodes, &detail, Outcome::Started, None, report);
    let outcome = match ops
        .follow_as(prepared.executor.embedded, name, &plan_id, report)
        .await
    {
        Ok(FollowEnd::Completed) => Ok(format!("{namespace}/{name}: plan {plan_id} complete")),
        Ok(end) => Err(OpsError::Step(format!("{namespace}/{name}: {end}"))),
        // A driver error or the deadline, already naming the node.
        Err(err) => Err(err),
    };
    Ok(ops.finish(KIND, &nodes, &detail, name, outcome, report))
}
