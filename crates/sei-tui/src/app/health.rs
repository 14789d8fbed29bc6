//! The health of each cluster's watches and API server, as their reports come in: STALE and
//! forbidden states for the banners, and the resync after a silent server answers again.
use super::model::{Cmd, Model, Screen, WatchState};
use super::update::start_detail;
use crate::fleet::watches::ServerReport;
use crate::fleet::watches::WatchKind;
use crate::fleet::watches::WatchReport;

/// A watch's health report: Live, STALE since its first failure, or forbidden.
pub(super) fn on_watch_report(
    model: &mut Model,
    context: &str,
    kind: WatchKind,
    report: WatchReport,
) {
    let now = model.now;
    let Some(cluster) = model.clusters.get_mut(context) else {
        return;
    };
    let next = match report {
        WatchReport::Live => WatchState::Live,
        WatchReport::Failed {
            error,
            forbidden: true,
        } => WatchState::Forbidden(error),
        WatchReport::Failed { error, .. } => {
            let since = match cluster.watches.get(&kind) {
                Some(WatchState::Stale { since, .. }) => *since,
                _ => now,
            };
            WatchState::Stale { since, error }
        }
    };
    if cluster.watches.get(&kind) != Some(&next) {
        cluster.watches.insert(kind, next);
        model.dirty = true;
    }
}

/// A probe's answer: a silent server makes that cluster's data STALE (its banner shows the age
/// of the last confirmed data); the first answer after silence clears it and resyncs that
/// cluster's watches. The other clusters are left alone.
pub(super) fn on_server_report(model: &mut Model, context: &str, report: ServerReport) -> Vec<Cmd> {
    let now = model.now;
    let Some(cluster) = model.clusters.get_mut(context) else {
        return Vec::new();
    };
    let server = &mut cluster.server;
    match report {
        ServerReport::Answered { at } => {
            server.confirmed_at = Some(at);
            if server.silent.take().is_none() {
                return Vec::new();
            }
            model.dirty = true;
            resync(model, context)
        }
        ServerReport::Silent { error } => {
            let since = server.silent.as_ref().map_or(now, |(since, _)| *since);
            let next = Some((since, error));
            if server.silent != next {
                server.silent = next;
                model.dirty = true;
            }
            Vec::new()
        }
    }
}

/// Restarts the scope watches of `context` and the open node's when it is of that cluster
/// (new epochs: what the old ones still send is dropped); each relists, and the relist
/// replaces the stores as after any watch failure.
fn resync(model: &mut Model, context: &str) -> Vec<Cmd> {
    let mut cmds = vec![model.watch_cluster(context)];
    if let Screen::Node(key) = &model.screen
        && key.context.as_ref() == context
    {
        let key = key.clone();
        cmds.push(start_detail(model, key));
    }
    cmds
}
