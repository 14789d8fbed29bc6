//! Previews of operator actions: exactly what will change, built by the embedded planner before
//! anything is sent. Rendered as text (CLI, confirmation) and as JSON (`-o json`).
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::address::ExternalAddress;
use super::image_ref::ImageRef;
use super::statefulset_diff::{StatefulSetPreview, statefulset_text};
use crate::api::{
    ConditionStatus, ConditionType, ConditionUpdate, PlannedTask, Reason, SeiNode, TaskKind,
    TaskPlan, TaskStatus, set_condition,
};
use crate::planner::{PlanContext, PlanError, preview};

/// Why an address change needs this action at all.
pub const ADDRESS_PROPAGATION_NOTE: &str = "The controller alone would not propagate this address change until the next image roll: it builds no plan when only spec.externalAddress changes. This action persists the update plan itself, and its config-patch writes the new external-address into config.toml.";

/// What a preview would do, or why it would do nothing.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanPreview {
    /// The plan that would be persisted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<TaskPlan>,
    /// Why no plan would be built (steady state, Active plan, paused...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_plan: Option<String>,
    /// The config-patch task's `files` parameter, when the plan has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_patch: Option<Value>,
}

impl PlanPreview {
    fn from_node(node: &SeiNode, ctx: &PlanContext) -> Result<PlanPreview, PlanError> {
        let result = preview(node, None, ctx)?;
        Ok(match result.outcome {
            Ok(plan) => PlanPreview {
                config_patch: config_patch_files(&plan),
                plan: Some(plan),
                no_plan: None,
            },
            Err(reason) => PlanPreview {
                plan: None,
                no_plan: Some(reason.to_string()),
                config_patch: None,
            },
        })
    }
}

/// Preview of `rollout --image` for one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImagePinPreview {
    pub namespace: String,
    pub node: String,
    /// `spec.image` now.
    pub from_image: String,
    pub to_image: String,
    /// `status.currentImage` (what runs).
    pub current_image: String,
    pub warnings: Vec<String>,
    /// The plan Active on the node now: it runs to its end before the image is pinned, and
    /// `plan` is the update plan built after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs_first: Option<RunsFirst>,
    #[serde(flatten)]
    pub plan: PlanPreview,
    /// The StatefulSet diff (server-side dry run); set by callers that reach a cluster.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statefulset: Option<StatefulSetPreview>,
}

/// An Active plan an action waits out before it changes the node: what runs first, as
/// persisted (task IDs, params), and the image the node's pod runs once it ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunsFirst {
    pub plan_id: String,
    pub tasks_done: usize,
    pub tasks: usize,
    /// The tasks not yet Complete, exactly as in `.status.plan` (in order): what the executor
    /// (the controller or this console) runs before the node is changed.
    pub remaining: Vec<PlannedTask>,
    /// The image the pod runs once the plan ended: `spec.image` as it is now when the plan
    /// still renders, replaces or observes the pod (the change is written only after it),
    /// else what runs now.
    pub pod_image: String,
}

impl RunsFirst {
    fn of(node: &SeiNode) -> Option<RunsFirst> {
        let plan = node.status.as_ref()?.plan.as_ref()?;
        plan.is_active().then(|| RunsFirst {
            plan_id: plan.id.clone(),
            tasks_done: plan.completed_count(),
            tasks: plan.tasks.len(),
            remaining: plan
                .tasks
                .iter()
                .filter(|t| t.status != TaskStatus::Complete)
                .cloned()
                .collect(),
            pod_image: if touches_pod(plan) {
                node.spec.image.clone()
            } else {
                node.status
                    .as_ref()
                    .map_or("", |s| s.current_image())
                    .to_owned()
            },
        })
    }
}

/// Whether a plan still has a task that renders the StatefulSet or replaces or observes its
/// pod: the pod then runs `spec.image` as it is while the plan runs.
fn touches_pod(plan: &TaskPlan) -> bool {
    plan.tasks.iter().any(|t| {
        t.status != TaskStatus::Complete
            && matches!(
                t.kind,
                TaskKind::ApplyStatefulSet | TaskKind::ReplacePod | TaskKind::ObserveImage
            )
    })
}

