//! The fleet doctor in the console (`D`, `:doctor`): `ops::doctor` over what the console
//! watches in every cluster (SeiNodes and their events, the platform's sidecar image, the seeds'
//! last probes, the open node's pods and their events), ranked, refreshed every second while
//! open; `enter` goes to the finding's node, `f` opens the fix's preview (a rollout) or probes
//! the seed.
//!
//! Closed, it judges only for the header's critical count and the notifications: again when
//! what it reads changed ([`DoctorState::inputs`]: the fleet's revision, a cluster's reads, a
//! seed's probe, a Lease read) at most every [`IDLE_REFRESH`], and at least every
//! [`CLOSED_MAX_AGE`] for what time alone makes a finding (a task running too long, a Lease
//! expiring). Judging 10,000 nodes costs about 20 ms of the loop's thread (BENCHMARKS.md):
//! an idle fleet is judged once a minute, not on every tick.
//!
//! What the console does not watch (the controller's and executors' Leases, every pod and
//! PVC, the workloads' Warning events, ServiceAccounts, the permission checks of the fixes) is
//! read as `sei-console doctor` reads it (`ops::doctor_reads`, the reader handed in by the
//! composition root), off the render path: every 10 s while the view is open, every 60 s while
//! it is closed; the Leases also every 5 s while plans are Active (`app::runners`). The view's
//! title says how old the reads are. A platform config file given to the console is read once,
//! so render failures are checked against it.
use std::collections::BTreeMap;
use std::sync::Arc;

use jiff::Timestamp;

use super::model::{Cmd, Flash, Model, Screen};
use crate::executor::lease::ControllerLiveness;
use crate::fleet::runners::ControllerSeen;
use crate::fleet::store::ObjectKey;
use crate::keymap::{Action, Key, KeyCode};
use crate::ops::doctor::{
    ClusterSnapshot, DoctorInput, Finding, FixAction, NodeSnapshot, PlatformView, SeedProbeResult,
    Severity, diagnose,
};
use crate::ops::doctor_reads::{DoctorReadError, DoctorReads, IndexedReads};
use crate::ports::probe::ProbeOutcome;

/// The doctor's state: its findings as of the last refresh and the open view's selection.
#[derive(Debug, Clone, Default)]
pub struct DoctorState {
    /// The view is open.
    pub open: bool,
    pub selected: usize,
    pub findings: Vec<Finding>,
    /// Each seed's last probe outcome (the fleet keeps only its line).
    pub probes: BTreeMap<ObjectKey, SeedProbeResult>,
    /// The platform config file given to the console (`--platform-config` /
    /// `SEI_CONSOLE_PLATFORM_CONFIG`): render failures are checked against it; `None` with the
    /// controller's ConfigMap, which the console does not read.
    pub platform: Option<crate::platform::PlatformConfig>,
    /// When the findings were last judged (`on_tick`).
    pub refreshed_at: Option<Timestamp>,
    /// What the last judgement read: the fleet's revision and [`DoctorState::inputs`].
    pub judged_inputs: Option<(u64, u64)>,
    /// Moves when something the doctor reads changes outside the fleet's revision (a cluster's
    /// reads, a seed's probe, a Lease read).
    pub inputs: u64,
    /// How many times the fleet was judged (the bench and the tests count them).
    pub judgements: u64,
    /// When each cluster's Leases were last asked for (`app::runners`).
    pub runners_asked: BTreeMap<String, Timestamp>,
    /// Each cluster's last read of what the console does not watch (Leases, pods, PVCs,
    /// ServiceAccounts, permissions), indexed by node; `reads_asked` when it was asked for.
    pub reads: BTreeMap<String, IndexedReads>,
    pub reads_asked: BTreeMap<String, Timestamp>,
    /// Why a cluster's last read failed.
    pub read_errors: BTreeMap<String, String>,
}

impl DoctorState {
    pub fn critical(&self) -> usize {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Critical)
            .count()
    }
}

