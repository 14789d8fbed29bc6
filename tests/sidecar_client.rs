//! `HttpSidecar` against the sidecar stand-in over loopback (override transport), for every call
//! and every error class; plus the pod-proxy transport against a loopback stand-in of the API
//! server's proxy subresource, and a fault server for answers the stand-in never gives.
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use sei_console::api::sidecar::{SidecarStatus, SidecarTaskType, TaskRequest, TaskStatus};
use sei_console::ports::{DeleteOutcome, ErrorClass, SidecarApi, SidecarError, SidecarTarget};
use sei_console::sidecar::http::{HttpSidecar, SidecarOverride, SidecarTimeouts, SidecarTransport};
use serde_json::json;
use sidecar_standin::{Options, Standin};
use uuid::Uuid;

fn target() -> SidecarTarget {
    SidecarTarget::new("sei", "seed-a")
}

fn temp_home() -> PathBuf {
    // Under cargo's per-target scratch dir (inside `target/`), so nothing piles up in /tmp.
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("client-test-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("temp home");
    dir
}

async fn standin(configure: impl FnOnce(&mut Options)) -> Standin {
    let mut options = Options::new(temp_home());
    configure(&mut options);
    Standin::start("127.0.0.1:0".parse().expect("addr"), options)
        .await
        .expect("stand-in")
}

fn client_for(base_url: String, configure: impl FnOnce(&mut SidecarOverride)) -> HttpSidecar {
    let mut choice = SidecarOverride {
        addresses: BTreeMap::from([(target(), base_url)]),
        ..Default::default()
    };
    configure(&mut choice);
    HttpSidecar::new(SidecarTransport::Override(choice))
}

async fn wait_terminal(client: &HttpSidecar, id: Uuid) -> sei_console::api::sidecar::TaskResult {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(task) = client.get_task(&target(), id).await.expect("get task")
            && task.status.is_terminal()
        {
            return task;
        }
        assert!(Instant::now() < deadline, "task {id} not terminal in time");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn every_call_succeeds_against_the_stand_in() {
    let server = standin(|_| {}).await;
    let client = client_for(server.base_url(), |_| {});
    let t = target();
    assert!(!client.healthz(&t).await.expect("healthz"));
    assert_eq!(
        client.status(&t).await.expect("status"),
        SidecarStatus::Initializing
    );

    let id = Uuid::new_v4();
    let request = TaskRequest::new(id, SidecarTaskType::MarkReady, None);
    let answer = client.submit_task(&t, &request).await.expect("submit");
    assert_eq!(answer.id, id.to_string());
    // Resubmission is accepted (201) and echoes the same ID.
    client.submit_task(&t, &request).await.expect("resubmit");
    let task = wait_terminal(&client, id).await;
    assert_eq!((task.status, task.run), (TaskStatus::Completed, 1));
    assert!(client.healthz(&t).await.expect("healthz"));
    assert_eq!(
        client.status(&t).await.expect("status"),
        SidecarStatus::Ready
    );

    let listed = client.list_tasks(&t).await.expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, id.to_string());

    assert_eq!(
        client.delete_task(&t, id).await.expect("delete"),
        DeleteOutcome::Deleted
    );
    assert_eq!(
        client.delete_task(&t, id).await.expect("delete"),
        DeleteOutcome::NotFound
    );
    assert_eq!(client.get_task(&t, id).await.expect("get"), None);
    server.stop().await;
}

#[tokio::test]
async fn failed_task_surfaces_its_error_and_a_resubmission_reruns_it() {
    let server = standin(|_| {}).await;
    let client = client_for(server.base_url(), |_| {});
    let id = Uuid::new_v4();
    let bad = TaskRequest::new(id, SidecarTaskType::ConfigPatch, Some(json!({"files": {}})));
    client.submit_task(&target(), &bad).await.expect("submit");
    let task = wait_terminal(&client, id).await;
    assert_eq!(task.status, TaskStatus::Failed);
    assert_eq!(
        task.failure_message(),
        "config-patch: at least one file is required"
    );
    let good = TaskRequest::new(
        id,
        SidecarTaskType::ConfigPatch,
        Some(json!({"files": {"config.toml": {"p2p": {"external-address": "x:26656"}}}})),
    );
    client
        .submit_task(&target(), &good)
        .await
        .expect("resubmit");
    let task = wait_terminal(&client, id).await;
    assert_eq!((task.status, task.run), (TaskStatus::Completed, 2));
    server.stop().await;
}

#[tokio::test]
async fn rejection_is_terminal_with_the_sidecar_message() {
    let server = standin(|_| {}).await;
    let client = client_for(server.base_url(), |_| {});
    let request = TaskRequest::new(
        Uuid::new_v4(),
        SidecarTaskType::Other("no-such".into()),
        None,
    );
    let err = client
        .submit_task(&target(), &request)
        .await
        .expect_err("rejected");
    assert!(
        matches!(&err, SidecarError::Rejected { message, .. } if message == "unknown task type: no-such"),
        "{err}"
    );
    assert_eq!(err.class(), ErrorClass::Terminal);
    server.stop().await;
}

#[tokio::test]
async fn node_id_is_transiently_unavailable_until_the_key_exists() {
    let server = standin(|_| {}).await;
    let client = client_for(server.base_url(), |_| {});
    let err = client.node_id(&target()).await.expect_err("no key yet");
    assert!(
        matches!(err, SidecarError::NodeIdUnavailable { .. }),
        "{err}"
    );
    assert!(err.is_transient());
    let key = ed25519_dalek::SigningKey::from_bytes(&[9u8; 32]);
    let value = base64::engine::general_purpose::STANDARD.encode(key.to_keypair_bytes());
    let file = json!({"priv_key": {"type": "tendermint/PrivKeyEd25519", "value": value}});
    let path = server.engine.home().join("config/node_key.json");
    std::fs::write(path, file.to_string()).expect("write key");
    let node_id = client.node_id(&target()).await.expect("node id");
    assert!(
        sei_console::api::sidecar::is_valid_node_id(&node_id),
        "{node_id}"
    );
    server.stop().await;
}

#[tokio::test]
async fn trusted_header_sidecar_needs_the_remote_user_header() {
    let server = standin(|options| options.trusted_header = true).await;
    let anonymous = client_for(server.base_url(), |_| {});
    let err = anonymous.status(&target()).await.expect_err("401");
    assert!(
        matches!(&err, SidecarError::Unauthorized { status: 401, body, .. } if body == "missing X-Remote-User header"),
        "{err}"
    );
    assert!(!err.is_transient());
    // Probe paths bypass authentication.
    assert!(
        !anonymous
            .healthz(&target())
            .await
            .expect("healthz bypasses auth")
    );
    let user = client_for(server.base_url(), |c| c.remote_user = Some("test".into()));
    assert_eq!(
        user.status(&target()).await.expect("status"),
        SidecarStatus::Initializing
    );
    server.stop().await;
}

#[tokio::test]
async fn connection_refused_is_unreachable_and_transient() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let client = client_for(format!("http://{addr}"), |_| {});
    let err = client.healthz(&target()).await.expect_err("refused");
    assert!(matches!(err, SidecarError::Unreachable { .. }), "{err}");
    assert!(err.is_transient());
}

