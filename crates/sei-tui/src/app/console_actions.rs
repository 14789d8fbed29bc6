//! The console's registered operator actions: each declares, in its own file under
//! `console_actions/`, its keys and help lines (bound to `keymap::Action::Operator` with its
//! kind's name, rebindable in the config file's `[keys.*]` by that name), its dialog title, its
//! form and how the form becomes an `ops` operation. The dialog, preview, confirmation,
//! progress and result need nothing more (`app::jobs`, `ui::dialog` drive any `Previewed`).
//! Adding one is its file and its line in [`REGISTERED`].
use super::action::Form;
use super::errors::FormError;
use crate::actions::event::ActionKind;
use crate::api::SeiNode;
use crate::config::keys::KeyOverride;
use crate::fleet::store::ObjectKey;
use crate::keymap::{Binding, DEFAULT_BINDINGS, Keymap};
use crate::ops::action::SomeOperation;

mod pause;

/// One console action, as its file declares it.
#[derive(Debug)]
pub struct ConsoleAction {
    pub kind: ActionKind,
    /// The dialog's title.
    pub title: &'static str,
    /// Its keys and help lines, `Action::Operator(kind.name())` in each context it is offered.
    pub bindings: &'static [Binding],
    /// The form for the node it acts on (the open node, else the selected one).
    pub form: fn(&ObjectKey, Option<&SeiNode>) -> Form,
    /// The form as an operation, or what is wrong (naming the field).
    pub validate: fn(&Form) -> Result<SomeOperation, FormError>,
}

/// Every registered console action: one line each.
pub const REGISTERED: &[ConsoleAction] = &[pause::PAUSE, pause::RESUME];

/// The registered action of `kind`.
pub fn find(kind: ActionKind) -> Option<&'static ConsoleAction> {
    REGISTERED.iter().find(|action| action.kind == kind)
}

/// The registered action a key's `Action::Operator(name)` names.
pub fn named(name: &str) -> Option<&'static ConsoleAction> {
    REGISTERED.iter().find(|action| action.kind.name() == name)
}

/// Their names in the config file's `[keys.*]` (the config loader is handed them).
pub fn config_names() -> Vec<&'static str> {
    REGISTERED.iter().map(|action| action.kind.name()).collect()
}

/// The default bindings and every registered action's, in that order: the keymap and the help
/// overlay read this table.
pub fn bindings() -> Vec<Binding> {
    DEFAULT_BINDINGS
        .iter()
        .chain(REGISTERED.iter().flat_map(|action| action.bindings))
        .copied()
        .collect()
}

/// The keymap of [`bindings`] with the config file's `overrides` applied in order.
pub fn keymap(overrides: &[KeyOverride]) -> Keymap {
    // A registered key that does not parse fails `registered_keys_parse_and_name_their_action`.
    let mut keymap = Keymap::from_table(&bindings()).unwrap_or_default();
    for binding in overrides {
        keymap.rebind(binding.context, binding.action, &binding.keys);
    }
    keymap
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::{Action, Context, Key};

    #[test]
    fn registered_keys_parse_and_name_their_action() {
        for action in REGISTERED {
            assert!(crate::ops::ACTIONS.contains(&action.kind), "{action:?}");
            for binding in action.bindings {
                assert_eq!(binding.action, Action::Operator(action.kind.name()));
                for key in binding.keys {
                    Key::parse(key).expect("parses");
                }
            }
        }
        assert!(Keymap::from_table(&bindings()).is_ok());
    }

    #[test]
    fn a_registered_key_takes_no_key_of_its_context_already_bound() {
        for action in REGISTERED {
            for binding in action.bindings {
                for key in binding.keys {
                    let key = Key::parse(key).expect("parses");
                    let taken = Keymap::default().action(binding.context, key);
                    let global = matches!(binding.context, Context::Fleet | Context::Node)
                        .then(|| Keymap::default().action(Context::Global, key))
                        .flatten();
                    assert_eq!(
                        (taken, global),
                        (None, None),
                        "{key} in {:?}",
                        binding.context
                    );
                }
            }
        }
    }
}
