//! The real seictl as a node's sidecar (issue 22): one `seictl serve` process per SeiNode, with
//! the node's home `<root>/<namespace>/<node>` as `--home`, on its own loopback port, in
//! `SEI_SIDECAR_AUTHN_MODE=trusted-header` (it then binds 127.0.0.1 and needs exactly one
//! `X-Remote-User` header, which the kube-rbac-proxy stand-in adds).
//!
//! The router decides once per node, on first contact, who serves it: the real seictl, unless
//! the SeiNode carries the annotation [`SIDECAR_ANNOTATION`]` = standin` (tests of what the real
//! sidecar cannot do here, see README.md) or there is no such SeiNode (a sidecar without a node).
//! The environment is what the pod would give it, with S3 made unreachable on purpose
//! (`AWS_ENDPOINT_URL` on a closed loopback port): no task may leave the machine.
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kube::api::{ApiResource, DynamicObject, GroupVersionKind};

use crate::server::{self, Body};
use crate::submissions;

/// The SeiNode annotation that routes a node's sidecar to the stand-in: `standin`.
pub const SIDECAR_ANNOTATION: &str = "sei-console.test/sidecar";

/// How long a starting seictl may take to answer `/v0/livez`.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// Who serves a node, as read from its SeiNode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The real seictl, with `SEI_CHAIN_ID` = the node's `spec.chainId`.
    Real { chain_id: String },
    /// The stand-in, and why (for its log).
    Standin(String),
}

/// Reads the node's SeiNode and decides who serves its sidecar.
pub async fn choose(kube: &kube::Client, namespace: &str, node: &str) -> Choice {
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("sei.io", "v1alpha1", "SeiNode"),
        "seinodes",
    );
    let api: kube::Api<DynamicObject> =
        kube::Api::namespaced_with(kube.clone(), namespace, &resource);
    match api.get_opt(node).await {
        Ok(Some(object)) => {
            let annotation = object
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(SIDECAR_ANNOTATION))
                .map(String::as_str);
            if annotation == Some("standin") {
                return Choice::Standin(format!("annotation {SIDECAR_ANNOTATION}=standin"));
            }
            let chain_id = object.data["spec"]["chainId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            Choice::Real { chain_id }
        }
        Ok(None) => Choice::Standin("no SeiNode of that name".to_owned()),
        Err(err) => Choice::Standin(format!("reading the SeiNode failed: {err}")),
    }
}

/// One node's real seictl process.
pub struct RealSidecar {
    bin: PathBuf,
    home: PathBuf,
    node: String,
    chain_id: String,
    port: u16,
    child: tokio::sync::Mutex<Option<tokio::process::Child>>,
    http: HttpClient<HttpConnector, Full<Bytes>>,
    /// One task submission at a time through the direct route, so the ledger's "did it run"
    /// (a row absent or failed before the POST) is not raced by a second submitter.
    submitting: tokio::sync::Mutex<()>,
}

impl RealSidecar {
    /// Starts `bin serve` for the home on a free loopback port and waits until it answers.
    pub async fn start(
        bin: &Path,
        home: PathBuf,
        node: &str,
        chain_id: &str,
    ) -> Result<Self, String> {
        std::fs::create_dir_all(home.join("logs"))
            .map_err(|err| format!("creating {}: {err}", home.display()))?;
        let mut last = String::new();
        // A free port can be taken between the probe and seictl's bind: try a few.
        for _ in 0..3 {
            let port = free_port()?;
            let sidecar = Self {
                bin: bin.to_owned(),
                home: home.clone(),
                node: node.to_owned(),
                chain_id: chain_id.to_owned(),
                port,
                child: tokio::sync::Mutex::new(None),
                http: HttpClient::builder(TokioExecutor::new()).build(HttpConnector::new()),
                submitting: tokio::sync::Mutex::new(()),
            };
            match sidecar.spawn().await {
                Ok(()) => return Ok(sidecar),
                Err(err) => last = err,
            }
        }
        Err(last)
    }

    /// `http://127.0.0.1:<port>`, the upstream of the node's kube-rbac-proxy.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A container restart: the process is stopped and started again on the same port and
    /// home (tasks persist in its `sidecar.db`, readiness does not).
    pub async fn restart(&self) -> Result<(), String> {
        self.stop().await;
        self.spawn().await
    }

