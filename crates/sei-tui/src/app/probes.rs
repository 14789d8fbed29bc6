//! The seeds' outside probes in the console: on demand (`P`) and every [`PROBE_INTERVAL`] for
//! each seed with a `spec.externalAddress`, at most [`MAX_RUNNING`] at once. Pure: `update`
//! decides, the effects dial in a task and report back through `Msg::SeedProbed`.
use jiff::{SignedDuration, Timestamp};

use super::errors::SeedProbeError;
use super::model::{Cmd, Flash, Model, Screen};
use crate::api::NodeMode;
use crate::fleet::probe::SeedProbe;
use crate::fleet::store::ObjectKey;
use crate::ops::seed_probe::{no_pod_reason, probe_target};
use crate::ports::probe::ProbeOutcome;

/// How often each published seed is probed on its own.
pub const PROBE_INTERVAL: SignedDuration = SignedDuration::from_mins(5);
/// Probes running at once, scheduled or asked for.
pub const MAX_RUNNING: usize = 2;

fn running(model: &Model) -> usize {
    model.fleet.seed_probes().filter(|(_, p)| p.running).count()
}

/// Marks `key` as being probed and asks the effects to dial; `Err` says why it cannot be.
fn start(model: &mut Model, key: &ObjectKey) -> Result<Cmd, SeedProbeError> {
    let node = model
        .fleet
        .node(key)
        .ok_or_else(|| SeedProbeError::Gone(key.name.to_string()))?;
    let mut target = probe_target(node, model.fleet.node_id(key), None)?;
    // A seed never rendered: its render failure, when the fleet has it, is why no pod answers.
    let render_failure = model
        .fleet
        .row(key)
        .and_then(|row| row.last_warning.as_ref())
        .filter(|w| w.reason == crate::fleet::events::RENDER_FAILED_REASON)
        .map(|w| w.message.as_str());
    target.no_pod = no_pod_reason(node, render_failure);
    let mut probe = model.fleet.seed_probe(key).cloned().unwrap_or_default();
    probe.running = true;
    model.fleet.set_seed_probe(key, probe);
    Ok(Cmd::ProbeSeed {
        key: key.clone(),
        target,
    })
}

/// `P`: probe the selected seed (fleet) or this one (node screen) now.
pub fn probe_now(model: &mut Model) -> Vec<Cmd> {
    let key = match &model.screen {
        Screen::Node(key) => Some(key.clone()),
        Screen::Fleet => model.selected_key().cloned(),
    };
    let Some(key) = key else {
        return Vec::new();
    };
    let (text, error, cmds) = if model.fleet.seed_probe(&key).is_some_and(|p| p.running) {
        (
            format!("{} is being probed already", key.name),
            false,
            Vec::new(),
        )
    } else {
        match start(model, &key) {
            Ok(cmd) => (
                format!(
                    "probing {} from this machine, as a peer outside would dial it",
                    key.name
                ),
                false,
                vec![cmd],
            ),
            Err(why) => (why.to_string(), true, Vec::new()),
        }
    };
    model.flash = Some(Flash { text, error });
    model.dirty = true;
    cmds
}

/// On the tick: the published seeds whose last probe is older than [`PROBE_INTERVAL`] (or
/// that were never probed), oldest first by name, while fewer than [`MAX_RUNNING`] run.
pub fn due(model: &mut Model) -> Vec<Cmd> {
    let mut free = MAX_RUNNING.saturating_sub(running(model));
    if free == 0 {
        return Vec::new();
    }
    let now = model.now;
    let due: Vec<ObjectKey> = model
        .fleet
        .iter()
        .flat_map(|fleet| fleet.nodes.iter())
        .filter(|(_, node)| node.spec.mode().ok() == Some(NodeMode::Seed))
        .filter(|(_, node)| !node.spec.external_address().is_empty())
        .filter(|(key, _)| match model.fleet.seed_probe(key) {
            Some(p) if p.running => false,
            Some(SeedProbe {
                last: Some(last), ..
            }) => now.duration_since(last.at) >= PROBE_INTERVAL,
            _ => true,
        })
        .map(|(key, _)| key.clone())
        .collect();
    let mut cmds = Vec::new();
    for key in due {
        if free == 0 {
            break;
        }
        // A seed whose address does not parse is skipped: its node screen says why.
        if let Ok(cmd) = start(model, &key) {
            cmds.push(cmd);
            free -= 1;
        }
    }
    cmds
}

/// A probe ended: its record replaces the last one (a seed gone meanwhile is forgotten).
pub fn on_probed(
    model: &mut Model,
    key: &ObjectKey,
    at: Timestamp,
    outcome: Result<ProbeOutcome, SeedProbeError>,
) {
    if model.fleet.node(key).is_none() {
        return;
    }
    let last = crate::ops::seed_probe::record(at, outcome);
    model.fleet.set_seed_probe(
        key,
        SeedProbe {
            last: Some(last),
            running: false,
        },
    );
    model.dirty = true;
}
