//! Who runs a cluster's Active plans (issue 33: orphans are named). A plan is executed by the
//! live sei-k8s-controller (its leader-election Lease `bc1f5b0a.sei.io` held and renewed) or by
//! an embedded executor holding the node's Lease `sei-console-exec-<node>`. An Active plan with
//! neither is **orphaned**: nothing will move it until someone resumes it (`sei-console exec
//! NODE` takes the node's Lease and drives the plan from where it stopped).
//!
//! "Live" for a node Lease: it has a holder, was renewed within its duration, and its holder is
//! not a console of this machine whose process is gone or a zombie (`holder_gone`, judged by
//! the reader). The read is a snapshot: a plan is judged against it only when that plan was
//! already Active when the read was asked for (`Runners::checked`), because an executor takes
//! the node's Lease before it persists a plan, so a plan Active then had its Lease visible to
//! the read; a plan persisted after it waits for the next read instead of being called
//! orphaned for a few seconds.
use std::collections::BTreeSet;

use jiff::{SignedDuration, Timestamp};

use super::Fleet;
use crate::api::SeiNode;

/// An embedded executor's node Lease (`sei-console-exec-<node>`) as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecutorLease {
    pub namespace: String,
    pub node: String,
    /// Empty when released.
    pub holder: String,
    pub renewed: Option<Timestamp>,
    pub duration_seconds: i64,
    /// The holder is a console of this machine whose process is gone (`ports::HolderProbe`).
    pub holder_gone: bool,
}

impl ExecutorLease {
    /// Held now: a holder, renewed within its duration, not known gone.
    pub fn is_live(&self, now: Timestamp) -> bool {
        !self.holder.is_empty()
            && !self.holder_gone
            && self.renewed.is_some_and(|renewed| {
                now.duration_since(renewed) < SignedDuration::from_secs(self.duration_seconds)
            })
    }

    /// Why it is not live (for the evidence), `None` when it is.
    pub fn why_not_live(&self, now: Timestamp) -> Option<String> {
        if self.is_live(now) {
            return None;
        }
        Some(if self.holder.is_empty() {
            "released".to_owned()
        } else if self.holder_gone {
            format!(
                "held by {}, whose process on this machine is gone",
                self.holder
            )
        } else {
            format!(
                "held by {}, not renewed for {}s (it lasts {}s)",
                self.holder,
                self.renewed
                    .map_or(0, |renewed| now.duration_since(renewed).as_secs()),
                self.duration_seconds
            )
        })
    }
}

/// What the controller's leader-election Lease said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControllerSeen {
    Live {
        holder: String,
    },
    NotLive {
        reason: String,
    },
    /// It could not be read (forbidden, unreachable): nobody is called orphaned then.
    Unknown {
        reason: String,
    },
}

/// One read of who runs a cluster's plans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runners {
    pub read_at: Timestamp,
    /// The namespace of the controller's Lease.
    pub controller_namespace: String,
    pub controller: ControllerSeen,
    /// The embedded executors' node Leases of the scope; `None` when they could not be listed
    /// (nobody is called orphaned then).
    pub leases: Option<Vec<ExecutorLease>>,
    /// The Active plans known when the read was asked for, as (namespace, node, plan ID).
    pub checked: BTreeSet<(String, String, String)>,
}

/// An Active plan nobody runs, and the command that resumes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// Why: no live controller, and the node's Lease is absent, released, expired or its
    /// holder gone.
    pub why: String,
    /// The command that resumes the plan where it stopped.
    pub resume: String,
}

impl Runners {
    /// Whether the Active plan `plan_id` of `namespace/node` is orphaned at `now`.
    /// `scope` is the command line's `--context` (and `-n`) words for the fix command.
    pub fn orphan(
        &self,
        namespace: &str,
        node: &str,
        plan_id: &str,
        now: Timestamp,
        context: &str,
    ) -> Option<Orphan> {
        let controller = match &self.controller {
            ControllerSeen::NotLive { reason } => reason,
            ControllerSeen::Live { .. } | ControllerSeen::Unknown { .. } => return None,
        };
        let leases = self.leases.as_ref()?;
        let key = (namespace.to_owned(), node.to_owned(), plan_id.to_owned());
        if !self.checked.contains(&key) {
            return None;
        }
        let lease = leases
            .iter()
            .find(|l| l.namespace == namespace && l.node == node);
        let lease_why = match lease {
            None => format!("no Lease sei-console-exec-{node}"),
            Some(lease) => format!("Lease sei-console-exec-{node} {}", lease.why_not_live(now)?),
        };
        Some(Orphan {
            why: format!("no live controller ({controller}) and {lease_why}"),
            resume: resume_command(node, namespace, context),
        })
    }
}

/// `sei-console exec NODE -n NS [--context CTX]`: takes the node's Lease (waiting out a dead
/// console's of this machine) and drives the Active plan from where it stopped.
pub fn resume_command(node: &str, namespace: &str, context: &str) -> String {
    let mut command = format!("sei-console exec {node} -n {namespace}");
    if !context.is_empty() {
        command.push_str(&format!(" --context {context}"));
    }
    command
}

/// The orphan of `node` by `runners` judged at `now` (`None` without a read or a clock yet, or
/// when its plan is not Active or someone runs it).
pub(super) fn orphan_of_node(
    runners: Option<&Runners>,
    now: Option<Timestamp>,
    node: &SeiNode,
    context: &str,
) -> Option<Orphan> {
    let (runners, now) = (runners?, now?);
    let plan = node
        .status
        .as_ref()?
        .plan
        .as_ref()
        .filter(|p| p.is_active())?;
    runners.orphan(node.namespace(), node.name(), &plan.id, now, context)
}

impl Fleet {
    /// A new read of who runs this cluster's plans, judged at `now`.
    pub fn set_runners(&mut self, runners: Runners, now: Timestamp) {
        self.runners = Some(runners);
        self.judge_orphans(now);
    }

    /// Who runs this cluster's plans, as last read.
    pub fn runners(&self) -> Option<&Runners> {
        self.runners.as_ref()
    }

    /// The Active plans as (namespace, node, plan ID): what a read of the Leases asked for now
    /// checks ([`Runners::checked`]).
    pub fn active_plans(&self) -> BTreeSet<(String, String, String)> {
        self.nodes
            .values()
            .filter_map(|node| {
                let plan = node.status.as_ref()?.plan.as_ref()?;
                plan.is_active().then(|| {
                    (
                        node.namespace().to_owned(),
                        node.name().to_owned(),
                        plan.id.clone(),
                    )
                })
            })
            .collect()
    }

    /// Judges every row's plan against the last read at `now` (a Lease expires with time).
    pub fn judge_orphans(&mut self, now: Timestamp) {
        self.runners_judged_at = Some(now);
        let Some(runners) = self.runners.as_ref() else {
            return;
        };
        let mut changed = Vec::new();
        for (key, node) in self.nodes.iter() {
            let Some(row) = self.rows.get_mut(key) else {
                continue;
            };
            let orphan = orphan_of_node(Some(runners), Some(now), node, &self.context);
            if orphan == row.orphan {
                continue;
            }
            self.counts.remove(row);
            row.set_orphan(orphan);
            self.counts.add(row);
            self.widths.grow(row);
            changed.push(row.key.clone());
        }
        for key in changed {
            self.log_row_change(key);
        }
    }
}
