//! The doctor's checks of one SeiNode's own state: its plan and tasks, whether the platform
//! config in use renders it now, image and sidecar drift, conditions, and a seed's last probe.
use jiff::{SignedDuration, Timestamp};

use super::{
    ClusterSnapshot, Evidence, Finding, FindingClass, Fix, FixAction, NodeSnapshot, ObjectRef,
    Severity, scope_args,
};
use crate::api::{PlanPhase, SeiNode, TaskPlan, TaskStatus};
use crate::config::DoctorThresholds;
use crate::fleet::rows::{ConditionBrief, drift};
use crate::planner::{NoPlanReason, PlanContext, handle_terminal_plan, preview};
use crate::ports::probe::{CheckName, Verdict};

/// One node and the cluster it is in, as the checks read them.
pub(super) struct NodeCtx<'c, 'a> {
    pub cluster: &'c ClusterSnapshot<'a>,
    pub node: &'a SeiNode,
    pub snapshot: &'c NodeSnapshot<'a>,
    pub now: Timestamp,
    pub thresholds: &'c DoctorThresholds,
}

impl NodeCtx<'_, '_> {
    pub fn name(&self) -> &str {
        self.node.name()
    }

    pub fn namespace(&self) -> &str {
        self.node.namespace()
    }

    /// ` --context C -n NS` for this node's commands.
    pub fn scope(&self) -> String {
        scope_args(&self.cluster.context, self.namespace())
    }

    pub fn object(&self, kind: &'static str, name: &str) -> ObjectRef {
        ObjectRef {
            context: self.cluster.context.clone(),
            namespace: self.namespace().to_owned(),
            kind,
            name: name.to_owned(),
            node: Some(self.name().to_owned()),
        }
    }

    pub fn node_ref(&self) -> ObjectRef {
        self.object("SeiNode", self.name())
    }

    pub fn plan(&self) -> Option<&TaskPlan> {
        self.node.status.as_ref().and_then(|s| s.plan.as_ref())
    }

    pub fn plan_active(&self) -> bool {
        self.plan().is_some_and(TaskPlan::is_active)
    }

    /// The preview command of a rollout of this node to `image`.
    pub fn rollout_preview(&self, image: &str) -> String {
        format!(
            "sei-console rollout {}{} --image {image} --dry-run",
            self.name(),
            self.scope()
        )
    }

    pub fn finding(
        &self,
        severity: Severity,
        class: FindingClass,
        summary: String,
        evidence: Vec<Evidence>,
        fix: Fix,
    ) -> Finding {
        Finding {
            severity,
            class,
            object: self.node_ref(),
            summary,
            evidence,
            fix,
        }
    }
}

pub(super) fn check(at: &NodeCtx<'_, '_>, out: &mut Vec<Finding>) {
    plan_failed(at, out);
    task_overdue(at, out);
    super::render::render(at, out);
    drifts(at, out);
    conditions(at, out);
    seed_probe(at, out);
}

/// What the next reconcile does about a node whose plan failed (the planner's own preview).
enum Rerun {
    /// It clears the Failed plan and plans again: these task types.
    PlansAgain(Vec<String>),
    /// It plans nothing, and why (a Failed node is terminal).
    Nothing { terminal: bool, why: String },
}

fn next_reconcile(at: &NodeCtx<'_, '_>) -> Rerun {
    let mut node = at.node.clone();
    let sidecar = at.cluster.sidecar_image.unwrap_or_default();
    let ctx = PlanContext::new(sidecar, at.now);
    handle_terminal_plan(&mut node, &ctx);
    match preview(&node, None, &ctx) {
        Ok(preview) => match preview.outcome {
            Ok(plan) => Rerun::PlansAgain(
                plan.tasks
                    .iter()
                    .map(|t| t.kind.as_str().to_owned())
                    .collect(),
            ),
            Err(reason) => Rerun::Nothing {
                terminal: reason == NoPlanReason::Failed,
                why: reason.to_string(),
            },
        },
        Err(error) => Rerun::Nothing {
            terminal: false,
            why: format!("it cannot plan: {error}"),
        },
    }
}

