//! `abort` (`X`) and `promote` (`N`) of the rollout the open or selected node is in (its
//! unfinished rollout record, `ops::rollout_record`), whoever runs it: this console, another
//! terminal, or a runner that is gone. No field to fill: the preview is the rollout as
//! `rollout status` shows it and what the step does (an abort: no further node or wave; a
//! node's Active plan finishes), the question names the rollout. The same use cases as
//! `rollout abort|promote` (`ops::actions::rollout::control`), journaled alike.
use super::{ConsoleAction, Targets};
use crate::app::action::{ActionRequest, Form, one_node_form};
use crate::keymap::{Action, Binding, Context};
use crate::ops::action::SomeOperation;
use crate::ops::actions::rollout::control::{ABORT, PROMOTE, RolloutControlInput};

pub const ACTIONS: &[ConsoleAction] = &[
    ConsoleAction {
        kind: ABORT,
        name: "abort",
        title: "Abort rollout",
        bindings: &[
            Binding {
                context: Context::Fleet,
                keys: &["X"],
                action: Action::Operator("abort"),
                help: "abort the selected node's rollout (no further node or wave)",
            },
            Binding {
                context: Context::Node,
                keys: &["X"],
                action: Action::Operator("abort"),
                help: "abort this node's rollout (no further node or wave)",
            },
        ],
        help_before: None,
        targets: Targets::OneNode,
        form: one_node_form,
        validate: |form| Ok(request(form, true)),
        image_field: None,
    },
    ConsoleAction {
        kind: PROMOTE,
        name: "promote",
        title: "Promote rollout",
        bindings: &[
            Binding {
                context: Context::Fleet,
                keys: &["N"],
                action: Action::Operator("promote"),
                help: "promote the selected node's held rollout (its next wave starts)",
            },
            Binding {
                context: Context::Node,
                keys: &["N"],
                action: Action::Operator("promote"),
                help: "promote this node's held rollout (its next wave starts)",
            },
        ],
        help_before: None,
        targets: Targets::OneNode,
        form: one_node_form,
        validate: |form| Ok(request(form, false)),
        image_field: None,
    },
];

fn request(form: &Form, abort: bool) -> ActionRequest {
    let operation = SomeOperation::new(RolloutControlInput {
        target: form.nodes.first().cloned().unwrap_or_default(),
        abort,
    });
    ActionRequest::of_form(form, operation)
}
