//! External address propagation: `spec.externalAddress` set and the update plan whose
//! config-patch carries it persisted under the node's resourceVersion — the controller alone
//! builds no plan for an address change — then seid restarted (it reads config.toml only at
//! start) and the address it advertises read back from outside (`address/live.rs`).
//!
//! Run again after a crash, it finishes what it started: a plan Active on the node runs to its
//! end first (`runs_first`); when that plan's config-patch carries the address, nothing more is
//! persisted. A node whose address a completed plan recorded on it already propagated
//! (`propagated_by`) is nothing to do.
use crate::actions::address::ExternalAddress;
use crate::actions::event::ActionKind;
use crate::actions::permissions::{address_checks, tasks_to_run};
use crate::actions::preview::{AddressPreview, address_preview, address_text, addressed_node};
use crate::actions::statefulset_diff::statefulset_preview;
use crate::api::{ConditionType, SeiNode, TaskKind, TaskPlan, TaskStatus};
use crate::fleet::console_actions;
use crate::journal::Outcome;
use crate::ops::action::{ActionFuture, Operation, PreviewLine, Previewed};
use crate::ops::actions::restart::{PodState, read_pod};
use crate::ops::follow::FollowEnd;
use crate::ops::skew::SkewScope;
use crate::ops::{Note, Ops, OpsError, PermissionVerdict, Report, RunEnd, needs_typed_name};
use crate::ports::access::PermissionCheck;

/// The journal's and Events' name of this action.
pub const KIND: ActionKind = ActionKind::new("address", "ConsoleExternalAddress");
/// Its names for `ops::actions::all()` (the journal's list of actions).
pub const KINDS: &[ActionKind] = &[KIND];

mod live;
mod set;
pub use live::{RestartStep, SEID_READS_CONFIG_AT_START};

/// An address change as the operator asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressInput {
    pub node: String,
    pub address: ExternalAddress,
    pub wait: bool,
    pub dry_run: bool,
    /// Restart seid after the plan so that it reads the new config.toml (`--no-restart`:
    /// false, the address is written but not live).
    pub restart: bool,
}

impl AddressInput {
    pub fn detail(&self) -> String {
        format!("external address {}", self.address)
    }
}

/// Everything known before the change.
#[derive(Debug, Clone, PartialEq)]
pub struct AddressPrepared {
    pub input: AddressInput,
    pub node: SeiNode,
    /// The ID the previewed plan carries; the persisted plan gets the same one.
    pub plan_id: uuid::Uuid,
    /// How peers were resolved where it matters.
    pub peer_notes: Vec<String>,
    pub preview: AddressPreview,
    /// The pod now (`None`: there is none) and how seid comes to read the new address.
    pub pod: Option<PodState>,
    pub restart: RestartStep,
    /// Why no update plan can be persisted: the node is left alone.
    pub blocked: Option<String>,
    /// The plan Active on the node, which runs to its end first, and whether its config-patch
    /// already carries the address (then nothing more is persisted).
    pub runs_first: Option<(String, bool)>,
    /// The plan that already propagated the address, as the node records it: nothing to do
    /// (unless a console that stopped left its Lease, then the run ends under the Lease).
    pub propagated: Option<String>,
    /// The holder of a Lease a stopped console left on the node.
    pub interrupted: Option<String>,
    pub permissions: PermissionVerdict,
    pub confirm_names: Vec<String>,
    pub question: String,
}

impl AddressPrepared {
    pub fn text(&self) -> String {
        let mut text = address_text(&self.preview);
        text.push_str(&self.restart.text(&self.input.address.to_string()));
        for note in &self.peer_notes {
            text.push_str(note);
            text.push('\n');
        }
        if let Some((plan, carries)) = &self.runs_first {
            text.push_str(&format!("First: plan {plan} is Active; it runs to its end"));
            text.push_str(if *carries {
                " (its config-patch carries this address: nothing more is persisted)\n"
            } else {
                ", then the update plan above is persisted\n"
            });
        }
        if let Some(holder) = &self.interrupted {
            text.push_str(&format!(
                "{holder} stopped before the end of its action on the node (its Lease was never \
                 released): this run finishes it\n"
            ));
        }
        if let Some(reason) = &self.blocked {
            text.push_str(&format!("✗ cannot run: {reason}\n"));
        }
        text
    }

    pub fn refusal(&self) -> Option<OpsError> {
        if let Some(reason) = &self.blocked {
            return Some(OpsError::Step(format!("{reason}; nothing was changed")));
        }
        self.permissions.refusal()
    }
}

