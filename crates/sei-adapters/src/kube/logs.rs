//! `KubeLogs`: the `ports::logs::PodLogs` port over `pods/log` (kube-rs `log_stream`), shared by
//! `sei-console logs` and the console's logs view. Lines longer than `limits::LOG_LINE_BYTES` are
//! cut with a marker (`log_lines`).
use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, LogParams};

use crate::limits;
use crate::ports::logs::{LogError, LogFuture, LogRequest, PodLogs};

pub struct KubeLogs {
    client: kube::Client,
}

impl KubeLogs {
    /// Over the console's client (its `timeout` layer bounds the wait for the headers).
    pub fn new(client: kube::Client) -> KubeLogs {
        KubeLogs { client }
    }
}

fn params(request: &LogRequest) -> LogParams {
    LogParams {
        container: Some(request.container.clone()),
        follow: request.follow,
        previous: request.previous,
        since_seconds: request.since_seconds,
        tail_lines: request.tail_lines,
        timestamps: request.timestamps,
        ..LogParams::default()
    }
}

/// The typed error of a refused log request.
fn classify(request: &LogRequest, error: kube::Error) -> LogError {
    match &error {
        kube::Error::Api(status) if status.code == 404 => LogError::PodMissing {
            namespace: request.namespace.clone(),
            pod: request.pod.clone(),
        },
        kube::Error::Api(status) if status.code == 403 => {
            LogError::Forbidden(status.message.clone())
        }
        // 400: "container \"seid\" in pod \"x\" is waiting to start", "previous terminated
        // container ... not found", an unknown container.
        kube::Error::Api(status) if status.code == 400 => {
            LogError::Unavailable(status.message.clone())
        }
        _ => LogError::Failed(super::errors::describe(&error)),
    }
}

impl PodLogs for KubeLogs {
    fn open<'a>(&'a self, request: &'a LogRequest) -> LogFuture<'a> {
        Box::pin(async move {
            let pods: Api<Pod> = Api::namespaced(self.client.clone(), &request.namespace);
            let reader = pods
                .log_stream(&request.pod, &params(request))
                .await
                .map_err(|error| classify(request, error))?;
            // Each line bounded: one endless line never holds the console's memory.
            let lines = super::log_lines::bounded_lines(Box::pin(reader), limits::LOG_LINE_BYTES)
                .map(|line| line.map_err(|error| LogError::Broken(error.to_string())));
            Ok(lines.boxed())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> LogRequest {
        LogRequest {
            namespace: "sei".into(),
            pod: "full-0-0".into(),
            container: "kube-rbac-proxy".into(),
            follow: true,
            previous: true,
            since_seconds: Some(300),
            tail_lines: Some(10),
            timestamps: true,
        }
    }

    #[test]
    fn request_maps_to_the_params_kubectl_sends() {
        let params = params(&request());
        assert_eq!(params.container.as_deref(), Some("kube-rbac-proxy"));
        assert!(params.follow && params.previous);
        assert_eq!(params.since_seconds, Some(300));
        assert_eq!(params.tail_lines, Some(10));
        assert!(params.timestamps);
    }

    #[test]
    fn refusals_are_typed_by_status_code() {
        let status = |code: u16, message: &str| {
            let status: kube::core::Status = serde_json::from_value(serde_json::json!({
                "status": "Failure", "code": code, "message": message
            }))
            .expect("status");
            kube::Error::Api(Box::new(status))
        };
        assert_eq!(
            classify(&request(), status(404, "pods \"full-0-0\" not found")),
            LogError::PodMissing {
                namespace: "sei".into(),
                pod: "full-0-0".into()
            }
        );
        assert_eq!(
            classify(&request(), status(403, "no")),
            LogError::Forbidden("no".into())
        );
        assert_eq!(
            classify(
                &request(),
                status(400, "container \"seid\" is waiting to start")
            ),
            LogError::Unavailable("container \"seid\" is waiting to start".into())
        );
    }
}
