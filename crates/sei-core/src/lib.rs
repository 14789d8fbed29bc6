//! sei-core: the pure core of sei-console. SeiNode API types (`api`), the controller's planners
//! (`planner`) and renderer (`render`) with the platform config (`platform`), the fleet store and
//! its view models (`fleet`), input bounds (`limits`), the keymap and the console's config file.
//!
//! No async runtime, Kubernetes client, terminal or command-line parser is in this crate's
//! dependency tree (`tests/crate_graph.rs` in the workspace root checks it with `cargo tree`).
//! Inside the crate the modules keep their order (lowest first: `limits`, `api`, `platform`,
//! `planner`, `render`, `fleet`, `keymap`, `config`), which `sei-console`'s `layering_tests` check.
pub mod api;
pub mod chain;
pub mod config;
pub mod duration;
pub mod fleet;
pub mod grep;
pub mod http_url;
pub mod keymap;
pub mod limits;
pub mod planner;
pub mod platform;
pub mod render;
