//! The operator actions, one module per file of `ops/actions/`, each declared by its `mod` line
//! below and listed once in [`FILES`] (the journal's list of actions, [`all`]). A test fails
//! when a file of the folder is missing from the list.
//!
//! A new operator action (`pause`/`resume` as the tree has them) is these files, each new one
//! registered by one line beside its siblings:
//! 1. `crates/sei-ops/src/ops/actions/pause.rs`: its names (`pub const PAUSE: ActionKind`,
//!    `pub const KINDS`), the input implementing [`crate::ops::action::Operation`] and the
//!    prepared value implementing `Previewed`; registered here (`pub mod pause;` and
//!    `pause::KINDS` in [`FILES`]).
//! 2. `src/cli/actions/pause.rs`: its flags and `run` (`cli::action::drive`); registered in
//!    `src/cli/mod.rs` (`Command::Pause`, its `mod` line in `src/cli/actions.rs`).
//! 3. `crates/sei-tui/src/app/console_actions/pause.rs`: `pub const ACTIONS` (keys, help lines,
//!    dialog title, targets, form, `validate`); registered in `app/console_actions.rs`.
//! 4. `tests/integration/pause.rs`: the command and the console on the real control plane;
//!    registered by its `mod` line in `tests/integration/main.rs`.
//! 5. The docs (CHANGELOG.md, README.md's command list); the help-overlay snapshots follow.
//!
//! The preview, confirmation, read-only refusal, Lease, Console Event, journal line, dialog,
//! progress, completions and `--context` handling need nothing more.
use crate::actions::event::ActionKind;

pub mod address;
pub mod exec;
pub mod pause;
pub mod restart;
pub mod rollout;
pub mod seed;

/// Each action file's names, in the journal's order (the `--action` filter and `:journal
/// action=` list them so).
const FILES: &[&[ActionKind]] = &[
    rollout::KINDS,
    address::KINDS,
    seed::KINDS,
    restart::KINDS,
    pause::KINDS,
    exec::KINDS,
];

/// Every operator action, as the journal and Events name them, in the order of [`FILES`].
pub fn all() -> Vec<ActionKind> {
    FILES
        .iter()
        .flat_map(|kinds| kinds.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of `ops/actions/` is listed: one of its kinds is named after it (`seed.rs`:
    /// `seed-create`).
    #[test]
    fn every_file_of_the_folder_is_listed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ops/actions");
        let names: Vec<&str> = all().iter().map(|kind| kind.name()).collect();
        let mut files = 0;
        for entry in std::fs::read_dir(&dir).expect("the folder") {
            let path = entry.expect("an entry").path();
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            let stem = path.file_stem().and_then(|s| s.to_str()).expect("a name");
            files += 1;
            assert!(
                names
                    .iter()
                    .any(|name| *name == stem || name.starts_with(&format!("{stem}-"))),
                "{}: not in ops::actions::FILES ({names:?})",
                path.display()
            );
        }
        assert_eq!(files, FILES.len(), "one entry per file");
    }
}
