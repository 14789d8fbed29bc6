//! Many nodes behind one port (`--homes-root`): each `/{namespace}/{node}` prefix is its own
//! sidecar with its own home, tasks and readiness flag.
mod support;

use bytes::Bytes;
use http::{Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::json;
use sidecar_standin::{Options, StandinRouter};
use support::{new_id, temp_home};

async fn send(base: &str, method: Method, path: &str, body: &str) -> (StatusCode, Bytes) {
    let client = Client::builder(TokioExecutor::new()).build_http::<Full<Bytes>>();
    let request = Request::builder()
        .method(method)
        .uri(format!("{base}{path}"))
        .body(Full::new(Bytes::from(body.to_owned())))
        .expect("request");
    let response = client.request(request).await.expect("exchange");
    let status = response.status();
    (
        status,
        response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes(),
    )
}

#[tokio::test]
async fn each_prefix_is_an_independent_sidecar_with_its_own_home() {
    let root = temp_home();
    let router = StandinRouter::start(
        "127.0.0.1:0".parse().expect("addr"),
        root.clone(),
        Options::new(""),
    )
    .await
    .expect("router");
    let template = router.url_template();
    let a = template
        .replace("{namespace}", "sei")
        .replace("{node}", "seed-a");
    let b = template
        .replace("{namespace}", "other")
        .replace("{node}", "full-b");

    let id = new_id();
    let (status, _) = send(
        &a,
        Method::POST,
        "/v0/tasks",
        &json!({"id": id, "type": "mark-ready"}).to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while send(&a, Method::GET, "/v0/healthz", "").await.0 != StatusCode::OK {
        assert!(
            std::time::Instant::now() < deadline,
            "node a never became ready"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    // The other node is untouched: not ready, task unknown, but its home exists once contacted.
    assert_eq!(
        send(&b, Method::GET, "/v0/healthz", "").await.0,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(
        send(&b, Method::GET, &format!("/v0/tasks/{id}"), "")
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert!(root.join("sei/seed-a/config/config.toml").exists());
    assert!(root.join("other/full-b/config/config.toml").exists());
    // Queries survive the prefix; paths that are not namespace/node pairs are 404.
    assert_eq!(
        send(&a, Method::GET, "/v0/livez?verbose=1", "").await.0,
        StatusCode::OK
    );
    let base = format!("http://{}", router.addr);
    assert_eq!(
        send(&base, Method::GET, "/v0/healthz", "").await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        send(&base, Method::GET, "/../x/v0/healthz", "").await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        send(&base, Method::GET, "/Sei/Upper/v0/healthz", "")
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert!(!root.join("v0").exists(), "no home for a non-API path");
    // A simulated restart loses readiness but keeps the node's tasks and files.
    assert_eq!(
        send(&a, Method::POST, "/standin/restart", "").await.0,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        send(&a, Method::GET, "/v0/healthz", "").await.0,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(
        send(&a, Method::GET, &format!("/v0/tasks/{id}"), "")
            .await
            .0,
        StatusCode::OK
    );
    // Per-node chain ID: configure-genesis writes the chain named in the node's home.
    std::fs::write(root.join("sei/seed-a/.standin-chain-id"), "pacific-1\n").expect("chain id");
    let genesis = new_id();
    let body = json!({"id": genesis, "type": "configure-genesis"}).to_string();
    send(&a, Method::POST, "/v0/tasks", &body).await;
    let task_path = format!("/v0/tasks/{genesis}");
    while !String::from_utf8_lossy(&send(&a, Method::GET, &task_path, "").await.1)
        .contains("completed")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "configure-genesis not completed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let path = root.join("sei/seed-a/config/genesis.json");
    let text = std::fs::read_to_string(&path).expect("genesis");
    assert!(text.contains("\"chain_id\": \"pacific-1\""), "{text}");
    router.stop().await;
}
