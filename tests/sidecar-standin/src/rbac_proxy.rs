//! A stand-in for the kube-rbac-proxy container in front of each node's sidecar, as upstream
//! `buildRBACProxyContainer` configures it (`--insecure-listen-address`, `--ignore-paths`,
//! `--auth-header-fields-enabled`, the `GenerateRBACProxyConfigMap` resource attributes):
//!
//! - the bypass paths (`/v0/healthz`, `/v0/livez`, `/v0/startupz`, `/v0/metrics`) pass without
//!   authentication or authorization;
//! - any other request needs `Authorization: Bearer <token>`: a TokenReview against the API
//!   server authenticates it (401 `Unauthorized` otherwise), a SubjectAccessReview on
//!   `seinodetasks.sei.io` of the node, verb from the HTTP method, authorizes it (403
//!   `Forbidden (user=…, verb=…, resource=seinodetasks, subresource=)` otherwise);
//! - upstream gets `X-Remote-User` and `X-Remote-Groups`, never the token.
//!
//! One listener per node (the pod's port 8443); upstream is that node's real seictl (its own
//! loopback port) or, for nodes the stand-in serves, that node's stand-in in the router.
//! Each request leaves one line in `<homes>/<namespace>/<node>/logs/kube-rbac-proxy.log` in the
//! CRI log format, which kwok serves as the container's logs (`kubectl logs -c kube-rbac-proxy`).
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec, UserInfo};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::api::PostParams;
use tokio::net::TcpListener;

use crate::server::Body;

/// Paths the proxy forwards without authentication (upstream `bypassPaths`).
pub const BYPASS_PATHS: [&str; 4] = ["/v0/healthz", "/v0/livez", "/v0/startupz", "/v0/metrics"];

/// Each node's proxy: its address and the task accepting on it.
type Listeners = HashMap<(String, String), (SocketAddr, tokio::task::JoinHandle<()>)>;

/// The per-node proxies: open one with [`RbacProxies::open`], close it with
/// [`RbacProxies::close`].
pub struct RbacProxies {
    kube: kube::Client,
    /// The router's base URL; a node's upstream is `{upstream}/{namespace}/{node}`.
    upstream: String,
    /// The nodes' homes, where each proxy keeps its container log.
    homes: std::path::PathBuf,
    http: HttpClient<HttpConnector, Full<Bytes>>,
    listeners: Mutex<Listeners>,
}

impl RbacProxies {
    pub fn new(kube: kube::Client, upstream: String, homes: std::path::PathBuf) -> Arc<Self> {
        Arc::new(Self {
            kube,
            upstream,
            homes,
            http: HttpClient::builder(TokioExecutor::new()).build(HttpConnector::new()),
            listeners: Mutex::default(),
        })
    }

