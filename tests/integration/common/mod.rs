//! Shared handle on the real local control plane for the integration tests.
//!
//! One control plane serves the whole test binary; every test gets its own namespace.
//! - Under `bash tests/run` (the README's test command, also what CI runs) the control plane is
//!   started once for the run and described by `SEI_TEST_KUBECONFIG` and `SEI_TEST_CP_DIR`.
//! - Without those variables (a plain `cargo test`), the harness starts its own control plane
//!   under `target/sei-console-cp/<pid>` from the cached binaries, with a watchdog that stops it
//!   as soon as the test process exits (normally, by panic or by a signal). If the binaries are
//!   not built yet it fails with a message that says to run `bash tests/run`.
//!
//! Beside this module: `second.rs` (a second, bare control plane started by a multi-cluster test,
//! stopped on drop and by its watchdog, and the merged two-context kubeconfig), `console.rs`
//! (running the binary with `console-direct.env`, the direct stand-ins, or the production
//! `console.env`: operator token, port-forward; Running full-node fleets via `exec`; stand-in
//! homes), `identity.rs` (a ServiceAccount operator with a Role and a token kubeconfig), `audit.rs`
//! (one identity's requests from the API server's audit log), `controller.rs` (the controller
//! stand-in) and `real_seed.rs`.
#![allow(dead_code)] // each test module uses a different subset

use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

pub mod audit;
pub mod chaos;
pub mod console;
pub mod controller;
pub mod identity;
pub mod real_seed;
pub mod second;

/// Where the control plane of this run lives.
#[derive(Debug)]
pub struct ControlPlane {
    pub kubeconfig: PathBuf,
    pub dir: PathBuf,
}

static CONTROL_PLANE: OnceLock<ControlPlane> = OnceLock::new();

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A path inside the repository (for fixtures under `assets/`).
pub fn repo_path(relative: &str) -> PathBuf {
    repo_root().join(relative)
}

/// The control plane for this test run (started on first use when the run did not provide one).
pub fn control_plane() -> &'static ControlPlane {
    CONTROL_PLANE.get_or_init(|| {
        if let Ok(kubeconfig) = std::env::var("SEI_TEST_KUBECONFIG") {
            let kubeconfig = PathBuf::from(kubeconfig);
            let dir = std::env::var("SEI_TEST_CP_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|_| kubeconfig.parent().expect("kubeconfig has a parent").into());
            return ControlPlane { kubeconfig, dir };
        }
        start_own_control_plane()
    })
}

fn start_own_control_plane() -> ControlPlane {
    let parent = repo_root().join("target/sei-console-cp");
    remove_stopped_control_planes(&parent);
    let dir = parent.join(std::process::id().to_string());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create control-plane dir");
    let start = repo_root().join("tests/control-plane/start");
    let output = Command::new("bash")
        .arg(&start)
        .arg(&dir)
        .arg("--owner")
        .arg(std::process::id().to_string())
        .output()
        .expect("run tests/control-plane/start");
    eprint!("{}", String::from_utf8_lossy(&output.stdout));
    if !output.status.success() {
        panic!(
            "integration tests need the local control plane and could not start one:\n{}\n\
             Run the whole suite with `bash tests/run` (it builds the control-plane binaries from \
             the Go module proxy on first use, then starts and stops the control plane).",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    ControlPlane {
        kubeconfig: dir.join("kubeconfig"),
        dir,
    }
}

/// Removes what earlier self-started runs left (logs, etcd data): directories whose control plane
/// was stopped (`stop` removes `pids`) and whose test process is gone.
fn remove_stopped_control_planes(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let owner_alive = Path::new("/proc").join(entry.file_name()).exists();
        if !owner_alive && !path.join("pids").exists() {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

/// A kube client for the run's control plane. Create one per test: a client belongs to the
/// tokio runtime it was made on, and every `#[tokio::test]` has its own.
pub async fn client() -> Client {
    let kubeconfig =
        Kubeconfig::read_from(&control_plane().kubeconfig).expect("read test kubeconfig");
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .expect("test kubeconfig is valid");
    Client::try_from(named(config)).expect("build kube client")
}

/// The User-Agent of the test harness's own requests: every request to the API server names
/// its program (the console `sei-console/VERSION`, the add-ons and stand-ins theirs), as
/// `integration::user_agents` checks in the audit log.
pub const TEST_USER_AGENT: &str = concat!("sei-console-tests/", env!("CARGO_PKG_VERSION"));

/// `config` with the harness's User-Agent ([`TEST_USER_AGENT`]).
pub fn named(mut config: Config) -> Config {
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static(TEST_USER_AGENT),
    ));
    config
}

/// A fresh namespace for one test.
pub struct TestNamespace {
    pub client: Client,
    pub name: String,
}

impl TestNamespace {
    /// Creates `<prefix>-<random>` with the platform's ServiceAccount `seid-node` (every rendered
    /// pod runs as it; the previews refuse an action without it) and waits until its `default`
    /// ServiceAccount exists (pods are rejected by ServiceAccount admission before that).
    pub async fn new(prefix: &str) -> Self {
        let ns = Self::without_node_service_account(prefix).await;
        let sa: ServiceAccount =
            serde_json::from_value(serde_json::json!({"metadata": {"name": "seid-node"}}))
                .expect("sa");
        ns.api::<ServiceAccount>()
            .create(&PostParams::default(), &sa)
            .await
            .expect("create ServiceAccount seid-node");
        ns
    }

    /// As [`TestNamespace::new`] without the platform's ServiceAccount `seid-node`.
    pub async fn without_node_service_account(prefix: &str) -> Self {
        let client = client().await;
        let suffix = uuid::Uuid::new_v4().simple().to_string();
        let name = format!("{prefix}-{}", &suffix[..8]);
        let namespace: Namespace = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "labels": {"sei-console.test/namespace": "true"}}
        }))
        .expect("namespace json");
        Api::<Namespace>::all(client.clone())
            .create(&PostParams::default(), &namespace)
            .await
            .expect("create test namespace");
        let service_accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), &name);
        wait_for(
            "ServiceAccount default",
            Duration::from_secs(30),
            || async { service_accounts.get_opt("default").await },
        )
        .await;
        Self { client, name }
    }

    pub fn api<K>(&self) -> Api<K>
    where
        K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        <K as kube::Resource>::DynamicType: Default,
    {
        Api::namespaced(self.client.clone(), &self.name)
    }

    /// SeiNodes in this namespace, untyped (the harness does not depend on the crate's types).
    pub fn seinodes(&self) -> Api<DynamicObject> {
        Api::namespaced_with(self.client.clone(), &self.name, &seinode_resource())
    }

    /// A node-key Secret `name` holding `node_key_json` under `node_key.json`.
    pub async fn create_node_key_secret(&self, name: &str, node_key_json: &str) {
        let secret: k8s_openapi::api::core::v1::Secret =
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": name},
                "stringData": {"node_key.json": node_key_json}
            }))
            .expect("secret");
        self.api::<k8s_openapi::api::core::v1::Secret>()
            .create(&PostParams::default(), &secret)
            .await
            .expect("create Secret");
    }
}

