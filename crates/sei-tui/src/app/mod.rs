//! The TUI loop: `Model`, `Msg`, `Cmd`, the pure `update`, the effects runner and the terminal
//! loop. `update` never sees ratatui or crossterm types.
pub mod action;
pub mod action_error;
pub mod action_update;
pub mod chain_health;
pub mod command;
pub mod console_actions;
pub mod doctor;
pub mod effects;
pub mod errors;
mod health;
pub mod jobs;
pub mod journal_view;
pub mod logs;
pub mod model;
pub mod node_scroll;
pub mod pacing;
pub mod probes;
pub mod run;
pub mod runners;
pub mod settings;
#[cfg(feature = "testing")]
mod test_panic;
pub mod update;
pub mod viewer;
pub mod viewer_rows;
mod watch_tasks;

#[cfg(test)]
mod chain_health_tests;
#[cfg(test)]
mod command_tests;
#[cfg(test)]
mod logs_tests;
#[cfg(test)]
pub(crate) mod multi_tests;
#[cfg(test)]
mod probes_tests;
#[cfg(test)]
mod settings_tests;
#[cfg(test)]
pub(crate) mod tests;
