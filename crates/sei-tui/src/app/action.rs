//! Operator actions in the console as a state machine: prompt → preview (computed by an effect
//! with the same library code as the commands) → confirmation → execution with live progress.
//! Esc cancels at every step before execution. Pure: no I/O here.
use super::console_actions::{self, FormInput};
use super::errors::FormError;
use super::port::JobOptions;
use crate::actions::event::ActionKind;
use crate::actions::image_ref::ImageRef;
use crate::config::{ExecutorMode, WaveDefaults};
use crate::ops::action::SomeOperation;

/// A validated action, ready for its preview and, once confirmed, for execution: any
/// operation of `ops` (the same inputs the commands build) per cluster it goes to, in the order
/// they run (a rollout of marked nodes of several clusters has one part per cluster).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRequest {
    pub parts: Vec<RequestPart>,
    /// The operator typed the override after the guard refused (`ops::skew`): the jobs run
    /// as the command line's `--allow-unknown-fields`, journaled and recorded as such.
    pub allow_unknown_fields: bool,
}

/// The action in one cluster and namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestPart {
    /// The kubeconfig context of the cluster.
    pub context: String,
    pub namespace: String,
    pub operation: SomeOperation,
}

impl ActionRequest {
    /// An action in one cluster.
    pub fn one(
        context: impl Into<String>,
        namespace: impl Into<String>,
        operation: SomeOperation,
    ) -> ActionRequest {
        ActionRequest {
            parts: vec![RequestPart {
                context: context.into(),
                namespace: namespace.into(),
                operation,
            }],
            allow_unknown_fields: false,
        }
    }

    /// How its jobs run under `executor`.
    pub fn options(&self, executor: ExecutorMode) -> JobOptions {
        JobOptions {
            executor,
            allow_unknown_fields: self.allow_unknown_fields,
        }
    }

    /// The action in the form's cluster and namespace.
    pub fn of_form(form: &Form, operation: SomeOperation) -> ActionRequest {
        ActionRequest::one(form.context.clone(), form.namespace.clone(), operation)
    }

    pub fn kind(&self) -> ActionKind {
        self.parts
            .first()
            .map_or(crate::ops::actions::rollout::KIND, |part| {
                part.operation.kind()
            })
    }

    /// The cluster(s) it goes to, as the dialog names them.
    pub fn contexts(&self) -> String {
        let contexts: Vec<&str> = self.parts.iter().map(|p| p.context.as_str()).collect();
        contexts.join(", ")
    }

    /// One line per cluster naming what is asked (the dialog's first lines).
    pub fn summary(&self) -> Vec<String> {
        match self.parts.as_slice() {
            [one] => vec![one.operation.summary(&one.namespace)],
            parts => parts
                .iter()
                .map(|p| format!("{}: {}", p.context, p.operation.summary(&p.namespace)))
                .collect(),
        }
    }
}

/// One line of a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub label: &'static str,
    pub value: String,
    /// Shown under the field while it is focused.
    pub hint: &'static str,
    /// Values left/right cycle through (the value can still be typed).
    pub choices: Vec<String>,
    /// Reached with tab only: enter on the last field before it validates the form (its
    /// default is what most actions want: the rollout's health gate).
    pub optional: bool,
}

impl Field {
    pub fn new(label: &'static str, value: impl Into<String>, hint: &'static str) -> Field {
        Field {
            label,
            value: value.into(),
            hint,
            choices: Vec::new(),
            optional: false,
        }
    }

    /// Reached with tab only (see [`Field::optional`]).
    pub fn optional(mut self) -> Field {
        self.optional = true;
        self
    }

    pub fn with_choices(mut self, choices: Vec<String>) -> Field {
        self.choices = choices;
        self
    }

    /// Left/right: the next (or previous) choice after the current value.
    pub fn cycle(&mut self, delta: isize) {
        if self.choices.is_empty() {
            return;
        }
        let count = self.choices.len() as isize;
        let next = match self.choices.iter().position(|c| *c == self.value.trim()) {
            Some(at) => (at as isize + delta).rem_euclid(count),
            None if delta < 0 => count - 1,
            None => 0,
        };
        if let Some(choice) = self.choices.get(usize::try_from(next).unwrap_or(0)) {
            self.value.clone_from(choice);
        }
    }
}

