//! Who runs the watched clusters' Active plans (orphans are named, `fleet::runners`): on the
//! tick every fleet judges its plans against its last read (a Lease expires with time), and a
//! cluster with Active plans is read again every [`READ_EVERY`] (`Cmd::ReadRunners`: the
//! executors' node Leases and the controller's Lease, off the render path), the plans known
//! Active when asked going with the request so a plan persisted after it is not judged
//! against a read that predates its Lease.
use jiff::{SignedDuration, Timestamp};

use super::model::{Cmd, Model};
use crate::fleet::runners::Runners;

/// How often a cluster with Active plans has its Leases read again.
pub const READ_EVERY: SignedDuration = SignedDuration::from_secs(5);

/// The tick: every fleet's plans judged at `now`, and the reads that are due.
pub fn due(model: &mut Model) -> Vec<Cmd> {
    let now = model.now;
    let contexts: Vec<String> = model.fleet.contexts().map(|c| c.to_string()).collect();
    let mut cmds = Vec::new();
    for context in contexts {
        let Some(fleet) = model.fleet.fleet_mut(&context) else {
            continue;
        };
        let before = fleet.rows_revision();
        fleet.judge_orphans(now);
        model.dirty |= fleet.rows_revision() != before;
        let asked = model.doctor.runners_asked.get(&context).copied();
        let is_due = asked.is_none_or(|at| now.duration_since(at) >= READ_EVERY);
        if !is_due {
            continue;
        }
        // Only when a read is due: the Active plans are the whole fleet's nodes read.
        let checked = fleet.active_plans();
        if checked.is_empty() {
            // Looked again after READ_EVERY: a plan turned Active is read within that.
            model.doctor.runners_asked.insert(context, now);
            continue;
        }
        model.doctor.runners_asked.insert(context.clone(), now);
        cmds.push(Cmd::ReadRunners {
            context,
            namespace: model.scope.namespace.clone(),
            checked,
        });
    }
    cmds
}

/// A read came back: the cluster's plans are judged against it.
pub fn on_read(model: &mut Model, context: &str, runners: Runners, at: Timestamp) {
    // The doctor judges the controller's liveness from it.
    model.doctor.inputs = model.doctor.inputs.wrapping_add(1);
    if let Some(fleet) = model.fleet.fleet_mut(context) {
        let before = fleet.rows_revision();
        fleet.set_runners(runners, at);
        model.dirty |= fleet.rows_revision() != before;
    }
}
