//! The TUI loop: `Model`, `Msg`, `Cmd`, the pure `update`, the effects runner and the terminal
//! loop. `update` never sees ratatui or crossterm types; the effects reach the clusters through
//! the console's port (`port`), which the composition root fills with the adapters.
//!
//! The modules: `model` (`Model`; `Msg`, with the watch events mapped in by `From<WatchEvent>`;
//! `Cmd`), `update` (the only place the model changes) with `health` (STALE, forbidden, the resync
//! after silence), `settings` (config file → theme, read-only, executor, waves), `action` and
//! `action_update` (the action dialog as a pure state machine; each action's form and `validate`
//! live in its `console_actions/` file), `console_actions` (the registry), `probes` (the seeds'
//! outside probes), `chain_health` (which nodes' RPC to read when), `doctor`, `runners` (who runs
//! the Active plans, read when), `jobs` (the action jobs over any `ops::action::Operation`),
//! `effects` (running the `Cmd`s through `port`: watches, action jobs, log streams, seed probes,
//! saving settings), `command` (the `:` palette), `journal_view` (`:journal`), `viewer` and
//! `viewer_rows` (describe, YAML, events, journal), `node_scroll`, `logs` (the logs view `l`),
//! `pacing` and `run` (the terminal loop, which draws through the function the composition root
//! hands it, `ui::draw`), `errors` and `action_error` (the layer's typed errors), `test_panic`
//! (only with the `testing` feature).
//!
//! The process has one runtime worker thread (`cli::RUNTIME_WORKERS`): the loop owns the main
//! thread, everything else is I/O-bound. With several clusters `effects` keeps one scope watch set
//! per context (`Cmd::WatchCluster`, each with its own epoch and connection), the node screen
//! watches in its node's cluster, and an action job works in its action's cluster.
pub mod action;
pub mod action_error;
pub mod action_update;
pub mod chain_health;
pub mod command;
pub mod console_actions;
pub mod copy;
pub mod doctor;
pub mod dump;
pub mod effects;
pub mod errors;
mod health;
mod input_line;
pub mod jobs;
pub mod journal_view;
pub mod log_save;
pub mod logs;
pub mod model;
pub mod node_scroll;
pub mod notify;
pub mod pacing;
pub mod plugins;
pub mod port;
pub mod probes;
pub mod rollouts;
pub mod run;
pub mod runners;
pub mod settings;
#[cfg(feature = "testing")]
mod test_panic;
pub mod update;
pub mod viewer;
pub mod viewer_rows;

#[cfg(test)]
mod chain_health_tests;
#[cfg(test)]
mod command_tests;
#[cfg(test)]
mod copy_tests;
#[cfg(test)]
mod effects_tests;
#[cfg(test)]
mod logs_tests;
#[cfg(test)]
pub(crate) mod multi_tests;
#[cfg(test)]
mod plugins_tests;
#[cfg(test)]
mod probes_tests;
#[cfg(test)]
mod settings_tests;
#[cfg(test)]
pub(crate) mod tests;
