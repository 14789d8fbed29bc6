//! External address propagation: `spec.externalAddress` set and the update plan whose
//! config-patch carries it persisted under the node's resourceVersion — the controller alone
//! builds no plan for an address change.
use crate::actions::address::ExternalAddress;
use crate::actions::event::ActionKind;
use crate::actions::permissions::{address_checks, tasks_to_run};
use crate::actions::preview::{AddressPreview, address_preview, address_text, addressed_node};
use crate::actions::statefulset_diff::statefulset_preview;
use crate::api::{SeiNode, TaskPlan};
use crate::fleet::console_actions;
use crate::journal::Outcome;
use crate::ops::action::{ActionFuture, Operation, PreviewLine, Previewed};
use crate::ops::follow::FollowEnd;
use crate::ops::skew::SkewScope;
use crate::ops::{Note, Ops, OpsError, PermissionVerdict, Report, RunEnd, needs_typed_name};
use crate::ports::StatusPatch;

/// The journal's and Events' name of this action.
pub const KIND: ActionKind = ActionKind::new("address", "ConsoleExternalAddress");
/// Its names for `ops::actions::all()` (the journal's list of actions).
pub const KINDS: &[ActionKind] = &[KIND];

/// An address change as the operator asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressInput {
    pub node: String,
    pub address: ExternalAddress,
    pub wait: bool,
    pub dry_run: bool,
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
    /// Why no update plan can be persisted: the node is left alone.
    pub blocked: Option<String>,
    pub permissions: PermissionVerdict,
    pub confirm_names: Vec<String>,
    pub question: String,
}

impl AddressPrepared {
    pub fn text(&self) -> String {
        let mut text = address_text(&self.preview);
        for note in &self.peer_notes {
            text.push_str(note);
            text.push('\n');
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
    let mut preview =
        address_preview(&node, &input.address, &ctx).map_err(|e| OpsError::Step(e.to_string()))?;
    preview.statefulset = Some(
        statefulset_preview(
            ops.ports.cluster,
            ops.ports.renderer,
            &addressed_node(&node, &input.address),
        )
        .await,
    );
    let blocked = preview.plan.no_plan.as_ref().map(|reason| {
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
    let tasks = tasks_to_run(&node, preview.plan.plan.as_ref());
    let checks = address_checks(&ops.scope(), ops.namespace(), &input.node, &tasks);
    let mut permissions = ops.check(checks.into_vec(), !input.dry_run).await;
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
        blocked,
        permissions,
        confirm_names,
    })
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
        vec![PreviewLine::Preview {
            text: AddressPrepared::text(self),
            json: serde_json::json!({"event": "preview", "preview": self.preview}),
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

    /// Sets the address, persists the update plan carrying it, and follows it.
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
    let stored = ops.read_node(name).await?;
    let from = match stored.spec.external_address() {
        "" => "(unset)",
        from => from,
    };
    let what = format!("external address {from} -> {}", input.address);
    let plan_id = prepared.plan_id.to_string();
    let record = ops.action_record(kind, Some(&stored), &what, Some(plan_id), report);
    let (patched, plan) = set_address(ops, name, &input.address, prepared.plan_id, &record).await?;
    let uid = patched.metadata.uid.clone().unwrap_or_default();
    ops.event(kind, name, &uid, &what, report).await;
    report.note(&Note::PlanPersisted {
        node: name.to_owned(),
        plan_id: plan.id.clone(),
    });
    ops.journal(kind, &nodes, &detail, Outcome::Started, None, report);
    if !input.wait {
        return Ok(RunEnd::done(
            "address set and update plan persisted; not waiting (--no-wait)",
        ));
    }
    let failure = match ops.follow(name, &plan.id, report).await {
        Ok(FollowEnd::Completed) => None,
        Ok(failed) => Some(format!("{}/{name}: {failed}", ops.namespace())),
        // A render failure (with its fix) or a driver error, already naming the node.
        Err(err) => Some(err.to_string()),
    };
    let outcome = match failure {
        None => Ok("external address propagated".to_owned()),
        Some(reason) => Err(reason),
    };
    Ok(ops.finish(kind, &nodes, &detail, name, outcome, report))
}

/// Patches `spec.externalAddress` (the console-action `record` in the same patch) and persists
/// the update plan whose config-patch carries it.
/// The plan is built from the stored node and written under its resourceVersion, so a
/// concurrent writer (the controller persisting its own plan) makes this fail, not clobber.
async fn set_address(
    ops: &Ops<'_>,
    node: &str,
    address: &ExternalAddress,
    plan_id: uuid::Uuid,
    record: &str,
) -> Result<(SeiNode, TaskPlan), OpsError> {
    let namespace = ops.namespace();
    let mut patch = serde_json::json!({"spec": {"externalAddress": address.to_string()}});
    console_actions::add_to_patch(&mut patch, record);
    let patched = ops
        .ports
        .cluster
        .patch_seinode(namespace, node, &patch)
        .await
        .map_err(OpsError::cluster(format!(
            "patching spec.externalAddress of {node}"
        )))?;
    let mut planned = patched.clone();
    ops.resolve_peers(&mut planned).await?;
    let ctx = ops.plan_context().with_plan_id(plan_id);
    let plan = address_preview(&planned, address, &ctx)
        .map_err(|e| OpsError::Step(e.to_string()))?
        .plan
        .plan
        .ok_or_else(|| OpsError::Step(format!("{node}: the update plan vanished")))?;
    let status_patch = StatusPatch {
        resource_version: patched
            .metadata
            .resource_version
            .clone()
            .unwrap_or_default(),
        status: serde_json::json!({
            "plan": plan,
            "resolvedPeers": planned.status.as_ref().and_then(|s| s.resolved_peers.clone()),
            "conditions": update_in_progress(&planned, &plan, address, &ctx),
        }),
    };
    ops.ports
        .cluster
        .patch_seinode_status(namespace, node, &status_patch)
        .await
        .map_err(|e| {
            OpsError::Step(format!(
                "spec.externalAddress is set but the update plan could not be persisted: {e}"
            ))
        })?;
    Ok((patched, plan))
}

/// The node's conditions with `NodeUpdateInProgress` True/`UpdateStarted`, as for every update
/// plan: the controller's terminal-plan handling then records how the plan ended on it
/// (`plan <id> completed`), which is how a follower tells a cleared plan's verdict.
fn update_in_progress(
    node: &SeiNode,
    plan: &TaskPlan,
    address: &ExternalAddress,
    ctx: &crate::planner::PlanContext,
) -> Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition> {
    use crate::api::{ConditionStatus, ConditionType, ConditionUpdate, Reason, set_condition};
    let mut conditions = node
        .status
        .as_ref()
        .and_then(|s| s.conditions.clone())
        .unwrap_or_default();
    set_condition(
        &mut conditions,
        ConditionUpdate {
            kind: ConditionType::NodeUpdateInProgress,
            status: ConditionStatus::True,
            reason: Reason::UpdateStarted,
            message: format!("external address set to {address}: update plan {}", plan.id),
            observed_generation: node.generation(),
        },
        ctx.now,
    );
    conditions
}
