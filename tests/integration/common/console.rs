//! Running the `sei-console` binary against the control plane, as an operator would, and the
//! fleet setup the end-to-end action tests share: Running full nodes initialised by the embedded
//! executor through the stand-in sidecars.
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use super::{TestNamespace, control_plane, repo_path, seinode_resource, standin_sidecar};

/// `DIR/console-direct.env` of the control plane: the admin kubeconfig, the controller
/// namespace and the stand-ins' direct router (override transport), for tests of sidecar
/// behaviour on nodes without a pod.
pub fn console_env() -> HashMap<String, String> {
    env_file("console-direct.env")
}

/// `DIR/console.env`, the production path the demo uses: the operator's token kubeconfig and the
/// port-forward transport to each node's kube-rbac-proxy.
pub fn production_env() -> HashMap<String, String> {
    env_file("console.env")
}

fn env_file(name: &str) -> HashMap<String, String> {
    std::fs::read_to_string(control_plane().dir.join(name))
        .unwrap_or_else(|err| panic!("start writes DIR/{name}: {err}"))
        .lines()
        .filter_map(|line| line.split_once('='))
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect()
}

/// Runs `sei-console ARGS --kubeconfig KUBECONFIG` to completion with its state and config under
/// `state`, the demo platform config and no terminal (so confirmations need `--yes`).
pub fn cli_as(args: &[&str], kubeconfig: &Path, state: &Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .env("XDG_STATE_HOME", state)
        .env("XDG_CONFIG_HOME", state)
        .env(
            "SEI_CONSOLE_PLATFORM_CONFIG",
            repo_path("assets/demo/platform-config.yaml"),
        )
        .stdin(Stdio::null())
        .output()
        .expect("run sei-console")
}

/// `cli_as` with the test control plane's admin kubeconfig.
pub fn cli(args: &[&str], state: &Path) -> std::process::Output {
    cli_as(args, &control_plane().kubeconfig, state)
}

/// A full node on `image` that reports Running on it, written straight into status (no plan
/// runs): enough for previews and for actions that only persist their plan.
pub async fn node_reported_running(ns: &TestNamespace, name: &str, image: &str) {
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": image, "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
    let status = json!({"status": {"phase": "Running", "currentImage": image}});
    ns.seinodes()
        .patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("status");
}

/// One finished `sei-console` run: exit status, the JSON lines of stdout, stderr.
#[derive(Debug)]
pub struct Run {
    pub ok: bool,
    pub lines: Vec<Value>,
    pub stderr: String,
}

impl Run {
    /// The last line, which every action prints as `{"event": "result", ...}`.
    pub fn result(&self) -> &Value {
        let last = self
            .lines
            .last()
            .unwrap_or_else(|| panic!("no output: {self:?}"));
        assert_eq!(last["event"], "result", "{self:?}");
        last
    }

    /// The messages of the `note` lines.
    pub fn notes(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter(|l| l["event"] == "note")
            .filter_map(|l| l["message"].as_str())
            .collect()
    }
}

/// Runs `sei-console ARGS -o json` with the control plane's console.env plus `extra_env`, its
/// journal and config under `state`, fast executor passes and a bounded follow time.
pub async fn console_with(args: &[&str], state: &Path, extra_env: &[(&str, String)]) -> Run {
    console_in(console_env(), args, state, extra_env).await
}

