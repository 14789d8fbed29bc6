//! The stand-in's routes, status codes and bodies against the vendored OpenAPI document of the
//! real sidecar, plus the corrections of spec/sidecar.md section 10 where the implementation
//! differs from the document.
mod support;

use std::collections::BTreeSet;

use http::{Method, StatusCode};
use serde_json::{Value, json};
use support::{Harness, Reply, new_id, openapi, violations};

/// Asserts that `reply` is a documented response of `method path` and matches its schema;
/// records the operation as covered.
fn check(doc: &Value, covered: &mut BTreeSet<String>, path: &str, method: &str, reply: &Reply) {
    let operation = &doc["paths"][path][method];
    assert!(
        operation.is_object(),
        "{method} {path} is not in the OpenAPI document"
    );
    let status = reply.status.as_u16().to_string();
    let response = &operation["responses"][&status];
    assert!(
        response.is_object(),
        "{method} {path} answered {status}, which the document does not list"
    );
    match response.pointer("/content/application~1json/schema") {
        Some(schema) => {
            assert_eq!(reply.content_type(), "application/json", "{method} {path}");
            let body = reply.json();
            let problems = violations(doc, schema, &body, "body");
            assert!(
                problems.is_empty(),
                "{method} {path} {status}: {problems:?}"
            );
            assert!(
                reply.body.ends_with(b"\n"),
                "Go's json.Encoder ends bodies in a newline"
            );
        }
        None => assert!(reply.body.is_empty(), "{method} {path} {status} has a body"),
    }
    covered.insert(format!("{method} {path}"));
}

#[tokio::test]
async fn every_documented_operation_answers_as_documented() {
    let doc = openapi();
    let mut covered = BTreeSet::new();
    let h = Harness::start(|_| {}).await;

    // Readiness starts false: healthz 503, status Initializing.
    let reply = h.get("/v0/healthz").await;
    assert_eq!(reply.status, StatusCode::SERVICE_UNAVAILABLE);
    check(&doc, &mut covered, "/v0/healthz", "get", &reply);
    let reply = h.get("/v0/status").await;
    check(&doc, &mut covered, "/v0/status", "get", &reply);
    assert_eq!(reply.json(), json!({"status": "Initializing"}));

    // Submit mark-ready: 201 with the ID echoed.
    let id = new_id();
    let reply = h.post_task(json!({"id": id, "type": "mark-ready"})).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    check(&doc, &mut covered, "/v0/tasks", "post", &reply);
    assert_eq!(reply.json(), json!({"id": id}));
    let task = h.wait_terminal(&id).await;
    assert_eq!(task["status"], "completed");
    let reply = h.get("/v0/healthz").await;
    assert_eq!(reply.status, StatusCode::OK);
    check(&doc, &mut covered, "/v0/healthz", "get", &reply);
    assert_eq!(h.get("/v0/status").await.json(), json!({"status": "Ready"}));

    // Poll and list.
    let reply = h.get(&format!("/v0/tasks/{id}")).await;
    check(&doc, &mut covered, "/v0/tasks/{id}", "get", &reply);
    let reply = h.get("/v0/tasks").await;
    check(&doc, &mut covered, "/v0/tasks", "get", &reply);
    assert_eq!(reply.json().as_array().map(Vec::len), Some(1));

    // Unknown task: 404 with the ErrorResponse body.
    let reply = h.get(&format!("/v0/tasks/{}", new_id())).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    check(&doc, &mut covered, "/v0/tasks/{id}", "get", &reply);
    assert_eq!(reply.json(), json!({"error": "task not found"}));

    // Invalid request: 400 with ErrorResponse.
    let reply = h.post_task(json!({"type": "no-such-task"})).await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    check(&doc, &mut covered, "/v0/tasks", "post", &reply);

    // Delete: 204 empty, then 404.
    let reply = h
        .send(Method::DELETE, &format!("/v0/tasks/{id}"), None)
        .await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT);
    check(&doc, &mut covered, "/v0/tasks/{id}", "delete", &reply);
    let reply = h
        .send(Method::DELETE, &format!("/v0/tasks/{id}"), None)
        .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    check(&doc, &mut covered, "/v0/tasks/{id}", "delete", &reply);

    // Every operation of the document was exercised.
    let documented: BTreeSet<String> = doc["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, item)| {
            item.as_object()
                .expect("path item")
                .keys()
                .map(move |method| format!("{method} {path}"))
        })
        .collect();
    assert_eq!(covered, documented);
    h.standin.stop().await;
}

#[tokio::test]
async fn correction_duplicate_submit_is_201_not_202_and_task_result_carries_run() {
    let doc = openapi();
    let h = Harness::start(|_| {}).await;
    let id = new_id();
    for _ in 0..3 {
        let reply = h.post_task(json!({"id": id, "type": "mark-ready"})).await;
        assert_eq!(reply.status, StatusCode::CREATED);
        assert_eq!(reply.json(), json!({"id": id}));
    }
    let task = h.wait_terminal(&id).await;
    assert_eq!(
        task["run"], 1,
        "duplicates of a completed task never re-run"
    );
    let schema = &doc["components"]["schemas"]["TaskResult"];
    assert!(
        schema["properties"].get("run").is_none(),
        "run is still undocumented"
    );
    assert!(violations(&doc, schema, &task, "task").is_empty());
    // completedAt is set on terminal tasks; params omitted when absent.
    assert!(task.get("completedAt").is_some());
    assert!(task.get("params").is_none());
    h.standin.stop().await;
}

