//! Image pin rollout: `spec.image` pinned on nodes in waves (a canary, then batches); each wave
//! starts when the previous one completed, the first failure halts the rest, and running it
//! again resumes (nodes already on the image are left alone). Nodes the planner cannot plan
//! for are blocked in `prepare` and never changed.
//!
//! `prepare`: the named or selected nodes; a canary chosen by name goes first, else the first nodes
//! healthy by `fleet::verdict` (the unhealthy ones passed over are said, `canary_notes`); nodes
//! already on the image, per-node previews and StatefulSet diffs, blocked nodes (no plan can take
//! them to the image), the waves, the permission checks, the names to type and the question. `run`
//! (in `rollout/run.rs`) takes each node's Lease wave by wave, and for each node follows a plan
//! already Active to its end first, then persists the update plan planned for the new spec
//! (`Driver::persist_for_spec`) and only then patches `spec.image`, so a live controller finds the
//! previewed plan Active instead of building its own (pinning under an Active update plan would
//! strand its observe-image). After the wave gate comes the health gate (`rollout/health_gate.rs`):
//! a halt fails the node like a failed plan; its verdict goes into the Console Event and the node's
//! journal line (`reason`).
use crate::actions::event::ActionKind;
use crate::actions::image_ref::ImageRef;
use crate::actions::permissions::{rollout_checks, tasks_to_run};
use crate::actions::preview::{ImagePinPreview, image_pin_preview, image_pin_text, pinned_node};
use crate::actions::statefulset_diff::statefulset_preview;
use crate::actions::tag_family::{UnusualTag, unusual_tag};
use crate::actions::waves::{already_rolled, plan_waves};
use crate::api::{NodeMode, SeiNode, TaskKind};
use crate::config::WaveDefaults;
use crate::ops::action::{ActionFuture, Operation, PreviewLine, Previewed};
use crate::ops::skew::SkewScope;
use crate::ops::{Note, Ops, OpsError, PermissionVerdict, Report, RunEnd, needs_typed_name};

/// The journal's and Events' name of this action.
pub const KIND: ActionKind = ActionKind::new("rollout", "ConsoleImageRollout");
/// Its names for `ops::actions::all()` (the journal's list of actions).
pub const KINDS: &[ActionKind] = &[KIND, control::ABORT, control::PROMOTE];

mod canaries;
pub mod control;
mod health_gate;
mod record;
mod run;
mod select;

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
    /// Each wave moves on only when its nodes are caught up and advancing through a soak
    /// (`rollout/health_gate.rs`); `None`: `--no-health-gate`.
    pub health_gate: Option<crate::chain::gate::GateSettings>,
    /// A tag unlike the running ones (`actions::tag_family`) may roll: `--allow-unusual-tag`,
    /// or a confirmation where the tag is typed (the console, an interactive command).
    /// Without it such a rollout is refused before anything changes.
    pub allow_unusual_tag: bool,
    /// The rollout this one undoes (`rollout undo`): its record says so.
    pub undo_of: Option<String>,
    /// Hold after the canary wave or each wave until `rollout promote` (`--hold-after`).
    pub hold_after: Option<crate::ops::rollout_record::HoldAfter>,
    /// Pin the digest the tag points to now (`--resolve-digest`): read from the registry in
    /// `prepare`, shown in the preview, and what every node is pinned to.
    pub resolve_digest: bool,
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
    /// Notes for nodes whose rollout a console that stopped (killed, crashed) left unfinished:
    /// an Active plan it persisted, or the node on the image with the wave gate not passed.
    /// They are rolled on from where they are, whatever their images say.
    pub resumed: Vec<String>,
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
    /// Nodes the automatic canary passed over because they are not healthy
    /// (`fleet::verdict`), and what was chosen instead.
    pub canary_notes: Vec<String>,
    /// Who will run the previewed plans, for `auto` (`executor: controller (holder)`): the
    /// plans shown are the ones persisted, whoever runs them.
    pub executor: Option<String>,
    /// The tag does not look like the ones the selected nodes run: said in the preview, typed
    /// to confirm, refused without `allow_unusual_tag`.
    pub unusual_tag: Option<UnusualTag>,
    /// The ID its record (`ops::rollout_record`) will carry: `rollout status ID`.
    pub rollout_id: String,
    /// `--resolve-digest`: the reference as typed, and the digest read for its tag (the
    /// input's image is then pinned to it).
    pub resolved_digest: Option<(String, crate::ports::registry::Digest)>,
}