#[tokio::test]
async fn silent_server_times_out_transiently() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    // Accept and hold connections without ever answering.
    let holder = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let timeouts = SidecarTimeouts {
        health: Duration::from_millis(200),
        ..SidecarTimeouts::default()
    };
    let client = client_for(format!("http://{addr}"), |_| {}).with_timeouts(timeouts);
    let err = client.healthz(&target()).await.expect_err("timeout");
    assert!(
        matches!(err, SidecarError::Timeout { after, .. } if after == Duration::from_millis(200)),
        "{err}"
    );
    assert!(err.is_transient());
    holder.abort();
}

#[tokio::test]
async fn missing_override_entry_and_token_file_are_config_errors() {
    let client = HttpSidecar::new(SidecarTransport::Override(SidecarOverride::default()));
    let err = client.healthz(&target()).await.expect_err("no address");
    assert!(matches!(err, SidecarError::Config { .. }), "{err}");
    let client = HttpSidecar::new(SidecarTransport::InCluster {
        port: 8443,
        cluster_domain: "cluster.local".into(),
        token_file: temp_home().join("missing-token"),
    });
    let err = client.healthz(&target()).await.expect_err("no token");
    assert!(
        err.to_string().contains("failed to read token file"),
        "{err}"
    );
    assert_eq!(err.class(), ErrorClass::Terminal);
}

