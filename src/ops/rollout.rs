//! Image pin rollout: `spec.image` pinned on nodes in waves (a canary, then batches); each wave
//! starts when the previous one completed, the first failure halts the rest, and running it
//! again resumes (nodes already on the image are left alone). Nodes the planner cannot plan
//! for are blocked in `prepare` and never changed.
use std::time::Instant;

use super::follow::FollowEnd;
use super::{Note, Ops, OpsError, PermissionVerdict, Report, RunEnd, needs_typed_name};
use crate::actions::event::ActionKind;
use crate::actions::image_ref::ImageRef;
use crate::actions::permissions::{rollout_checks, tasks_to_run};
use crate::actions::preview::{ImagePinPreview, image_pin_preview, pinned_node};
use crate::actions::statefulset_diff::statefulset_preview;
use crate::actions::waves::{Gate, already_rolled, plan_waves, wave_gate};
use crate::api::{NodeMode, SeiNode, TaskKind};
use crate::config::WaveDefaults;
use crate::executor::driver::Persisted;
use crate::fleet::console_actions;
use crate::journal::Outcome;
use crate::ports::{ClusterObject, ObjectKind};

/// Plans the console follows for one node of a rollout: the plan found Active (an init plan),
/// the update plan after it, and one spare.
const MAX_PLANS_PER_ROLLOUT_NODE: usize = 3;

/// How often the wave gate re-reads a node and its pod.
const GATE_POLL: std::time::Duration = std::time::Duration::from_millis(200);

/// Which nodes to roll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// These nodes, in this order.
    Named(Vec<String>),
    /// The nodes matching a label selector and/or of one mode, in name order.
    Matching {
        selector: Option<String>,
        mode: Option<NodeMode>,
    },
}

impl Selection {
    /// What the operator asked to roll, for the journal and messages before the nodes are known.
    pub fn words(&self) -> Vec<String> {
        match self {
            Selection::Named(nodes) => nodes.clone(),
            Selection::Matching { selector, mode } => {
                let mut words = Vec::new();
                if let Some(selector) = selector {
                    words.push(format!("-l {selector}"));
                }
                if let Some(mode) = mode {
                    words.push(format!("--mode {mode}"));
                }
                vec![words.join(" ")]
            }
        }
    }
}

/// A rollout as the operator asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RolloutInput {
    pub selection: Selection,
    pub image: ImageRef,
    pub waves: WaveDefaults,
    /// The canary wave chosen by name (the console): these nodes go alone first, whatever
    /// `waves.canary` says. Empty: the first `waves.canary` nodes to roll.
    pub canary_nodes: Vec<String>,
    /// Follow each wave to its gate (without it every node changes at once).
    pub wait: bool,
    /// Preview only: no permission checks, nothing changed.
    pub dry_run: bool,
}

impl RolloutInput {
    pub fn detail(&self) -> String {
        format!("image {}", self.image)
    }
}

/// One node to roll, with its preview.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeToRoll {
    pub node: SeiNode,
    /// The ID the previewed plan carries; the persisted plan gets the same one.
    pub plan_id: uuid::Uuid,
    pub preview: ImagePinPreview,
    /// The tasks the executor will run (the new plan, else the Active one).
    pub tasks: Vec<TaskKind>,
}

/// A node left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    pub node: String,
    pub reason: String,
}

/// Everything known before the first change.
#[derive(Debug, Clone, PartialEq)]
pub struct RolloutPrepared {
    pub input: RolloutInput,
    /// Notes for nodes already on the image.
    pub already_rolled: Vec<String>,
    pub nodes: Vec<NodeToRoll>,
    /// Nodes no plan can take to the image: never changed.
    pub blocked: Vec<Blocked>,
    /// Names per wave, over the nodes to roll.
    pub waves: Vec<Vec<String>>,
    /// The wave sizes `waves` was cut with: the input's, or as many canaries as the chosen
    /// canary nodes still to roll.
    pub sizes: WaveDefaults,
    /// How peers were resolved where it matters (an EC2 source kept from the prior set, label
    /// peers whose node ID could not be read).
    pub peer_notes: Vec<String>,
    pub permissions: PermissionVerdict,
    /// Validators and seeds: their names are typed to confirm.
    pub confirm_names: Vec<String>,
    pub question: String,
}

