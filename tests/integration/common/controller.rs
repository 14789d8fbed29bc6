//! The controller stand-in (`tests/controller-standin`) as a child process, and the sidecar
//! stand-in's submission ledger: who submitted which task, how often it ran.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::console::console_env;
use super::{platform_config_path, repo_path};

pub use sidecar_standin::submissions::Submissions;

/// `X-Remote-User` the stand-in sends to the sidecars (how the ledger tells it apart).
pub const CONTROLLER_SUBMITTER: &str = "controller-standin";

/// The stand-in binary: `SEI_CONTROLLER_STANDIN_BIN`, else built once with cargo.
pub fn controller_standin_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Ok(bin) = std::env::var("SEI_CONTROLLER_STANDIN_BIN") {
            return PathBuf::from(bin);
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let status = std::process::Command::new(cargo)
            .args(["build", "--quiet", "-p", "controller-standin"])
            .current_dir(repo_path(""))
            .status()
            .expect("run cargo build -p controller-standin");
        assert!(status.success(), "cargo build -p controller-standin failed");
        repo_path("target/debug/controller-standin")
    })
}

/// A running controller stand-in; killed when dropped.
pub struct ControllerStandin {
    child: tokio::process::Child,
    pub log: PathBuf,
    stop_file: PathBuf,
    _dir: tempfile::TempDir,
}

impl ControllerStandin {
    /// Starts the stand-in reconciling `namespaces`, leader-electing in `controller_namespace`,
    /// and waits until it leads (at most 30 s).
    pub async fn start(namespaces: &[&str], controller_namespace: &str) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("controller-standin.log");
        let stop_file = dir.path().join("stop");
        let mut command = tokio::process::Command::new(controller_standin_bin());
        command
            .envs(console_env())
            .env("SEI_CONSOLE_SIDECAR_REMOTE_USER", CONTROLLER_SUBMITTER)
            .env("SEI_CONSOLE_PLATFORM_CONFIG", platform_config_path())
            .args(["--controller-namespace", controller_namespace])
            .arg("--stop-file")
            .arg(&stop_file)
            .args(["--max-runtime-secs", "300"]);
        for namespace in namespaces {
            command.args(["--namespace", namespace]);
        }
        let child = command
            .stdout(std::fs::File::create(&log).expect("log file"))
            .stderr(Stdio::inherit())
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start controller-standin");
        let standin = Self {
            child,
            log,
            stop_file,
            _dir: dir,
        };
        standin
            .wait_for_line("leading as", Duration::from_secs(30))
            .await;
        standin
    }

    /// The stand-in's output so far.
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until a line contains `needle`; panics with the output after `timeout`.
    pub async fn wait_for_line(&self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(line) = self.output().lines().find(|l| l.contains(needle)) {
                return line.to_owned();
            }
            assert!(
                Instant::now() < deadline,
                "controller stand-in never said {needle:?}:\n{}",
                self.output()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A clean stop (Lease released), bounded to 20 s.
    pub async fn stop(mut self) -> String {
        std::fs::write(&self.stop_file, "").expect("stop file");
        let exited = tokio::time::timeout(Duration::from_secs(20), self.child.wait()).await;
        assert!(exited.is_ok(), "controller stand-in did not stop");
        self.output()
    }
}

/// The sidecar stand-in's ledger of one node home (`task ID -> submissions`).
pub fn ledger(home: &Path) -> BTreeMap<String, Submissions> {
    sidecar_standin::submissions::read(home)
}

/// Waits until a task of `task_type` has been submitted to `home` after `before` (not in it).
pub async fn wait_for_submission(
    home: &Path,
    task_type: &str,
    before: &BTreeMap<String, Submissions>,
    timeout: Duration,
) -> String {
    let deadline = Instant::now() + timeout;
    loop {
        let found = ledger(home)
            .into_iter()
            .find(|(id, s)| s.task_type == task_type && !before.contains_key(id));
        if let Some((id, _)) = found {
            return id;
        }
        assert!(
            Instant::now() < deadline,
            "no {task_type} submitted to {} within {timeout:?}",
            home.display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The ledger entries added since `before`.
pub fn new_submissions(
    home: &Path,
    before: &BTreeMap<String, Submissions>,
) -> BTreeMap<String, Submissions> {
    ledger(home)
        .into_iter()
        .filter(|(id, _)| !before.contains_key(id))
        .collect()
}
