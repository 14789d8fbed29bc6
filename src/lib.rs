//! sei-console: a terminal operations console for fleets of `SeiNode` resources.
//!
//! The workspace's crates are its layers (see ARCHITECTURE.md), each depending on those below
//! only: `sei-core` (pure: api, planner, render, fleet, …), `sei-ops` (ports, tasks, executor,
//! actions, journal, the use cases), `sei-adapters` (kube, sidecar, p2p), `sei-tui` (app, ui) and
//! this package, the commands (`cli`) and the one place that wires adapters into the use cases
//! and into the console's port (`backend`).
//! The lower crates' modules are re-exported under their old paths (`sei_console::api`, …).
//! `layering_tests` checks the order of the modules inside each crate.
pub mod backend;
pub mod cli;

pub use sei_adapters::{kube, p2p, rpc, sidecar, webhook, wiring};
pub use sei_core::{
    api, chain, config, duration, fleet, grep, keymap, limits, planner, platform, render,
};
pub use sei_ops::{actions, executor, journal, ops, ports, tasks};
pub use sei_tui::{app, ui};

#[cfg(test)]
mod layering_tests;