    /// Stops the process (SIGKILL; the container's end is not what the tests look at).
    pub async fn stop(&self) {
        if let Some(mut child) = self.child.lock().await.take() {
            let _ = child.kill().await;
        }
    }

    async fn spawn(&self) -> Result<(), String> {
        let log_path = self.home.join("logs").join("seictl-serve.log");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|err| format!("opening {}: {err}", log_path.display()))?;
        let err_log = log
            .try_clone()
            .map_err(|err| format!("{}: {err}", log_path.display()))?;
        let mut command = tokio::process::Command::new(&self.bin);
        command
            .arg("serve")
            .arg("--home")
            .arg(&self.home)
            .arg("--port")
            .arg(self.port.to_string())
            .env_clear()
            .envs(std::env::vars().filter(|(k, _)| k == "PATH" || k == "TZ"))
            .envs(sidecar_env(&self.node, &self.chain_id))
            .stdin(std::process::Stdio::null())
            .stdout(log)
            .stderr(err_log)
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .map_err(|err| format!("starting {}: {err}", self.bin.display()))?;
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(format!(
                    "seictl serve exited with {status} (log: {})",
                    log_path.display()
                ));
            }
            if self.livez().await {
                break;
            }
            if Instant::now() >= deadline {
                let _ = child.kill().await;
                return Err(format!(
                    "seictl serve did not answer /v0/livez within {START_TIMEOUT:?} (log: {})",
                    log_path.display()
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        *self.child.lock().await = Some(child);
        Ok(())
    }

    async fn livez(&self) -> bool {
        let Ok(request) =
            Request::get(format!("{}/v0/livez", self.base_url())).body(Full::new(Bytes::new()))
        else {
            return false;
        };
        matches!(
            tokio::time::timeout(Duration::from_secs(2), self.http.request(request)).await,
            Ok(Ok(response)) if response.status() == StatusCode::OK
        )
    }

    /// Forwards a request of the direct route (`/{namespace}/{node}/v0/...`, already stripped
    /// to `/v0/...`) to the process. A request with no `X-Remote-User` (the direct transport
    /// has no kube-rbac-proxy) gets `X-Remote-User: sei-console-direct`. POSTs of tasks are
    /// entered in the home's submission ledger as the stand-in enters them.
    pub async fn forward(&self, request: Request<hyper::body::Incoming>) -> Response<Body> {
        let (mut parts, body) = request.into_parts();
        let Ok(body) = body.collect().await.map(|collected| collected.to_bytes()) else {
            return server::plain(StatusCode::BAD_REQUEST, "request body cut short");
        };
        // The submitter as the stand-in names it, before the direct route's own header.
        let submitter = submitter_of(&parts.headers);
        if !parts.headers.contains_key("x-remote-user") {
            parts.headers.insert(
                "x-remote-user",
                http::HeaderValue::from_static("sei-console-direct"),
            );
        }
        let submission = (parts.method == Method::POST && parts.uri.path() == "/v0/tasks")
            .then(|| submitted_task(&body))
            .flatten();
        let _one_at_a_time = match &submission {
            Some(_) => Some(self.submitting.lock().await),
            None => None,
        };
        let started = match &submission {
            Some((id, _)) => self.would_run(id).await,
            None => false,
        };
        let response = self.send(&parts, body).await;
        if let Some((id, task_type)) = submission
            && response.status().is_success()
            && let Err(err) = submissions::record(&self.home, &id, &task_type, &submitter, started)
        {
            eprintln!("sidecar-standin: cannot write the submission ledger: {err}");
        }
        response
    }

    /// Whether a POST of task `id` starts its handler: no row yet, or a failed one.
    async fn would_run(&self, id: &str) -> bool {
        let Ok(request) = Request::get(format!("{}/v0/tasks/{id}", self.base_url()))
            .header("x-remote-user", "sei-console-ledger")
            .body(Full::new(Bytes::new()))
        else {
            return false;
        };
        let Ok(response) = self.http.request(request).await else {
            return false;
        };
        if response.status() == StatusCode::NOT_FOUND {
            return true;
        }
        let Ok(body) = response.into_body().collect().await else {
            return false;
        };
        serde_json::from_slice::<serde_json::Value>(&body.to_bytes())
            .is_ok_and(|row| row["status"] == "failed")
    }

    async fn send(&self, parts: &http::request::Parts, body: Bytes) -> Response<Body> {
        let path_and_query = parts
            .uri
            .path_and_query()
            .map(|pq| pq.as_str().to_owned())
            .unwrap_or_else(|| "/".to_owned());
        let mut upstream = Request::builder()
            .method(parts.method.clone())
            .uri(format!("{}{path_and_query}", self.base_url()));
        for (name, value) in &parts.headers {
            if name != http::header::HOST {
                upstream = upstream.header(name, value);
            }
        }
        let Ok(upstream) = upstream.body(Full::new(body)) else {
            return server::plain(StatusCode::BAD_GATEWAY, "cannot build the upstream request");
        };
        match self.http.request(upstream).await {
            Ok(response) => {
                let (parts, body) = response.into_parts();
                match body.collect().await {
                    Ok(collected) => Response::from_parts(parts, Full::new(collected.to_bytes())),
                    Err(err) => {
                        server::plain(StatusCode::BAD_GATEWAY, &format!("real seictl: {err}"))
                    }
                }
            }
            Err(err) => server::plain(StatusCode::BAD_GATEWAY, &format!("real seictl: {err}")),
        }
    }
}

/// The environment of the sidecar container as the controller renders it, for a loopback-only
/// machine: trusted-header authn, the node's chain, placeholder buckets (seictl wants them
/// non-empty), no instance metadata, and S3 pointed at a closed loopback port.
pub fn sidecar_env(node: &str, chain_id: &str) -> BTreeMap<&'static str, String> {
    BTreeMap::from([
        ("SEI_SIDECAR_AUTHN_MODE", "trusted-header".to_owned()),
        ("SEI_CHAIN_ID", chain_id.to_owned()),
        (
            "SEI_GENESIS_BUCKET",
            "sei-console-test-no-genesis".to_owned(),
        ),
        ("SEI_GENESIS_REGION", "us-east-2".to_owned()),
        (
            "SEI_SNAPSHOT_BUCKET",
            "sei-console-test-no-snapshots".to_owned(),
        ),
        ("SEI_SNAPSHOT_REGION", "us-east-2".to_owned()),
        ("AWS_EC2_METADATA_DISABLED", "true".to_owned()),
        ("AWS_ENDPOINT_URL", "http://127.0.0.1:9".to_owned()),
        ("HOSTNAME", format!("{node}-0")),
    ])
}