/// The canary field's value that leaves the choice to the rollout: the first nodes not yet on
/// the image, as many as the config's `[waves] canary`.
pub const CANARY_AUTO: &str = "auto";
/// The canary field's value for no canary wave.
pub const CANARY_NONE: &str = "none";

/// The prompt of an action: its target and the fields to fill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    /// The kubeconfig context of the target nodes' cluster (or of the new seed).
    pub context: String,
    /// Namespace of the target nodes (rollout, address) or of the new seed.
    pub namespace: String,
    /// Nodes acted on (empty for a seed, whose name is a field).
    pub nodes: Vec<String>,
    pub fields: Vec<Field>,
    pub focus: usize,
    /// Why the last enter did not go on (validation), shown in the form.
    pub error: Option<String>,
    /// The config's wave sizes: a rollout's defaults.
    pub waves: WaveDefaults,
    /// Marked nodes the action leaves out (an address is one node's), said in the form.
    pub ignored_marks: usize,
    /// A rollout of marked nodes of several clusters: `(context, namespace, nodes)` per cluster,
    /// in the order they roll; empty for one cluster.
    pub clusters: Vec<(String, String, Vec<String>)>,
}

impl Form {
    /// A form of `fields` for `nodes`, the first field focused.
    pub fn new(context: &str, namespace: &str, nodes: Vec<String>, fields: Vec<Field>) -> Form {
        Form {
            context: context.to_owned(),
            namespace: namespace.to_owned(),
            nodes,
            fields,
            focus: 0,
            error: None,
            waves: WaveDefaults::default(),
            ignored_marks: 0,
            clusters: Vec::new(),
        }
    }

    pub fn value(&self, index: usize) -> &str {
        self.fields.get(index).map_or("", |f| f.value.trim())
    }

    /// Non-blocking remarks about the focused value (an image not pinned by digest).
    pub fn warnings(&self, kind: ActionKind) -> Vec<String> {
        let image_field = console_actions::find(kind).and_then(|action| action.image_field);
        match image_field.and_then(|i| ImageRef::parse(self.value(i)).ok()) {
            Some(image) => image.warnings().iter().map(ToString::to_string).collect(),
            None => Vec::new(),
        }
    }
}

/// Whether the operator may go on from the preview, and what the permission checks said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionSummary {
    /// Number of SelfSubjectAccessReviews asked.
    pub checked: usize,
    /// `verb resource "name" in namespace "ns"` of each denied call, with the reason.
    pub denied: Vec<String>,
    /// The reviews themselves failed.
    pub error: Option<String>,
}

impl PermissionSummary {
    pub fn allowed(&self) -> bool {
        self.denied.is_empty() && self.error.is_none()
    }
}

/// What an effect computed for the preview dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionPreview {
    /// What is decided for the action as a whole, shown at the top: a rollout's waves and the
    /// nodes it leaves alone (already on the image, skipped).
    pub head: String,
    /// The preview text of the commands (tasks and params, config.toml patch, warnings), per
    /// node.
    pub text: String,
    pub permissions: PermissionSummary,
    /// Who will execute: `auto` resolved by the controller's Lease, or the configured mode.
    pub executor: String,
    /// Why the action cannot go on (permission denied, no plan can be built).
    pub blocked: Option<String>,
    /// Names to type to confirm (validators and seeds); empty: y or enter confirms.
    pub confirm_names: Vec<String>,
    /// The confirmation question.
    pub question: String,
    /// The action has nothing to do (a rollout whose nodes are all on the image): said, and
    /// nothing is asked.
    pub nothing_to_do: Option<String>,
}

impl ActionPreview {
    /// The text the operator must type, when any.
    pub fn expected_typing(&self) -> Option<String> {
        (!self.confirm_names.is_empty()).then(|| self.confirm_names.join(" "))
    }
}

/// How a progress line reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineTone {
    Info,
    Good,
    Bad,
}

