//! Adapters to the outside world: the Kubernetes API and the nodes' sidecars.

pub mod access;
pub mod client;
pub mod cluster;
pub mod identity;
pub mod node_identity;
pub mod platform_config;
pub mod read_only;
mod sidecar_calls;
pub mod sidecar_env;
pub mod sidecar_http;
pub mod watch;