/// How often at most the closed doctor judges the fleet again when what it reads changed (for
/// the header's critical count): judging 10,000 nodes takes about 20 ms of the loop's thread
/// (BENCHMARKS.md), so every second only while the view is open.
pub const IDLE_REFRESH: jiff::SignedDuration = jiff::SignedDuration::from_secs(5);
/// How often the closed doctor judges the fleet when nothing it reads changed: what time alone
/// turns into a finding (a task over its threshold, a Lease expiring) shows in the header's
/// count within this.
pub const CLOSED_MAX_AGE: jiff::SignedDuration = jiff::SignedDuration::from_secs(60);

/// How often the doctor's reads (`ops::doctor_reads`: every pod, PVC, Lease, the permission
/// checks) are made again while its view is open, and while it is closed (for the header's
/// critical count).
pub const READ_OPEN: jiff::SignedDuration = jiff::SignedDuration::from_secs(10);
pub const READ_CLOSED: jiff::SignedDuration = jiff::SignedDuration::from_secs(60);

/// Whether the closed doctor judges again at `model.now`: never judged, what it reads changed
/// and [`IDLE_REFRESH`] passed, or [`CLOSED_MAX_AGE`] passed.
fn closed_due(model: &Model) -> bool {
    let doctor = &model.doctor;
    let Some(at) = doctor.refreshed_at else {
        return true;
    };
    let age = model.now.duration_since(at);
    let changed = doctor.judged_inputs != Some(inputs_of(model));
    (changed && age >= IDLE_REFRESH) || age >= CLOSED_MAX_AGE
}

/// What the doctor reads, as two counters: the fleet's revision and its own inputs.
fn inputs_of(model: &Model) -> (u64, u64) {
    (model.fleet.revision(), model.doctor.inputs)
}

/// The 1 Hz tick: the open view's findings follow every second, the header's count when its
/// inputs changed (at most every [`IDLE_REFRESH`]) or every [`CLOSED_MAX_AGE`]; the reads that
/// are due are asked for; new critical findings are notified (`app::notify`).
pub fn on_tick(model: &mut Model) -> Vec<Cmd> {
    let due = model.doctor.open || closed_due(model);
    let mut cmds = Vec::new();
    if due {
        refresh(model);
        cmds = super::notify::on_judged(model);
    }
    let every = if model.doctor.open {
        READ_OPEN
    } else {
        READ_CLOSED
    };
    let contexts: Vec<String> = model.fleet.contexts().map(|c| c.to_string()).collect();
    for context in contexts {
        let asked = model.doctor.reads_asked.get(&context).copied();
        if asked.is_some_and(|at| model.now.duration_since(at) < every) {
            continue;
        }
        model.doctor.reads_asked.insert(context.clone(), model.now);
        cmds.push(Cmd::ReadDoctor {
            context,
            namespace: model.scope.namespace.clone(),
        });
    }
    cmds
}

/// A cluster's reads came back: kept, indexed (once, here, not on every refresh).
pub fn on_read(model: &mut Model, context: String, reads: Result<DoctorReads, DoctorReadError>) {
    model.doctor.inputs = model.doctor.inputs.wrapping_add(1);
    match reads {
        Ok(reads) => {
            model.doctor.read_errors.remove(&context);
            model.doctor.reads.insert(context, IndexedReads::of(reads));
        }
        Err(error) => {
            model.doctor.read_errors.insert(context, error.to_string());
        }
    }
    if model.doctor.open {
        refresh(model);
        model.dirty = true;
    }
}

/// When the oldest of the clusters' reads was made (`None`: not every cluster read yet).
pub fn reads_at(model: &Model) -> Option<Timestamp> {
    let mut oldest: Option<Timestamp> = None;
    for context in model.fleet.contexts() {
        let at = model.doctor.reads.get(context.as_ref())?.reads.read_at?;
        oldest = Some(oldest.map_or(at, |o| o.min(at)));
    }
    oldest
}

/// Recomputes the findings from the model as it is now.
pub fn refresh(model: &mut Model) {
    let findings = gather(model);
    let judged = inputs_of(model);
    let doctor = &mut model.doctor;
    doctor.refreshed_at = Some(model.now);
    doctor.judged_inputs = Some(judged);
    doctor.judgements += 1;
    doctor.selected = doctor.selected.min(findings.len().saturating_sub(1));
    doctor.findings = findings;
}

