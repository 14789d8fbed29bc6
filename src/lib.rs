//! sei-console: a terminal operations console for fleets of `SeiNode` resources.
//!
//! Layers depend downwards only (see ARCHITECTURE.md):
//! `cli`/`app`/`ui` -> `kube` -> `executor`/`tasks` -> `planner`/`render` -> `api`.
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
pub mod operate;
pub mod p2p;
pub mod planner;
pub mod platform;
pub mod ports;
pub mod render;
pub mod tasks;
pub mod ui;