/// Reads the node, previews the update plan carrying the address and the StatefulSet diff, and
/// checks every call (unless a dry run).
/// Unguarded: [`crate::ops::action::prepare`] refuses in read-only mode first.
pub async fn prepare(ops: &Ops<'_>, input: AddressInput) -> Result<AddressPrepared, OpsError> {
    let mut node = ops.read_node(&input.node).await?;
    let peer_notes = ops.resolve_peers(&mut node).await?;
    let plan_id = uuid::Uuid::new_v4();
    let ctx = ops.plan_context().with_plan_id(plan_id);
    let runs_first = active_plan(&node).map(|plan| {
        let carries = carries_address(plan, &input.address);
        (plan.id.clone(), carries)
    });
    let interrupted = ops.interrupted_by(&input.node).await;
    let propagated = propagated_by(&node, &input.address);
    // An Active plan runs first: the update plan is previewed for the node as it then is.
    let planned = match &runs_first {
        Some(_) => without_active_plan(&node),
        None => node.clone(),
    };
    let mut preview = address_preview(&planned, &input.address, &ctx)
        .map_err(|e| OpsError::Step(e.to_string()))?;
    preview.statefulset = Some(
        statefulset_preview(
            ops.ports.cluster,
            ops.ports.renderer,
            &addressed_node(&node, &input.address),
        )
        .await,
    );
    // Nothing more to persist: the Active plan carries the address, or a plan propagated it.
    let done_after = matches!(runs_first, Some((_, true))) || propagated.is_some();
    if done_after {
        let why = match (&runs_first, &propagated) {
            (Some((plan, true)), _) => format!("the Active plan {plan} carries this address"),
            (_, Some(plan)) => format!("plan {plan} already propagated this address"),
            _ => String::new(),
        };
        preview.plan = crate::actions::preview::PlanPreview {
            plan: None,
            no_plan: Some(why),
            config_patch: None,
        };
    }
    let blocked = preview
        .plan
        .no_plan
        .as_ref()
        .filter(|_| !done_after)
        .map(|reason| {
            format!(
                "no update plan can be persisted for {}/{}: {reason}",
                ops.namespace(),
                input.node
            )
        });
    let blocked = match blocked {
        Some(reason) => Some(reason),
        None => {
            crate::ops::pod_needs::missing_for_pod(ops, &addressed_node(&node, &input.address))
                .await
        }
    };
    let pod = read_pod(ops, &format!("{}-0", input.node))
        .await?
        .as_ref()
        .map(PodState::of);
    let restart = RestartStep::choose(
        input.restart,
        &input.node,
        pod.as_ref(),
        preview.statefulset.as_ref(),
    );
    // The Active plan's tasks and the new plan's (both run: `tasks_to_run`).
    let tasks = tasks_to_run(&node, preview.plan.plan.as_ref());
    let mut checks = address_checks(&ops.scope(), ops.namespace(), &input.node, &tasks).into_vec();
    if restart.needs_pod_delete() {
        let pod = format!("{}-0", input.node);
        checks.push(PermissionCheck::new(
            "get",
            "",
            "pods",
            ops.namespace(),
            pod.clone(),
        ));
        checks.push(PermissionCheck::new(
            "delete",
            "",
            "pods",
            ops.namespace(),
            pod,
        ));
    }
    let mut permissions = ops.check(checks, !input.dry_run).await;
    permissions.sidecar_credential = ops
        .sidecar_credential_refusal(
            crate::ops::actions::address::KIND,
            &[(input.node.clone(), tasks.clone())],
            input.wait,
            false,
        )
        .await?;
    let confirm_names = if needs_typed_name(&node) {
        vec![input.node.clone()]
    } else {
        Vec::new()
    };
    Ok(AddressPrepared {
        question: format!(
            "set the external address of {} to {}?",
            input.node, input.address
        ),
        input,
        node,
        plan_id,
        peer_notes,
        preview,
        pod,
        restart,
        blocked,
        runs_first,
        propagated,
        interrupted,
        permissions,
        confirm_names,
    })
}

/// The node once its Active plan ended: no plan, the plan's target phase.
fn without_active_plan(node: &SeiNode) -> SeiNode {
    let mut after = node.clone();
    if let Some(status) = after.status.as_mut()
        && let Some(plan) = status.plan.take()
        && let Some(phase) = plan.target_phase
    {
        status.phase = Some(phase);
    }
    after
}

/// The node's Active plan, if any.
fn active_plan(node: &SeiNode) -> Option<&TaskPlan> {
    node.status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .filter(|p| p.is_active())
}

/// Whether `plan`'s config-patch writes `address` as `[p2p] external-address`.
fn carries_address(plan: &TaskPlan, address: &ExternalAddress) -> bool {
    plan.tasks
        .iter()
        .filter(|t| t.kind == TaskKind::ConfigPatch)
        .filter_map(|t| t.params.as_deref())
        .any(|params| {
            params["files"]["config.toml"]["p2p"]["external-address"].as_str()
                == Some(address.to_string().as_str())
        })
}

