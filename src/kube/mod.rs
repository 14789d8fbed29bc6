//! Adapters to the outside world: the Kubernetes API and the nodes' sidecars.

pub mod cluster;
pub mod platform_config;
mod sidecar_calls;
pub mod sidecar_env;
pub mod sidecar_http;
