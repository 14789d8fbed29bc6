//! The sidecar through a port-forward to the node's pod: the API server opens a stream to port
//! 8443 of `<node>-0` (kube-rbac-proxy), and the console speaks HTTP/1.1 over it with the
//! operator's own bearer token, so the proxy's TokenReview and SubjectAccessReview judge the
//! operator (DESIGN.md section 6). One forward per pod is kept while it works and reopened when
//! it breaks; the caller bounds every call in time.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Method, Request};
use http_body_util::{Empty, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use k8s_openapi::api::core::v1::Pod;
use kube::client::ConfigExt;
use tower::util::BoxCloneService;
use tower::{BoxError, Layer, ServiceExt};

use super::http::{RawResponse, retry_after};
use crate::ports::{SidecarError, SidecarTarget};

/// Paths kube-rbac-proxy passes without authentication (upstream `bypassPaths`).
pub const BYPASS_PATHS: [&str; 4] = ["/v0/healthz", "/v0/livez", "/v0/startupz", "/v0/metrics"];
/// How long a broken forward may take to report the kubelet's reason.
const FORWARD_ERROR_WAIT: Duration = Duration::from_millis(300);

/// Where the bearer token for kube-rbac-proxy comes from.
enum Bearer {
    /// The kubeconfig identity's token, through kube-rs' own auth layer (static token, token
    /// file re-read, exec plugin refreshed), echoed back by a service that only reads the header.
    Kubeconfig(Mutex<TokenEcho>),
    /// A token file named by `SEI_CONSOLE_SIDECAR_TOKEN_FILE`, read on every call.
    File(std::path::PathBuf),
    /// The identity has no bearer token (client certificate only).
    None,
}

type TokenEcho =
    BoxCloneService<Request<Empty<Bytes>>, http::Response<Option<HeaderValue>>, BoxError>;

/// What a client-certificate-only identity is told: kube-rbac-proxy authenticates bearer tokens
/// only, so every call but its unauthenticated health paths is refused before it is sent.
pub const NO_BEARER_TOKEN: &str = "the kubeconfig identity has no bearer token (client \
     certificate only) and kube-rbac-proxy accepts bearer tokens only, so only /v0/healthz, \
     /v0/livez, /v0/startupz and /v0/metrics can be reached; use a kubeconfig user with a token \
     (token, tokenFile or exec plugin) or set SEI_CONSOLE_SIDECAR_TOKEN_FILE to a token of an \
     identity granted seinodetasks (e.g. from `kubectl create token`)";

/// Open forwards and how to open more. Shared behind an `Arc` by every clone of the transport.
pub struct PortForwards {
    client: kube::Client,
    port: u16,
    bearer: Bearer,
    forwards: Mutex<HashMap<SidecarTarget, Arc<tokio::sync::Mutex<Option<Forward>>>>>,
}

/// One open forward to a pod's port and the HTTP/1.1 connection over it (shared with the
/// node RPC's adapter, `rpc`).
pub(crate) struct Forward {
    pub(crate) sender: SendRequest<Full<Bytes>>,
    forwarder: kube::api::Portforwarder,
    /// The kubelet's reason when the stream fails (e.g. nothing listens on the port).
    error: Option<futures::future::BoxFuture<'static, Option<String>>>,
}

/// Why a forward could not be opened.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// The API server refused it (401/403): its message.
    Refused { code: u16, message: String },
    /// The API server knows no such pod: its message.
    NoPod(String),
    /// Anything else, in words.
    Failed(String),
}

/// Opens a forward to `port` of `pod` and an HTTP/1.1 connection over it.
pub(crate) async fn open_forward(
    client: &kube::Client,
    namespace: &str,
    pod: &str,
    port: u16,
) -> Result<Forward, OpenError> {
    let pods: kube::Api<Pod> = kube::Api::namespaced(client.clone(), namespace);
    let mut forwarder = pods
        .portforward(pod, &[port])
        .await
        .map_err(|err| match err {
            kube::Error::Api(status) if status.code == 401 || status.code == 403 => {
                OpenError::Refused {
                    code: status.code,
                    message: status.message,
                }
            }
            kube::Error::Api(status) if status.code == 404 => OpenError::NoPod(status.message),
            other => OpenError::Failed(format!("cannot open a port-forward to pod {pod}: {other}")),
        })?;
    let stream = forwarder.take_stream(port).ok_or_else(|| {
        OpenError::Failed(format!(
            "port-forward to pod {pod} gave no stream for {port}"
        ))
    })?;
    let error = forwarder
        .take_error(port)
        .map(|future| Box::pin(future) as futures::future::BoxFuture<'static, _>);
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|err| {
            OpenError::Failed(format!("HTTP over the port-forward to pod {pod}: {err}"))
        })?;
    tokio::spawn(async move {
        // Ends when the forward closes; the next call notices and reopens.
        let _ = connection.await;
    });
    Ok(Forward {
        sender,
        forwarder,
        error,
    })
}

impl Drop for Forward {
    fn drop(&mut self) {
        self.forwarder.abort();
    }
}

