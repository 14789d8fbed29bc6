//! The one contract every operator action implements, and the preamble written once.
//!
//! An action is a request type implementing [`Operation`] (its inputs, validated by whoever
//! built it: a command's flags or a console form) and a prepared type implementing
//! [`Previewed`] (what `prepare` found: text and JSON, the refusal, the permission verdict, the
//! names to type, the question). The commands and the console drive any action through
//! [`prepare`] and [`execute`] (or their type-erased forms, [`AnyOperation`] and
//! `dyn Previewed`), so neither knows one action from another.
//!
//! The preamble is here and nowhere else: a change is refused in read-only mode before any call
//! (journaled), then what `prepare` said cannot run is refused (journaled), then the node's
//! Lease is taken and the action runs under it; a rollout's end is queued for the webhooks
//! (`ops::notify::rollout_end`), never waited on.
use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::skew::{self, Guarded, SkewScope};
use super::{Ops, OpsError, PermissionVerdict, Report, RunEnd};
use crate::actions::event::ActionKind;

/// The future of an action step; `Send` so the console runs it in a task.
pub type ActionFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, OpsError>> + Send + 'a>>;

/// An operator action as asked for: validated inputs, nothing read yet.
pub trait Operation: std::fmt::Debug + Clone + PartialEq + Send + Sync + 'static {
    type Prepared: Previewed;

    fn kind(&self) -> ActionKind;
    /// The nodes as the operator named them (journal lines and refusals before any read).
    fn nodes(&self) -> Vec<String>;
    /// The journal's detail (`image REF`).
    fn detail(&self) -> String;
    /// A preview only: not refused in read-only mode, no permission asked, nothing changed.
    fn dry_run(&self) -> bool;
    /// One line naming what is asked, in `namespace` (the console's dialog title line).
    fn summary(&self, namespace: &str) -> String;
    /// Reads, previews and checks; [`prepare`] calls it after the read-only refusal.
    fn prepare<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, Self::Prepared>;
    /// What the action writes and whether a live controller carries it out: the skew guard's
    /// questions ([`super::skew`]).
    fn skew_scope(&self) -> SkewScope;
}

/// A prepared action: everything known before the first change, and how to make it.
pub trait Previewed: Send + Sync + 'static {
    fn kind(&self) -> ActionKind;
    /// The nodes acted on, as the journal names them.
    fn nodes(&self) -> Vec<String>;
    fn detail(&self) -> String;
    /// The image of a rollout whose end (halted or finished) [`execute`] notifies
    /// (`ops::notify`); `None`: the action's end is not notified.
    fn notified_image(&self) -> Option<String> {
        None
    }
    /// What is decided for the action as a whole, shown first (a rollout's waves).
    fn head(&self) -> String {
        String::new()
    }
    /// The preview, per node.
    fn text(&self) -> String;
    /// The preview as the commands print it: text or JSON lines, and notes.
    fn preview_lines(&self) -> Vec<PreviewLine>;
    /// Why it cannot run (blocked, a permission denied), when it cannot.
    fn refusal(&self) -> Option<OpsError>;
    fn permissions(&self) -> &PermissionVerdict;
    /// Validators and seeds: their names are typed to confirm.
    fn confirm_names(&self) -> Vec<String>;
    fn question(&self) -> String;
    /// Nothing to do (every node already there): the command ends without asking.
    fn nothing_to_do(&self) -> Option<String> {
        None
    }
    /// How a dry run ends: nothing changed, or the run would be refused (exit 1).
    fn dry_run_end(&self) -> RunEnd {
        RunEnd::done("dry run: nothing was changed")
    }
    /// Whether the action persists and follows a plan, so who executes it matters (a restart
    /// only deletes a pod).
    fn follows_a_plan(&self) -> bool {
        true
    }
    /// What the action does and to how many nodes, for one question over several clusters
    /// (`("Roll out IMAGE", 3)`); `None`: the action goes to one cluster only.
    fn across(&self) -> Option<(String, usize)> {
        None
    }
    /// The node whose Lease [`execute`] holds while the action runs; `None`: the action takes
    /// its nodes' Leases itself (a rollout, wave by wave).
    fn lease(&self) -> Option<String>;
    /// The change itself; [`execute`] calls it after the refusals, under the Lease.
    fn run<'a>(&'a self, ops: &'a Ops<'a>, report: &'a dyn Report) -> ActionFuture<'a, RunEnd>;
    fn as_any(&self) -> &dyn Any;
}