fn plan_failed(at: &NodeCtx<'_, '_>, out: &mut Vec<Finding>) {
    let Some(plan) = at.plan().filter(|p| p.phase == PlanPhase::Failed) else {
        return;
    };
    let index = plan
        .failed_task_index
        .and_then(|i| usize::try_from(i).ok())
        .or_else(|| {
            plan.tasks
                .iter()
                .position(|t| t.status == TaskStatus::Failed)
        });
    let task = index.and_then(|i| plan.tasks.get(i));
    let (kind, error, retries, max_retries) = match (&plan.failed_task_detail, task) {
        (Some(d), _) => (
            d.kind.as_str(),
            d.error.as_str(),
            d.retry_count,
            d.max_retries,
        ),
        (None, Some(t)) => (
            t.kind.as_str(),
            t.error.as_str(),
            t.retry_count,
            t.max_retries,
        ),
        (None, None) => ("?", "", 0, 0),
    };
    let position = index.map_or(String::from("?"), |i| (i + 1).to_string());
    let mut evidence = vec![
        Evidence::new(
            "status.plan",
            format!(
                "plan {} Failed at task {position}/{} {kind} after {retries}/{max_retries} retries",
                plan.id,
                plan.tasks.len()
            ),
        )
        .at(task.and_then(|t| t.submitted_at.as_ref()).map(|t| t.0)),
    ];
    if !error.is_empty() {
        evidence.push(Evidence::new("status.plan.failedTaskDetail.error", error));
    }
    if let Some(phase) = at.node.status.as_ref().and_then(|s| s.phase) {
        evidence.push(Evidence::new("status.phase", phase.as_str()));
    }
    let exec = format!("sei-console exec {}{}", at.name(), at.scope());
    let fix = match next_reconcile(at) {
        Rerun::PlansAgain(tasks) => Fix::says(format!(
            "remove the cause the error names; the next reconcile clears the Failed plan and \
             plans again from the first task: {} ({} tasks); exec previews that plan and asks \
             before persisting it",
            tasks.join(", "),
            tasks.len()
        ))
        .command(exec),
        Rerun::Nothing {
            terminal: true,
            why,
        } => Fix::says(format!(
            "re-running plans nothing ({why}); remove the cause the error names first; the \
             command saves the manifest to apply again"
        ))
        .command(format!(
            "kubectl{} get seinode {} -o yaml > {}.yaml",
            at.scope(),
            at.name(),
            at.name()
        )),
        Rerun::Nothing { why, .. } => {
            Fix::says(format!("the next reconcile plans nothing: {why}")).command(exec)
        }
    };
    out.push(at.finding(
        Severity::Critical,
        FindingClass::PlanFailed,
        format!("plan failed at task {kind}: {}", one_line(error)),
        evidence,
        fix,
    ));
}

fn task_overdue(at: &NodeCtx<'_, '_>, out: &mut Vec<Finding>) {
    let Some(plan) = at.plan().filter(|p| p.is_active()) else {
        return;
    };
    let Some(task) = plan
        .current_task_index()
        .and_then(|i| plan.tasks.get(i))
        .filter(|t| t.status != TaskStatus::Complete)
    else {
        return;
    };
    let Some(submitted) = task.submitted_at.as_ref().map(|t| t.0) else {
        return;
    };
    let limit = at.thresholds.minutes_for(task.kind.as_str());
    let running = at.now.duration_since(submitted);
    if running <= SignedDuration::from_mins(i64::from(limit)) {
        return;
    }
    let minutes = running.as_secs() / 60;
    let mut evidence = vec![
        Evidence::new(
            "status.plan.tasks",
            format!(
                "task {} {} for {minutes}m (retries {}/{}); the config allows {limit}m",
                task.kind,
                task.status.as_str(),
                task.retry_count,
                task.max_retries
            ),
        )
        .at(Some(submitted)),
    ];
    if !task.error.is_empty() {
        evidence.push(Evidence::new("status.plan.tasks.error", task.error.clone()));
    }
    let fix = Fix::says(
        "look at why it does not finish: the node screen's events and the pod's logs; the \
         threshold is doctor.task_minutes in the console config",
    )
    .command(format!(
        "sei-console logs {}{} -c sidecar",
        at.name(),
        at.scope()
    ));
    out.push(at.finding(
        Severity::Warning,
        FindingClass::TaskOverdue,
        format!(
            "task {} has run {minutes}m (longer than its {limit}m)",
            task.kind
        ),
        evidence,
        fix,
    ));
}