impl std::fmt::Debug for PortForwards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let bearer = match &self.bearer {
            Bearer::Kubeconfig(_) => "kubeconfig".to_owned(),
            Bearer::File(file) => file.display().to_string(),
            Bearer::None => "none".to_owned(),
        };
        write!(f, "PortForward {{ port: {}, bearer: {bearer} }}", self.port)
    }
}

/// Whether the kubeconfig user authenticates with a bearer token kube-rs can produce.
pub fn has_bearer_token(auth: &kube::config::AuthInfo) -> bool {
    auth.token.is_some()
        || auth.token_file.is_some()
        || auth.exec.is_some()
        || auth.auth_provider.is_some()
}

impl PortForwards {
    /// Forwards to `port` through a client built from `config`; the token comes from
    /// `token_file` when given, else from the kubeconfig identity.
    pub fn new(
        config: kube::Config,
        port: u16,
        token_file: Option<std::path::PathBuf>,
    ) -> Result<Self, kube::Error> {
        let bearer = match token_file {
            Some(file) => Bearer::File(file),
            None if has_bearer_token(&config.auth_info) => match config.auth_layer()? {
                Some(layer) => {
                    let echo = tower::service_fn(|request: Request<Empty<Bytes>>| async move {
                        let header = request.headers().get(http::header::AUTHORIZATION).cloned();
                        Ok::<_, BoxError>(http::Response::new(header))
                    });
                    Bearer::Kubeconfig(Mutex::new(BoxCloneService::new(layer.layer(echo))))
                }
                None => Bearer::None,
            },
            None => Bearer::None,
        };
        let mut config = config;
        config.default_retry = false;
        Ok(Self {
            client: kube::Client::try_from(config)?,
            port,
            bearer,
            forwards: Mutex::new(HashMap::new()),
        })
    }

