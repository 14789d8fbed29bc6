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

/// A request the API server did not answer in time (surfaces as `kube::Error::Service`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the API server did not answer within {} s", .after.as_secs())]
pub struct RequestTimedOut {
    pub after: Duration,
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