/// How a one-node action's dry run ends: the run would be refused (`blocked`, exit 1), else
/// `done`. Shared by address, restart, pause and seed create.
pub fn one_node_dry_run_end(node: &str, blocked: Option<&str>, done: &str) -> RunEnd {
    match blocked {
        Some(reason) => RunEnd::failed(
            node,
            format!("dry run: the run would be refused: {reason}; nothing was changed"),
        ),
        None => RunEnd::done(done),
    }
}

/// One piece of a command's preview.
#[derive(Debug, Clone, PartialEq)]
pub enum PreviewLine {
    /// Printed as is in text output, left out of JSON (a rollout's waves).
    TextOnly(String),
    /// A note (stderr, or a JSON note line).
    Note(super::Note),
    /// A preview: its text, or one JSON line `{"event": "preview", "preview": …}`.
    Preview {
        text: String,
        json: serde_json::Value,
    },
}

/// The one read-only decision: `Some` refusal of `action` (`run rollout on a, b`) when
/// read-only mode is on (`hint` says where it was switched on). Every entry point asks it
/// before any request: the commands before connecting, the console at the key, the preamble
/// of [`prepare`] and [`execute`]; the kube client's read-only layer stays beneath as a
/// second line.
pub fn read_only_refusal(hint: Option<&'static str>, action: String) -> Option<OpsError> {
    hint.map(|hint| OpsError::ReadOnly { action, hint })
}

/// `run KIND on a, b` (`a new seed` when no node exists yet): the action a refusal names.
pub fn action_words(kind: ActionKind, nodes: &[String]) -> String {
    let nodes = match nodes {
        [] => "a new seed".to_owned(),
        nodes => nodes.join(", "),
    };
    format!("run {} on {nodes}", kind.name())
}

/// Prepares any action: refused in read-only mode (journaled) unless a dry run, and with
/// `require_journal` when the journal cannot record it, then previewed, then refused
/// (journaled, a dry run too) when the port does not understand a node or the cluster's CRD
/// ([`skew::guard`]): the preview it built is not shown.
pub async fn prepare<A: Operation>(
    ops: &Ops<'_>,
    action: &A,
) -> Result<Guarded<A::Prepared>, OpsError> {
    if !action.dry_run() {
        ops.refuse_if_read_only(action.kind(), &action.nodes(), &action.detail())?;
        ops.refuse_if_unrecordable(action_words(action.kind(), &action.nodes()))?;
    }
    let prepared = action.prepare(ops).await?;
    let notes = skew::guard(ops, action.skew_scope(), &prepared).await?;
    Ok(Guarded { prepared, notes })
}

/// Runs any prepared action under the shared preamble: the read-only refusal, what `prepare`
/// said cannot run, the node's Lease.
pub async fn execute<P: Previewed + ?Sized>(
    ops: &Ops<'_>,
    prepared: &P,
    report: &dyn Report,
) -> Result<RunEnd, OpsError> {
    let (kind, nodes, detail) = (prepared.kind(), prepared.nodes(), prepared.detail());
    ops.refuse_if_read_only(kind, &nodes, &detail)?;
    ops.refuse_if_unrecordable(action_words(kind, &nodes))?;
    ops.refuse(kind, &nodes, &detail, prepared.refusal())?;
    // Runs on these nodes whose console died are closed before this one records anything.
    ops.close_interrupted(&nodes).await;
    let end = match prepared.lease() {
        Some(node) => {
            let lease = ops.take_node_lease(&node, report).await?;
            ops.under_lease(lease, prepared.run(ops, report)).await
        }
        None => prepared.run(ops, report).await,
    };
    if let Some(image) = prepared.notified_image() {
        super::notify::rollout_end(ops, &nodes, image, &end);
    }
    end
}