impl RolloutPrepared {
    /// Why the rollout cannot start, if it cannot: an unusual tag not allowed, nothing to
    /// roll, or a permission missing.
    pub fn refusal(&self) -> Option<OpsError> {
        if let Some(unusual) = self
            .unusual_tag
            .as_ref()
            .filter(|_| !self.input.allow_unusual_tag)
        {
            return Some(OpsError::BadInput(format!(
                "{unusual}; nothing was changed (--allow-unusual-tag rolls it anyway)"
            )));
        }
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
        self.permissions.refusal()
    }
}

/// Reads the nodes, previews each one's update plan and StatefulSet diff, blocks those no plan
/// can take to the image, plans the waves and checks every call (unless a dry run).
/// Unguarded: [`crate::ops::action::prepare`] refuses in read-only mode first.
pub async fn prepare(ops: &Ops<'_>, input: RolloutInput) -> Result<RolloutPrepared, OpsError> {
    let ctx = ops.plan_context();
    let mut prepared = RolloutPrepared {
        already_rolled: Vec::new(),
        resumed: Vec::new(),
        nodes: Vec::new(),
        blocked: Vec::new(),
        waves: Vec::new(),
        sizes: input.waves,
        peer_notes: Vec::new(),
        permissions: PermissionVerdict {
            checks: Vec::new(),
            outcome: None,
            sidecar_credential: None,
        },
        confirm_names: Vec::new(),
        question: String::new(),
        canary_notes: Vec::new(),
        executor: None,
        unusual_tag: None,
        rollout_id: crate::ops::rollout_record::new_id(ops.ports.clock.now(), uuid::Uuid::new_v4()),
        resolved_digest: None,
        input,
    };
    let selected = ops.select(&prepared.input.selection).await?;
    let running: Vec<ImageRef> = selected
        .iter()
        .flat_map(|n| {
            let current = n.status.as_ref().map_or("", |s| s.current_image());
            [n.spec.image.as_str(), current]
        })
        .filter_map(|text| ImageRef::parse(text).ok())
        .collect();
    // Judged on the tag as typed: a pinned digest says nothing about its family.
    prepared.unusual_tag = unusual_tag(&prepared.input.image, &running);
    if prepared.input.resolve_digest
        && let Some(target) = prepared.input.image.registry_target()
    {
        let digest = ops.ports.registry.resolve(&target).await?;
        let typed = prepared.input.image.to_string();
        prepared.input.image = prepared.input.image.pinned_to(&digest);
        prepared.resolved_digest = Some((typed, digest));
    }
    let image = prepared.input.image.to_string();
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
        // A rollout that stopped between its plan's end and its gate left the node on the
        // image with its Lease never released: the gate runs again.
        let interrupted = ops.interrupted_by(node.name()).await;
        if let Some(mut note) = already_rolled(&node, &image) {
            if let Some(holder) = &interrupted {
                prepared.resumed.push(format!(
                    "{}: on {image}, but {holder} stopped before the rollout's end (its Lease \
                     was never released): the wave gate runs again",
                    node.name()
                ));
            } else {
                if prepared.input.canary_nodes.iter().any(|c| c == node.name()) {
                    note.push_str(" (chosen as canary: no canary wave for it)");
                }
                prepared.already_rolled.push(note);
                continue;
            }
        }
        // Planned with the peers the controller's reconcile would resolve, and the ID the
        // persisted plan will carry.
        let peers = ops.resolve_peers(&mut node).await?;
        prepared.peer_notes.extend(peers);
        let plan_id = uuid::Uuid::new_v4();
        let ctx = ctx.clone().with_plan_id(plan_id);
        let mut preview = image_pin_preview(&node, &prepared.input.image, &ctx)
            .map_err(|e| OpsError::Step(format!("{}: {e}", node.name())))?;
        // With a plan Active, the preview is of that plan, then of the update plan after it
        // (none when that plan already takes the node to the image). The Active plan
        // runs to its end whatever comes after it (a rerun after a crash finishes the plan it
        // started, even once the images already match).
        if let (Some(first), Some(holder)) = (&preview.runs_first, &interrupted) {
            prepared.resumed.push(format!(
                "{}: {holder} stopped before the end of plan {} ({} of {} tasks done; its \
                 Lease was never released): the plan runs to its end first",
                node.name(),
                first.plan_id,
                first.tasks_done,
                first.tasks
            ));
        }
        if let (Some(first), Some(_)) = (&preview.runs_first, &prepared.input.undo_of) {
            // Upstream never cancels an Active plan: the undo waits it out, and says so.
            prepared.resumed.push(format!(
                "{}: plan {} is Active ({} of {} tasks done) and cannot be cancelled (a plan                  ends Complete or Failed, upstream): it runs to its end first, the pod running                  {} meanwhile; then the undo's plan takes the node back to {image}",
                node.name(),
                first.plan_id,
                first.tasks_done,
                first.tasks,
                first.pod_image
            ));
        }
        let resumes = preview.runs_first.is_some() || interrupted.is_some();
        if let Some(reason) = preview
            .plan
            .no_plan
            .as_ref()
            .filter(|_| !(preview.active_plan_suffices() || resumes))
        {
            prepared.blocked.push(Blocked {
                node: node.name().to_owned(),
                reason: format!("no plan can take it to {image}: {reason}"),
            });
            continue;
        }
        let pinned = pinned_node(&node, &prepared.input.image);
        if let Some(reason) = crate::ops::pod_needs::missing_for_pod(ops, &pinned).await {
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
    canaries::put_canaries_first(&mut prepared);
    let names = prepared.names();
    prepared.waves = plan_waves(&names, prepared.sizes.canary, prepared.sizes.batch);
    prepared.question = match &prepared.input.undo_of {
        Some(of) => format!("undo {of}: put {} node(s) back on {image}?", names.len()),
        None => format!("roll {} node(s) to {image}?", names.len()),
    };
    if let Some(unusual) = &prepared.unusual_tag {
        prepared.question = format!("{} {unusual}: type the tag to confirm.", prepared.question);
        prepared.confirm_names.push(unusual.tag.clone());
    }
    let work: Vec<(String, Vec<TaskKind>)> = prepared
        .nodes
        .iter()
        .map(|n| (n.node.name().to_owned(), n.tasks.clone()))
        .collect();
    if !work.is_empty() {
        prepared.executor = ops.executor_choice().await.ok().and_then(|c| c.note);
        let mut checks = rollout_checks(
            &ops.scope(),
            ops.namespace(),
            &work,
            matches!(prepared.input.selection, Selection::Matching { .. }),
            prepared.input.wait,
        );
        checks.extend(prepared.gate_checks(ops.namespace()));
        checks.extend(crate::ops::rollout_record::record_checks(
            ops.namespace(),
            &prepared.rollout_id,
        ));
        prepared.permissions = ops.check(checks.into_vec(), !prepared.input.dry_run).await;
        prepared.permissions.sidecar_credential = ops
            .sidecar_credential_refusal(
                crate::ops::actions::rollout::KIND,
                &work,
                prepared.input.wait,
                false,
            )
            .await?;
    }
    Ok(prepared)
}

impl Operation for RolloutInput {
    type Prepared = RolloutPrepared;

    fn kind(&self) -> ActionKind {
        crate::ops::actions::rollout::KIND
    }

    fn nodes(&self) -> Vec<String> {
        self.selection.words()
    }

    fn detail(&self) -> String {
        RolloutInput::detail(self)
    }

    fn dry_run(&self) -> bool {
        self.dry_run
    }

    fn summary(&self, namespace: &str) -> String {
        let nodes = self.selection.words();
        let plan = match (nodes.len(), self.canary_nodes.as_slice()) {
            (1, _) => String::new(),
            (_, []) if self.waves.canary == 0 => {
                format!(" (no canary, batch {})", self.waves.batch)
            }
            (_, []) => format!(" (canary auto, batch {})", self.waves.batch),
            (_, chosen) => format!(
                " (canary {}, batch {})",
                chosen.join(", "),
                self.waves.batch
            ),
        };
        format!("{namespace}: {} → {}{plan}", nodes.join(", "), self.image)
    }

    fn prepare<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, RolloutPrepared> {
        Box::pin(prepare(ops, self.clone()))
    }

    /// Writes the image and the update plan; a live controller executes the plan.
    fn skew_scope(&self) -> SkewScope {
        SkewScope {
            writes: &["spec.image", "status.plan"],
            hands_off: true,
        }
    }
}

impl Previewed for RolloutPrepared {
    fn kind(&self) -> ActionKind {
        crate::ops::actions::rollout::KIND
    }

    /// The nodes to roll; the selection as asked when none is left.
    fn nodes(&self) -> Vec<String> {
        match self.names() {
            names if names.is_empty() => self.input.selection.words(),
            names => names,
        }
    }

    fn detail(&self) -> String {
        self.input.detail()
    }

    /// A followed rollout's end is notified (`--no-wait` ends before anything ran).
    fn notified_image(&self) -> Option<String> {
        self.input.wait.then(|| self.input.image.to_string())
    }

    fn head(&self) -> String {
        self.head_text()
    }

    fn text(&self) -> String {
        self.body_text()
    }

    /// The wave plan first, above the nodes left alone and each node's plan (JSON readers get
    /// the waves in the result's progress notes).
    fn preview_lines(&self) -> Vec<PreviewLine> {
        let mut lines = vec![
            PreviewLine::TextOnly(self.waves_text()),
            PreviewLine::TextOnly(self.gate_text()),
        ];
        if let Some(executor) = &self.executor {
            lines.push(PreviewLine::Note(Note::Executor(executor.clone())));
        }
        if let Some(hold) = self.input.hold_after {
            lines.push(PreviewLine::Note(Note::Info(format!(
                "hold: after {} (once it passed its gates) until `sei-console rollout promote \
                 {}`",
                match hold {
                    crate::ops::rollout_record::HoldAfter::Canary => "the canary wave",
                    crate::ops::rollout_record::HoldAfter::EachWave => "every wave but the last",
                },
                self.rollout_id
            ))));
        }
        if let Some(unusual) = &self.unusual_tag {
            lines.push(PreviewLine::Note(Note::Warning(unusual.to_string())));
        }
        if let Some((typed, digest)) = &self.resolved_digest {
            lines.push(PreviewLine::Note(Note::Info(format!(
                "{typed} resolved to {digest} by its registry just now: the nodes are pinned \
                 to the digest, whatever the tag points to later"
            ))));
        }
        for note in &self.canary_notes {
            lines.push(PreviewLine::Note(Note::Warning(note.clone())));
        }
        for note in &self.already_rolled {
            lines.push(PreviewLine::Note(Note::AlreadyRolled(note.clone())));
        }
        for note in &self.resumed {
            lines.push(PreviewLine::Note(Note::Info(note.clone())));
        }
        for note in &self.peer_notes {
            lines.push(PreviewLine::Note(Note::Info(note.clone())));
        }
        for blocked in &self.blocked {
            lines.push(PreviewLine::Note(Note::Skipped {
                node: blocked.node.clone(),
                reason: blocked.reason.clone(),
            }));
        }
        for node in &self.nodes {
            lines.push(PreviewLine::Preview {
                text: image_pin_text(&node.preview),
                json: serde_json::json!({"event": "preview", "preview": node.preview}),
            });
        }
        // JSON readers get the gate after the nodes' previews (the first line stays a node's).
        lines.push(PreviewLine::Preview {
            text: String::new(),
            json: self.gate_json(),
        });
        lines
    }

    fn refusal(&self) -> Option<OpsError> {
        RolloutPrepared::refusal(self)
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
        (self.nodes.is_empty() && self.blocked.is_empty())
            .then(|| format!("every node is already on {}", self.input.image))
    }

    fn across(&self) -> Option<(String, usize)> {
        Some((format!("Roll out {}", self.input.image), self.nodes.len()))
    }

    /// Each wave takes its nodes' Leases before changing any of them.
    fn lease(&self) -> Option<String> {
        None
    }

    fn run<'a>(&'a self, ops: &'a Ops<'a>, report: &'a dyn Report) -> ActionFuture<'a, RunEnd> {
        Box::pin(run::run(ops, self, report))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
