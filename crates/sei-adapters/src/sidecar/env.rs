//! Choosing the sidecar transport from the environment (`SEI_CONSOLE_SIDECAR_*`).
//!
//! | variable | meaning |
//! |---|---|
//! | `SEI_CONSOLE_SIDECAR_TRANSPORT` | `auto` (default), `port-forward`, `pod-proxy`, `in-cluster` or `override` |
//! | `SEI_CONSOLE_SIDECAR_MAP` | `ns/node=http://host:port` entries, comma or space separated |
//! | `SEI_CONSOLE_SIDECAR_URL` | base URL template with `{namespace}`, `{node}`, `{pod}` |
//! | `SEI_CONSOLE_SIDECAR_TOKEN_FILE` | bearer token file (in-cluster default: the pod's token; port-forward default: the kubeconfig identity's token) |
//! | `SEI_CONSOLE_SIDECAR_REMOTE_USER` | one `X-Remote-User` header (override only) |
//! | `SEI_CONSOLE_SIDECAR_PORT` | pod port for port-forward, pod-proxy and in-cluster (default 8443) |
//!
//! `auto` picks `override` when a map or template is set, else `in-cluster` inside a pod (the
//! API server's service env and the token file are present), else `port-forward`: the only path
//! on which kube-rbac-proxy sees the operator's token. An identity without a bearer token
//! (client certificate only) reaches the proxy's health paths alone; every other call is refused
//! before it is sent, naming the fix (`portforward::NO_BEARER_TOKEN`).
use std::path::PathBuf;

use super::http::{HttpSidecar, SERVICE_ACCOUNT_TOKEN_FILE, SidecarOverride, SidecarTransport};
use crate::api::sidecar::SIDECAR_PROXY_PORT;
use crate::ports::SidecarTarget;

pub const ENV_TRANSPORT: &str = "SEI_CONSOLE_SIDECAR_TRANSPORT";
pub const ENV_MAP: &str = "SEI_CONSOLE_SIDECAR_MAP";
pub const ENV_URL: &str = "SEI_CONSOLE_SIDECAR_URL";
pub const ENV_TOKEN_FILE: &str = "SEI_CONSOLE_SIDECAR_TOKEN_FILE";
pub const ENV_REMOTE_USER: &str = "SEI_CONSOLE_SIDECAR_REMOTE_USER";
pub const ENV_PORT: &str = "SEI_CONSOLE_SIDECAR_PORT";

/// A sidecar setting in the environment that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SidecarEnvError {
    #[error(
        "{ENV_TRANSPORT}={0:?} is not one of auto, port-forward, pod-proxy, in-cluster, override"
    )]
    UnknownTransport(String),
    #[error("{ENV_MAP}: entry {0:?} is not NAMESPACE/NODE=URL")]
    BadMapEntry(String),
    #[error("{ENV_PORT}={0:?} is not a port number")]
    BadPort(String),
    #[error("{ENV_TRANSPORT}=override needs {ENV_MAP} or {ENV_URL}")]
    OverrideWithoutAddresses,
    #[error(
        "the pod-proxy and port-forward sidecar transports need a Kubernetes client (kubeconfig)"
    )]
    PodProxyWithoutClient,
    #[error("cannot build the Kubernetes client for the pod proxy: {0}")]
    KubeClient(String),
}

