//! Every request the console sends has a deadline for the API server's answer.
//!
//! A frozen API server (SIGSTOP, a dead node behind a live load balancer) accepts connections
//! and never answers: without a deadline a preview or a permission check waits forever. The
//! deadline covers the wait for the response headers only, so a watch, whose headers come at
//! once and whose stream then may stay quiet for minutes, is not cut. `kube::client::api_client`
//! puts [`RequestTimeoutLayer`] on every client (`errors::REQUEST_TIMEOUT`).
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tower::{BoxError, Layer, Service};

use super::errors::REQUEST_TIMEOUT;

/// A request the API server did not answer in time (surfaces as `kube::Error::Service`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the API server did not answer within {} s", .after.as_secs())]
pub struct RequestTimedOut {
    pub after: Duration,
}

/// kubectl's generic flags that hold for every client the process makes: `--as`, `--as-group`
/// (impersonation: the API server authorises the request as that user and groups, if the
/// credentials may impersonate) and `--request-timeout` (the answer's deadline; zero: none).
/// Set once by the composition root before the first client ([`set_generic`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Generic {
    pub as_user: Option<String>,
    pub as_groups: Vec<String>,
    pub request_timeout: Option<Duration>,
}

static GENERIC: std::sync::OnceLock<Generic> = std::sync::OnceLock::new();

/// Sets the process's [`Generic`] flags; false (and nothing changed) when already set.
pub fn set_generic(generic: Generic) -> bool {
    GENERIC.set(generic).is_ok()
}

pub(crate) fn generic() -> &'static Generic {
    GENERIC.get_or_init(Generic::default)
}

/// How long a request waits for its answer: `--request-timeout`, else [`REQUEST_TIMEOUT`]
/// (zero: no deadline, as kubectl's `--request-timeout 0`).
pub fn request_timeout() -> Duration {
    match generic().request_timeout {
        Some(Duration::ZERO) => Duration::MAX,
        Some(after) => after,
        None => REQUEST_TIMEOUT,
    }
}

/// `config` impersonating the [`Generic`] user and groups, if given.
pub(crate) fn impersonating(mut config: kube::Config, generic: &Generic) -> kube::Config {
    if let Some(user) = &generic.as_user {
        config.auth_info.impersonate = Some(user.clone());
    }
    if !generic.as_groups.is_empty() {
        config.auth_info.impersonate_groups = Some(generic.as_groups.clone());
    }
    config
}

/// Tower layer failing a request whose answer has not begun after `after`.
#[derive(Debug, Clone, Copy)]
pub struct RequestTimeoutLayer {
    after: Duration,
}

impl RequestTimeoutLayer {
    pub fn new(after: Duration) -> RequestTimeoutLayer {
        RequestTimeoutLayer { after }
    }
}

impl<S> Layer<S> for RequestTimeoutLayer {
    type Service = RequestTimeout<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RequestTimeout {
            inner,
            after: self.after,
        }
    }
}

/// The service [`RequestTimeoutLayer`] produces.
#[derive(Debug, Clone)]
pub struct RequestTimeout<S> {
    inner: S,
    after: Duration,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T, BoxError>> + Send>>;

impl<S, B> Service<http::Request<B>> for RequestTimeout<S>
where
    S: Service<http::Request<B>>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = BoxFuture<S::Response>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let after = self.after;
        let response = self.inner.call(request);
        Box::pin(async move {
            match tokio::time::timeout(after, response).await {
                Ok(answer) => answer.map_err(Into::into),
                Err(_) => Err(Box::new(RequestTimedOut { after }) as BoxError),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generic_identity_is_impersonated_and_nothing_else_changes() {
        let config = kube::Config::new("https://127.0.0.1:6443".parse().expect("url"));
        let same = impersonating(config, &Generic::default());
        assert_eq!(same.auth_info.impersonate, None);
        assert_eq!(same.auth_info.impersonate_groups, None);
        let config = same;
        let generic = Generic {
            as_user: Some("alice".to_owned()),
            as_groups: vec!["oncall".to_owned(), "sre".to_owned()],
            request_timeout: None,
        };
        let config = impersonating(config, &generic);
        assert_eq!(config.auth_info.impersonate.as_deref(), Some("alice"));
        assert_eq!(
            config.auth_info.impersonate_groups,
            Some(vec!["oncall".to_owned(), "sre".to_owned()])
        );
    }

    #[tokio::test]
    async fn an_unanswered_request_fails_after_the_deadline_an_answered_one_passes() {
        let silent = tower::service_fn(|_: http::Request<()>| async {
            std::future::pending::<Result<http::Response<()>, BoxError>>().await
        });
        let mut service = RequestTimeoutLayer::new(Duration::from_millis(50)).layer(silent);
        let error = service
            .call(http::Request::new(()))
            .await
            .expect_err("times out");
        assert_eq!(
            error.to_string(),
            "the API server did not answer within 0 s"
        );
        let answering = tower::service_fn(|_: http::Request<()>| async {
            Ok::<_, BoxError>(http::Response::new(()))
        });
        let mut service = RequestTimeoutLayer::new(Duration::from_secs(20)).layer(answering);
        assert!(service.call(http::Request::new(())).await.is_ok());
    }
}