impl RolloutPrepared {
    pub fn names(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|n| n.node.name().to_owned())
            .collect()
    }

    /// Why the rollout cannot start, if it cannot: nothing to roll, or a permission missing.
    pub fn refusal(&self) -> Option<OpsError> {
        // A chosen canary that cannot be planned: rolling the rest first would skip the
        // canary the operator asked for.
        if let Some(canary) = self
            .blocked
            .iter()
            .find(|b| self.input.canary_nodes.contains(&b.node))
        {
            return Some(OpsError::Step(format!(
                "canary {} cannot be rolled ({}); choose another canary; nothing was changed",
                canary.node, canary.reason
            )));
        }
        if self.nodes.is_empty() && !self.blocked.is_empty() {
            let reasons: Vec<String> = self
                .blocked
                .iter()
                .map(|b| format!("{}: {}", b.node, b.reason))
                .collect();
            return Some(OpsError::Step(format!(
                "no node can be rolled ({}); nothing was changed",
                reasons.join("; ")
            )));
        }
        self.permissions.error().cloned().map(OpsError::Access)
    }
}

impl Ops<'_> {
    /// The nodes named (each must exist) or matching, in order.
    async fn select(&self, selection: &Selection) -> Result<Vec<SeiNode>, OpsError> {
        match selection {
            Selection::Named(names) => {
                let mut nodes = Vec::new();
                for name in names {
                    nodes.push(self.read_node(name).await?);
                }
                Ok(nodes)
            }
            Selection::Matching { selector, mode } => {
                let namespace = self.namespace();
                let mut nodes: Vec<SeiNode> = self
                    .ports
                    .cluster
                    .list_seinodes(namespace, selector.as_deref())
                    .await
                    .map_err(OpsError::cluster("listing SeiNodes"))?
                    .into_iter()
                    .filter(|n| mode.is_none_or(|mode| n.spec.first_mode() == Some(mode)))
                    .collect();
                nodes.sort_by(|a, b| a.name().cmp(b.name()));
                if nodes.is_empty() {
                    return Err(OpsError::BadInput(format!(
                        "no SeiNode in namespace {namespace} matches {}",
                        selection.words().join(" ")
                    )));
                }
                Ok(nodes)
            }
        }
    }
}