/// Build the transport the environment asks for. `get` reads one variable (`std::env::var` in
/// production, a map in tests); `kube` (the kubeconfig's client config) is needed only for the
/// pod proxy.
pub fn transport_from_env(
    get: impl Fn(&str) -> Option<String>,
    kube: Option<::kube::Config>,
) -> Result<SidecarTransport, SidecarEnvError> {
    let get = |name: &str| {
        get(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let port = match get(ENV_PORT) {
        Some(text) => text.parse().map_err(|_| SidecarEnvError::BadPort(text))?,
        None => SIDECAR_PROXY_PORT,
    };
    let token_file = get(ENV_TOKEN_FILE).map(PathBuf::from);
    let choice = SidecarOverride {
        addresses: match get(ENV_MAP) {
            Some(map) => parse_map(&map)?,
            None => Default::default(),
        },
        template: get(ENV_URL),
        token_file: token_file.clone(),
        remote_user: get(ENV_REMOTE_USER),
    };
    let has_override = !choice.addresses.is_empty() || choice.template.is_some();
    let in_cluster = || SidecarTransport::InCluster {
        port,
        cluster_domain: "cluster.local".to_owned(),
        token_file: token_file
            .clone()
            .unwrap_or_else(|| PathBuf::from(SERVICE_ACCOUNT_TOKEN_FILE)),
    };
    let pod_proxy = |kube: Option<::kube::Config>| match kube {
        Some(config) => match SidecarTransport::pod_proxy(config) {
            Ok(SidecarTransport::PodProxy { client, .. }) => {
                Ok(SidecarTransport::PodProxy { client, port })
            }
            Ok(other) => Ok(other),
            Err(err) => Err(SidecarEnvError::KubeClient(err.to_string())),
        },
        None => Err(SidecarEnvError::PodProxyWithoutClient),
    };
    let port_forward = |kube: Option<::kube::Config>| match kube {
        Some(config) => super::portforward::PortForwards::new(config, port, token_file.clone())
            .map(|forwards| SidecarTransport::PortForward(std::sync::Arc::new(forwards)))
            .map_err(|err| SidecarEnvError::KubeClient(err.to_string())),
        None => Err(SidecarEnvError::PodProxyWithoutClient),
    };
    match get(ENV_TRANSPORT).as_deref().unwrap_or("auto") {
        "port-forward" => port_forward(kube),
        "override" if has_override => Ok(SidecarTransport::Override(choice)),
        "override" => Err(SidecarEnvError::OverrideWithoutAddresses),
        "in-cluster" => Ok(in_cluster()),
        "pod-proxy" => pod_proxy(kube),
        "auto" if has_override => Ok(SidecarTransport::Override(choice)),
        "auto" => {
            let inside_pod = get("KUBERNETES_SERVICE_HOST").is_some()
                && std::path::Path::new(SERVICE_ACCOUNT_TOKEN_FILE).exists();
            if inside_pod {
                Ok(in_cluster())
            } else {
                port_forward(kube)
            }
        }
        other => Err(SidecarEnvError::UnknownTransport(other.to_owned())),
    }
}

/// The sidecar client `SEI_CONSOLE_SIDECAR_*` selects, or why there is none.
pub fn client_from_env(kube: Option<::kube::Config>) -> Result<HttpSidecar, SidecarEnvError> {
    transport_from_env(|k| std::env::var(k).ok(), kube).map(HttpSidecar::new)
}

/// Parse `ns/node=url` entries separated by commas or whitespace.
pub fn parse_map(
    text: &str,
) -> Result<std::collections::BTreeMap<SidecarTarget, String>, SidecarEnvError> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|entry| !entry.is_empty())
        .map(|entry| {
            let bad = || SidecarEnvError::BadMapEntry(entry.to_owned());
            let (key, url) = entry.split_once('=').ok_or_else(bad)?;
            let (namespace, node) = key.split_once('/').ok_or_else(bad)?;
            if namespace.is_empty() || node.is_empty() || url.is_empty() {
                return Err(bad());
            }
            Ok((SidecarTarget::new(namespace, node), url.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn map_entries_parse_with_commas_and_spaces() {
        let map = parse_map("a/n1=http://127.0.0.1:1, b/n2=http://127.0.0.1:2\n").expect("parse");
        assert_eq!(map.len(), 2);
        assert_eq!(map[&SidecarTarget::new("b", "n2")], "http://127.0.0.1:2");
        assert_eq!(
            parse_map("n1=http://x"),
            Err(SidecarEnvError::BadMapEntry("n1=http://x".into()))
        );
    }

    #[test]
    fn auto_picks_override_when_a_map_is_set() {
        let transport = transport_from_env(
            env(&[
                (ENV_MAP, "ns/a=http://127.0.0.1:9"),
                (ENV_REMOTE_USER, "test"),
            ]),
            None,
        )
        .expect("transport");
        let SidecarTransport::Override(choice) = transport else {
            panic!("expected override, got {transport:?}");
        };
        assert_eq!(choice.remote_user.as_deref(), Some("test"));
    }

    #[test]
    fn auto_outside_a_pod_without_kube_client_says_so() {
        let err = transport_from_env(env(&[]), None).expect_err("needs a client");
        assert_eq!(err, SidecarEnvError::PodProxyWithoutClient);
    }

    #[tokio::test]
    async fn auto_outside_a_pod_forwards_to_the_pod_as_the_kubeconfig_identity() {
        let config = ::kube::Config::new("https://127.0.0.1:1".parse().expect("uri"));
        let transport = transport_from_env(env(&[]), Some(config.clone())).expect("transport");
        assert_eq!(transport.name(), "port-forward");
        let transport =
            transport_from_env(env(&[(ENV_TRANSPORT, "pod-proxy")]), Some(config)).expect("pod");
        assert_eq!(transport.name(), "pod-proxy");
    }

    #[test]
    fn explicit_in_cluster_uses_port_and_token_file() {
        let transport = transport_from_env(
            env(&[
                (ENV_TRANSPORT, "in-cluster"),
                (ENV_PORT, "7777"),
                (ENV_TOKEN_FILE, "/tmp/t"),
            ]),
            None,
        )
        .expect("transport");
        let SidecarTransport::InCluster {
            port, token_file, ..
        } = transport
        else {
            panic!("expected in-cluster, got {transport:?}");
        };
        assert_eq!(port, 7777);
        assert_eq!(token_file, PathBuf::from("/tmp/t"));
    }

    #[test]
    fn bad_values_are_reported_by_name() {
        let err = transport_from_env(env(&[(ENV_TRANSPORT, "carrier-pigeon")]), None)
            .expect_err("unknown");
        assert!(err.to_string().contains("SEI_CONSOLE_SIDECAR_TRANSPORT"));
        let err = transport_from_env(env(&[(ENV_PORT, "http")]), None).expect_err("bad port");
        assert_eq!(err, SidecarEnvError::BadPort("http".into()));
        let err =
            transport_from_env(env(&[(ENV_TRANSPORT, "override")]), None).expect_err("no map");
        assert_eq!(err, SidecarEnvError::OverrideWithoutAddresses);
    }
}
