//! HTTP layer (spec/sidecar.md sections 1.3, 1.4 and 2): routes, status codes, bodies, Go
//! `ServeMux` behaviour for unknown paths and wrong methods, trusted-header authentication.
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use serde_json::{Value, json};

use crate::engine::Engine;
use crate::tasks;

/// Paths answered without `X-Remote-User` even in trusted-header mode.
pub const BYPASS_PATHS: [&str; 4] = ["/v0/healthz", "/v0/startupz", "/v0/livez", "/v0/metrics"];
const REJECTION_REASONS: [&str; 3] = ["missing_header", "duplicate_header", "empty_header"];

pub type Body = Full<Bytes>;

pub async fn handle(
    engine: Arc<Engine>,
    trusted_header: bool,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    if trusted_header
        && !BYPASS_PATHS.contains(&path.as_str())
        && let Some(rejection) = check_remote_user(&engine, &parts.headers)
    {
        return Ok(rejection);
    }
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let head = parts.method == Method::HEAD;
    let method = if head {
        Method::GET
    } else {
        parts.method.clone()
    };
    let submitter = submitter_of(&parts.headers);
    let mut response = route(
        &engine,
        &method,
        &path,
        parts.uri.query(),
        &body,
        &submitter,
    );
    if head {
        *response.body_mut() = Full::new(Bytes::new());
    }
    Ok(response)
}

fn check_remote_user(engine: &Engine, headers: &http::HeaderMap) -> Option<Response<Body>> {
    let values: Vec<&HeaderValue> = headers.get_all("x-remote-user").iter().collect();
    let (reason, message) = match values.as_slice() {
        [] => (0, "missing X-Remote-User header"),
        [one] if one.as_bytes().is_empty() => (2, "empty X-Remote-User header"),
        [_] => return None,
        _ => (
            1,
            "expected exactly one X-Remote-User header \u{2014} proxy must overwrite, not append",
        ),
    };
    engine.authn_rejections[reason].fetch_add(1, Ordering::Relaxed);
    Some(json_response(
        StatusCode::UNAUTHORIZED,
        &json!({"error": message}),
    ))
}

/// Who submitted (stand-in bookkeeping only): the `X-Remote-User` header, else `User-Agent`,
/// else `unknown`.
fn submitter_of(headers: &http::HeaderMap) -> String {
    ["x-remote-user", "user-agent"]
        .iter()
        .find_map(|name| headers.get(*name).and_then(|v| v.to_str().ok()))
        .filter(|v| !v.is_empty())
        .unwrap_or("unknown")
        .to_owned()
}

/// Route table of the sidecar; `method` is GET for HEAD requests (a GET route answers HEAD).
fn route(
    engine: &Arc<Engine>,
    method: &Method,
    path: &str,
    query: Option<&str>,
    body: &[u8],
    submitter: &str,
) -> Response<Body> {
    let segments: Vec<&str> = path.strip_prefix('/').unwrap_or(path).split('/').collect();
    let allowed: &[&str] = match segments.as_slice() {
        [
            "v0",
            "healthz" | "startupz" | "livez" | "metrics" | "status" | "node-id",
        ] => &["GET", "HEAD"],
        ["v0", "tasks"] => &["GET", "HEAD", "POST"],
        ["v0", "tasks", id] if !id.is_empty() => &["DELETE", "GET", "HEAD"],
        _ => return text_response(StatusCode::NOT_FOUND, "404 page not found\n"),
    };
    if !allowed.contains(&method.as_str()) {
        let mut response = text_response(StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed\n");
        if let Ok(value) = HeaderValue::from_str(&allowed.join(", ")) {
            response.headers_mut().insert(header::ALLOW, value);
        }
        return response;
    }
    match (method.as_str(), segments.as_slice()) {
        ("GET", ["v0", "healthz" | "startupz"]) => empty(if engine.is_ready() {
            StatusCode::OK
        } else {
            StatusCode::SERVICE_UNAVAILABLE
        }),
        // The store always answers here (no SQLite), so livez is always 200.
        ("GET", ["v0", "livez"]) => {
            let _verbose = query.is_some_and(|q| q.contains("verbose=1"));
            empty(StatusCode::OK)
        }
        ("GET", ["v0", "metrics"]) => metrics(engine),
        ("GET", ["v0", "status"]) => {
            let status = if engine.is_ready() {
                "Ready"
            } else {
                "Initializing"
            };
            json_response(StatusCode::OK, &json!({"status": status}))
        }
        ("GET", ["v0", "node-id"]) => match tasks::node_id(engine.home()) {
            Ok(node_id) => json_response(StatusCode::OK, &json!({"nodeId": node_id})),
            Err(err) => json_error(StatusCode::INTERNAL_SERVER_ERROR, &err.to_string()),
        },
        ("POST", ["v0", "tasks"]) => submit(engine, body, submitter),
        ("GET", ["v0", "tasks"]) => json_response(StatusCode::OK, &json!(engine.list())),
        ("GET", ["v0", "tasks", id]) => match engine.get(id) {
            Some(row) => json_response(StatusCode::OK, &json!(row)),
            None => json_error(StatusCode::NOT_FOUND, "task not found"),
        },
        ("DELETE", ["v0", "tasks", id]) => match engine.delete(id) {
            Ok(true) => empty(StatusCode::NO_CONTENT),
            Ok(false) => json_error(StatusCode::NOT_FOUND, "task not found"),
            Err(_) => {
                let mut response = json_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "failed to delete task; retry",
                );
                response
                    .headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
                response
            }
        },
        _ => text_response(StatusCode::NOT_FOUND, "404 page not found\n"),
    }
}