/// The plan that propagated `address` to the node, when the node says so: `spec.externalAddress`
/// is the address, the newest console address action recorded on it set this address with plan
/// P, and P completed (still in status as Complete, or `NodeUpdateInProgress` says
/// `plan P completed`, as the terminal-plan handling writes).
fn propagated_by(node: &SeiNode, address: &ExternalAddress) -> Option<String> {
    let address = address.to_string();
    if node.spec.external_address() != address {
        return None;
    }
    let console_actions::Recorded::Actions { actions, .. } =
        console_actions::read(node.metadata.annotations.as_ref())?
    else {
        return None;
    };
    let last = actions
        .iter()
        .rev()
        .find(|a| a.action == crate::ops::actions::address::KIND.name())?;
    let plan = last
        .plan
        .clone()
        .filter(|_| last.detail.ends_with(&format!("-> {address}")))?;
    let status = node.status.as_ref()?;
    let completed_in_status = status.plan.as_ref().is_some_and(|p| {
        p.id == plan
            && !p.tasks.is_empty()
            && p.tasks.iter().all(|t| t.status == TaskStatus::Complete)
    });
    let completed_by_condition = status
        .condition(ConditionType::NodeUpdateInProgress)
        .is_some_and(|c| c.message == format!("plan {plan} completed"));
    (completed_in_status || completed_by_condition).then_some(plan)
}

impl Operation for AddressInput {
    type Prepared = AddressPrepared;

    fn kind(&self) -> ActionKind {
        crate::ops::actions::address::KIND
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.node.clone()]
    }

    fn detail(&self) -> String {
        AddressInput::detail(self)
    }

    fn dry_run(&self) -> bool {
        self.dry_run
    }

    fn summary(&self, namespace: &str) -> String {
        format!("{namespace}/{} → {}", self.node, self.address)
    }

    fn prepare<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, AddressPrepared> {
        Box::pin(prepare(ops, self.clone()))
    }

    /// Writes the address and the update plan carrying it; a live controller executes the plan.
    fn skew_scope(&self) -> SkewScope {
        SkewScope {
            writes: &["spec.externalAddress", "status.plan"],
            hands_off: true,
        }
    }
}

