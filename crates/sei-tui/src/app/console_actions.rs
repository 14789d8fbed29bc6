//! The console's registered operator actions: each declares, in its own file under
//! `console_actions/`, its keys and help lines (bound to `keymap::Action::Operator` with its
//! name, rebindable in the config file's `[keys.*]` by that name), its dialog title, the nodes
//! it acts on, its form and how the form becomes an `ops` operation. The dialog, preview,
//! confirmation, progress and result need nothing more (`app::jobs`, `ui::dialog` drive any
//! `Previewed`). Adding one is its file, its `mod` line below and its entry of [`FILES`] (the
//! file's `pub const ACTIONS`), which [`registered`] reads; a test fails when a file of the
//! folder is missing from the list.
//!
//! Targets are `OneNode`, `Marked` (across clusters too) or `NewNode`; `bindings()` (the default
//! table plus every action's) is what the keymap and the help overlay read, each help line placed
//! before a default action's line (`help_before`) or at the context's end; `config_names()` is
//! handed to `config::load` so the config file's key names are checked.
use super::action::{ActionRequest, Form};
use super::errors::FormError;
use crate::actions::event::ActionKind;
use crate::api::SeiNode;
use crate::config::WaveDefaults;
use crate::config::keys::KeyOverride;
use crate::fleet::rows::FleetRow;
use crate::keymap::{Action, Binding, DEFAULT_BINDINGS, Keymap};

mod abort;
mod address;
mod pause;
mod restart;
mod rollout;
mod seed;

/// Each file's actions, in the order of their help lines and config names.
const FILES: &[&[ConsoleAction]] = &[
    rollout::ACTIONS,
    address::ACTIONS,
    seed::ACTIONS,
    restart::ACTIONS,
    pause::ACTIONS,
    abort::ACTIONS,
];

/// One console action, as its file declares it.
#[derive(Debug)]
pub struct ConsoleAction {
    pub kind: ActionKind,
    /// Its name in the config file's `[keys.*]` and in `Action::Operator` (the kind's name,
    /// but `seed` for the seed bring-up, as the config file has always called it).
    pub name: &'static str,
    /// The dialog's title.
    pub title: &'static str,
    /// Its keys and help lines, `Action::Operator(name)` in each context it is offered.
    pub bindings: &'static [Binding],
    /// Its help lines go before this default action's line of the same context (none: after
    /// the context's last line).
    pub help_before: Option<Action>,
    pub targets: Targets,
    /// The form for the targets.
    pub form: fn(&FormInput) -> Form,
    /// The form as a request, or what is wrong (naming the field).
    pub validate: fn(&Form) -> Result<ActionRequest, FormError>,
    /// The form's image field, whose digest-pin warning the prompt shows.
    pub image_field: Option<usize>,
}

/// The nodes an action acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Targets {
    /// The open node, else the selected one (marks are left out, the form says how many).
    OneNode,
    /// The open node, else the marked nodes, else the selected one; marked nodes of several
    /// clusters make one request per cluster (`FormInput::clusters`).
    Marked,
    /// None: it creates one, in the open or selected node's cluster and namespace (with no
    /// node selected: the only cluster and the scope's namespace); that node's row gives the
    /// form its defaults.
    NewNode,
}

/// What a form starts from.
#[derive(Debug)]
pub struct FormInput<'a> {
    /// The kubeconfig context of the targets' cluster (several for a request of several).
    pub context: &'a str,
    pub namespace: &'a str,
    /// The targets' names (empty for a new node).
    pub names: Vec<String>,
    /// The first target's SeiNode and row (for a new node: the selected row's, if any).
    pub node: Option<&'a SeiNode>,
    pub row: Option<&'a FleetRow>,
    /// The config's wave sizes.
    pub waves: WaveDefaults,
    /// Marked nodes of several clusters: `(context, namespace, names)` per cluster, in the
    /// order they go; empty for one cluster.
    pub clusters: Vec<(String, String, Vec<String>)>,
}

/// Every registered console action, in the order of [`FILES`].
pub fn registered() -> Vec<&'static ConsoleAction> {
    FILES.iter().flat_map(|f| f.iter()).collect()
}

/// The registered action of `kind`.
pub fn find(kind: ActionKind) -> Option<&'static ConsoleAction> {
    FILES
        .iter()
        .flat_map(|f| f.iter())
        .find(|action| action.kind == kind)
}

/// The registered action a key's `Action::Operator(name)` names.
pub fn named(name: &str) -> Option<&'static ConsoleAction> {
    FILES
        .iter()
        .flat_map(|f| f.iter())
        .find(|action| action.name == name)
}

/// Their names in the config file's `[keys.*]` (the config loader is handed them).
pub fn config_names() -> Vec<&'static str> {
    registered().iter().map(|action| action.name).collect()
}

/// The default bindings with every registered action's where it asks to be: the keymap and
/// the help overlay read this table.
pub fn bindings() -> Vec<Binding> {
    let mut table: Vec<Binding> = DEFAULT_BINDINGS.to_vec();
    for action in registered() {
        for binding in action.bindings {
            let at = action
                .help_before
                .and_then(|before| {
                    table
                        .iter()
                        .position(|b| b.context == binding.context && b.action == before)
                })
                .unwrap_or(table.len());
            table.insert(at, *binding);
        }
    }
    table
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
    use crate::keymap::{Context, Key};

    #[test]
    fn registered_keys_parse_and_name_their_action() {
        for action in registered() {
            assert!(
                crate::ops::actions::all().contains(&action.kind),
                "{action:?}"
            );
            for binding in action.bindings {
                assert_eq!(binding.action, Action::Operator(action.name));
                for key in binding.keys {
                    Key::parse(key).expect("parses");
                }
            }
        }
        assert!(Keymap::from_table(&bindings()).is_ok());
    }

    #[test]
    fn every_file_of_the_directory_is_registered_once_by_name() {
        let names = config_names();
        assert_eq!(
            names,
            [
                "rollout", "address", "seed", "restart", "pause", "resume", "abort", "promote"
            ]
        );
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/app/console_actions");
        let mut files = 0;
        for entry in std::fs::read_dir(&dir).expect("the folder") {
            let path = entry.expect("an entry").path();
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            files += 1;
            let stem = path.file_stem().and_then(|s| s.to_str()).expect("a name");
            assert!(
                names.contains(&stem),
                "{}: not in console_actions::FILES ({names:?})",
                path.display()
            );
        }
        assert_eq!(files, FILES.len(), "one entry per file");
    }

    #[test]
    fn a_registered_key_takes_no_key_of_its_context_already_bound() {
        for action in registered() {
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
