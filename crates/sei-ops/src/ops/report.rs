//! What a running action tells the operator: typed notes and plan progress through [`Report`]
//! (the commands print them, the console shows them in its progress dialog), and how it ended.
use std::fmt;

use crate::executor::driver::Progress;

/// A line for the operator besides plan progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// A wave starts: `index` counts from 1.
    Wave {
        index: usize,
        of: usize,
        nodes: Vec<String>,
    },
    /// Every node changes at once (`--no-wait` with more than one wave).
    NoWaitNoWaves,
    /// The node already runs the image and has nothing to do.
    AlreadyRolled(String),
    /// `prepare` found nothing to do for the node, or nothing it may do: it is left alone.
    Skipped { node: String, reason: String },
    /// A new plan was written for the node.
    PlanPersisted { node: String, plan_id: String },
    /// The node's Active plan goes first; the change is written after it ended.
    PlanAlreadyActive { node: String, plan_id: String },
    /// Who executes, for `auto` (`executor: controller (holder)`).
    Executor(String),
    /// A controller became live while the console executed: it gets the plan.
    HandedOff { node: String, holder: String },
    /// A followed plan ended and was cleared by the controller's next reconcile.
    PlanCleared {
        node: String,
        plan_id: String,
        evidence: String,
    },
    /// The node's Lease is held by an executor that stopped renewing it (any machine): judged
    /// gone, its Lease waited out.
    WaitingForLease {
        node: String,
        holder: String,
        /// Seconds since its last renewal.
        renewed_ago: u64,
        seconds_left: u64,
    },
    /// The node's Lease was held by a console of this machine whose process exited (or is a
    /// zombie its parent has not reaped): taken over at once.
    TookOverLease {
        node: String,
        holder: String,
        zombie: bool,
    },
    /// The platform config could not be read; an empty one is used.
    Platform(String),
    /// A rolled node's health gate after one reading of its RPC: a live line, each one
    /// replacing the node's last (the console's dialog), the commands print fewer.
    Gate {
        node: String,
        line: crate::chain::gate::GateLine,
    },
    /// The rollout's state changed (running, holding, halted, aborted, done): its record
    /// was written (`ops::rollout_tracker`). The one event a notifier listens for.
    Rollout(crate::ops::rollout_tracker::RolloutChange),
    /// Anything else worth a line.
    Info(String),
    /// Something went wrong that did not stop the action (an Event write).
    Warning(String),
    /// A journal line could not be written: this action is not (fully) recorded.
    Unrecorded(String),
}

impl Note {
    /// A live line: it stands for the node's state now, not an event.
    pub fn is_live(&self) -> bool {
        matches!(self, Note::Gate { .. })
    }

    pub fn is_warning(&self) -> bool {
        matches!(
            self,
            Note::Warning(_) | Note::Unrecorded(_) | Note::Skipped { .. }
        )
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Wave { index, of, nodes } => {
                write!(f, "wave {index} of {of}: {}", nodes.join(", "))
            }
            Note::NoWaitNoWaves => {
                f.write_str("--no-wait: every node is changed now; waves need waiting")
            }
            Note::AlreadyRolled(text) => f.write_str(text),
            Note::Skipped { node, reason } => {
                write!(f, "warning: {node}: skipped, nothing was changed: {reason}")
            }
            Note::PlanPersisted { node, plan_id } => write!(f, "{node}: plan {plan_id} persisted"),
            Note::PlanAlreadyActive { node, plan_id } => {
                write!(
                    f,
                    "{node}: plan {plan_id} already active; following it before changing the node"
                )
            }
            Note::Executor(text) | Note::Info(text) => f.write_str(text),
            Note::Gate { node, line } => write!(f, "{node}: health gate: {line}"),
            Note::HandedOff { node, holder } => write!(
                f,
                "{node}: controller {holder} is live: handing the plan over and following it"
            ),
            Note::PlanCleared {
                node,
                plan_id,
                evidence,
            } => write!(
                f,
                "{node}: plan {plan_id} ended and was cleared by the controller ({evidence})"
            ),
            Note::WaitingForLease {
                node,
                holder,
                renewed_ago,
                seconds_left,
            } => write!(
                f,
                "{node}: waiting for the Lease of {holder} to expire: not renewed for \
                 {renewed_ago} s (renewals are due every {} s), so its holder is judged gone: \
                 {seconds_left} s left",
                crate::executor::lease::NODE_LEASE_RENEW_INTERVAL.as_secs()
            ),
            Note::TookOverLease {
                node,
                holder,
                zombie,
            } => {
                let how = if *zombie {
                    "is a zombie (killed, not yet reaped by its parent)"
                } else {
                    "has exited"
                };
                write!(
                    f,
                    "{node}: took over the Lease of {holder} at once: its process on this \
                     machine {how}; resuming"
                )
            }
            Note::Platform(text) => write!(f, "note: {text}"),
            Note::Rollout(change) => write!(f, "{change}"),
            Note::Warning(text) => write!(f, "warning: {text}"),
            Note::Unrecorded(why) => {
                write!(
                    f,
                    "warning: not recorded in the journal of console actions: {why}"
                )
            }
        }
    }
}

/// Where notes and plan progress go.
pub trait Report: Send + Sync {
    fn note(&self, note: &Note);
    /// A progress event of `node`'s plan; `total` is the plan's task count when known.
    fn progress(&self, node: &str, progress: &Progress, total: usize);
}

/// How an action ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEnd {
    pub ok: bool,
    /// The last line: what happened, or where it stopped and what to do.
    pub message: String,
    /// The node it stopped at.
    pub failed_node: Option<String>,
    /// Fields of the `-o json` result line beside `ok`, `message` and `failedNode` (a seed's
    /// `peer` and `probe`).
    pub result: serde_json::Map<String, serde_json::Value>,
    /// The command's exit code when it is neither 0 nor 1 (a seed that runs but is unreachable).
    pub exit_code: Option<u8>,
}

impl RunEnd {
    pub fn done(message: impl Into<String>) -> RunEnd {
        RunEnd {
            ok: true,
            message: message.into(),
            failed_node: None,
            result: serde_json::Map::new(),
            exit_code: None,
        }
    }

    pub fn failed(node: &str, message: impl Into<String>) -> RunEnd {
        RunEnd {
            ok: false,
            message: message.into(),
            failed_node: Some(node.to_owned()),
            result: serde_json::Map::new(),
            exit_code: None,
        }
    }
}