#[tokio::test]
async fn correction_params_are_validated_when_the_handler_runs_and_failed_ids_re_run() {
    let h = Harness::start(|_| {}).await;
    let id = new_id();
    // Bad params still get 201; the task then fails.
    let reply = h
        .post_task(json!({"id": id, "type": "config-patch", "params": {"files": {}}}))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let task = h.wait_terminal(&id).await;
    assert_eq!(task["status"], "failed");
    assert_eq!(task["error"], "config-patch: at least one file is required");
    assert_eq!(task["run"], 1);
    // Resubmitting the failed ID re-runs it with the new params (run 2).
    let params = json!({"files": {"config.toml": {"p2p": {"persistent-peers": "abc@h:26656"}}}});
    let reply = h
        .post_task(json!({"id": id, "type": "config-patch", "params": params}))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let task = h.wait_terminal(&id).await;
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["run"], 2);
    assert_eq!(task["params"], params);
    assert!(task.get("error").is_none());
    assert!(
        h.config_file("config.toml")
            .contains("persistent-peers = 'abc@h:26656'")
    );
    // Wrong param types also fail at run time, not at submit.
    let id = new_id();
    let reply = h
        .post_task(json!({"id": id, "type": "config-apply", "params": {"mode": "seed", "overrides": {"mempool.size": 5}}}))
        .await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let task = h.wait_terminal(&id).await;
    assert!(
        task["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("parsing params: ")),
        "{task}"
    );
    h.standin.stop().await;
}

#[tokio::test]
async fn submit_errors_come_in_upstream_order() {
    let h = Harness::start(|_| {}).await;
    let cases = [
        ("not json", "invalid request body"),
        (r#"{"type": 5}"#, "invalid request body"),
        (
            r#"{"type": "mark-ready", "params": [1]}"#,
            "invalid request body",
        ),
        (r#"{"id": "x"}"#, "type is required"),
        (r#"{"id": "x", "type": "nope"}"#, "unknown task type: nope"),
        (
            r#"{"id": "x", "type": "mark-ready"}"#,
            "task ID must be a valid UUID: \"x\"",
        ),
    ];
    for (body, message) in cases {
        let reply = h.send(Method::POST, "/v0/tasks", Some(body)).await;
        assert_eq!(reply.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(reply.json(), json!({"error": message}), "{body}");
    }
    // No ID: the server generates a lowercase v4 UUID. Other UUID spellings are kept verbatim.
    let reply = h.post_task(json!({"type": "mark-ready"})).await;
    let generated = reply.json()["id"].as_str().expect("id").to_owned();
    assert_eq!(
        uuid::Uuid::parse_str(&generated).expect("uuid").to_string(),
        generated
    );
    let upper = "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE";
    let reply = h
        .post_task(json!({"id": upper, "type": "mark-ready"}))
        .await;
    assert_eq!(reply.json(), json!({"id": upper}));
    let lower = h.get(&format!("/v0/tasks/{}", upper.to_lowercase())).await;
    assert_eq!(
        lower.status,
        StatusCode::NOT_FOUND,
        "IDs are literal strings"
    );
    // A path ID that is not a UUID is simply not found.
    assert_eq!(
        h.get("/v0/tasks/not-a-uuid").await.status,
        StatusCode::NOT_FOUND
    );
    h.standin.stop().await;
}

#[tokio::test]
async fn undocumented_endpoints_and_router_behaviour() {
    let h = Harness::start(|_| {}).await;
    // startupz mirrors healthz; livez is 200 before ready; metrics is Prometheus text.
    assert_eq!(
        h.get("/v0/startupz").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    let livez = h.get("/v0/livez").await;
    assert_eq!((livez.status, livez.body.len()), (StatusCode::OK, 0));
    let metrics = h.get("/v0/metrics").await;
    assert!(metrics.content_type().starts_with("text/plain"));
    assert!(
        String::from_utf8_lossy(&metrics.body).contains("seictl_sidecar_authn_rejections_total")
    );
    // Unknown path: text/plain 404. Known path, wrong method: 405 with Allow.
    let reply = h.get("/v0/nothing").await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    assert_eq!(&reply.body[..], b"404 page not found\n");
    let reply = h.send(Method::PUT, "/v0/tasks", None).await;
    assert_eq!(reply.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(reply.headers["allow"], "GET, HEAD, POST");
    // HEAD on a GET route: same status, no body.
    let reply = h.send(Method::HEAD, "/v0/status", None).await;
    assert_eq!((reply.status, reply.body.len()), (StatusCode::OK, 0));
    h.standin.stop().await;
}

#[tokio::test]
async fn trusted_header_mode_rejects_with_json_401_except_probe_paths() {
    let mut h = Harness::start(|options| options.trusted_header = true).await;
    assert_eq!(
        h.get("/v0/healthz").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    let reply = h.get("/v0/status").await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        reply.json(),
        json!({"error": "missing X-Remote-User header"})
    );
    // Auth runs before routing: an unknown path is 401 too.
    assert_eq!(h.get("/v0/nothing").await.status, StatusCode::UNAUTHORIZED);
    h.remote_user = vec![""];
    assert_eq!(
        h.get("/v0/status").await.json(),
        json!({"error": "empty X-Remote-User header"})
    );
    h.remote_user = vec!["a", "b"];
    assert_eq!(
        h.get("/v0/status").await.json(),
        json!({"error": "expected exactly one X-Remote-User header \u{2014} proxy must overwrite, not append"})
    );
    h.remote_user = vec!["system:serviceaccount:sei:controller"];
    assert_eq!(h.get("/v0/status").await.status, StatusCode::OK);
    let metrics = h.get("/v0/metrics").await;
    assert!(String::from_utf8_lossy(&metrics.body).contains("reason=\"missing_header\"} 2"));
    h.standin.stop().await;
}