/// Reads the nodes, previews each one's update plan and StatefulSet diff, blocks those no plan
/// can take to the image, plans the waves and checks every call (unless a dry run).
pub async fn prepare(ops: &Ops<'_>, input: RolloutInput) -> Result<RolloutPrepared, OpsError> {
    if !input.dry_run {
        ops.refuse_if_read_only(
            ActionKind::Rollout,
            &input.selection.words(),
            &input.detail(),
        )?;
    }
    let ctx = ops.plan_context();
    let image = input.image.to_string();
    let mut prepared = RolloutPrepared {
        already_rolled: Vec::new(),
        nodes: Vec::new(),
        blocked: Vec::new(),
        waves: Vec::new(),
        sizes: input.waves,
        peer_notes: Vec::new(),
        permissions: PermissionVerdict {
            checks: Vec::new(),
            outcome: None,
        },
        confirm_names: Vec::new(),
        question: String::new(),
        input,
    };
    let selected = ops.select(&prepared.input.selection).await?;
    if let Some(stranger) = prepared
        .input
        .canary_nodes
        .iter()
        .find(|c| !selected.iter().any(|n| n.name() == c.as_str()))
    {
        return Err(OpsError::BadInput(format!(
            "canary {stranger} is not one of the nodes to roll"
        )));
    }
    for mut node in selected {
        if let Some(mut note) = already_rolled(&node, &image) {
            if prepared.input.canary_nodes.iter().any(|c| c == node.name()) {
                note.push_str(" (chosen as canary: no canary wave for it)");
            }
            prepared.already_rolled.push(note);
            continue;
        }
        // Planned with the peers the controller's reconcile would resolve, and the ID the
        // persisted plan will carry.
        let peers = ops.resolve_peers(&mut node).await?;
        prepared.peer_notes.extend(peers);
        let plan_id = uuid::Uuid::new_v4();
        let ctx = ctx.clone().with_plan_id(plan_id);
        let mut preview = image_pin_preview(&node, &prepared.input.image, &ctx)
            .map_err(|e| OpsError::Step(format!("{}: {e}", node.name())))?;
        // With a plan Active, the preview is of the update plan after it.
        if let Some(reason) = &preview.plan.no_plan {
            prepared.blocked.push(Blocked {
                node: node.name().to_owned(),
                reason: format!("no plan can take it to {image}: {reason}"),
            });
            continue;
        }
        let pinned = pinned_node(&node, &prepared.input.image);
        if let Some(reason) = super::pod_needs::missing_for_pod(ops, &pinned).await {
            prepared.blocked.push(Blocked {
                node: node.name().to_owned(),
                reason,
            });
            continue;
        }
        preview.statefulset = Some(
            statefulset_preview(
                ops.ports.cluster,
                ops.ports.renderer,
                &pinned_node(&node, &prepared.input.image),
            )
            .await,
        );
        if needs_typed_name(&node) {
            prepared.confirm_names.push(node.name().to_owned());
        }
        let tasks = tasks_to_run(&node, preview.plan.plan.as_ref());
        prepared.nodes.push(NodeToRoll {
            node,
            plan_id,
            preview,
            tasks,
        });
    }
    put_canaries_first(&mut prepared);
    let names = prepared.names();
    prepared.waves = plan_waves(&names, prepared.sizes.canary, prepared.sizes.batch);
    prepared.question = format!("roll {} node(s) to {image}?", names.len());
    let work: Vec<(String, Vec<TaskKind>)> = prepared
        .nodes
        .iter()
        .map(|n| (n.node.name().to_owned(), n.tasks.clone()))
        .collect();
    if !work.is_empty() {
        let checks = rollout_checks(
            &ops.scope(),
            ops.namespace(),
            &work,
            matches!(prepared.input.selection, Selection::Matching { .. }),
            prepared.input.wait,
        );
        prepared.permissions = ops.check(checks.into_vec(), !prepared.input.dry_run).await;
    }
    Ok(prepared)
}

/// Chosen canaries still to roll go first, in the order chosen, and make the canary wave.
fn put_canaries_first(prepared: &mut RolloutPrepared) {
    let chosen = &prepared.input.canary_nodes;
    if chosen.is_empty() {
        return;
    }
    let position = |node: &NodeToRoll| chosen.iter().position(|c| c == node.node.name());
    // Stable: the others keep the operator's order.
    prepared
        .nodes
        .sort_by_key(|node| position(node).unwrap_or(usize::MAX));
    let canaries = prepared
        .nodes
        .iter()
        .filter(|n| position(n).is_some())
        .count();
    prepared.sizes.canary = u32::try_from(canaries).unwrap_or(u32::MAX);
}

/// Journals why a prepared rollout cannot start and returns that reason.
pub fn refuse(ops: &Ops<'_>, prepared: &RolloutPrepared) -> Result<(), OpsError> {
    let names = match prepared.names() {
        names if names.is_empty() => prepared.input.selection.words(),
        names => names,
    };
    ops.refuse(
        ActionKind::Rollout,
        &names,
        &prepared.input.detail(),
        prepared.refusal(),
    )
}

