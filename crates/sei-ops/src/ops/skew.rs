//! Never act on what the port does not understand (issue 36): the guard every action passes
//! through in the shared preamble ([`super::action::prepare`]), after its preview was built and
//! before anything is asked or changed.
//!
//! Two facts are checked, read through the cluster port: the cluster's SeiNode CRD against the
//! embedded one (`api::crd_compare`; a CRD the operator may not read is said once, and the
//! nodes' own fields are still checked), and every node the action touches, for fields outside
//! the embedded schema (`api::schema::node_unknown_field_paths`). The action is refused,
//! journaled, with the paths and the fix, when:
//!
//! - a node carries fields the port does not know (a maintenance hold it would ignore), or the
//!   CRD has spec fields or values the port does not know (`CrdComparison::planning`): the
//!   console's plan could differ from the controller's. A live controller may still carry the
//!   action out (it knows its own fields: the action's [`SkewScope::hands_off`] and an executor
//!   that resolves to the controller), and the preview then says that the console cannot show
//!   that controller's exact plan;
//! - the CRD lacks fields the action writes (`CrdComparison::missing_written`: an older CRD
//!   would silently drop them).
//!
//! `--allow-unknown-fields` (`Settings::allow_unknown_fields`) lets an operator who knows
//! better go on: the preview says what is overridden, the journal's detail and the node's
//! console-action record say the flag was given.
use std::fmt::Write as _;

use super::action::{PreviewLine, Previewed};
use super::{Note, Ops, OpsError, PermissionVerdict, Report, RunEnd};
use crate::actions::event::ActionKind;
use crate::api::crd_compare::{CrdView, compare_crd};
use crate::api::schema::node_unknown_field_paths;
use crate::api::upstream;
use crate::journal::Outcome;
use crate::ports::ClusterErrorKind;

/// The flag that overrides the guard, as the commands spell it.
pub const ALLOW_FLAG: &str = "--allow-unknown-fields";

/// What an action writes and whether a live controller can carry it out, declared by each
/// action ([`super::action::Operation::skew_scope`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkewScope {
    /// Field paths the action itself writes (`spec.image`, `status.plan`); the embedded
    /// executor's own writes (`status`) are added when it executes.
    pub writes: &'static [&'static str],
    /// A live controller executes what the action starts (it persists a plan, or changes a
    /// spec field the controller reconciles): a node the port does not understand is handed
    /// off to it instead of refused.
    pub hands_off: bool,
}

/// Reads the cluster's SeiNode CRD and compares it with the embedded one.
pub async fn read_crd(cluster: &dyn crate::ports::ClusterApi) -> CrdView {
    match cluster.get_seinode_crd().await {
        Ok(Some(crd)) => match compare_crd(&crd) {
            Ok(comparison) => CrdView::Compared(comparison),
            Err(err) => CrdView::Unread(err.to_string()),
        },
        Ok(None) => CrdView::Unread("the cluster has no SeiNode CRD".to_owned()),
        Err(err) if err.kind == ClusterErrorKind::Forbidden => CrdView::Forbidden(err.message),
        Err(err) => CrdView::Unread(format!("reading the SeiNode CRD: {err}")),
    }
}

/// What the guard found for one action.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Findings {
    /// `(node, paths)` of nodes carrying fields the port does not know.
    nodes: Vec<(String, Vec<String>)>,
    /// CRD spec fields or values the port does not know.
    planning: Vec<String>,
    /// Fields the action writes that the CRD lacks.
    missing: Vec<String>,
    /// Status fields the CRD lacks, which the embedded executor would write.
    executor_missing: Vec<String>,
}

impl Findings {
    fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.planning.is_empty() && self.missing.is_empty()
    }

    /// What the port does not understand, one clause each.
    fn clauses(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .nodes
            .iter()
            .map(|(node, paths)| {
                format!(
                    "{node} carries fields sei-console does not know ({})",
                    paths.join(", ")
                )
            })
            .collect();
        if !self.planning.is_empty() {
            out.push(format!(
                "the cluster's SeiNode CRD has spec fields sei-console does not know, which \
                 could change the plan ({})",
                self.planning.join(", ")
            ));
        }
        if !self.missing.is_empty() {
            out.push(format!(
                "the cluster's SeiNode CRD lacks fields this action writes, which the API \
                 server would drop ({})",
                self.missing.join(", ")
            ));
        }
        out
    }
}

/// The guard's verdict, computed in [`super::action::prepare`].
async fn findings(ops: &Ops<'_>, nodes: &[String], scope: SkewScope) -> (Findings, Vec<String>) {
    let mut notes = Vec::new();
    let mut found = Findings::default();
    let crd = read_crd(ops.ports.cluster).await;
    match crd.comparison() {
        Some(comparison) => {
            found.planning = comparison
                .planning()
                .iter()
                .map(|d| d.path.clone())
                .collect();
            let paths = |writes: &[&str]| -> Vec<String> {
                comparison
                    .missing_written(writes)
                    .iter()
                    .map(|d| d.path.clone())
                    .collect()
            };
            found.missing = paths(scope.writes);
            found.executor_missing = paths(&["status"]);
        }
        None => notes.push(crd.line()),
    }
    for name in nodes {
        // A node that cannot be read here was reported by the action's own prepare.
        let Ok(Some(node)) = ops.ports.cluster.get_seinode(ops.namespace(), name).await else {
            continue;
        };
        match node_unknown_field_paths(&node) {
            Ok(paths) if !paths.is_empty() => found.nodes.push((name.clone(), paths)),
            Ok(_) => {}
            Err(err) => notes.push(format!("{name}: fields not checked: {err}")),
        }
    }
    (found, notes)
}

