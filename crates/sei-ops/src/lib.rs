//! sei-ops: the use cases of sei-console over port traits. The ports (`ports`: cluster, sidecar,
//! access review, logs, probe), the controller-side tasks (`tasks`), the plan executor and its
//! driver (`executor`), the operator actions' pure parts (`actions`), the journal and the operator
//! actions as use cases (`ops`), shared by the commands and the console.
//!
//! It depends on `sei-core` only among the workspace crates: no kube-rs, terminal or command-line
//! parser is in its dependency tree (`tests/crate_graph.rs` in the workspace root checks it).
//!
//! Why `ports`, `tasks`, `executor` and `actions` are here and not in the core: the tasks and the
//! executor's driver call the cluster and the sidecar through the async port traits, `ports`
//! carries `tokio::io` (`PeerStream`) and `futures` streams (`PodLogs`), and the executor's pure
//! step (`executor::step`) shares its module with the driver; `journal` records `actions`'
//! `ActionName`. Moving the pure halves down is a later cut.
pub mod actions;
pub mod executor;
pub mod journal;
pub mod ops;
pub mod ports;
pub mod tasks;

// The core's modules under their own names, so a path reads `crate::api::…` in every crate.
use sei_core::{api, chain, config, fleet, planner, platform, render};