/// Rolls the prepared nodes in waves. Refuses (changing nothing) when `prepare` said it cannot
/// start; blocked nodes are never touched and make the end a failure naming them.
pub async fn run(
    ops: &Ops<'_>,
    prepared: &RolloutPrepared,
    report: &dyn Report,
) -> Result<RunEnd, OpsError> {
    ops.refuse_if_read_only(
        ActionKind::Rollout,
        &prepared.names(),
        &prepared.input.detail(),
    )?;
    refuse(ops, prepared)?;
    // Already-rolled and blocked nodes were shown with the preview; they are not touched.
    if prepared.nodes.is_empty() {
        return Ok(RunEnd::done(format!(
            "every node is already on {}",
            prepared.input.image
        )));
    }
    let end = roll_waves(ops, prepared, report).await?;
    Ok(match prepared.blocked.first() {
        Some(first) if end.ok => {
            let skipped: Vec<&str> = prepared.blocked.iter().map(|b| b.node.as_str()).collect();
            RunEnd::failed(
                &first.node,
                format!(
                    "{}; skipped, nothing changed: {} (no plan can take them to the image)",
                    end.message,
                    skipped.join(", ")
                ),
            )
        }
        _ => end,
    })
}

async fn roll_waves(
    ops: &Ops<'_>,
    prepared: &RolloutPrepared,
    report: &dyn Report,
) -> Result<RunEnd, OpsError> {
    let input = &prepared.input;
    let sizes = prepared.sizes;
    let waves = plan_waves(&prepared.nodes, sizes.canary, sizes.batch);
    if !input.wait && waves.len() > 1 {
        report.note(&Note::NoWaitNoWaves);
    }
    let total = prepared.nodes.len();
    let mut done = 0;
    for (index, wave) in waves.iter().enumerate() {
        report.note(&Note::Wave {
            index: index + 1,
            of: waves.len(),
            nodes: wave.iter().map(|n| n.node.name().to_owned()).collect(),
        });
        // Every node's Lease first: a node another executor holds stops the rollout before
        // this wave changes anything.
        let mut leases = Vec::new();
        for target in wave {
            match ops.take_node_lease(target.node.name(), report).await {
                Ok(lease) => leases.push(lease),
                Err(err) => {
                    for lease in leases {
                        let _ = lease.release(ops.ports.cluster).await;
                    }
                    let name = target.node.name();
                    let reason = err.to_string();
                    let one = [name.to_owned()];
                    let detail = input.detail();
                    ops.journal(
                        ActionKind::Rollout,
                        &one,
                        &detail,
                        Outcome::Refused,
                        Some(reason.clone()),
                        report,
                    );
                    return Ok(halted(ops, name, &reason, total - done));
                }
            }
        }
        let deadline = Instant::now() + ops.settings.driver.deadline;
        let results = futures::future::join_all(wave.iter().zip(leases).map(|(target, lease)| {
            ops.under_lease(lease, roll_one(ops, target, input, deadline, report))
        }))
        .await;
        let mut stop = None;
        for (target, result) in wave.iter().zip(results) {
            let failure = match result {
                Ok(None) => None,
                Ok(Some(reason)) => Some(reason),
                Err(err) => Some(err.to_string()),
            };
            if let Some(reason) = failure {
                stop.get_or_insert((target.node.name(), reason));
            }
        }
        done += wave.len();
        if let Some((name, reason)) = stop {
            return Ok(halted(ops, name, &reason, total - done));
        }
    }
    Ok(RunEnd::done(if input.wait {
        "rollout complete"
    } else {
        "image pinned and plans persisted; not waiting (--no-wait)"
    }))
}

fn halted(ops: &Ops<'_>, name: &str, reason: &str, left: usize) -> RunEnd {
    RunEnd::failed(
        name,
        format!(
            "rollout halted at {}/{name}: {reason}; {left} node(s) not started; run the same command again to resume",
            ops.namespace()
        ),
    )
}