/// Who serves a SeiNode's sidecar in the tests (tests/control-plane/addons/50-sidecar-standins):
/// the real seictl, unless the SeiNode carries this annotation with the value `standin`, or the
/// run's cluster has no such SeiNode (nodes of a second cluster). The router decides on the
/// node's first contact, so the annotation must be there when the SeiNode is created.
pub const SIDECAR_ANNOTATION: &str = "sei-console.test/sidecar";

/// Marks `node` (before it is created) to be served by the sidecar stand-in instead of the real
/// seictl: for the tasks and hooks only the stand-in has (the one list is in
/// tests/sidecar-standin/README.md: held tasks, injected failures, tasks needing seid or S3).
pub fn standin_sidecar(node: &mut DynamicObject) {
    node.metadata
        .annotations
        .get_or_insert_with(Default::default)
        .insert(SIDECAR_ANNOTATION.to_owned(), "standin".to_owned());
}

/// `sei.io/v1alpha1` `SeiNode` as a dynamic resource.
pub fn seinode_resource() -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("sei.io", "v1alpha1", "SeiNode"),
        "seinodes",
    )
}

/// Polls `probe` until it yields `Some`, at most `timeout`; panics naming `what` on timeout.
/// Transient API errors are retried until the deadline.
pub async fn wait_for<T, F, Fut>(what: &str, timeout: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Option<T>, kube::Error>>,
{
    let deadline = Instant::now() + timeout;
    let mut last_error = None;
    loop {
        match probe().await {
            Ok(Some(value)) => return value,
            Ok(None) => {}
            Err(error) => last_error = Some(error),
        }
        if Instant::now() >= deadline {
            panic!("timed out after {timeout:?} waiting for {what} (last error: {last_error:?})");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The controller's ConfigMap `sei-controller-config` whose `config.yaml` names only
/// `images.sidecar`.
pub fn controller_config_map(sidecar: &str) -> k8s_openapi::api::core::v1::ConfigMap {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": "sei-controller-config"},
        "data": {"config.yaml": format!("images:\n  sidecar: {sidecar}\n")}
    }))
    .expect("config map")
}

/// The platform config file the control plane's Nodes and StorageClasses were made from.
pub fn platform_config_path() -> PathBuf {
    std::env::var("SEI_CP_PLATFORM_CONFIG")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo_root().join("assets/demo/platform-config.yaml"))
}

/// The platform config the control plane's Nodes and StorageClasses were made from.
pub fn platform_config() -> serde_yaml_ng::Value {
    let text = std::fs::read_to_string(platform_config_path()).expect("read platform config");
    serde_yaml_ng::from_str(&text).expect("platform config is YAML")
}

/// A string value at a dotted path of the platform config (for example `scheduling.tolerationKey`).
pub fn platform_value(path: &str) -> String {
    let config = platform_config();
    let mut value = &config;
    for key in path.split('.') {
        value = &value[key];
    }
    value
        .as_str()
        .unwrap_or_else(|| panic!("{path} missing in the platform config"))
        .to_string()
}
