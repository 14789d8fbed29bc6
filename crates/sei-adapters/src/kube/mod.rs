//! The Kubernetes API adapter: client, cluster port, watches, access reviews, read-only mode.
//! The nodes' sidecars are reached through `crate::sidecar`.

pub mod access;
pub mod client;
pub mod cluster;
pub mod errors;
pub mod identity;
pub mod lenient;
pub mod liveness;
mod log_lines;
pub mod logs;
pub mod platform_config;
pub mod read_only;
pub mod runners;
pub mod timeout;
pub mod watch;
pub mod watches;
