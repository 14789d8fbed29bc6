//! `address` (`a`): the external address (HOST:PORT other nodes dial) of the open or selected
//! node, its current one to start from.
use super::{ConsoleAction, FormInput, Targets};
use crate::actions::address::ExternalAddress;
use crate::app::action::{ActionRequest, Field, Form};
use crate::app::errors::FormError;
use crate::keymap::{Action, Binding, Context};
use crate::ops::action::SomeOperation;
use crate::ops::actions::address::{AddressInput, KIND};

pub const ACTIONS: &[ConsoleAction] = &[ConsoleAction {
    kind: KIND,
    name: "address",
    title: "External address",
    bindings: &[
        Binding {
            context: Context::Fleet,
            keys: &["a"],
            action: Action::Operator("address"),
            help: "external address of the selected node",
        },
        Binding {
            context: Context::Node,
            keys: &["a"],
            action: Action::Operator("address"),
            help: "external address of this node",
        },
    ],
    help_before: Some(Action::ShowAction),
    targets: Targets::OneNode,
    form,
    validate,
    image_field: None,
}];

fn form(input: &FormInput) -> Form {
    let current = input.node.map_or("", |n| n.spec.external_address());
    let field = Field::new(
        "external address",
        current,
        "HOST:PORT other nodes dial (P2P)",
    );
    Form::new(
        input.context,
        input.namespace,
        input.names.clone(),
        vec![field],
    )
}

fn validate(form: &Form) -> Result<ActionRequest, FormError> {
    let address = ExternalAddress::parse(form.value(0))
        .map_err(|e| FormError::field("external address", e))?;
    let operation = SomeOperation::new(AddressInput {
        node: form.nodes.first().cloned().unwrap_or_default(),
        address,
        wait: true,
        dry_run: false,
        restart: true,
    });
    Ok(ActionRequest::of_form(form, operation))
}