/// The node as it is once its Active plan completed, as the executor leaves it (the change
/// is not written yet): no plan, the plan's target phase; an `observe-image` still to run
/// stamps `currentImage` (and `currentSidecarImage`) from the spec as it is now (upstream
/// `observe_image.go`); a `mark-ready` still to run leaves the sidecar ready, so the next
/// probe reads True.
fn after_active_plan(node: &SeiNode, ctx: &PlanContext) -> SeiNode {
    let mut after = node.clone();
    let Some(status) = after.status.as_mut() else {
        return after;
    };
    let Some(plan) = status.plan.take() else {
        return after;
    };
    if let Some(phase) = plan.target_phase {
        status.phase = Some(phase);
    }
    let pending = |kind: TaskKind| {
        plan.tasks
            .iter()
            .any(|t| t.kind == kind && t.status != TaskStatus::Complete)
    };
    if pending(TaskKind::ObserveImage) {
        status.current_image = Some(node.spec.image.clone());
        let sidecar = match node.spec.sidecar.as_ref().and_then(|s| s.image.as_deref()) {
            Some(image) if !image.is_empty() => image.to_owned(),
            _ => ctx.platform_sidecar_image.clone(),
        };
        status.current_sidecar_image = Some(sidecar);
    }
    if pending(TaskKind::MarkReady) {
        let generation = node.generation();
        set_condition(
            status.conditions.get_or_insert_with(Vec::new),
            ConditionUpdate {
                kind: ConditionType::SidecarReady,
                status: ConditionStatus::True,
                reason: Reason::Ready,
                message: String::new(),
                observed_generation: generation,
            },
            ctx.now,
        );
    }
    after
}

/// The node once `spec.image` is `image`: what the preview plans for and renders.
pub fn pinned_node(node: &SeiNode, image: &ImageRef) -> SeiNode {
    let mut changed = node.clone();
    changed.spec.image = image.to_string();
    changed
}

/// What a rollout to `image` runs on the node: the Active plan first (to its end, the image
/// pinned only after it), then the update plan the planner builds for the node as that plan
/// leaves it with `spec.image` pinned, with the ID `ctx` gives it (the ID it is persisted
/// with). When the Active plan already takes the node to `image`, nothing runs after it.
pub fn image_pin_preview(
    node: &SeiNode,
    image: &ImageRef,
    ctx: &PlanContext,
) -> Result<ImagePinPreview, PlanError> {
    let runs_first = RunsFirst::of(node);
    let planned = match runs_first {
        Some(_) => pinned_node(&after_active_plan(node, ctx), image),
        None => pinned_node(node, image),
    };
    Ok(ImagePinPreview {
        namespace: node.namespace().to_owned(),
        node: node.name().to_owned(),
        from_image: node.spec.image.clone(),
        to_image: image.to_string(),
        current_image: node
            .status
            .as_ref()
            .map_or("", |s| s.current_image())
            .to_owned(),
        warnings: image.warnings().iter().map(ToString::to_string).collect(),
        runs_first,
        plan: PlanPreview::from_node(&planned, ctx)?,
        statefulset: None,
    })
}

impl ImagePinPreview {
    /// The Active plan alone takes the node to the image: no plan follows it, and none is
    /// needed.
    pub fn active_plan_suffices(&self) -> bool {
        self.plan.plan.is_none()
            && self
                .runs_first
                .as_ref()
                .is_some_and(|first| first.pod_image == self.to_image)
    }
}

/// Preview of `address --external-address` for one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddressPreview {
    pub namespace: String,
    pub node: String,
    /// `spec.externalAddress` now (empty when unset).
    pub from_address: String,
    pub to_address: String,
    pub note: &'static str,
    #[serde(flatten)]
    pub plan: PlanPreview,
    /// The StatefulSet diff (server-side dry run); set by callers that reach a cluster.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statefulset: Option<StatefulSetPreview>,
}

/// The node once `spec.externalAddress` is `address`.
pub fn addressed_node(node: &SeiNode, address: &ExternalAddress) -> SeiNode {
    let mut changed = node.clone();
    changed.spec.external_address = Some(address.to_string());
    changed
}

/// The update progression persisted for an address change: the running path's update plan,
/// built by the planner for the node with the new address. The planner only builds it on image
/// drift, so the preview asks it with `currentImage` cleared (an empty currentImage counts as
/// drift): tasks, gates and params are then exactly those of an update plan, and the
/// config-patch carries the new `external-address`.
pub fn address_preview(
    node: &SeiNode,
    address: &ExternalAddress,
    ctx: &PlanContext,
) -> Result<AddressPreview, PlanError> {
    let changed = addressed_node(node, address);
    let mut planned = changed.clone();
    if let Some(status) = planned.status.as_mut() {
        status.current_image = None;
    }
    let mut plan = PlanPreview::from_node(&planned, ctx)?;
    if plan.plan.is_none() && plan.no_plan.is_some() {
        // Say why for the node as it is, not for the drift-forced copy.
        plan = PlanPreview::from_node(&changed, ctx).map(|p| PlanPreview {
            plan: None,
            config_patch: None,
            ..p
        })?;
        if plan.no_plan.is_none() {
            plan.no_plan = Some("no update plan can be built for this node now".to_owned());
        }
    }
    Ok(AddressPreview {
        namespace: node.namespace().to_owned(),
        node: node.name().to_owned(),
        from_address: node.spec.external_address().to_owned(),
        to_address: address.to_string(),
        note: ADDRESS_PROPAGATION_NOTE,
        plan,
        statefulset: None,
    })
}

