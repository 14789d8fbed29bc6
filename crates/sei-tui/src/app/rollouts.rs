//! The rollouts of the watched clusters, as their records say (`ops::rollout_record`, judged by
//! `ops::rollout_view`, the judgement `rollout status` prints): each cluster's are read again
//! every [`READ_EVERY`] off the render path (`Cmd::ReadRollouts`, answered by `Msg::Rollouts`),
//! in the scope's namespace (all namespaces: those of the cluster's watched nodes, at most
//! [`MAX_NAMESPACES`]). The header shows the unfinished ones (`⟳ rollout ID 2/5 held`), the
//! fleet row of a node in a held, aborting or orphaned rollout says so in its PLAN cell, and
//! `:rollouts` lists them as `rollout status` does.
use std::collections::{BTreeMap, BTreeSet};

use jiff::{SignedDuration, Timestamp};

use super::model::{Cmd, Model};
use crate::fleet::store::ObjectKey;
use crate::ops::rollout_view::RolloutView;
use crate::ports::ClusterError;

/// How often each cluster's rollout records are read again.
pub const READ_EVERY: SignedDuration = SignedDuration::from_secs(3);
/// Namespaces of one cluster read when the scope is every namespace.
pub const MAX_NAMESPACES: usize = 16;
/// Unfinished rollouts named one by one in the header; more are counted.
const HEADER_MAX: usize = 2;

/// The last read of each cluster's rollouts.
#[derive(Debug, Default)]
pub struct RolloutsState {
    /// Per context: its rollouts (newest first), or why they could not be read.
    pub by_context: BTreeMap<String, Result<Vec<RolloutView>, ClusterError>>,
    /// When each context was last asked.
    asked: BTreeMap<String, Timestamp>,
}

impl RolloutsState {
    /// Every rollout read, newest first within each cluster, with its context.
    pub fn all(&self) -> impl Iterator<Item = (&str, &RolloutView)> {
        self.by_context
            .iter()
            .filter_map(|(context, read)| Some((context.as_str(), read.as_ref().ok()?)))
            .flat_map(|(context, views)| views.iter().map(move |v| (context, v)))
    }

    /// The unfinished rollouts (running, held, aborting, orphaned).
    pub fn open(&self) -> impl Iterator<Item = (&str, &RolloutView)> {
        self.all().filter(|(_, v)| v.is_open())
    }

    /// What the PLAN cell of `key`'s row says about its rollout (held, aborting, orphaned).
    pub fn node_mark(&self, key: &ObjectKey) -> Option<&'static str> {
        self.open()
            .filter(|(context, v)| {
                *context == &*key.context && v.record.namespace == *key.namespace
            })
            .find_map(|(_, v)| v.node_mark(&key.name))
    }

    /// The header's pieces: each unfinished rollout (full, short), then `+N` more.
    pub fn header(&self) -> Vec<(String, String)> {
        let open: Vec<&RolloutView> = self.open().map(|(_, v)| v).collect();
        let mut out: Vec<(String, String)> = open
            .iter()
            .take(HEADER_MAX)
            .map(|v| {
                let (rolled, total) = v.record.progress();
                (
                    format!("│ {}", v.header()),
                    format!("│ ⟳ {rolled}/{total} {}", v.word()),
                )
            })
            .collect();
        if open.len() > HEADER_MAX {
            let more = open.len() - HEADER_MAX;
            out.push((
                format!("+{more} rollout(s) (:rollouts)"),
                format!("+{more}"),
            ));
        }
        out
    }
}

/// The tick: the reads that are due.
pub fn due(model: &mut Model) -> Vec<Cmd> {
    let now = model.now;
    let contexts: Vec<String> = model.fleet.contexts().map(|c| c.to_string()).collect();
    let mut cmds = Vec::new();
    for context in contexts {
        let asked = model.rollouts.asked.get(&context).copied();
        if asked.is_some_and(|at| now.duration_since(at) < READ_EVERY) {
            continue;
        }
        let namespaces: Vec<String> = match &model.scope.namespace {
            Some(namespace) => vec![namespace.clone()],
            None => model
                .fleet
                .rows()
                .filter(|row| *row.key.context == *context)
                .map(|row| row.key.namespace.to_string())
                .collect::<BTreeSet<String>>()
                .into_iter()
                .take(MAX_NAMESPACES)
                .collect(),
        };
        if namespaces.is_empty() {
            continue;
        }
        model.rollouts.asked.insert(context.clone(), now);
        cmds.push(Cmd::ReadRollouts {
            context,
            namespaces,
        });
    }
    cmds
}

/// A read came back.
pub fn on_read(model: &mut Model, context: String, read: Result<Vec<RolloutView>, ClusterError>) {
    if model.rollouts.by_context.get(&context) != Some(&read) {
        model.rollouts.by_context.insert(context, read);
        model.dirty = true;
    }
}

/// The scope changed: the old reads are dropped and read again at once.
pub fn reset(model: &mut Model) {
    model.rollouts = RolloutsState::default();
}

/// `:rollouts`: every rollout as `rollout status` prints it, the unfinished first.
pub fn lines(model: &Model) -> Vec<String> {
    let state = &model.rollouts;
    let mut out = Vec::new();
    for (context, read) in &state.by_context {
        if let Err(error) = read {
            out.push(format!("✖ rollouts of {context} not read: {error}"));
        }
    }
    let (open, finished): (Vec<_>, Vec<_>) = state.all().partition(|(_, v)| v.is_open());
    if open.is_empty() && finished.is_empty() {
        out.push(match state.by_context.is_empty() {
            true => "… reading the rollout records".to_owned(),
            false => "no rollout running, held or finished in the last day".to_owned(),
        });
    }
    for (context, view) in open.into_iter().chain(finished) {
        if model.multi_cluster() {
            out.push(format!("[{context}]"));
        }
        out.extend(view.text().lines().map(str::to_owned));
        out.push(String::new());
    }
    out
}
