//! sei-tui: the console. `app` (the TUI loop: model, pure update, effects, jobs) and `ui` (ratatui
//! views only, above `app`: they read its model). The loop is handed `ui::draw` and the port to
//! the clusters (`app::port`) by `sei-console`.
pub mod app;
pub mod ui;

// The lower crates' modules under their own names, so a path reads `crate::api::…` in every crate.
// No adapter: the clusters are reached through `app::port`, filled by the composition root.
#[cfg(test)]
use sei_core::planner;
use sei_core::{api, chain, config, fleet, grep, keymap, limits, platform};
use sei_ops::{actions, executor, journal, ops, ports};