    /// Whether calls beyond the proxy's health paths can be authenticated.
    pub fn has_bearer(&self) -> bool {
        !matches!(self.bearer, Bearer::None)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    async fn authorization(
        &self,
        target: &SidecarTarget,
    ) -> Result<Option<HeaderValue>, SidecarError> {
        let config_error = |detail: String| SidecarError::Config {
            target: target.clone(),
            detail,
        };
        match &self.bearer {
            Bearer::None => Ok(None),
            Bearer::File(file) => {
                let token = std::fs::read_to_string(file).map_err(|err| {
                    config_error(format!(
                        "failed to read token file {}: {err}",
                        file.display()
                    ))
                })?;
                HeaderValue::from_str(&format!("Bearer {}", token.trim()))
                    .map(Some)
                    .map_err(|err| config_error(format!("token in {}: {err}", file.display())))
            }
            Bearer::Kubeconfig(echo) => {
                let service = match echo.lock() {
                    Ok(service) => service.clone(),
                    Err(poisoned) => poisoned.into_inner().clone(),
                };
                service
                    .oneshot(Request::new(Empty::new()))
                    .await
                    .map(http::Response::into_body)
                    .map_err(|err| config_error(format!("kubeconfig token: {err}")))
            }
        }
    }

    fn slot(&self, target: &SidecarTarget) -> Arc<tokio::sync::Mutex<Option<Forward>>> {
        let mut forwards = match self.forwards.lock() {
            Ok(forwards) => forwards,
            Err(poisoned) => poisoned.into_inner(),
        };
        forwards.entry(target.clone()).or_default().clone()
    }

    /// One HTTP exchange with the pod's proxy port. A reused forward that turns out broken
    /// before the request went out is reopened once.
    pub(super) async fn exchange(
        &self,
        target: &SidecarTarget,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<RawResponse, SidecarError> {
        let bypass = BYPASS_PATHS.contains(&path);
        let authorization = self.authorization(target).await?;
        if authorization.is_none() && !bypass {
            return Err(SidecarError::Unauthorized {
                target: target.clone(),
                status: 401,
                body: format!("not sent: {NO_BEARER_TOKEN}"),
            });
        }
        let mut builder = Request::builder()
            .method(method)
            .uri(path)
            .header(http::header::HOST, format!("localhost:{}", self.port));
        if let Some(value) = authorization.filter(|_| !bypass) {
            builder = builder.header(http::header::AUTHORIZATION, value);
        }
        if body.is_some() {
            builder = builder.header(http::header::CONTENT_TYPE, "application/json");
        }
        let mut request = builder
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|err| SidecarError::Config {
                target: target.clone(),
                detail: format!("bad sidecar path {path:?}: {err}"),
            })?;

        let slot = self.slot(target);
        let mut open = slot.lock().await;
        for attempt in 0..2 {
            let reusable = open
                .as_ref()
                .is_some_and(|forward| !forward.sender.is_closed());
            if !reusable {
                *open = Some(self.open(target).await?);
            }
            let Some(forward) = open.as_mut() else {
                continue;
            };
            if forward.sender.ready().await.is_err() {
                let reason = forward_error(open.take()).await;
                if attempt == 0 {
                    continue;
                }
                return Err(broken(target, reason));
            }
            match forward.sender.try_send_request(request).await {
                Ok(response) => {
                    let (parts, body) = response.into_parts();
                    let body = super::body::read_bounded(&parts.headers, body)
                        .await
                        .map_err(|err| {
                            // What was left unread would be the next answer's start: this
                            // connection is done, the next call opens another.
                            open.take();
                            err.into_sidecar_error(target, path, |err| SidecarError::Unreachable {
                                target: target.clone(),
                                detail: format!("answer through the port-forward cut short: {err}"),
                            })
                        })?;
                    return Ok(RawResponse {
                        status: parts.status,
                        retry_after: retry_after(&parts.headers),
                        body,
                    });
                }
                Err(mut failed) => {
                    let unsent = failed.take_message();
                    let detail = failed.into_error().to_string();
                    let reason = forward_error(open.take()).await.unwrap_or(detail);
                    match unsent {
                        Some(again) if attempt == 0 => request = again,
                        _ => return Err(broken(target, Some(reason))),
                    }
                }
            }
        }
        Err(broken(target, None))
    }

    async fn open(&self, target: &SidecarTarget) -> Result<Forward, SidecarError> {
        let pod = target.pod_name();
        open_forward(&self.client, &target.namespace, &pod, self.port)
            .await
            .map_err(|err| open_error(target, &pod, err))
    }
}

/// The kubelet's reason for a broken forward, when it gives one quickly.
pub(crate) async fn forward_error(forward: Option<Forward>) -> Option<String> {
    let mut forward = forward?;
    let error = forward.error.take()?;
    tokio::time::timeout(FORWARD_ERROR_WAIT, error)
        .await
        .ok()
        .flatten()
}

fn broken(target: &SidecarTarget, reason: Option<String>) -> SidecarError {
    SidecarError::Unreachable {
        target: target.clone(),
        detail: format!(
            "port-forward to pod {} broke: {}",
            target.pod_name(),
            reason.unwrap_or_else(|| "connection closed".to_owned())
        ),
    }
}

/// The API server refused or failed to open the forward.
fn open_error(target: &SidecarTarget, pod: &str, err: OpenError) -> SidecarError {
    let target = target.clone();
    match err {
        OpenError::Refused { code, message } => SidecarError::Unauthorized {
            target,
            status: code,
            body: format!(
                "the API server refused the port-forward to pod {pod} \
                 (needs create pods/portforward): {message}"
            ),
        },
        OpenError::NoPod(message) => SidecarError::Unreachable {
            target,
            detail: format!("pod {pod} not found by the API server: {message}"),
        },
        OpenError::Failed(detail) => SidecarError::Unreachable { target, detail },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_with(auth: kube::config::AuthInfo) -> kube::Config {
        let mut config = kube::Config::new("https://127.0.0.1:1".parse().expect("uri"));
        config.auth_info = auth;
        config
    }

    #[tokio::test]
    async fn the_kubeconfig_token_is_what_kube_rs_would_send() {
        let auth = kube::config::AuthInfo {
            token: Some("s3cret".to_owned().into()),
            ..Default::default()
        };
        let forwards = PortForwards::new(config_with(auth), 8443, None).expect("transport");
        assert!(forwards.has_bearer());
        let header = forwards
            .authorization(&SidecarTarget::new("ns", "a"))
            .await
            .expect("token");
        assert_eq!(header, Some(HeaderValue::from_static("Bearer s3cret")));
    }

    #[tokio::test]
    async fn a_client_certificate_identity_sends_nothing_but_health_and_says_why() {
        let forwards =
            PortForwards::new(config_with(Default::default()), 8443, None).expect("transport");
        assert!(!forwards.has_bearer());
        let target = SidecarTarget::new("ns", "a");
        let err = forwards
            .exchange(&target, Method::GET, "/v0/tasks", None)
            .await
            .expect_err("refused before sending");
        let SidecarError::Unauthorized { status, body, .. } = &err else {
            panic!("expected Unauthorized, got {err:?}");
        };
        assert_eq!(*status, 401);
        assert!(body.contains("SEI_CONSOLE_SIDECAR_TOKEN_FILE"), "{body}");
        assert!(!err.is_transient());
    }

    #[tokio::test]
    async fn a_token_file_is_read_on_every_call() {
        let dir = std::env::temp_dir().join(format!("sei-pf-token-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("token");
        std::fs::write(&file, "one\n").expect("write");
        let forwards = PortForwards::new(config_with(Default::default()), 8443, Some(file.clone()))
            .expect("transport");
        let target = SidecarTarget::new("ns", "a");
        let first = forwards.authorization(&target).await.expect("token");
        std::fs::write(&file, "two").expect("rotate");
        let second = forwards.authorization(&target).await.expect("token");
        assert_eq!(first, Some(HeaderValue::from_static("Bearer one")));
        assert_eq!(second, Some(HeaderValue::from_static("Bearer two")));
        let _ = std::fs::remove_dir_all(dir);
    }
}