fn config_patch_files(plan: &TaskPlan) -> Option<Value> {
    plan.tasks
        .iter()
        .find(|t| t.kind == TaskKind::ConfigPatch)
        .and_then(|t| t.params.as_ref())
        .and_then(|p| p.get("files"))
        .cloned()
}

/// Text of an image pin preview.
pub fn image_pin_text(preview: &ImagePinPreview) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "Image pin rollout of {}/{}",
        preview.namespace, preview.node
    );
    let _ = writeln!(
        text,
        "  spec.image: {} -> {}",
        preview.from_image, preview.to_image
    );
    let running = if preview.current_image.is_empty() {
        "(not observed yet)"
    } else {
        &preview.current_image
    };
    let _ = writeln!(text, "  running now: {running}");
    for warning in &preview.warnings {
        let _ = writeln!(text, "  warning: {warning}");
    }
    if let Some(first) = &preview.runs_first {
        let _ = writeln!(
            text,
            "First: plan {} is Active ({} of {} tasks done); it runs to its end, then spec.image is pinned:",
            first.plan_id, first.tasks_done, first.tasks
        );
        task_lines(&mut text, &first.remaining, first.tasks_done, false);
        let _ = writeln!(text, "  then the pod runs {}", first.pod_image);
        if preview.active_plan_suffices() {
            let _ = writeln!(
                text,
                "Then: no plan: plan {} takes the node to {}",
                first.plan_id, preview.to_image
            );
        } else {
            text.push_str("Then: ");
        }
    }
    if !preview.active_plan_suffices() {
        plan_text(&mut text, &preview.plan);
    }
    if let Some(statefulset) = &preview.statefulset {
        statefulset_text(&mut text, statefulset);
    }
    text
}

/// Text of an address change preview.
pub fn address_text(preview: &AddressPreview) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "External address change of {}/{}",
        preview.namespace, preview.node
    );
    let from = if preview.from_address.is_empty() {
        "(unset)"
    } else {
        &preview.from_address
    };
    let _ = writeln!(
        text,
        "  spec.externalAddress: {from} -> {}",
        preview.to_address
    );
    let _ = writeln!(
        text,
        "  config.toml [p2p] external-address: {from} -> {}",
        preview.to_address
    );
    let _ = writeln!(text, "  note: {}", preview.note);
    plan_text(&mut text, &preview.plan);
    if let Some(statefulset) = &preview.statefulset {
        statefulset_text(&mut text, statefulset);
    }
    text
}

fn plan_text(text: &mut String, preview: &PlanPreview) {
    let Some(plan) = &preview.plan else {
        let reason = preview.no_plan.as_deref().unwrap_or("no plan");
        let _ = writeln!(text, "No plan would be built: {reason}");
        return;
    };
    let target = plan.target_phase.map_or("-".to_owned(), |p| p.to_string());
    let _ = writeln!(
        text,
        "Update plan {} ({} tasks, target phase {target}):",
        plan.id,
        plan.tasks.len()
    );
    task_lines(text, &plan.tasks, 0, true);
    if let Some(files) = &preview.config_patch {
        let _ = writeln!(text, "config.toml patch:");
        for line in toml_lines(files.get("config.toml").unwrap_or(&Value::Null), "") {
            let _ = writeln!(text, "  {line}");
        }
    }
}

/// One numbered line per task (numbered from `done + 1`), its params inline (a config-patch's
/// as TOML below the plan when `patch_below`).
fn task_lines(text: &mut String, tasks: &[PlannedTask], done: usize, patch_below: bool) {
    let width = tasks
        .iter()
        .map(|t| t.kind.as_str().len())
        .max()
        .unwrap_or(0);
    for (index, task) in tasks.iter().enumerate() {
        let params = match task.params.as_deref() {
            Some(Value::Null) | None => String::new(),
            Some(_) if patch_below && task.kind == TaskKind::ConfigPatch => {
                "see the config.toml patch below".to_owned()
            }
            Some(params) => params.to_string(),
        };
        let line = format!(
            "  {:>2}. {:<width$}  {params}",
            done + index + 1,
            task.kind.as_str()
        );
        let _ = writeln!(text, "{}", line.trim_end());
    }
}

/// `[table]` headers and `key = value` lines of a JSON object, as TOML would show them.
fn toml_lines(value: &Value, prefix: &str) -> Vec<String> {
    let Value::Object(map) = value else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for (key, child) in map {
        if !matches!(child, Value::Object(_)) {
            lines.push(format!("{key} = {child}"));
        }
    }
    for (key, child) in map {
        if matches!(child, Value::Object(_)) {
            let path = if prefix.is_empty() {
                key.clone()
            } else {
                format!("{prefix}.{key}")
            };
            lines.push(format!("[{path}]"));
            lines.extend(toml_lines(child, &path));
        }
    }
    lines
}

#[cfg(test)]
mod tests;
