//! The nodes' seictl sidecars over HTTP: [`http::HttpSidecar`] implements `ports::SidecarApi`
//! through a port-forward to kube-rbac-proxy (`portforward`), the API server's pod proxy, the in-cluster Service address or explicit overrides;
//! `env` picks the transport from `SEI_CONSOLE_SIDECAR_*`; `body` reads answers within
//! `limits::SIDECAR_BODY`.
mod body;
mod calls;
pub mod env;
pub mod http;
pub mod portforward;
