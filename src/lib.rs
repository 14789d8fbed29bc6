//! sei-console: a terminal operations console for fleets of `SeiNode` resources.
//!
//! Layers depend downwards only (see ARCHITECTURE.md): from the pure core (`api`, `ports`,
//! `planner`, `render`, `tasks`, `executor`, `fleet`) through `config`, `actions`, `ops` (today
//! `operate`) and the adapters (`kube`, `sidecar`) up to `app`, `ui` and `cli`.
//! `layering_tests` holds the table of allowed dependencies and checks the source against it.
pub mod actions;
pub mod api;
pub mod app;
pub mod cli;
pub mod config;
pub mod executor;
pub mod fleet;
pub mod journal;
pub mod keymap;
pub mod kube;
pub mod limits;
pub mod ops;
pub mod p2p;
pub mod planner;
pub mod platform;
pub mod ports;
pub mod render;
pub mod sidecar;
pub mod tasks;
pub mod ui;

#[cfg(test)]
mod layering_tests;
