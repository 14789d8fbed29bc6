//! Read-only mode: refuses every mutating request before it leaves the process.
//!
//! Two guards, both needed: `config::read_only::MutationGuard` says whether read-only mode is on
//! and where it was switched on (the action is refused up front, before any preview request, by
//! the one decision in `ops::action::read_only_refusal`), and [`ReadOnlyLayer`] wraps the kube client's HTTP
//! service so that no code path — `ClusterApi`, a spec patch, an Event, a sidecar call through
//! the pod proxy — can send a mutating request even if it forgets to ask
//! (`kube::client::api_client(config, true)` builds such a client).
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tower::{BoxError, Layer, Service};

/// A request the read-only layer refused (surfaces as `kube::Error::Service`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("read-only mode: refused {method} {path} before sending it")]
pub struct RequestRefused {
    pub method: String,
    pub path: String,
}

/// Whether a request can change cluster state. Reads (GET, HEAD, OPTIONS, which includes
/// watches), access reviews (POSTs that store nothing) and server-side dry-runs pass.
pub fn is_mutating(method: &http::Method, uri: &http::Uri) -> bool {
    if matches!(
        *method,
        http::Method::GET | http::Method::HEAD | http::Method::OPTIONS
    ) {
        return false;
    }
    let path = uri.path().trim_end_matches('/');
    let review = *method == http::Method::POST
        && path.starts_with("/apis/authorization.k8s.io/")
        && (path.ends_with("/selfsubjectaccessreviews")
            || path.ends_with("/selfsubjectrulesreviews"));
    let dry_run = uri
        .query()
        .is_some_and(|q| q.split('&').any(|pair| pair == "dryRun=All"));
    !(review || dry_run)
}

/// Tower layer refusing mutating requests; see [`is_mutating`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOnlyLayer;

impl<S> Layer<S> for ReadOnlyLayer {
    type Service = ReadOnlyService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ReadOnlyService { inner }
    }
}

/// The service [`ReadOnlyLayer`] produces.
#[derive(Debug, Clone)]
pub struct ReadOnlyService<S> {
    inner: S,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T, BoxError>> + Send>>;

impl<S, B> Service<http::Request<B>> for ReadOnlyService<S>
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
        if is_mutating(request.method(), request.uri()) {
            let refused = RequestRefused {
                method: request.method().to_string(),
                path: request.uri().path().to_owned(),
            };
            tracing::warn!(%refused, "read-only guard");
            return Box::pin(async move { Err(Box::new(refused) as BoxError) });
        }
        let response = self.inner.call(request);
        Box::pin(async move { response.await.map_err(Into::into) })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use tower::ServiceExt as _;

    use super::*;

    fn request(method: &str, uri: &str) -> http::Request<()> {
        http::Request::builder()
            .method(method)
            .uri(uri)
            .body(())
            .expect("request")
    }

    #[test]
    fn classifies_reads_reviews_dry_runs_and_mutations() {
        let cases = [
            (
                "GET",
                "/apis/sei.io/v1alpha1/namespaces/a/seinodes?watch=true",
                false,
            ),
            ("HEAD", "/api/v1/pods", false),
            (
                "POST",
                "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                false,
            ),
            (
                "PATCH",
                "/apis/apps/v1/namespaces/a/statefulsets/x?dryRun=All&fieldManager=m",
                false,
            ),
            (
                "PATCH",
                "/apis/sei.io/v1alpha1/namespaces/a/seinodes/x",
                true,
            ),
            (
                "PATCH",
                "/apis/sei.io/v1alpha1/namespaces/a/seinodes/x/status",
                true,
            ),
            ("POST", "/api/v1/namespaces/a/events", true),
            ("POST", "/api/v1/namespaces/a/secrets?dryRun=None", true),
            (
                "PUT",
                "/apis/coordination.k8s.io/v1/namespaces/a/leases/l",
                true,
            ),
            ("DELETE", "/api/v1/namespaces/a/pods/x-0", true),
            (
                "POST",
                "/api/v1/namespaces/a/pods/x-0:7777/proxy/v0/tasks",
                true,
            ),
            (
                "POST",
                "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                true,
            ),
        ];
        for (method, uri, mutating) in cases {
            let method: http::Method = method.parse().expect("method");
            let uri: http::Uri = uri.parse().expect("uri");
            assert_eq!(is_mutating(&method, &uri), mutating, "{method} {uri}");
        }
    }

    #[tokio::test]
    async fn mutating_requests_never_reach_the_inner_service() {
        let calls = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&calls);
        let inner = tower::service_fn(move |_req: http::Request<()>| {
            seen.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, BoxError>(http::Response::new(())) }
        });
        let service = ReadOnlyLayer.layer(inner);
        for (method, uri) in [
            ("PATCH", "/apis/sei.io/v1alpha1/namespaces/a/seinodes/x"),
            ("POST", "/api/v1/namespaces/a/secrets"),
            ("DELETE", "/api/v1/namespaces/a/pods/x-0"),
            ("PUT", "/apis/coordination.k8s.io/v1/namespaces/a/leases/l"),
        ] {
            let err = service
                .clone()
                .oneshot(request(method, uri))
                .await
                .expect_err("refused");
            let refused = err.downcast_ref::<RequestRefused>().expect("typed refusal");
            assert_eq!(refused.method, method);
        }
        assert_eq!(
            calls.load(Ordering::SeqCst),
            0,
            "no mutating call got through"
        );
        service
            .clone()
            .oneshot(request("GET", "/api/v1/namespaces/a/pods"))
            .await
            .expect("reads pass");
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }
}