    /// The address of the node's proxy, listening on a free loopback port from the first call.
    /// Its upstream is `upstream` (the node's real seictl, `http://127.0.0.1:<port>`) or, when
    /// `None`, the node's stand-in in the router.
    pub async fn open(
        self: &Arc<Self>,
        namespace: &str,
        node: &str,
        upstream: Option<String>,
    ) -> Result<SocketAddr, String> {
        let key = (namespace.to_owned(), node.to_owned());
        if let Some((addr, _)) = self.lock().get(&key) {
            return Ok(*addr);
        }
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|err| format!("binding a proxy port: {err}"))?;
        let addr = listener
            .local_addr()
            .map_err(|err| format!("local address: {err}"))?;
        let proxies = Arc::clone(self);
        let upstream =
            Arc::new(upstream.unwrap_or_else(|| format!("{}/{namespace}/{node}", self.upstream)));
        let node = Arc::new(key.clone());
        let task = tokio::spawn(async move {
            // Bounded by the listener's life: `close` aborts this task.
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let proxies = Arc::clone(&proxies);
                let node = Arc::clone(&node);
                let upstream = Arc::clone(&upstream);
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let proxies = Arc::clone(&proxies);
                        let node = Arc::clone(&node);
                        let upstream = Arc::clone(&upstream);
                        async move {
                            Ok::<_, std::convert::Infallible>(
                                proxies.serve(&node, &upstream, request).await,
                            )
                        }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        let mut listeners = self.lock();
        if let Some((existing, _)) = listeners.get(&key) {
            // Another call opened it meanwhile: keep that one.
            task.abort();
            return Ok(*existing);
        }
        listeners.insert(key, (addr, task));
        Ok(addr)
    }

    /// Stops the node's proxy (its pod is gone); open connections end with it.
    pub fn close(&self, namespace: &str, node: &str) {
        if let Some((_, task)) = self.lock().remove(&(namespace.to_owned(), node.to_owned())) {
            task.abort();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Listeners> {
        self.listeners
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    async fn serve(
        &self,
        (namespace, node): &(String, String),
        upstream: &str,
        request: Request<hyper::body::Incoming>,
    ) -> Response<Body> {
        let path = request.uri().path().to_owned();
        let method = request.method().clone();
        let user = if BYPASS_PATHS.contains(&path.as_str()) {
            None
        } else {
            match self.authorize(namespace, node, &request).await {
                Ok(user) => Some(user),
                Err(refusal) => {
                    self.log(namespace, node, &method, &path, None, refusal.status());
                    return refusal;
                }
            }
        };
        let name = user.as_ref().and_then(|u| u.username.clone());
        let response = self.forward(upstream, user, request).await;
        self.log(
            namespace,
            node,
            &method,
            &path,
            name.as_deref(),
            response.status(),
        );
        response
    }

    /// One CRI log line per request (`<RFC 3339> stderr F <message>`), as kubelet stores them.
    fn log(
        &self,
        namespace: &str,
        node: &str,
        method: &Method,
        path: &str,
        user: Option<&str>,
        status: StatusCode,
    ) {
        use std::io::Write;
        let dir = self.homes.join(namespace).join(node).join("logs");
        let line = format!(
            "{} stderr F {method} {path} user={} status={}\n",
            jiff::Timestamp::now(),
            user.unwrap_or("-"),
            status.as_u16()
        );
        // Logging is best effort: a full disk must not fail the request.
        let _ = std::fs::create_dir_all(&dir).and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join("kube-rbac-proxy.log"))
                .and_then(|mut file| file.write_all(line.as_bytes()))
        });
    }

    /// TokenReview, then SubjectAccessReview; the refusal is the proxy's own answer.
    async fn authorize(
        &self,
        namespace: &str,
        node: &str,
        request: &Request<hyper::body::Incoming>,
    ) -> Result<UserInfo, Response<Body>> {
        let token = request
            .headers()
            .get(http::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|token| !token.is_empty())
            .ok_or_else(unauthorized)?;
        let review = kube::Api::<TokenReview>::all(self.kube.clone())
            .create(
                &PostParams::default(),
                &TokenReview {
                    spec: TokenReviewSpec {
                        token: token.to_owned(),
                        ..TokenReviewSpec::default()
                    },
                    ..TokenReview::default()
                },
            )
            .await
            .map_err(|err| text(StatusCode::INTERNAL_SERVER_ERROR, &format!("{err}")))?;
        let status = review.status.unwrap_or_default();
        let user = match (status.authenticated, status.user) {
            (Some(true), Some(user)) => user,
            _ => return Err(unauthorized()),
        };
        let verb = api_verb(request.method());
        let access = kube::Api::<SubjectAccessReview>::all(self.kube.clone())
            .create(
                &PostParams::default(),
                &SubjectAccessReview {
                    spec: SubjectAccessReviewSpec {
                        user: user.username.clone(),
                        groups: user.groups.clone(),
                        uid: user.uid.clone(),
                        extra: user.extra.clone(),
                        resource_attributes: Some(ResourceAttributes {
                            group: Some("sei.io".to_owned()),
                            resource: Some("seinodetasks".to_owned()),
                            namespace: Some(namespace.to_owned()),
                            name: Some(node.to_owned()),
                            verb: Some(verb.to_owned()),
                            ..ResourceAttributes::default()
                        }),
                        ..SubjectAccessReviewSpec::default()
                    },
                    ..SubjectAccessReview::default()
                },
            )
            .await
            .map_err(|err| text(StatusCode::INTERNAL_SERVER_ERROR, &format!("{err}")))?;
        if access.status.is_some_and(|status| status.allowed) {
            return Ok(user);
        }
        Err(text(
            StatusCode::FORBIDDEN,
            &format!(
                "Forbidden (user={}, verb={verb}, resource=seinodetasks, subresource=)",
                user.username.as_deref().unwrap_or("")
            ),
        ))
    }

    async fn forward(
        &self,
        upstream_base: &str,
        user: Option<UserInfo>,
        request: Request<hyper::body::Incoming>,
    ) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let Ok(body) = body.collect().await.map(|collected| collected.to_bytes()) else {
            return text(StatusCode::BAD_REQUEST, "request body cut short");
        };
        let path_and_query = parts
            .uri
            .path_and_query()
            .map(|pq| pq.as_str().to_owned())
            .unwrap_or_else(|| "/".to_owned());
        let url = format!("{upstream_base}{path_and_query}");
        let mut upstream = Request::builder().method(parts.method.clone()).uri(&url);
        for (name, value) in &parts.headers {
            let dropped = name == http::header::AUTHORIZATION
                || name == http::header::HOST
                || name.as_str().eq_ignore_ascii_case("x-remote-user")
                || name.as_str().eq_ignore_ascii_case("x-remote-groups");
            if !dropped {
                upstream = upstream.header(name, value);
            }
        }
        if let Some(user) = &user {
            upstream = upstream.header("X-Remote-User", user.username.as_deref().unwrap_or(""));
            for group in user.groups.iter().flatten() {
                upstream = upstream.header("X-Remote-Groups", group);
            }
        }
        let Ok(upstream) = upstream.body(Full::new(body)) else {
            return text(StatusCode::BAD_GATEWAY, "cannot build the upstream request");
        };
        match self.http.request(upstream).await {
            Ok(response) => {
                let (parts, body) = response.into_parts();
                match body.collect().await {
                    Ok(collected) => Response::from_parts(parts, Full::new(collected.to_bytes())),
                    Err(err) => text(StatusCode::BAD_GATEWAY, &format!("upstream: {err}")),
                }
            }
            Err(err) => text(StatusCode::BAD_GATEWAY, &format!("upstream: {err}")),
        }
    }
}

/// kube-rbac-proxy's verb for an HTTP method.
pub fn api_verb(method: &Method) -> &'static str {
    match *method {
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE => "delete",
        _ => "get",
    }
}

fn unauthorized() -> Response<Body> {
    text(StatusCode::UNAUTHORIZED, "Unauthorized")
}

fn text(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{message}\n"))));
    *response.status_mut() = status;
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs_follow_the_http_method_as_kube_rbac_proxy_maps_them() {
        assert_eq!(api_verb(&Method::GET), "get");
        assert_eq!(api_verb(&Method::HEAD), "get");
        assert_eq!(api_verb(&Method::POST), "create");
        assert_eq!(api_verb(&Method::DELETE), "delete");
        assert_eq!(api_verb(&Method::PUT), "update");
    }
}