/// `(id, type)` of a task submission body.
fn submitted_task(body: &[u8]) -> Option<(String, String)> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let task_type = value["type"].as_str()?.to_owned();
    let id = value["id"].as_str()?.to_owned();
    Some((id, task_type))
}

/// As the stand-in names submitters: `X-Remote-User`, else `User-Agent`.
fn submitter_of(headers: &http::HeaderMap) -> String {
    ["x-remote-user", "user-agent"]
        .iter()
        .find_map(|name| headers.get(*name).and_then(|v| v.to_str().ok()))
        .filter(|v| !v.is_empty())
        .unwrap_or("unknown")
        .to_owned()
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .map_err(|err| format!("finding a free loopback port: {err}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submission_body_names_its_id_and_type() {
        let body = br#"{"id":"t-1","type":"mark-ready","params":{}}"#;
        assert_eq!(
            submitted_task(body),
            Some(("t-1".to_owned(), "mark-ready".to_owned()))
        );
        assert_eq!(submitted_task(b"{}"), None);
    }

    #[test]
    fn the_sidecar_environment_keeps_s3_on_loopback_and_names_the_chain() {
        let env = sidecar_env("seed-a", "pacific-1");
        assert_eq!(env["SEI_CHAIN_ID"], "pacific-1");
        assert_eq!(env["SEI_SIDECAR_AUTHN_MODE"], "trusted-header");
        assert!(env["AWS_ENDPOINT_URL"].starts_with("http://127.0.0.1:"));
        assert_eq!(env["HOSTNAME"], "seed-a-0");
    }
}
