//! [`SidecarApi`] over HTTP, with three ways to reach a node's sidecar (DESIGN.md section 6):
//!
//! - [`SidecarTransport::PortForward`]: a port-forward to the pod's kube-rbac-proxy port through
//!   the API server, with the operator's own bearer token (`portforward.rs`); the default outside
//!   a cluster;
//! - [`SidecarTransport::PodProxy`]: through the API server's pod proxy subresource
//!   (`/api/v1/namespaces/{ns}/pods/{node}-0:{port}/proxy/v0/...`), which does not forward the
//!   caller's credentials, so kube-rbac-proxy lets only its health paths through;
//! - [`SidecarTransport::InCluster`]: `http://{node}-0.{node}.{ns}.svc.cluster.local:8443` with the
//!   pod's service-account token, as the controller calls it;
//! - [`SidecarTransport::Override`]: explicit addresses (a per-node map and/or a URL template) for
//!   tests and the local demo.
//!
//! Status codes are mapped per spec/sidecar.md sections 2 and 11; every failure becomes a
//! [`SidecarError`] whose class tells the executor whether a retry can help.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::Full;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use crate::api::sidecar::{ErrorResponse, SIDECAR_PROXY_PORT};
use crate::ports::{SidecarError, SidecarReach, SidecarTarget};

pub use super::env::{SidecarEnvError, transport_from_env};

/// Where the projected service-account token lives inside a pod.
pub const SERVICE_ACCOUNT_TOKEN_FILE: &str = "/var/run/secrets/kubernetes.io/serviceaccount/token";
/// Longest error body quoted in a message.
const MAX_QUOTED_BODY: usize = 512;

/// Per-call deadlines. Defaults follow the controller: 2 s health probe, 30 s submit, 15 s else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SidecarTimeouts {
    pub health: Duration,
    pub submit: Duration,
    pub call: Duration,
}

impl Default for SidecarTimeouts {
    fn default() -> Self {
        Self {
            health: Duration::from_secs(2),
            submit: Duration::from_secs(30),
            call: Duration::from_secs(15),
        }
    }
}

/// Explicit sidecar addresses, for tests and the demo.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SidecarOverride {
    /// Base URL per node, e.g. `http://127.0.0.1:17001`.
    pub addresses: BTreeMap<SidecarTarget, String>,
    /// Base URL for nodes missing from `addresses`; `{namespace}`, `{node}` and `{pod}` are
    /// replaced, e.g. `http://{node}-0.{node}.{namespace}.svc.cluster.local:8443`.
    pub template: Option<String>,
    /// Token file whose content is sent as `Authorization: Bearer …`, when set.
    pub token_file: Option<PathBuf>,
    /// Value of one `X-Remote-User` header, for a sidecar in trusted-header mode reached directly
    /// on loopback. Never set it when a kube-rbac-proxy is in front.
    pub remote_user: Option<String>,
}

impl SidecarOverride {
    fn base_url(&self, target: &SidecarTarget) -> Option<String> {
        if let Some(address) = self.addresses.get(target) {
            return Some(address.clone());
        }
        self.template.as_ref().map(|template| {
            template
                .replace("{namespace}", &target.namespace)
                .replace("{node}", &target.node)
                .replace("{pod}", &target.pod_name())
        })
    }
}

/// How requests reach a node's sidecar.
#[derive(Clone)]
pub enum SidecarTransport {
    /// A port-forward per pod to kube-rbac-proxy, authenticated as the operator.
    PortForward(std::sync::Arc<super::portforward::PortForwards>),
    /// Through the API server's pod proxy, authenticated as the kubeconfig user. Build it with
    /// [`SidecarTransport::pod_proxy`]: the client must not retry 503s.
    PodProxy { client: ::kube::Client, port: u16 },
    /// Pod DNS through the headless Service, with a bearer token read from `token_file`.
    InCluster {
        port: u16,
        cluster_domain: String,
        token_file: PathBuf,
    },
    /// Explicit addresses.
    Override(SidecarOverride),
}