/// A loopback HTTP server answering with `respond`, recording each request's headers.
type Responder = Arc<dyn Fn(&Request<Incoming>) -> Response<Full<Bytes>> + Send + Sync>;

async fn fault_server(respond: Responder) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let respond = Arc::clone(&respond);
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let response = respond(&request);
                    async move { Ok::<_, Infallible>(response) }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

fn reply(status: u16, body: &str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body.to_owned())));
    *response.status_mut() = StatusCode::from_u16(status).expect("status");
    response
}

#[tokio::test]
async fn server_errors_protocol_breaks_and_unexpected_statuses_are_classified() {
    let addr = fault_server(Arc::new(|request| {
        match (request.method().as_str(), request.uri().path()) {
            ("DELETE", _) => {
                let mut response = reply(503, r#"{"error":"failed to delete task; retry"}"#);
                response
                    .headers_mut()
                    .insert("retry-after", "1".parse().expect("header"));
                response
            }
            ("POST", _) => reply(201, r#"{"id":"someone-else"}"#),
            ("GET", "/v0/node-id") => reply(200, r#"{"nodeId":"NOT-HEX"}"#),
            ("GET", "/v0/status") => reply(418, "teapot"),
            ("GET", "/v0/healthz") => reply(500, ""),
            ("GET", "/v0/tasks") => reply(200, "not json"),
            _ => reply(404, "404 page not found\n"),
        }
    }))
    .await;
    let client = client_for(format!("http://{addr}"), |_| {});
    let t = target();

    let err = client
        .delete_task(&t, Uuid::new_v4())
        .await
        .expect_err("503");
    assert!(
        matches!(&err, SidecarError::ServerError { status: 503, retry_after: Some(d), body, .. }
            if *d == Duration::from_secs(1) && body == "failed to delete task; retry"),
        "{err}"
    );
    assert!(err.is_transient());
    // A 500 from healthz is an error, never "not ready".
    let err = client.healthz(&t).await.expect_err("500");
    assert!(
        matches!(err, SidecarError::ServerError { status: 500, .. }),
        "{err}"
    );

    let request = TaskRequest::new(Uuid::new_v4(), SidecarTaskType::MarkReady, None);
    let err = client
        .submit_task(&t, &request)
        .await
        .expect_err("id mismatch");
    assert!(matches!(err, SidecarError::Protocol { .. }), "{err}");
    assert_eq!(err.class(), ErrorClass::Terminal);
    let err = client.node_id(&t).await.expect_err("bad node id");
    assert!(matches!(err, SidecarError::Protocol { .. }), "{err}");
    let err = client.list_tasks(&t).await.expect_err("bad body");
    assert!(matches!(err, SidecarError::Protocol { .. }), "{err}");
    let err = client.status(&t).await.expect_err("418");
    assert!(
        matches!(&err, SidecarError::UnexpectedStatus { status: 418, body, .. } if body == "teapot"),
        "{err}"
    );
    assert_eq!(err.class(), ErrorClass::Terminal);
}

#[tokio::test]
async fn override_sends_the_bearer_token_from_its_file() {
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let record = Arc::clone(&seen);
    let addr = fault_server(Arc::new(move |request| {
        let auth = request
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        record.lock().expect("lock").push(auth);
        reply(200, "")
    }))
    .await;
    let token_file = temp_home().join("token");
    std::fs::write(&token_file, "s3cret\n").expect("token");
    let client = client_for(format!("http://{addr}"), |c| {
        c.token_file = Some(token_file)
    });
    assert!(client.healthz(&target()).await.expect("healthz"));
    assert_eq!(
        *seen.lock().expect("lock"),
        vec!["Bearer s3cret".to_owned()]
    );
}

/// Stand-in for the API server's pod proxy: forwards
/// `/api/v1/namespaces/sei/pods/seed-a-0:8443/proxy/<rest>` to the sidecar stand-in and answers
/// a Kubernetes `Status` 404 for any other pod.
#[tokio::test]
async fn pod_proxy_transport_reaches_the_sidecar_through_the_proxy_path() {
    let server = standin(|_| {}).await;
    let upstream = server.base_url();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let api_addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let http =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build_http::<Full<Bytes>>();
        while let Ok((stream, _)) = listener.accept().await {
            let http = http.clone();
            let upstream = upstream.clone();
            tokio::spawn(async move {
                let service = service_fn(move |request: Request<Incoming>| {
                    let http = http.clone();
                    let upstream = upstream.clone();
                    async move {
                        let prefix = "/api/v1/namespaces/sei/pods/seed-a-0:8443/proxy";
                        let path = request.uri().path().to_owned();
                        let Some(rest) = path.strip_prefix(prefix) else {
                            let status = r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"other-0\" not found","reason":"NotFound","code":404}"#;
                            return Ok::<_, Infallible>(reply(404, status));
                        };
                        let (parts, body) = request.into_parts();
                        let body = body.collect().await.expect("body").to_bytes();
                        let forwarded = Request::builder()
                            .method(parts.method)
                            .uri(format!("{upstream}{rest}"))
                            .body(Full::new(body))
                            .expect("request");
                        let answer = http.request(forwarded).await.expect("upstream");
                        let (parts, body) = answer.into_parts();
                        let body = body.collect().await.expect("body").to_bytes();
                        Ok(Response::from_parts(parts, Full::new(body)))
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    let config = kube::Config::new(format!("http://{api_addr}").parse().expect("url"));
    let client = HttpSidecar::new(SidecarTransport::pod_proxy(config).expect("kube client"));

    assert!(!client.healthz(&target()).await.expect("healthz via proxy"));
    let id = Uuid::new_v4();
    let request = TaskRequest::new(id, SidecarTaskType::MarkReady, None);
    client
        .submit_task(&target(), &request)
        .await
        .expect("submit via proxy");
    assert_eq!(
        wait_terminal(&client, id).await.status,
        TaskStatus::Completed
    );
    assert_eq!(
        client
            .get_task(&target(), Uuid::new_v4())
            .await
            .expect("get"),
        None
    );

    // The API server's own 404 (no such pod) is "unreachable", not "task not found".
    let other = SidecarTarget::new("sei", "other");
    let err = client.get_task(&other, id).await.expect_err("pod missing");
    assert!(
        matches!(&err, SidecarError::Unreachable { detail, .. } if detail.contains("not found")),
        "{err}"
    );
    assert!(err.is_transient());
    server.stop().await;
}

#[tokio::test]
async fn an_answer_over_the_size_limit_is_refused_naming_it_and_the_next_call_goes_on() {
    let huge = Arc::new(format!(
        "[{}]",
        "0,".repeat(sei_console::limits::SIDECAR_BODY.max_bytes / 2)
    ));
    let huge_len = huge.len();
    let addr = fault_server(Arc::new(move |request| match request.uri().path() {
        "/v0/tasks" => reply(200, &huge),
        "/v0/healthz" => reply(200, ""),
        _ => reply(404, "404 page not found\n"),
    }))
    .await;
    let client = client_for(format!("http://{addr}"), |_| {});
    let t = target();
    let err = client.list_tasks(&t).await.expect_err("over the limit");
    // Refused from its Content-Length, before reading.
    assert_eq!(
        err.to_string(),
        format!(
            "sidecar of sei/seed-a answered /v0/tasks with at least {} bytes, over the \
             console's limit of {}; the answer was not used",
            huge_len,
            sei_console::limits::SIDECAR_BODY.max_bytes
        )
    );
    assert_eq!(err.class(), ErrorClass::Terminal);
    // The client goes on: the next call, on the same client, is answered.
    assert!(client.healthz(&t).await.expect("healthz after the refusal"));
}
