//! `seed` (`n`, `seed create` in the journal): a new seed node in the selected row's cluster
//! and the scope's namespace, its chain ID and image taken from the selected row.
use super::{ConsoleAction, FormInput, Targets};
use crate::actions::address::ExternalAddress;
use crate::actions::image_ref::ImageRef;
use crate::app::action::{ActionRequest, Field, Form};
use crate::app::errors::FormError;
use crate::keymap::{Action, Binding, Context};
use crate::ops::action::SomeOperation;
use crate::ops::actions::seed::{KIND, SeedInput, seed_name_problem};

pub const ACTIONS: &[ConsoleAction] = &[ConsoleAction {
    kind: KIND,
    name: "seed",
    title: "Seed bring-up",
    bindings: &[Binding {
        context: Context::Fleet,
        keys: &["n"],
        action: Action::Operator("seed"),
        help: "bring up a new seed node",
    }],
    help_before: Some(Action::ShowAction),
    targets: Targets::NewNode,
    form,
    validate,
    image_field: Some(2),
}];

fn form(input: &FormInput) -> Form {
    let chain_id = input.row.map_or("", |r| r.chain_id.as_str());
    let image = input.row.map_or("", |r| r.image.as_str());
    seed_form(input.context, input.namespace, chain_id, image)
}

fn seed_form(context: &str, namespace: &str, chain_id: &str, image: &str) -> Form {
    let fields = vec![
        Field::new("name", "", "name of the new seed SeiNode"),
        Field::new("chain id", chain_id, "chain the seed serves"),
        Field::new("image", image, "name[:tag][@sha256:digest]"),
        Field::new(
            "external address",
            "",
            "HOST:PORT peers dial (optional; needed for the peer string)",
        ),
    ];
    Form::new(context, namespace, Vec::new(), fields)
}

fn validate(form: &Form) -> Result<ActionRequest, FormError> {
    let name = form.value(0);
    if let Some(problem) = seed_name_problem(name) {
        return Err(FormError::field("name", problem));
    }
    let chain_id = form.value(1);
    if chain_id.is_empty() {
        return Err(FormError::field("chain id", "required"));
    }
    let image = ImageRef::parse_to_pin(form.value(2)).map_err(|e| FormError::field("image", e))?;
    let external_address = match form.value(3) {
        "" => None,
        text => Some(
            ExternalAddress::parse(text).map_err(|e| FormError::field("external address", e))?,
        ),
    };
    let operation = SomeOperation::new(SeedInput {
        name: name.to_owned(),
        chain_id: chain_id.to_owned(),
        image,
        external_address,
        node_key_secret: None,
        wait: true,
        dry_run: false,
    });
    Ok(ActionRequest::of_form(form, operation))
}