impl std::fmt::Debug for SidecarTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::PortForward(forwards) => write!(f, "{forwards:?}"),
            Self::PodProxy { port, .. } => write!(f, "PodProxy {{ port: {port} }}"),
            Self::InCluster {
                port,
                cluster_domain,
                token_file,
            } => write!(
                f,
                "InCluster {{ port: {port}, cluster_domain: {cluster_domain}, token_file: {} }}",
                token_file.display()
            ),
            Self::Override(choice) => write!(f, "Override({choice:?})"),
        }
    }
}

impl SidecarTransport {
    /// The controller's own transport: proxy port 8443, `cluster.local`, the pod's token.
    pub fn in_cluster() -> Self {
        Self::InCluster {
            port: SIDECAR_PROXY_PORT,
            cluster_domain: "cluster.local".to_owned(),
            token_file: PathBuf::from(SERVICE_ACCOUNT_TOKEN_FILE),
        }
    }

    /// The pod proxy to kube-rbac-proxy's port 8443, through a client built from `config`.
    ///
    /// kube's default retry layer is switched off: it retries 503 up to 15 times, and 503 is how
    /// the sidecar says "not ready" on `/v0/healthz`.
    ///
    /// The API server authenticates the caller and does not forward its credentials to the pod,
    /// so kube-rbac-proxy answers 401 on every path but its unauthenticated ones (`/v0/healthz`);
    /// that surfaces as [`SidecarError::Unauthorized`].
    pub fn pod_proxy(config: ::kube::Config) -> Result<Self, ::kube::Error> {
        let mut config = config;
        config.default_retry = false;
        Ok(Self::PodProxy {
            client: crate::kube::client::api_client(config, false)?,
            port: SIDECAR_PROXY_PORT,
        })
    }

    /// A port-forward to kube-rbac-proxy's port 8443 as the kubeconfig identity, or with the
    /// token in `token_file` when given.
    pub fn port_forward(
        config: ::kube::Config,
        token_file: Option<PathBuf>,
    ) -> Result<Self, ::kube::Error> {
        super::portforward::PortForwards::new(config, SIDECAR_PROXY_PORT, token_file)
            .map(|forwards| Self::PortForward(std::sync::Arc::new(forwards)))
    }

    /// How calls travel, for the permission checks.
    pub fn reach(&self) -> SidecarReach {
        match self {
            Self::PortForward(_) => SidecarReach::PortForward,
            Self::PodProxy { .. } => SidecarReach::PodProxy,
            Self::InCluster { .. } => SidecarReach::InCluster,
            Self::Override(_) => SidecarReach::Direct,
        }
    }

    /// Whether the console's task calls can be authenticated on this transport.
    pub fn credential(&self) -> crate::ports::SidecarCredential {
        match self {
            Self::PortForward(forwards) if !forwards.has_bearer() => {
                crate::ports::SidecarCredential::NoBearerToken
            }
            _ => crate::ports::SidecarCredential::Usable,
        }
    }

    /// A short name for status lines: `port-forward`, `pod-proxy`, `in-cluster` or `override`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::PortForward(_) => "port-forward",
            Self::PodProxy { .. } => "pod-proxy",
            Self::InCluster { .. } => "in-cluster",
            Self::Override(_) => "override",
        }
    }
}

/// A status, headers and body, whoever produced them.
#[derive(Debug)]
pub(super) struct RawResponse {
    pub(super) status: StatusCode,
    pub(super) retry_after: Option<Duration>,
    pub(super) body: Bytes,
}

/// The sidecar HTTP client. Cheap to clone; share one for the whole process.
#[derive(Clone)]
pub struct HttpSidecar {
    transport: SidecarTransport,
    pub(super) timeouts: SidecarTimeouts,
    http: HyperClient<HttpConnector, Full<Bytes>>,
}

impl std::fmt::Debug for HttpSidecar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpSidecar")
            .field("transport", &self.transport)
            .field("timeouts", &self.timeouts)
            .finish()
    }
}