fn gather(model: &Model) -> Vec<Finding> {
    let open_node = match &model.screen {
        Screen::Node(key) => Some(key),
        Screen::Fleet => None,
    };
    let clusters = model
        .fleet
        .iter()
        .map(|fleet| {
            let reads = model.doctor.reads.get(fleet.context().as_ref());
            let nodes = fleet
                .nodes
                .iter()
                .map(|(key, node)| {
                    let mut events: Vec<_> = fleet.events_of_node(key).collect();
                    let mut pods = Vec::new();
                    let open = open_node == Some(key);
                    // The open node's workload is watched: its pods and their events count;
                    // every other node's as last read.
                    if open {
                        events.extend(fleet.detail_events.iter().map(|(_, e)| e));
                        events.extend(fleet.statefulset_events.iter().map(|(_, e)| e));
                        pods.extend(fleet.pods.iter().map(|(_, p)| p));
                    } else if let Some(reads) = reads {
                        pods = reads.pods_of(node);
                        events.extend(reads.workload_events_of(node, &pods));
                    }
                    NodeSnapshot {
                        node,
                        events,
                        pods,
                        pvcs: reads.map(|r| r.pvcs_of(node)).unwrap_or_default(),
                        probe: model.doctor.probes.get(key),
                        workload_known: open || reads.is_some_and(|r| r.reads.workload_read),
                    }
                })
                .collect();
            let runners = fleet.runners();
            ClusterSnapshot {
                context: fleet.context().to_string(),
                controller_namespace: runners
                    .map(|r| r.controller_namespace.clone())
                    .or_else(|| reads.map(|r| r.reads.controller_namespace.clone()))
                    .unwrap_or_default(),
                // The Leases as read last: every 5 s with Active plans (`app::runners`), else
                // with the doctor's reads.
                controller: match runners {
                    Some(runners) => controller_liveness(&runners.controller),
                    None => reads.and_then(|r| r.reads.controller.clone()),
                },
                platform: model
                    .doctor
                    .platform
                    .as_ref()
                    .zip(model.platform_source.as_ref())
                    .map(|(config, source)| PlatformView { config, source }),
                platform_source: model.platform_source.as_ref(),
                sidecar_image: fleet.default_sidecar_image(),
                service_accounts: reads.and_then(|r| r.reads.service_accounts.as_ref()),
                nodes,
                executor_leases: runners
                    .and_then(|r| r.leases.clone())
                    .or_else(|| reads.map(|r| r.reads.executor_leases.clone()))
                    .unwrap_or_default(),
                denials: reads.map(|r| r.reads.denials.clone()).unwrap_or_default(),
                crd: fleet.crd(),
            }
        })
        .collect();
    diagnose(DoctorInput {
        now: model.now,
        thresholds: &model.settings.doctor,
        clusters,
        more: chain_findings(model),
    })
}

/// The controller's Lease as the doctor judges it (`None`: not read).
fn controller_liveness(seen: &ControllerSeen) -> Option<ControllerLiveness> {
    match seen {
        ControllerSeen::Live { holder } => Some(ControllerLiveness::Live {
            holder: holder.clone(),
        }),
        ControllerSeen::NotLive { reason } => Some(ControllerLiveness::NotLive {
            reason: reason.clone(),
        }),
        ControllerSeen::Unknown { .. } => None,
    }
}

/// The chain verdicts the console has judged from its RPC readings, as findings: measured
/// against the same tops as the rows (the fleet's highest heights and the chains' reference
/// RPCs), with the reading each verdict rests on, as `doctor` on the command line does.
fn chain_findings(model: &Model) -> Vec<Finding> {
    let tops = crate::fleet::chain_tops(model.fleet.iter(), model.fleet.references());
    let mut findings = Vec::new();
    for fleet in model.fleet.iter() {
        for (key, health) in fleet.health_entries() {
            let Some(verdict) = fleet.health_verdict(key, model.now, &tops) else {
                continue;
            };
            let read_at = health.basis(model.now).map(|basis| basis.at);
            findings.extend(crate::ops::doctor::chain::finding(
                &key.context,
                &key.namespace,
                &key.name,
                &verdict,
                read_at,
            ));
        }
    }
    findings
}

/// A seed's probe ended: kept for the doctor.
pub fn on_probed(model: &mut Model, key: &ObjectKey, at: Timestamp, outcome: &ProbeOutcome) {
    model.doctor.inputs = model.doctor.inputs.wrapping_add(1);
    model.doctor.probes.insert(
        key.clone(),
        SeedProbeResult {
            at,
            outcome: outcome.clone(),
        },
    );
}