/// Refuses `prepared` (journaled, nothing changed) when the port does not understand a node
/// or the CRD it acts on; else returns the notes its preview carries (a hand-off to the
/// controller, an override, a CRD that could not be read).
pub(super) async fn guard(
    ops: &Ops<'_>,
    scope: SkewScope,
    prepared: &dyn Previewed,
) -> Result<Vec<String>, OpsError> {
    let (kind, nodes) = (prepared.kind(), prepared.nodes());
    let (mut found, mut notes) = findings(ops, &nodes, scope).await;
    if found.is_empty() && found.executor_missing.is_empty() {
        return Ok(notes);
    }
    // Who executes matters for what a controller could carry out and what the embedded
    // executor would write; an action that neither hands off nor follows a plan (a restart)
    // is the console's own.
    let embedded = if scope.hands_off || prepared.follows_a_plan() {
        ops.executor_choice().await?.embedded
    } else {
        true
    };
    if embedded && prepared.follows_a_plan() {
        // The embedded executor writes status itself: the CRD must keep all of it.
        for path in std::mem::take(&mut found.executor_missing) {
            if !found.missing.contains(&path) {
                found.missing.push(path);
            }
        }
    }
    if found.is_empty() {
        return Ok(notes);
    }
    let clauses = found.clauses();
    if ops.settings.allow_unknown_fields {
        for clause in clauses {
            notes.push(format!(
                "{clause}: going on as {ALLOW_FLAG} asks; the plan shown is the port's ({})",
                upstream::ported_line()
            ));
        }
        return Ok(notes);
    }
    let handed_off = scope.hands_off && !embedded && found.missing.is_empty();
    if handed_off {
        for (node, paths) in &found.nodes {
            notes.push(format!(
                "{node}: the console cannot show the controller's exact plan for this node: it \
                 carries fields sei-console does not know ({}); the live controller, which \
                 knows them, carries the action out",
                paths.join(", ")
            ));
        }
        if !found.planning.is_empty() {
            notes.push(format!(
                "the console cannot show the controller's exact plan: the cluster's CRD has \
                 spec fields sei-console does not know ({}); the live controller carries the \
                 action out",
                found.planning.join(", ")
            ));
        }
        return Ok(notes);
    }
    let refusal = OpsError::NotUnderstood(refusal_text(kind, &nodes, &clauses, scope, &found));
    ops.journal_quietly(
        kind,
        &nodes,
        &prepared.detail(),
        Outcome::Refused,
        Some(refusal.to_string()),
    );
    Err(refusal)
}

fn refusal_text(
    kind: ActionKind,
    nodes: &[String],
    clauses: &[String],
    scope: SkewScope,
    found: &Findings,
) -> String {
    let mut text = format!(
        "refusing to {}: {}; nothing was changed. Fix: ",
        super::action::action_words(kind, nodes),
        clauses.join("; ")
    );
    let mut fixes = Vec::new();
    if !found.missing.is_empty() {
        fixes.push(format!(
            "install the SeiNode CRD sei-console ports (sei-k8s-controller {}) or a newer one",
            upstream::CONTROLLER_COMMIT
        ));
    } else if scope.hands_off {
        fixes.push(
            "let the controller run it (start the controller, or use --executor controller \
             while it runs)"
                .to_owned(),
        );
    }
    fixes.push("upgrade sei-console to a version that knows these fields".to_owned());
    fixes.push(format!("or pass {ALLOW_FLAG} if you know better"));
    let _ = write!(text, "{}", fixes.join(", "));
    text
}

/// A prepared action with the guard's notes in front of its preview. Everything else is the
/// action's own.
#[derive(Debug)]
pub struct Guarded<P> {
    pub prepared: P,
    pub notes: Vec<String>,
}

impl<P> std::ops::Deref for Guarded<P> {
    type Target = P;

    fn deref(&self) -> &P {
        &self.prepared
    }
}

impl<P: Previewed> Previewed for Guarded<P> {
    fn kind(&self) -> ActionKind {
        self.prepared.kind()
    }

    fn nodes(&self) -> Vec<String> {
        self.prepared.nodes()
    }

    fn detail(&self) -> String {
        self.prepared.detail()
    }

    fn head(&self) -> String {
        self.prepared.head()
    }

    fn text(&self) -> String {
        let mut text = String::new();
        for note in &self.notes {
            let _ = writeln!(text, "note: {note}");
        }
        text.push_str(&self.prepared.text());
        text
    }

    fn preview_lines(&self) -> Vec<PreviewLine> {
        self.notes
            .iter()
            .map(|note| PreviewLine::Note(Note::Warning(note.clone())))
            .chain(self.prepared.preview_lines())
            .collect()
    }

    fn refusal(&self) -> Option<OpsError> {
        self.prepared.refusal()
    }

    fn permissions(&self) -> &PermissionVerdict {
        self.prepared.permissions()
    }

    fn confirm_names(&self) -> Vec<String> {
        self.prepared.confirm_names()
    }

    fn question(&self) -> String {
        self.prepared.question()
    }

    fn nothing_to_do(&self) -> Option<String> {
        self.prepared.nothing_to_do()
    }

    fn dry_run_end(&self) -> RunEnd {
        self.prepared.dry_run_end()
    }

    fn notified_image(&self) -> Option<String> {
        self.prepared.notified_image()
    }

    fn follows_a_plan(&self) -> bool {
        self.prepared.follows_a_plan()
    }

    fn across(&self) -> Option<(String, usize)> {
        self.prepared.across()
    }

    fn lease(&self) -> Option<String> {
        self.prepared.lease()
    }

    fn run<'a>(
        &'a self,
        ops: &'a Ops<'a>,
        report: &'a dyn Report,
    ) -> super::action::ActionFuture<'a, RunEnd> {
        self.prepared.run(ops, report)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self.prepared.as_any()
    }
}