fn drifts(at: &NodeCtx<'_, '_>, out: &mut Vec<Finding>) {
    if at.plan_active() {
        return;
    }
    let status = at.node.status.as_ref();
    let default_sidecar = at.cluster.sidecar_image.filter(|i| !i.is_empty());
    let drift = drift(at.node, default_sidecar);
    let spec_image = at.node.spec.image.as_str();
    let current = status.map(|s| s.current_image()).unwrap_or("");
    let rollout = || {
        Fix::says(format!(
            "roll the node to {spec_image} (the rollout plans the image update)"
        ))
        .command(at.rollout_preview(spec_image))
        .action(FixAction::Rollout {
            image: spec_image.to_owned(),
        })
    };
    if drift.image && !current.is_empty() {
        out.push(at.finding(
            Severity::Warning,
            FindingClass::ImageDrift,
            format!("runs {current}, not its spec's {spec_image}, and no plan is changing it"),
            vec![
                Evidence::new("spec.image", spec_image),
                Evidence::new("status.currentImage", current),
                Evidence::new("status.plan", plan_state(at.plan())),
            ],
            rollout(),
        ));
    }
    if !drift.image {
        for pod in &at.snapshot.pods {
            let name = pod.metadata.name.as_deref().unwrap_or("?");
            let old = pod
                .status
                .as_ref()
                .and_then(|s| s.container_statuses.as_ref())
                .into_iter()
                .flatten()
                .find(|c| c.name == "seid" && !c.image.is_empty() && c.image != spec_image);
            if let Some(container) = old {
                out.push(Finding {
                    object: at.object("Pod", name),
                    ..at.finding(
                        Severity::Warning,
                        FindingClass::PodOldImage,
                        format!(
                            "pod {name} runs {}, not {spec_image}, and no plan replaces it",
                            container.image
                        ),
                        vec![
                            Evidence::new(format!("Pod {name} seid image"), &container.image),
                            Evidence::new("spec.image", spec_image),
                            Evidence::new("status.plan", plan_state(at.plan())),
                        ],
                        rollout(),
                    )
                });
            }
        }
    }
    if drift.sidecar {
        let running = status.map(|s| s.current_sidecar_image()).unwrap_or("");
        let wanted = at
            .node
            .spec
            .sidecar_image()
            .filter(|i| !i.is_empty())
            .or(default_sidecar)
            .unwrap_or("");
        let source = if at.node.spec.sidecar_image().is_some_and(|i| !i.is_empty()) {
            "spec.sidecar.image".to_owned()
        } else {
            match at.cluster.platform_source {
                Some(source) => format!("images.sidecar of {source}"),
                None => "images.sidecar of the platform config".to_owned(),
            }
        };
        out.push(
            at.finding(
                Severity::Warning,
                FindingClass::SidecarBehind,
                format!("sidecar runs {running}, not {wanted}, and no plan is changing it"),
                vec![
                    Evidence::new("status.currentSidecarImage", running),
                    Evidence::new(source, wanted),
                ],
                Fix::says(
                    "persist the plan the planner builds for the drift (exec previews it and asks \
                 first)",
                )
                .command(format!("sei-console exec {}{}", at.name(), at.scope())),
            ),
        );
    }
}