impl HttpSidecar {
    pub fn new(transport: SidecarTransport) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_connect_timeout(Some(Duration::from_secs(5)));
        connector.set_nodelay(true);
        Self {
            transport,
            timeouts: SidecarTimeouts::default(),
            http: HyperClient::builder(TokioExecutor::new()).build(connector),
        }
    }

    pub fn with_timeouts(mut self, timeouts: SidecarTimeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    pub fn transport(&self) -> &SidecarTransport {
        &self.transport
    }

    /// One request with a deadline covering connect, send and the whole body.
    pub(super) async fn call(
        &self,
        target: &SidecarTarget,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        deadline: Duration,
    ) -> Result<RawResponse, SidecarError> {
        let exchange = async {
            match &self.transport {
                SidecarTransport::PortForward(forwards) => {
                    forwards.exchange(target, method, path, body).await
                }
                SidecarTransport::PodProxy { client, port } => {
                    self.via_pod_proxy(client, *port, target, method, path, body)
                        .await
                }
                SidecarTransport::InCluster {
                    port,
                    cluster_domain,
                    token_file,
                } => {
                    let base = format!(
                        "http://{pod}.{node}.{ns}.svc.{cluster_domain}:{port}",
                        pod = target.pod_name(),
                        node = target.node,
                        ns = target.namespace,
                    );
                    let token = read_token(target, token_file)?;
                    self.direct(target, &base, Some(token), None, method, path, body)
                        .await
                }
                SidecarTransport::Override(choice) => {
                    let base = choice
                        .base_url(target)
                        .ok_or_else(|| SidecarError::Config {
                            target: target.clone(),
                            detail: "no address for this node in the sidecar override \
                                 (SEI_CONSOLE_SIDECAR_MAP / SEI_CONSOLE_SIDECAR_URL)"
                                .to_owned(),
                        })?;
                    let token = match &choice.token_file {
                        Some(file) => Some(read_token(target, file)?),
                        None => None,
                    };
                    let user = choice.remote_user.as_deref();
                    self.direct(target, &base, token, user, method, path, body)
                        .await
                }
            }
        };
        tokio::time::timeout(deadline, exchange)
            .await
            .map_err(|_| SidecarError::Timeout {
                target: target.clone(),
                after: deadline,
            })?
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "one request's target, base URL, credentials, method, path and body, passed through"
    )]
    async fn direct(
        &self,
        target: &SidecarTarget,
        base: &str,
        token: Option<String>,
        remote_user: Option<&str>,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<RawResponse, SidecarError> {
        let url = format!("{}{path}", base.trim_end_matches('/'));
        let mut builder = Request::builder().method(method).uri(&url);
        if let Some(token) = token {
            builder = builder.header(http::header::AUTHORIZATION, format!("Bearer {token}"));
        }
        if let Some(user) = remote_user {
            builder = builder.header("X-Remote-User", user);
        }
        if body.is_some() {
            builder = builder.header(http::header::CONTENT_TYPE, "application/json");
        }
        let request = builder
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|err| SidecarError::Config {
                target: target.clone(),
                detail: format!("bad sidecar URL {url:?}: {err}"),
            })?;
        let response = self.http.request(request).await.map_err(|err| {
            let detail = if err.is_connect() {
                format!("cannot connect to {base}: {}", error_chain(&err))
            } else {
                format!("request to {url} failed: {}", error_chain(&err))
            };
            SidecarError::Unreachable {
                target: target.clone(),
                detail,
            }
        })?;
        let (parts, body) = response.into_parts();
        let body = super::body::read_bounded(&parts.headers, body)
            .await
            .map_err(|err| {
                err.into_sidecar_error(target, path, |err| SidecarError::Unreachable {
                    target: target.clone(),
                    detail: format!("answer from {url} cut short: {err}"),
                })
            })?;
        Ok(RawResponse {
            status: parts.status,
            retry_after: retry_after(&parts.headers),
            body,
        })
    }

    async fn via_pod_proxy(
        &self,
        client: &::kube::Client,
        port: u16,
        target: &SidecarTarget,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<RawResponse, SidecarError> {
        let url = format!(
            "/api/v1/namespaces/{ns}/pods/{pod}:{port}/proxy{path}",
            ns = target.namespace,
            pod = target.pod_name(),
        );
        let mut builder = Request::builder().method(method).uri(&url);
        if body.is_some() {
            builder = builder.header(http::header::CONTENT_TYPE, "application/json");
        }
        let request = builder
            .body(::kube::client::Body::from(body.unwrap_or_default()))
            .map_err(|err| SidecarError::Config {
                target: target.clone(),
                detail: format!("bad pod proxy path {url:?}: {err}"),
            })?;
        let response = client
            .send(request)
            .await
            .map_err(|err| SidecarError::Unreachable {
                target: target.clone(),
                detail: format!("API server pod proxy: {err}"),
            })?;
        let (parts, body) = response.into_parts();
        let body = super::body::read_bounded(&parts.headers, body)
            .await
            .map_err(|err| {
                err.into_sidecar_error(target, path, |err| SidecarError::Unreachable {
                    target: target.clone(),
                    detail: format!("answer through the pod proxy cut short: {err}"),
                })
            })?;
        let raw = RawResponse {
            status: parts.status,
            retry_after: retry_after(&parts.headers),
            body,
        };
        // The API server answers for itself (pod missing, cannot dial, not allowed) with a
        // Kubernetes Status body; never mistake that for the sidecar's own 404 or 503.
        match api_server_status_message(&raw.body) {
            Some(message) => Err(api_server_error(target, raw.status, message)),
            None => Ok(raw),
        }
    }
}

