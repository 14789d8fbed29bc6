//! Shared helpers: a raw HTTP client, a temp home, polling with a deadline, and a small
//! OpenAPI 3.1 schema checker for the subset the sidecar document uses.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use sidecar_standin::{Options, Standin};

pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|err| panic!("body is not JSON ({err}): {:?}", self.body))
    }

    pub fn content_type(&self) -> &str {
        self.headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }
}

pub struct Harness {
    pub standin: Standin,
    pub home: PathBuf,
    client: Client<HttpConnector, Full<Bytes>>,
    pub remote_user: Vec<&'static str>,
}

pub fn temp_home() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("standin-test-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("create temp home");
    dir
}

impl Harness {
    pub async fn start(configure: impl FnOnce(&mut Options)) -> Self {
        Self::start_in(temp_home(), configure).await
    }

    pub async fn start_in(home: PathBuf, configure: impl FnOnce(&mut Options)) -> Self {
        let mut options = Options::new(&home);
        configure(&mut options);
        let standin = Standin::start("127.0.0.1:0".parse().expect("addr"), options)
            .await
            .expect("start stand-in");
        Self {
            standin,
            home,
            client: Client::builder(TokioExecutor::new()).build(HttpConnector::new()),
            remote_user: Vec::new(),
        }
    }

    pub async fn send(&self, method: Method, path: &str, body: Option<&str>) -> Reply {
        let mut request = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.standin.base_url()));
        for user in &self.remote_user {
            request = request.header("X-Remote-User", *user);
        }
        let request = request
            .body(Full::new(Bytes::from(body.unwrap_or("").to_owned())))
            .expect("request");
        let response = self.client.request(request).await.expect("HTTP exchange");
        let (parts, body) = response.into_parts();
        Reply {
            status: parts.status,
            headers: parts.headers,
            body: body.collect().await.expect("body").to_bytes(),
        }
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, None).await
    }

    pub async fn post_task(&self, body: Value) -> Reply {
        self.send(Method::POST, "/v0/tasks", Some(&body.to_string()))
            .await
    }

    /// Poll `GET /v0/tasks/{id}` until it is no longer running (deadline 10 s).
    pub async fn wait_terminal(&self, id: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let reply = self.get(&format!("/v0/tasks/{id}")).await;
            if reply.status == StatusCode::OK {
                let task = reply.json();
                if task["status"] != "running" {
                    return task;
                }
            }
            assert!(Instant::now() < deadline, "task {id} still not terminal");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub fn config_file(&self, name: &str) -> String {
        std::fs::read_to_string(self.home.join("config").join(name)).expect("config file")
    }
}

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The OpenAPI document of the real sidecar, as vendored.
pub fn openapi() -> Value {
    let text = include_str!("../../openapi.yaml");
    serde_yaml_ng::from_str(text).expect("openapi.yaml parses")
}

/// Check `value` against `schema` (with `$ref`s into `doc`): type, required, properties, enum,
/// items, `format: date-time`. Returns the violations.
pub fn violations(doc: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let pointer = reference.trim_start_matches('#');
        let target = doc
            .pointer(pointer)
            .unwrap_or_else(|| panic!("dangling {reference}"));
        return violations(doc, target, value, at);
    }
    let mut out = Vec::new();
    let kind = schema.get("type").and_then(Value::as_str);
    let type_ok = match kind {
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        Some("string") => value.is_string(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("boolean") => value.is_boolean(),
        _ => true,
    };
    if !type_ok {
        out.push(format!("{at}: expected {kind:?}, got {value}"));
        return out;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        out.push(format!("{at}: {value} not in {allowed:?}"));
    }
    if schema.get("format").and_then(Value::as_str) == Some("date-time")
        && let Some(text) = value.as_str()
        && text.parse::<jiff::Timestamp>().is_err()
    {
        out.push(format!("{at}: {text:?} is not an RFC 3339 date-time"));
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if value.get(name).is_none() {
                out.push(format!("{at}: missing required {name}"));
            }
        }
    }
    if let (Some(properties), Some(object)) = (
        schema.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        for (name, property) in properties {
            if let Some(field) = object.get(name) {
                out.extend(violations(doc, property, field, &format!("{at}.{name}")));
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (index, item) in array.iter().enumerate() {
            out.extend(violations(doc, items, item, &format!("{at}[{index}]")));
        }
    }
    out
}
