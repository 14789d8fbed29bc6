//! Abort and promote of a recorded rollout as operator actions, so the console drives them
//! through the same preview, confirmation, read-only refusal and journal as any action
//! (`ops::action`). What they do is `ops::rollout_control` (`Ops::abort_rollout`,
//! `Ops::promote_rollout`), the same calls `rollout abort|promote` make; the preview is the
//! rollout as `rollout status` shows it (`ops::rollout_view`) and what the step does to it.
use std::time::Duration;

use crate::actions::event::ActionKind;
use crate::ops::action::{ActionFuture, Operation, PreviewLine, Previewed};
use crate::ops::rollout_record::RolloutState;
use crate::ops::rollout_view::RolloutView;
use crate::ops::skew::SkewScope;
use crate::ops::{Ops, OpsError, PermissionVerdict, Report, RunEnd};
use crate::ports::access::PermissionCheck;

/// The journal's and Events' names of the two steps.
pub const ABORT: ActionKind = ActionKind::new("rollout-abort", "ConsoleRolloutAbort");
pub const PROMOTE: ActionKind = ActionKind::new("rollout-promote", "ConsoleRolloutPromote");

/// How long an abort waits for a live runner to reach its safe point.
pub const ABORT_WAIT: Duration = Duration::from_secs(120);

/// What an abort does, said in its preview and its confirmation.
pub const ABORT_EFFECT: &str = "no further node or wave starts; a node whose update plan is \
    Active finishes that plan (upstream never cancels an Active plan); a health gate being \
    waited on ends at once (its node stays changed, not verified)";

/// An abort (`abort: true`) or a promote of the rollout `target` names (its ID, or a node of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RolloutControlInput {
    pub target: String,
    pub abort: bool,
}

/// The rollout as read before the step.
#[derive(Debug, Clone, PartialEq)]
pub struct RolloutControlPrepared {
    pub input: RolloutControlInput,
    pub view: RolloutView,
    pub blocked: Option<String>,
    pub permissions: PermissionVerdict,
}

impl RolloutControlInput {
    fn verb(&self) -> &'static str {
        if self.abort { "abort" } else { "promote" }
    }
}

/// The record's calls: read it, write the request (and, for a gone runner's abort, the state).
fn checks(namespace: &str, id: &str) -> Vec<PermissionCheck> {
    let name = crate::ops::rollout_record::lease_name(id);
    let group = "coordination.k8s.io";
    vec![
        PermissionCheck::new("list", group, "leases", namespace, ""),
        PermissionCheck::new("get", group, "leases", namespace, name.clone()),
        PermissionCheck::new("update", group, "leases", namespace, name),
    ]
}

async fn prepare(
    ops: &Ops<'_>,
    input: RolloutControlInput,
) -> Result<RolloutControlPrepared, OpsError> {
    let view = ops.rollout_view(&input.target).await?;
    let state = view.record.state;
    let blocked = if state.is_finished() {
        Some(format!(
            "rollout {} is already {}",
            view.record.id,
            state.as_str()
        ))
    } else if !input.abort && state != RolloutState::Holding {
        Some(format!(
            "rollout {} is {}, not holding",
            view.record.id,
            view.word()
        ))
    } else if !input.abort && view.is_orphaned() {
        Some(format!(
            "rollout {} holds but its runner is gone: nothing would go on; resume it with `{}` \
             or abort it",
            view.record.id,
            view.record.resume_command()
        ))
    } else {
        None
    };
    let permissions = ops
        .check(checks(ops.namespace(), &view.record.id), true)
        .await;
    Ok(RolloutControlPrepared {
        input,
        view,
        blocked,
        permissions,
    })
}

impl RolloutControlPrepared {
    fn text(&self) -> String {
        let id = &self.view.record.id;
        let what = if !self.input.abort {
            format!(
                "promote rollout {id}: its runner starts wave {} of {} within seconds\n",
                self.view.record.wave + 2,
                self.view.record.waves.len()
            )
        } else if self.view.is_orphaned() {
            format!(
                "abort rollout {id}: its runner is gone, so this console writes `aborted` \
                 itself; a plan it left Active stays Active until the same rollout, an undo or \
                 a live controller runs it to its end\n"
            )
        } else {
            format!("abort rollout {id} at its next safe point: {ABORT_EFFECT}\n")
        };
        format!("{what}\n{}", self.view.text())
    }
}

impl Operation for RolloutControlInput {
    type Prepared = RolloutControlPrepared;

    fn kind(&self) -> ActionKind {
        if self.abort { ABORT } else { PROMOTE }
    }

    fn nodes(&self) -> Vec<String> {
        vec![self.target.clone()]
    }

    fn detail(&self) -> String {
        format!("{} rollout of {}", self.verb(), self.target)
    }

    fn dry_run(&self) -> bool {
        false
    }

    fn summary(&self, namespace: &str) -> String {
        format!("{} the rollout of {namespace}/{}", self.verb(), self.target)
    }

    fn prepare<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, RolloutControlPrepared> {
        Box::pin(prepare(ops, self.clone()))
    }

    /// Writes only the rollout's record (a Lease), nothing of a SeiNode.
    fn skew_scope(&self) -> SkewScope {
        SkewScope {
            writes: &[],
            hands_off: false,
        }
    }
}

impl Previewed for RolloutControlPrepared {
    fn kind(&self) -> ActionKind {
        Operation::kind(&self.input)
    }

    fn nodes(&self) -> Vec<String> {
        self.view
            .record
            .nodes
            .iter()
            .map(|n| n.name.clone())
            .collect()
    }

    fn detail(&self) -> String {
        format!("rollout {}", self.view.record.id)
    }

    fn text(&self) -> String {
        RolloutControlPrepared::text(self)
    }

    fn preview_lines(&self) -> Vec<PreviewLine> {
        let json = serde_json::json!({"event": "preview", "preview": {
            "step": self.input.verb(), "rollout": self.view.record, "shown": self.view.word(),
            "runner": self.view.runner_words(), "blocked": self.blocked,
        }});
        vec![PreviewLine::Preview {
            text: RolloutControlPrepared::text(self),
            json,
        }]
    }

    fn refusal(&self) -> Option<OpsError> {
        if let Some(reason) = &self.blocked {
            return Some(OpsError::Step(format!("{reason}; nothing was changed")));
        }
        self.permissions.refusal()
    }

    fn permissions(&self) -> &PermissionVerdict {
        &self.permissions
    }

    fn confirm_names(&self) -> Vec<String> {
        Vec::new()
    }

    fn question(&self) -> String {
        let id = &self.view.record.id;
        if self.input.abort {
            format!("abort rollout {id} ({ABORT_EFFECT})?")
        } else {
            format!("promote rollout {id} (its next wave starts)?")
        }
    }

    /// Only the record changes; the runner (or nobody) runs the plans.
    fn follows_a_plan(&self) -> bool {
        false
    }

    /// The runner holds the nodes' Leases; this step writes only the record.
    fn lease(&self) -> Option<String> {
        None
    }

    fn run<'a>(&'a self, ops: &'a Ops<'a>, report: &'a dyn Report) -> ActionFuture<'a, RunEnd> {
        Box::pin(async move {
            let id = self.view.record.id.as_str();
            if self.input.abort {
                let end = ops.abort_rollout(Some(id), ABORT_WAIT, report).await?;
                let message = end.lines.join("\n");
                Ok(match end.state {
                    RolloutState::Aborted => RunEnd::done(message),
                    _ => RunEnd::failed(&self.input.target, message),
                })
            } else {
                Ok(RunEnd::done(ops.promote_rollout(Some(id), report).await?))
            }
        })
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