/// Classify an answer the API server gave on the pod proxy path itself.
fn api_server_error(target: &SidecarTarget, status: StatusCode, message: String) -> SidecarError {
    let target = target.clone();
    match status.as_u16() {
        401 | 403 => SidecarError::Unauthorized {
            target,
            status: status.as_u16(),
            body: message,
        },
        404 => SidecarError::Unreachable {
            target,
            detail: format!("pod not found by the API server: {message}"),
        },
        code if status.is_server_error() => SidecarError::ServerError {
            target,
            status: code,
            body: message,
            retry_after: None,
        },
        code => SidecarError::UnexpectedStatus {
            target,
            call: "pod proxy",
            status: code,
            body: message,
        },
    }
}

/// The `message` of a Kubernetes `Status` object, if the body is one.
fn api_server_status_message(body: &[u8]) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    if value.get("kind")?.as_str()? != "Status" {
        return None;
    }
    Some(
        value
            .get("message")
            .and_then(|m| m.as_str())
            .unwrap_or("(no message)")
            .to_owned(),
    )
}

fn read_token(target: &SidecarTarget, file: &std::path::Path) -> Result<String, SidecarError> {
    // Read on every call: projected tokens rotate, and this never serves a stale one.
    let token = std::fs::read_to_string(file).map_err(|err| SidecarError::Config {
        target: target.clone(),
        detail: format!("failed to read token file {}: {err}", file.display()),
    })?;
    Ok(token.trim().to_owned())
}

pub(super) fn retry_after(headers: &http::HeaderMap) -> Option<Duration> {
    let seconds: u64 = headers
        .get(http::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds))
}

fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The human part of an error body: `{"error": …}`, else the raw text (router 404/405 and proxy
/// 401/403 are plain text), cut to a readable length.
pub(super) fn error_text(body: &[u8]) -> String {
    if let Ok(ErrorResponse { error }) = serde_json::from_slice(body) {
        return error;
    }
    let text = String::from_utf8_lossy(body).trim().to_owned();
    if text.is_empty() {
        return "(empty body)".to_owned();
    }
    match text.char_indices().nth(MAX_QUOTED_BODY) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// Errors every call shares: authorization, server errors, anything unexpected.
pub(super) fn status_error(
    target: &SidecarTarget,
    call: &'static str,
    raw: &RawResponse,
) -> SidecarError {
    let target = target.clone();
    let status = raw.status.as_u16();
    let body = error_text(&raw.body);
    match status {
        401 | 403 => SidecarError::Unauthorized {
            target,
            status,
            body,
        },
        _ if raw.status.is_server_error() => SidecarError::ServerError {
            target,
            status,
            body,
            retry_after: raw.retry_after,
        },
        _ => SidecarError::UnexpectedStatus {
            target,
            call,
            status,
            body,
        },
    }
}

pub(super) fn decode<T: serde::de::DeserializeOwned>(
    target: &SidecarTarget,
    call: &'static str,
    body: &[u8],
) -> Result<T, SidecarError> {
    serde_json::from_slice(body).map_err(|err| SidecarError::Protocol {
        target: target.clone(),
        call,
        detail: format!("undecodable body ({err}): {}", error_text(body)),
    })
}

#[cfg(test)]
mod tests;
