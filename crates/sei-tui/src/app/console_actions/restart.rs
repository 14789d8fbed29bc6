//! `restart` (`R`): the open or selected node's pod deleted for its StatefulSet to create it
//! again; no field to fill, the preview (the pod now) says what happens.
use super::{ConsoleAction, Targets};
use crate::app::action::{ActionRequest, Form, one_node_form};
use crate::app::errors::FormError;
use crate::keymap::{Action, Binding, Context};
use crate::ops::action::SomeOperation;
use crate::ops::actions::restart::{KIND, RestartInput};

pub const ACTIONS: &[ConsoleAction] = &[ConsoleAction {
    kind: KIND,
    name: "restart",
    title: "Pod restart",
    bindings: &[
        Binding {
            context: Context::Fleet,
            keys: &["R"],
            action: Action::Operator("restart"),
            help: "restart the selected node's pod (deleted, then created again)",
        },
        Binding {
            context: Context::Node,
            keys: &["R"],
            action: Action::Operator("restart"),
            help: "restart this node's pod (deleted, then created again)",
        },
    ],
    help_before: Some(Action::ShowAction),
    targets: Targets::OneNode,
    form: one_node_form,
    validate,
    image_field: None,
}];

fn validate(form: &Form) -> Result<ActionRequest, FormError> {
    let operation = SomeOperation::new(RestartInput {
        node: form.nodes.first().cloned().unwrap_or_default(),
        wait: true,
        dry_run: false,
    });
    Ok(ActionRequest::of_form(form, operation))
}