/// One node of a wave, its Lease held: a plan already Active goes first (pinning under it
/// would strand it: its pod is replaced before the new template, and `OnDelete` never rolls
/// it); then the update plan is persisted, `spec.image` pinned (the console-action record on
/// the node in the same patch), the Event and journal written, and (waiting) the node followed to the image and the gate. `Ok(Some(reason))`
/// when the node failed (journaled).
async fn roll_one(
    ops: &Ops<'_>,
    target: &NodeToRoll,
    input: &RolloutInput,
    deadline: Instant,
    report: &dyn Report,
) -> Result<Option<String>, OpsError> {
    let kind = ActionKind::Rollout;
    let detail = input.detail();
    let image = input.image.to_string();
    let name = target.node.name();
    let one = [name.to_owned()];
    let failed = |reason: String| {
        ops.journal(
            kind,
            &one,
            &detail,
            Outcome::Failed,
            Some(reason.clone()),
            report,
        );
        Ok(Some(reason))
    };
    let mut followed_first = 0;
    let plan_id = loop {
        match persist_for_image(ops, name, &input.image, target.plan_id).await? {
            Persisted::Built(plan) => {
                // Read after the plan was persisted: the record appends to what is there now.
                let stored = ops.read_node(name).await?;
                let what = format!("image {} -> {image}", stored.spec.image);
                let record =
                    ops.action_record(kind, Some(&stored), &what, Some(plan.id.clone()), report);
                pin_image(ops, name, &input.image, Some(&record)).await?;
                let uid = stored.metadata.uid.as_deref().unwrap_or("");
                ops.event(kind, name, uid, &what, report).await;
                report.note(&Note::PlanPersisted {
                    node: name.to_owned(),
                    plan_id: plan.id.clone(),
                });
                break Some(plan.id);
            }
            Persisted::Resumed(plan) => {
                report.note(&Note::PlanAlreadyActive {
                    node: name.to_owned(),
                    plan_id: plan.id.clone(),
                });
                if !input.wait {
                    return failed(format!(
                        "plan {} is Active: the image is pinned after it ends (run without --no-wait to follow it first, or again once it ended)",
                        plan.id
                    ));
                }
                followed_first += 1;
                if followed_first > MAX_PLANS_PER_ROLLOUT_NODE {
                    return failed(format!(
                        "plan {} is still Active after {MAX_PLANS_PER_ROLLOUT_NODE} plans followed first",
                        plan.id
                    ));
                }
                match ops.follow(name, &plan.id, report).await {
                    Ok(FollowEnd::Completed) => {}
                    Ok(other) => return failed(other.to_string()),
                    Err(err) => return failed(err.to_string()),
                }
            }
            // The plan followed first took the node to the image (a rerun after a crash).
            Persisted::None(_) if on_image(&ops.read_node(name).await?, &image) => {
                pin_image(ops, name, &input.image, None).await?;
                break None;
            }
            Persisted::None(reason) => {
                // Not on the image and nothing will take it there: this wave failed.
                return failed(format!("no plan: {reason}"));
            }
        }
    };
    ops.journal(kind, &one, &detail, Outcome::Started, None, report);
    if !input.wait {
        return Ok(None);
    }
    let followed = match plan_id {
        Some(plan_id) => follow_to_image(ops, name, &image, plan_id, report).await,
        None => Ok(None),
    };
    let failure = match followed {
        Ok(None) => await_gate(ops, name, &image, deadline).await,
        other => other,
    };
    let failure = match failure {
        Ok(failure) => failure,
        Err(err) => Some(err.to_string()),
    };
    match failure {
        None => {
            ops.journal(kind, &one, &detail, Outcome::Succeeded, None, report);
            Ok(None)
        }
        Some(reason) => failed(reason),
    }
}

fn on_image(node: &SeiNode, image: &str) -> bool {
    node.status
        .as_ref()
        .is_some_and(|s| s.current_image() == image)
}