/// `D` or `:doctor`: opens the view over the screen.
pub fn open(model: &mut Model) {
    model.viewer = None;
    model.help_open = false;
    model.doctor.open = true;
    model.doctor.selected = 0;
    refresh(model);
}

fn flash(model: &mut Model, text: String, error: bool) {
    model.flash = Some(Flash { text, error });
}

/// The node a finding is about, as the fleet keys it.
fn node_key(finding: &Finding) -> Option<ObjectKey> {
    let node = finding.object.node.as_deref()?;
    let context: Arc<str> = Arc::from(finding.object.context.as_str());
    Some(ObjectKey::new(finding.object.namespace.as_str(), node).in_context(&context))
}

/// A key of the doctor view; `None` when the view does not take it.
pub fn on_action(model: &mut Model, action: Action) -> Option<Vec<Cmd>> {
    let last = model.doctor.findings.len().saturating_sub(1);
    let selected = &mut model.doctor.selected;
    match action {
        Action::Back => model.doctor.open = false,
        Action::Down => *selected = (*selected + 1).min(last),
        Action::Up => *selected = selected.saturating_sub(1),
        Action::Top => *selected = 0,
        Action::Bottom => *selected = last,
        Action::Open => return Some(go_to_node(model)),
        Action::Fix => return Some(fix(model)),
        _ => return None,
    }
    Some(Vec::new())
}

fn selected(model: &Model) -> Option<Finding> {
    model.doctor.findings.get(model.doctor.selected).cloned()
}

/// `enter`: the node screen of the selected finding's node.
fn go_to_node(model: &mut Model) -> Vec<Cmd> {
    let Some(finding) = selected(model) else {
        return Vec::new();
    };
    let Some(key) = node_key(&finding).filter(|key| model.fleet.node(key).is_some()) else {
        flash(
            model,
            format!(
                "{} is about {} {}, not a node: {}",
                finding.class.as_str(),
                finding.object.kind,
                finding.object.name,
                finding
                    .fix
                    .command
                    .as_deref()
                    .unwrap_or(&finding.fix.summary)
            ),
            false,
        );
        return Vec::new();
    };
    model.doctor.open = false;
    super::update::open_node(model, key)
}

/// `f`: the fix's preview (the rollout dialog with the fix's image, previewed at once) or the
/// seed probe; other fixes are commands, shown in the footer.
fn fix(model: &mut Model) -> Vec<Cmd> {
    let Some(finding) = selected(model) else {
        return Vec::new();
    };
    let key = node_key(&finding).filter(|key| model.fleet.node(key).is_some());
    match (finding.fix.action.clone(), key) {
        (Some(FixAction::Rollout { image }), Some(key)) => {
            if !model.marked.is_empty() {
                flash(
                    model,
                    "nodes are marked: the fix acts on this node only; clear the marks \
                     (ctrl-space) first"
                        .to_owned(),
                    true,
                );
                return Vec::new();
            }
            model.doctor.open = false;
            let mut cmds = super::update::open_node(model, key);
            cmds.extend(super::action_update::start(
                model,
                crate::ops::actions::rollout::KIND,
            ));
            let prompt = model
                .action
                .as_mut()
                .and_then(|flow| match &mut flow.stage {
                    super::action::Stage::Prompt(form) => form.fields.first_mut(),
                    _ => None,
                });
            if let Some(field) = prompt {
                field.value = image;
                // Enter on the one-field form asks for the preview.
                cmds.extend(super::action_update::on_key(
                    model,
                    Key::plain(KeyCode::Enter),
                ));
            }
            cmds
        }
        (Some(FixAction::Probe), Some(key)) => {
            model.doctor.open = false;
            let mut cmds = super::update::open_node(model, key);
            cmds.extend(super::probes::probe_now(model));
            cmds
        }
        _ => {
            let text = match &finding.fix.command {
                Some(command) => format!("fix: {} — run: {command}", finding.fix.summary),
                None => format!("fix: {}", finding.fix.summary),
            };
            flash(model, text, false);
            Vec::new()
        }
    }
}