impl Previewed for AddressPrepared {
    fn kind(&self) -> ActionKind {
        crate::ops::actions::address::KIND
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.input.node.clone()]
    }

    fn detail(&self) -> String {
        self.input.detail()
    }

    fn text(&self) -> String {
        AddressPrepared::text(self)
    }

    fn preview_lines(&self) -> Vec<PreviewLine> {
        let mut preview = serde_json::to_value(&self.preview).unwrap_or_default();
        if let Some(object) = preview.as_object_mut() {
            object.insert(
                "restart".to_owned(),
                serde_json::to_value(&self.restart).unwrap_or_default(),
            );
        }
        vec![PreviewLine::Preview {
            text: AddressPrepared::text(self),
            json: serde_json::json!({"event": "preview", "preview": preview}),
        }]
    }

    fn refusal(&self) -> Option<OpsError> {
        AddressPrepared::refusal(self)
    }

    fn permissions(&self) -> &PermissionVerdict {
        &self.permissions
    }

    fn confirm_names(&self) -> Vec<String> {
        self.confirm_names.clone()
    }

    fn question(&self) -> String {
        self.question.clone()
    }

    fn nothing_to_do(&self) -> Option<String> {
        let plan = self.propagated.as_ref()?;
        (self.interrupted.is_none() && self.runs_first.is_none()).then(|| {
            format!(
                "{}/{}: external address {} already written to config.toml by plan {plan} \
                 (completed); seid reads it only at start: `sei-console restart {}` makes it live \
                 if the pod has not restarted since",
                self.preview.namespace, self.input.node, self.input.address, self.input.node
            )
        })
    }

    fn dry_run_end(&self) -> RunEnd {
        crate::ops::action::one_node_dry_run_end(
            &self.input.node,
            self.blocked.as_deref(),
            "dry run: nothing was changed",
        )
    }

    fn lease(&self) -> Option<String> {
        Some(self.input.node.clone())
    }

    /// Sets the address, persists the update plan carrying it, follows it, restarts seid and
    /// reads the advertised address back.
    fn run<'a>(&'a self, ops: &'a Ops<'a>, report: &'a dyn Report) -> ActionFuture<'a, RunEnd> {
        Box::pin(change_and_follow(ops, self, report))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

async fn change_and_follow(
    ops: &Ops<'_>,
    prepared: &AddressPrepared,
    report: &dyn Report,
) -> Result<RunEnd, OpsError> {
    let input = &prepared.input;
    let name = input.node.as_str();
    let nodes = vec![name.to_owned()];
    let detail = input.detail();
    let kind = crate::ops::actions::address::KIND;
    // Read now, under the Lease: the record appends to the node's record as it is.
    let mut stored = ops.read_node(name).await?;
    // A plan Active now (a stopped console's, the controller's) runs to its end first.
    if let Some(plan) = active_plan(&stored) {
        let carries = carries_address(plan, &input.address);
        let plan_id = plan.id.clone();
        report.note(&Note::PlanAlreadyActive {
            node: name.to_owned(),
            plan_id: plan_id.clone(),
        });
        if !input.wait {
            return Ok(ops.finish(
                kind,
                &nodes,
                &detail,
                name,
                Err(OpsError::Step(format!(
                    "plan {plan_id} is Active: the address is set after it ends (run without \
                     --no-wait to follow it first, or again once it ended)"
                ))),
                report,
            ));
        }
        let failed = match ops.follow(name, &plan_id, report).await {
            Ok(FollowEnd::Completed) => None,
            Ok(failed) => Some(OpsError::Step(format!(
                "{}/{name}: {failed}",
                ops.namespace()
            ))),
            Err(err) => Some(err),
        };
        if let Some(reason) = failed {
            return Ok(ops.finish(kind, &nodes, &detail, name, Err(reason), report));
        }
        stored = ops.read_node(name).await?;
        if carries {
            // That plan wrote the address: what is left is making it live and checking it.
            let uid = stored.metadata.uid.clone().unwrap_or_default();
            return Ok(make_live_and_end(ops, prepared, &uid, report).await);
        }
    }
    if propagated_by(&stored, &input.address).is_some() {
        // A completed plan wrote it to config.toml; whether seid reads it is checked, not assumed.
        let uid = stored.metadata.uid.clone().unwrap_or_default();
        return Ok(make_live_and_end(ops, prepared, &uid, report).await);
    }
    let from = match stored.spec.external_address() {
        "" => "(unset)",
        from => from,
    };
    let what = format!("external address {from} -> {}", input.address);
    let plan_id = prepared.plan_id.to_string();
    let record = ops.action_record(kind, Some(&stored), &what, Some(plan_id), report);
    let (patched, plan) =
        set::set_address(ops, name, &input.address, prepared.plan_id, &record).await?;
    let uid = patched.metadata.uid.clone().unwrap_or_default();
    ops.event(kind, name, &uid, &what, report).await;
    report.note(&Note::PlanPersisted {
        node: name.to_owned(),
        plan_id: plan.id.clone(),
    });
    ops.journal(kind, &nodes, &detail, Outcome::Started, None, report);
    if !input.wait {
        return Ok(RunEnd::done(format!(
            "address set and update plan persisted; not live until the plan ran and seid \
             restarted ({SEID_READS_CONFIG_AT_START}); not waiting (--no-wait)"
        )));
    }
    let failure = match ops.follow(name, &plan.id, report).await {
        Ok(FollowEnd::Completed) => None,
        Ok(failed) => Some(OpsError::Step(format!(
            "{}/{name}: {failed}",
            ops.namespace()
        ))),
        // A render failure (with its fix) or a driver error, already naming the node.
        Err(err) => Some(err),
    };
    if let Some(reason) = failure {
        return Ok(ops.finish(kind, &nodes, &detail, name, Err(reason), report));
    }
    Ok(make_live_and_end(ops, prepared, &uid, report).await)
}

/// The plan ran: seid restarted where it must be and the address it advertises read back; the
/// verdict goes on the node (Event), in the journal and into the end line — only what was
/// verified is said.
async fn make_live_and_end(
    ops: &Ops<'_>,
    prepared: &AddressPrepared,
    uid: &str,
    report: &dyn Report,
) -> RunEnd {
    let input = &prepared.input;
    let name = input.node.as_str();
    let nodes = vec![name.to_owned()];
    let detail = input.detail();
    let kind = crate::ops::actions::address::KIND;
    let address = input.address.to_string();
    let live = live::make_live(
        ops,
        name,
        &address,
        &prepared.restart,
        prepared.pod.as_ref(),
        report,
    )
    .await;
    // The verdict on the node (Event), in the journal and as the end line.
    ops.event(kind, name, uid, &live.verdict, report).await;
    let outcome = if live.ok {
        Outcome::Succeeded
    } else {
        Outcome::Failed
    };
    ops.journal(
        kind,
        &nodes,
        &detail,
        outcome,
        Some(live.verdict.clone()),
        report,
    );
    let mut end = if live.ok {
        RunEnd::done(live.verdict)
    } else {
        RunEnd::failed(name, live.verdict)
    };
    if let Some(probe) = live.probe {
        end.result.insert(
            "probe".to_owned(),
            serde_json::to_value(probe).unwrap_or_default(),
        );
        if !live.ok {
            // It ran (written, restarted); the outside check failed, as for a seed.
            end.exit_code = Some(super::seed::EXIT_UNREACHABLE);
        }
    }
    end
}