/// One line in the progress dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgressLine {
    /// The node it is about (none for wave and executor notes).
    pub node: Option<String>,
    pub text: String,
    pub tone: LineTone,
    /// When the console received it (set by `update` on arrival).
    pub at: Option<jiff::Timestamp>,
    /// A live line (a node's health gate): it replaces the node's last live line.
    pub live: bool,
}

/// How the action ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    pub ok: bool,
    pub message: String,
}

/// Where the action is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    Prompt(Form),
    /// The effect is computing the preview and asking the permission checks.
    Preparing(ActionRequest),
    Preview {
        request: ActionRequest,
        preview: ActionPreview,
        scroll: u16,
    },
    Confirm {
        request: ActionRequest,
        preview: ActionPreview,
        typed: String,
        error: Option<String>,
    },
    /// Executing (or done); nothing can be cancelled any more.
    Running {
        request: ActionRequest,
        /// When the operator confirmed: progress lines and the status show time since then.
        started: jiff::Timestamp,
        lines: Vec<ProgressLine>,
        finished: Option<Finished>,
        scroll_from_end: u16,
    },
    /// The guard refused: a node or the CRD has fields the port does not know (`ops::skew`);
    /// nothing was changed. Typing [`OVERRIDE_WORD`] asks for the preview again as the command
    /// line's `--allow-unknown-fields`.
    NotUnderstood {
        request: ActionRequest,
        message: String,
        typed: String,
        error: Option<String>,
    },
    /// The preview could not be computed; nothing was changed.
    Failed {
        message: String,
    },
}

/// An action in the console: at most one at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionFlow {
    /// Messages of an older flow are ignored.
    pub id: u64,
    pub kind: ActionKind,
    pub stage: Stage,
    /// The dialog was closed with esc while running; the flash line shows the result.
    pub hidden: bool,
    /// When the preview was asked for: the dialog shows how long it has been waiting.
    pub preparing_since: Option<jiff::Timestamp>,
}

/// What the operator types to act on fields the port does not know.
pub const OVERRIDE_WORD: &str = "allow-unknown-fields";

/// Progress lines kept per action (the oldest are dropped).
pub const MAX_PROGRESS_LINES: usize = 500;

impl ActionFlow {
    /// Whether the action has started changing the cluster (esc no longer cancels).
    pub fn is_running(&self) -> bool {
        matches!(self.stage, Stage::Running { finished: None, .. })
    }

    /// Whether the dialog currently reads typed text (so letters are input, not keys).
    pub fn takes_text(&self) -> bool {
        match &self.stage {
            Stage::Prompt(_) => true,
            Stage::Confirm { preview, .. } => preview.expected_typing().is_some(),
            Stage::NotUnderstood { .. } => true,
            _ => false,
        }
    }

    /// The kubeconfig context(s) of the cluster(s) this action goes to (`None` once its
    /// preview failed: the request is gone).
    pub fn context(&self) -> Option<String> {
        match &self.stage {
            Stage::Prompt(form) => Some(form.context.clone()),
            Stage::Preparing(request)
            | Stage::Preview { request, .. }
            | Stage::Confirm { request, .. }
            | Stage::NotUnderstood { request, .. }
            | Stage::Running { request, .. } => Some(request.contexts()),
            Stage::Failed { .. } => None,
        }
    }

    pub fn title(&self) -> &'static str {
        console_actions::find(self.kind).map_or("Action", |action| action.title)
    }
}

/// The form of an action on one node with nothing to fill (a restart, a pause): the form
/// names the node, enter previews.
pub fn one_node_form(input: &FormInput) -> Form {
    Form::new(
        input.context,
        input.namespace,
        input.names.clone(),
        Vec::new(),
    )
}

/// Validates the form of the registered action `kind` into a request, or says what is wrong
/// (naming the field).
pub fn validate(kind: ActionKind, form: &Form) -> Result<ActionRequest, FormError> {
    match console_actions::find(kind) {
        Some(action) => (action.validate)(form),
        None => Err(FormError::Unregistered(kind.name())),
    }
}

#[cfg(test)]
pub(crate) mod tests;