/// Journals what `prepare` said cannot run (nothing to do, a permission missing) and returns it,
/// before asking the operator anything.
pub fn refuse<P: Previewed + ?Sized>(ops: &Ops<'_>, prepared: &P) -> Result<(), OpsError> {
    ops.refuse(
        prepared.kind(),
        &prepared.nodes(),
        &prepared.detail(),
        prepared.refusal(),
    )
}

/// Any [`Operation`], type-erased: what the console's model holds between its form and the
/// preview, compared and cloned as a value.
pub trait AnyOperation: std::fmt::Debug + Send + Sync + 'static {
    fn kind(&self) -> ActionKind;
    fn nodes(&self) -> Vec<String>;
    fn summary(&self, namespace: &str) -> String;
    /// [`prepare`], boxed.
    fn prepare_any<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, Box<dyn Previewed>>;
    fn as_any(&self) -> &dyn Any;
    fn same_as(&self, other: &dyn AnyOperation) -> bool;
}

impl<A: Operation> AnyOperation for A {
    fn kind(&self) -> ActionKind {
        Operation::kind(self)
    }

    fn nodes(&self) -> Vec<String> {
        Operation::nodes(self)
    }

    fn summary(&self, namespace: &str) -> String {
        Operation::summary(self, namespace)
    }

    fn prepare_any<'a>(&'a self, ops: &'a Ops<'a>) -> ActionFuture<'a, Box<dyn Previewed>> {
        Box::pin(async move {
            let prepared = prepare(ops, self).await?;
            Ok(Box::new(prepared) as Box<dyn Previewed>)
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn same_as(&self, other: &dyn AnyOperation) -> bool {
        other.as_any().downcast_ref::<A>() == Some(self)
    }
}

/// A shared, comparable handle on any operation (the console's request).
#[derive(Debug, Clone)]
pub struct SomeOperation(pub Arc<dyn AnyOperation>);

impl SomeOperation {
    pub fn new(operation: impl Operation) -> SomeOperation {
        SomeOperation(Arc::new(operation))
    }

    /// The operation as its own type (tests and the dialog of one action).
    pub fn downcast<A: Operation>(&self) -> Option<&A> {
        self.0.as_any().downcast_ref::<A>()
    }
}

impl PartialEq for SomeOperation {
    fn eq(&self, other: &Self) -> bool {
        self.0.same_as(other.0.as_ref())
    }
}

impl Eq for SomeOperation {}

impl std::ops::Deref for SomeOperation {
    type Target = dyn AnyOperation;

    fn deref(&self) -> &Self::Target {
        self.0.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_read_only_decision_names_the_action_and_where_read_only_came_from() {
        assert_eq!(read_only_refusal(None, "x".into()), None);
        let refused = read_only_refusal(
            Some("started with --read-only"),
            action_words(crate::ops::actions::restart::KIND, &["full-0".to_owned()]),
        );
        assert_eq!(
            refused.expect("refused").to_string(),
            "read-only mode: refusing to run restart on full-0; nothing was sent to the cluster (started with --read-only)"
        );
        assert_eq!(
            action_words(crate::ops::actions::seed::KIND, &[]),
            "run seed-create on a new seed"
        );
    }

    #[test]
    fn every_action_is_registered_once_with_a_console_reason_and_the_names_stay_as_journaled() {
        let names: Vec<(&str, &str)> = crate::ops::actions::all()
            .iter()
            .map(|k| (k.name(), k.event_reason()))
            .collect();
        // Journal lines and Events already written name these: never renamed.
        for known in [
            ("rollout", "ConsoleImageRollout"),
            ("address", "ConsoleExternalAddress"),
            ("seed-create", "ConsoleSeedCreate"),
            ("restart", "ConsolePodRestart"),
        ] {
            assert!(names.contains(&known), "{known:?}");
        }
        for (at, (name, reason)) in names.iter().enumerate() {
            assert!(reason.starts_with("Console"), "{name}");
            assert!(
                names[at + 1..]
                    .iter()
                    .all(|(n, r)| n != name && r != reason),
                "{name} twice"
            );
        }
        assert_eq!(
            crate::ops::action_kind("nope")
                .expect_err("unknown")
                .to_string(),
            format!(
                "no action \"nope\"; actions: {}",
                names.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
            )
        );
    }
}