fn plan_state(plan: Option<&TaskPlan>) -> String {
    match plan {
        None => "no plan".to_owned(),
        Some(plan) => format!("plan {} {}", plan.id, plan.phase.as_str()),
    }
}

/// A node whose conditions report trouble is not healthy, whatever its phase (issue 27).
fn conditions(at: &NodeCtx<'_, '_>, out: &mut Vec<Finding>) {
    let Some(status) = at.node.status.as_ref() else {
        return;
    };
    for condition in status.conditions() {
        let brief = ConditionBrief {
            kind: condition.type_.clone(),
            status: condition.status.clone(),
            reason: condition.reason.clone(),
        };
        if !brief.is_bad() {
            continue;
        }
        let phase = status.phase.map_or("-", |p| p.as_str());
        out.push(at.finding(
            Severity::Warning,
            FindingClass::ConditionFailing,
            format!(
                "{} is {}/{} while {phase}",
                condition.type_, condition.status, condition.reason
            ),
            vec![
                Evidence::new(
                    format!("status.conditions[{}]", condition.type_),
                    format!(
                        "{} {}: {}",
                        condition.status,
                        condition.reason,
                        one_line(&condition.message)
                    ),
                )
                .at(Some(condition.last_transition_time.0)),
            ],
            Fix::says("see the node screen (enter) or describe for what it says").command(format!(
                "sei-console describe {}{}",
                at.name(),
                at.scope()
            )),
        ));
    }
}

fn seed_probe(at: &NodeCtx<'_, '_>, out: &mut Vec<Finding>) {
    let Some(probe) = at.snapshot.probe else {
        return;
    };
    let outcome = &probe.outcome;
    let Some(failed) = outcome.checks.iter().find(|c| c.verdict == Verdict::Fail) else {
        return;
    };
    let (severity, class, summary) = match failed.check {
        CheckName::Reachable | CheckName::Handshake => (
            Severity::Critical,
            FindingClass::SeedUnreachable,
            format!("seed unreachable from outside at {}", outcome.target),
        ),
        CheckName::NodeId => (
            Severity::Critical,
            FindingClass::SeedOtherNodeId,
            format!(
                "seed answers under another NodeID ({}) than it publishes",
                outcome.authenticated_node_id.as_deref().unwrap_or("?")
            ),
        ),
        CheckName::PexAddresses => (
            Severity::Warning,
            FindingClass::SeedNoPeers,
            "seed knows no peers to hand out".to_owned(),
        ),
        CheckName::SelfAddress | CheckName::Network | CheckName::ListenAddress => (
            Severity::Warning,
            FindingClass::SeedMisadvertised,
            format!("seed advertises a wrong {}", failed.check.label()),
        ),
    };
    let mut evidence = vec![
        Evidence::new(
            format!("probe {}", failed.check.label()),
            one_line(&failed.detail),
        )
        .at(Some(probe.at)),
        Evidence::new(
            "probe route",
            format!(
                "dialled {} from {}{}",
                outcome.origin.remote_address.as_deref().unwrap_or("-"),
                outcome.origin.local_address.as_deref().unwrap_or("-"),
                if outcome.origin.in_cluster {
                    " (inside the cluster)"
                } else {
                    ""
                }
            ),
        ),
    ];
    if at.snapshot.workload_known && at.snapshot.pods.is_empty() {
        evidence.push(Evidence::new(
            "pods",
            "no pod: nothing listens for the seed (see the render and pod findings)",
        ));
    }
    out.push(
        at.finding(
            severity,
            class,
            summary,
            evidence,
            Fix::says("probe again after fixing what the check names (the console's probe key)")
                .command(format!(
                    "sei-console seed probe {}{}",
                    at.name(),
                    at.scope()
                ))
                .action(FixAction::Probe),
        ),
    );
}

/// The first line of `text`, trimmed (event and error messages can be long).
pub(super) fn one_line(text: &str) -> String {
    const MAX: usize = 300;
    let line = text.lines().next().unwrap_or("").trim();
    if line.chars().count() > MAX {
        let cut: String = line.chars().take(MAX).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}