/// [`console_with`] from the base environment `env` (e.g. [`production_env`]).
pub async fn console_in(
    env: HashMap<String, String>,
    args: &[&str],
    state: &Path,
    extra_env: &[(&str, String)],
) -> Run {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(env)
        .envs(extra_env.iter().map(|(k, v)| (*k, v.as_str())))
        .env("XDG_STATE_HOME", state)
        .env("XDG_CONFIG_HOME", state)
        .args(args)
        .args(["--max-wait-ms", "300", "--timeout", "90", "-o", "json"])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run sei-console");
    Run {
        ok: output.status.success(),
        lines: String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

pub async fn console(args: &[&str], state: &Path) -> Run {
    console_with(args, state, &[]).await
}

/// The ServiceAccount the nodes' pods run as (the StatefulSet refers to it).
pub async fn create_node_service_account(ns: &TestNamespace) {
    let sa: ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": "seid-node"}})).expect("sa");
    // `TestNamespace::new` creates it already; this is for the namespaces made without it.
    match ns
        .api::<ServiceAccount>()
        .create(&PostParams::default(), &sa)
        .await
    {
        Ok(_) => {}
        Err(kube::Error::Api(status)) if status.code == 409 => {}
        Err(err) => panic!("service account: {err}"),
    }
}

/// Creates full nodes on `image` with `labels`, then brings them all to Running at once, each
/// with `sei-console exec NODE --executor embedded` (init plan through the nodes' real seictl
/// sidecars).
pub async fn running_full_nodes(
    ns: &TestNamespace,
    names: &[String],
    image: &str,
    labels: &BTreeMap<String, String>,
    state: &Path,
) {
    running_full_nodes_with_standins(ns, names, image, labels, state, &[]).await;
}

/// [`running_full_nodes`] where the nodes named in `standins` are served by the sidecar
/// stand-in (annotated with [`standin_sidecar`]): for tests that need its hooks.
pub async fn running_full_nodes_with_standins(
    ns: &TestNamespace,
    names: &[String],
    image: &str,
    labels: &BTreeMap<String, String>,
    state: &Path,
    standins: &[&str],
) {
    create_node_service_account(ns).await;
    for name in names {
        let mut node = DynamicObject::new(name, &seinode_resource());
        node.metadata.labels = Some(labels.clone());
        if standins.contains(&name.as_str()) {
            standin_sidecar(&mut node);
        }
        node.data = json!({"spec": {"chainId": "pacific-1", "image": image, "fullNode": {}}});
        ns.seinodes()
            .create(&PostParams::default(), &node)
            .await
            .expect("create SeiNode");
    }
    let runs = futures::future::join_all(names.iter().map(|name| {
        let args = [
            "exec",
            name.as_str(),
            "-n",
            &ns.name,
            "--executor",
            "embedded",
            "--yes",
        ];
        async move { (name, console(&args, state).await) }
    }))
    .await;
    for (name, run) in runs {
        assert!(run.ok, "init of {name}: {run:?}");
    }
}

/// The sidecar home of one node (`DIR/sidecars/<namespace>/<node>`): the real seictl's
/// `--home` (its `sidecar.db`, `config/`, `logs/seictl-serve.log`), or the stand-in's home.
pub fn sidecar_home(namespace: &str, node: &str) -> PathBuf {
    control_plane()
        .dir
        .join("sidecars")
        .join(namespace)
        .join(node)
}

/// A `sei-console` run in the background (as `console_with`), its stdout going to a file so a
/// test can watch it and act mid-run; killed when dropped.
pub struct Background {
    pub child: tokio::process::Child,
    stdout: PathBuf,
    stderr: PathBuf,
}

/// Starts `sei-console ARGS -o json` like [`console_with`], without waiting for it.
pub fn spawn_console(args: &[&str], state: &Path, extra_env: &[(&str, String)]) -> Background {
    let unique = uuid::Uuid::new_v4().simple().to_string();
    let stdout = state.join(format!("stdout-{unique}"));
    let stderr = state.join(format!("stderr-{unique}"));
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(console_env())
        .envs(extra_env.iter().map(|(k, v)| (*k, v.as_str())))
        .env("XDG_STATE_HOME", state)
        .env("XDG_CONFIG_HOME", state)
        .args(args)
        .args(["--max-wait-ms", "300", "--timeout", "90", "-o", "json"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).expect("stdout file"))
        .stderr(std::fs::File::create(&stderr).expect("stderr file"))
        .kill_on_drop(true)
        .spawn()
        .expect("start sei-console");
    Background {
        child,
        stdout,
        stderr,
    }
}

impl Background {
    /// What it printed so far.
    pub fn stdout(&self) -> String {
        std::fs::read_to_string(&self.stdout).unwrap_or_default()
    }

    /// Waits for the exit (at most `timeout`, then panics) and parses the output as `console`.
    pub async fn finish(mut self, timeout: std::time::Duration) -> Run {
        let status = tokio::time::timeout(timeout, self.child.wait())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "sei-console still running after {timeout:?}: {}",
                    self.stdout()
                )
            })
            .expect("wait for sei-console");
        Run {
            ok: status.success(),
            lines: self
                .stdout()
                .lines()
                .filter_map(|l| serde_json::from_str(l).ok())
                .collect(),
            stderr: std::fs::read_to_string(&self.stderr).unwrap_or_default(),
        }
    }
}
