//! A second real local control plane for the multi-cluster tests, started from the test (on
//! 127.0.0.1, bare: no add-ons) and stopped when the handle is dropped, a failing test
//! included; a watchdog (`start --owner`) stops it too if the test process dies outright.
use std::path::{Path, PathBuf};
use std::process::Command;

use kube::config::Kubeconfig;

use super::{control_plane, repo_path};

/// The second control plane; `stop` (or drop) stops it.
pub struct SecondControlPlane {
    pub dir: PathBuf,
    pub kubeconfig: PathBuf,
    stopped: bool,
}

impl SecondControlPlane {
    /// Starts one under `target/sei-console-cp2/<pid>-<tag>` (blocking: call from
    /// `spawn_blocking`).
    pub fn start(tag: &str) -> SecondControlPlane {
        let dir = repo_path("target/sei-console-cp2").join(format!("{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create second control-plane dir");
        let output = Command::new("bash")
            .arg(repo_path("tests/control-plane/start"))
            .arg(&dir)
            .arg("--owner")
            .arg(std::process::id().to_string())
            .env("SEI_CP_NO_ADDONS", "1")
            .output()
            .expect("run tests/control-plane/start");
        eprint!("{}", String::from_utf8_lossy(&output.stdout));
        let second = SecondControlPlane {
            kubeconfig: dir.join("kubeconfig"),
            dir,
            stopped: false,
        };
        assert!(
            output.status.success(),
            "second control plane did not start:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        second
    }

    /// Stops it now (idempotent); blocking.
    pub fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let _ = Command::new("bash")
            .arg(repo_path("tests/control-plane/stop"))
            .arg(&self.dir)
            .output();
    }
}

impl Drop for SecondControlPlane {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// One kubeconfig holding the run's control plane as context `first` and `second`'s as
/// context `second_name` (both control planes name their entries alike, so each entry is
/// renamed after its context), written to `out`.
pub fn merged_kubeconfig(
    first_name: &str,
    second: &Path,
    second_name: &str,
    out: &Path,
) -> PathBuf {
    let renamed = |path: &Path, name: &str| {
        let mut config = Kubeconfig::read_from(path).expect("read kubeconfig");
        for cluster in &mut config.clusters {
            cluster.name = name.to_owned();
        }
        for user in &mut config.auth_infos {
            user.name = name.to_owned();
        }
        for context in &mut config.contexts {
            context.name = name.to_owned();
            if let Some(inner) = context.context.as_mut() {
                inner.cluster = name.to_owned();
                inner.user = Some(name.to_owned());
            }
        }
        config.current_context = Some(name.to_owned());
        config
    };
    let first = renamed(&control_plane().kubeconfig, first_name);
    let second = renamed(second, second_name);
    let merged = first.merge(second).expect("merge kubeconfigs");
    let text = serde_yaml_ng::to_string(&merged).expect("kubeconfig yaml");
    std::fs::write(out, text).expect("write merged kubeconfig");
    out.to_owned()
}