/// Persists the update plan the node needs once `spec.image` is `image` (planned on the
/// stored node with the image set in memory, the previewed ID), or returns the plan found
/// Active. Written before the pin, so a controller reconciling the pinned node finds this
/// plan Active and runs it rather than building its own.
async fn persist_for_image(
    ops: &Ops<'_>,
    node: &str,
    image: &ImageRef,
    plan_id: uuid::Uuid,
) -> Result<Persisted, OpsError> {
    let namespace = ops.namespace();
    let image = image.to_string();
    ops.driver()
        .persist_for_spec(
            namespace,
            node,
            &ops.settings.platform.images.sidecar,
            Some(plan_id),
            |node| node.spec.image.clone_from(&image),
        )
        .await
        .map_err(|e| OpsError::Step(format!("{namespace}/{node}: {e}")))
}

/// Patches `spec.image`, with the node's console-action record (`record`) in the same patch.
async fn pin_image(
    ops: &Ops<'_>,
    node: &str,
    image: &ImageRef,
    record: Option<&str>,
) -> Result<(), OpsError> {
    let mut patch = serde_json::json!({"spec": {"image": image.to_string()}});
    if let Some(record) = record {
        console_actions::add_to_patch(&mut patch, record);
    }
    ops.ports
        .cluster
        .patch_seinode(ops.namespace(), node, &patch)
        .await
        .map_err(OpsError::cluster(format!("patching spec.image of {node}")))?;
    Ok(())
}

/// Follows `name`'s update plan, then any plan its completion still leaves the node needing
/// to run `image` (the controller's next reconcile builds it; with no controller live the
/// console is that reconcile and persists and follows it itself, a bounded number, so a
/// planner that keeps building plans cannot loop). `Ok(Some(reason))` when the node failed.
async fn follow_to_image(
    ops: &Ops<'_>,
    name: &str,
    image: &str,
    first_plan: String,
    report: &dyn Report,
) -> Result<Option<String>, OpsError> {
    let namespace = ops.namespace();
    let mut plan_id = first_plan;
    for _ in 0..MAX_PLANS_PER_ROLLOUT_NODE {
        match ops.follow(name, &plan_id, report).await? {
            FollowEnd::Completed => {}
            other => return Ok(Some(other.to_string())),
        }
        if on_image(&ops.read_node(name).await?, image) || !ops.executor_choice().await?.embedded {
            break;
        }
        match ops
            .driver()
            .persist(namespace, name, &ops.settings.platform.images.sidecar)
            .await
        {
            Ok(Persisted::Built(plan)) => {
                report.note(&Note::PlanPersisted {
                    node: name.to_owned(),
                    plan_id: plan.id.clone(),
                });
                plan_id = plan.id;
            }
            Ok(Persisted::Resumed(plan)) => plan_id = plan.id,
            Ok(Persisted::None(_)) => break,
            Err(e) => return Err(OpsError::Step(format!("{namespace}/{name}: {e}"))),
        }
    }
    Ok(None)
}

/// Waits until the node runs the image and its pod is Ready (the wave gate after a Complete
/// plan), polling until `deadline`. `Ok(Some(reason))` when the deadline passed first.
async fn await_gate(
    ops: &Ops<'_>,
    name: &str,
    image: &str,
    deadline: Instant,
) -> Result<Option<String>, OpsError> {
    let namespace = ops.namespace();
    let pod_name = format!("{name}-0");
    loop {
        let node = ops.read_node(name).await?;
        let pod = ops
            .ports
            .cluster
            .get(ObjectKind::Pod, namespace, &pod_name)
            .await
            .map_err(OpsError::cluster(format!("{namespace}/{pod_name}")))?;
        let pod = match &pod {
            Some(ClusterObject::Pod(pod)) => Some(pod),
            _ => None,
        };
        match wave_gate(&node, pod, image) {
            Gate::Passed => return Ok(None),
            Gate::Waiting(why) if Instant::now() >= deadline => {
                let warnings = super::waiting::warnings(ops, name, None).await;
                return Ok(Some(format!(
                    "plan complete but {why} at the deadline{}",
                    super::waiting::because(&warnings)
                )));
            }
            Gate::Waiting(_) => tokio::time::sleep(GATE_POLL).await,
        }
    }
}
