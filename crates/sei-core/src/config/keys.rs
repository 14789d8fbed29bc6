//! Key binding overrides from `[keys.<screen>]`: data the keymap applies with
//! [`Keymap::rebind`](crate::keymap::Keymap::rebind).
use toml_edit::Item;

use crate::keymap::{Action, Context, Key, Keymap};

/// Screen names as written in the config file, in help order.
pub const CONTEXT_NAMES: &[&str] = &["global", "fleet", "node", "help", "dialog"];

/// Action names as written in the config file.
pub const ACTION_NAMES: &[(&str, Action)] = &[
    ("quit", Action::Quit),
    ("help", Action::ToggleHelp),
    ("command", Action::StartCommand),
    ("back", Action::Back),
    ("open", Action::Open),
    ("up", Action::Up),
    ("down", Action::Down),
    ("page-up", Action::PageUp),
    ("page-down", Action::PageDown),
    ("top", Action::Top),
    ("bottom", Action::Bottom),
    ("filter", Action::StartFilter),
    ("clear-filter", Action::ClearFilter),
    ("sort-next", Action::SortNextColumn),
    ("sort-previous", Action::SortPreviousColumn),
    ("sort-reverse", Action::SortReverse),
    ("next-pane", Action::NextPane),
    ("previous-pane", Action::PreviousPane),
    ("theme", Action::SwitchTheme),
    ("mark", Action::ToggleMark),
    ("show-action", Action::ShowAction),
    ("probe", Action::ProbeSeed),
    ("confirm", Action::Confirm),
    ("cancel", Action::Cancel),
    ("next-field", Action::NextField),
    ("previous-field", Action::PreviousField),
    ("doctor", Action::Doctor),
];

/// Every key of `action` on `context` is replaced by `keys`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyOverride {
    pub context: Context,
    pub action: Action,
    pub keys: Vec<Key>,
}

pub fn context_by_name(name: &str) -> Option<Context> {
    match name {
        "global" => Some(Context::Global),
        "fleet" => Some(Context::Fleet),
        "node" => Some(Context::Node),
        "help" => Some(Context::Help),
        "dialog" => Some(Context::Dialog),
        _ => None,
    }
}

/// The action `name` names: one of [`ACTION_NAMES`], else a registered operator action
/// (`Action::Operator`) among `operator_actions`.
pub fn action_by_name(name: &str, operator_actions: &[&'static str]) -> Option<Action> {
    ACTION_NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, action)| *action)
        .or_else(|| {
            operator_actions
                .iter()
                .find(|n| **n == name)
                .map(|n| Action::Operator(n))
        })
}

/// What is wrong with one `action = ["key", ...]` line.
#[derive(Debug, thiserror::Error)]
pub(super) enum OverrideError {
    /// The names there are.
    #[error("unknown action (use one of: {})", .0.join(", "))]
    UnknownAction(Vec<String>),
    #[error("must be a list of keys such as [\"enter\", \"l\"]")]
    NotAList,
    /// The value as written.
    #[error("{0} is not a key name in quotes")]
    NotAName(String),
    #[error(transparent)]
    Key(#[from] crate::keymap::KeyParseError),
    #[error("an empty list would leave the action without a key")]
    Empty,
}

/// One `action = ["key", ...]` line.
pub(super) fn parse_override(
    context: Context,
    action_name: &str,
    item: &Item,
    operator_actions: &[&'static str],
) -> Result<KeyOverride, OverrideError> {
    let action = action_by_name(action_name, operator_actions).ok_or_else(|| {
        let names = ACTION_NAMES
            .iter()
            .map(|(n, _)| *n)
            .chain(operator_actions.iter().copied())
            .map(str::to_owned)
            .collect();
        OverrideError::UnknownAction(names)
    })?;
    let array = item.as_array().ok_or(OverrideError::NotAList)?;
    let mut keys = Vec::new();
    for value in array.iter() {
        let text = value
            .as_str()
            .ok_or_else(|| OverrideError::NotAName(value.to_string().trim().to_owned()))?;
        keys.push(Key::parse(text)?);
    }
    if keys.is_empty() {
        return Err(OverrideError::Empty);
    }
    Ok(KeyOverride {
        context,
        action,
        keys,
    })
}

/// The default keymap with `overrides` applied in order.
pub fn keymap_with(overrides: &[KeyOverride]) -> Keymap {
    let mut keymap = Keymap::default();
    for binding in overrides {
        keymap.rebind(binding.context, binding.action, &binding.keys);
    }
    keymap
}