/// The request body as Go's `json.Decoder` reads it into the request struct: the first JSON
/// value only, unknown fields ignored, keys matched case-insensitively.
struct Submission {
    id: String,
    task_type: String,
    params: Option<Value>,
}

fn decode_submission(body: &[u8]) -> Option<Submission> {
    let first = serde_json::Deserializer::from_slice(body)
        .into_iter::<Value>()
        .next()?
        .ok()?;
    let mut submission = Submission {
        id: String::new(),
        task_type: String::new(),
        params: None,
    };
    let object = match first {
        Value::Null => return Some(submission),
        Value::Object(object) => object,
        _ => return None,
    };
    for (key, value) in object {
        let text = |value: Value| match value {
            Value::String(text) => Some(text),
            Value::Null => Some(String::new()),
            _ => None,
        };
        if key.eq_ignore_ascii_case("id") {
            submission.id = text(value)?;
        } else if key.eq_ignore_ascii_case("type") {
            submission.task_type = text(value)?;
        } else if key.eq_ignore_ascii_case("params") {
            submission.params = match value {
                Value::Null => None,
                Value::Object(params) => Some(Value::Object(params)),
                _ => return None,
            };
        }
    }
    Some(submission)
}

/// `POST /v0/tasks`: the checks in upstream order, then the engine's state machine.
fn submit(engine: &Arc<Engine>, body: &[u8], submitter: &str) -> Response<Body> {
    let Some(submission) = decode_submission(body) else {
        return json_error(StatusCode::BAD_REQUEST, "invalid request body");
    };
    if submission.task_type.is_empty() {
        return json_error(StatusCode::BAD_REQUEST, "type is required");
    }
    if !tasks::is_registered(&submission.task_type) {
        let message = format!("unknown task type: {}", submission.task_type);
        return json_error(StatusCode::BAD_REQUEST, &message);
    }
    let id = if submission.id.is_empty() {
        uuid::Uuid::new_v4().to_string()
    } else if uuid::Uuid::try_parse(&submission.id).is_ok() {
        submission.id
    } else {
        let quoted = serde_json::to_string(&submission.id).unwrap_or_default();
        return json_error(
            StatusCode::BAD_REQUEST,
            &format!("task ID must be a valid UUID: {quoted}"),
        );
    };
    match engine.submit(id, submission.task_type, submission.params, submitter) {
        Ok(id) => json_response(StatusCode::CREATED, &json!({"id": id})),
        Err(err) => json_error(StatusCode::BAD_REQUEST, &format!("persist task: {err}")),
    }
}

fn metrics(engine: &Engine) -> Response<Body> {
    let mut text = String::from(
        "# HELP seictl_sidecar_authn_rejections_total Requests rejected by trusted-header authentication.\n\
         # TYPE seictl_sidecar_authn_rejections_total counter\n",
    );
    for (index, reason) in REJECTION_REASONS.iter().enumerate() {
        let count = engine.authn_rejections[index].load(Ordering::Relaxed);
        text.push_str(&format!(
            "seictl_sidecar_authn_rejections_total{{reason=\"{reason}\"}} {count}\n"
        ));
    }
    text.push_str(&format!(
        "# HELP seictl_sidecar_ready Readiness flag (stand-in).\n# TYPE seictl_sidecar_ready gauge\nseictl_sidecar_ready {}\n",
        u8::from(engine.is_ready())
    ));
    let mut response = Response::new(Full::new(Bytes::from(text)));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    response
}

/// Go's router 404 (`404 page not found`, text/plain).
pub fn not_found() -> Response<Body> {
    text_response(StatusCode::NOT_FOUND, "404 page not found\n")
}

/// A plain-text answer of the stand-in's own control routes.
pub fn plain(status: StatusCode, message: &str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(format!("{message}\n"))));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

pub fn no_content() -> Response<Body> {
    empty(StatusCode::NO_CONTENT)
}

fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}

/// Go's `http.Error`: text/plain, `nosniff`, the message plus a newline.
fn text_response(status: StatusCode, text: &'static str) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// JSON as Go's `json.Encoder` writes it: compact, newline-terminated.
fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    let mut text = value.to_string();
    text.push('\n');
    let mut response = Response::new(Full::new(Bytes::from(text)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn json_error(status: StatusCode, message: &str) -> Response<Body> {
    json_response(status, &json!({"error": message}))
}
