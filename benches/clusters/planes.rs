//! The bench's local control planes: started bare (`SEI_CP_NO_ADDONS=1`) on 127.0.0.1 with a
//! watchdog on this process (`start --owner`), stopped when dropped; and one kubeconfig naming
//! each of them as its own context.
use std::path::{Path, PathBuf};
use std::process::Command;

use kube::config::Kubeconfig;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Control planes running under `target/sei-console-bench/<pid>-<i>`; `Drop` stops them all,
/// on a panic too, and their watchdogs stop them if this process dies without unwinding.
pub struct ControlPlanes {
    pub dirs: Vec<PathBuf>,
}

impl ControlPlanes {
    /// Starts `count` control planes, at most two at a time (the machine has two cores).
    pub fn start(count: usize) -> Result<ControlPlanes, String> {
        let planes = ControlPlanes {
            dirs: ControlPlanes::dirs(count),
        };
        for pair in planes.dirs.chunks(2) {
            let started: Vec<_> = pair
                .iter()
                .map(|dir| {
                    let _ = std::fs::remove_dir_all(dir);
                    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                    Command::new("bash")
                        .arg(repo().join("tests/control-plane/start"))
                        .arg(dir)
                        .arg("--owner")
                        .arg(std::process::id().to_string())
                        .env("SEI_CP_NO_ADDONS", "1")
                        .stdout(std::process::Stdio::piped())
                        .stderr(std::process::Stdio::piped())
                        .spawn()
                        .map_err(|e| format!("cannot run tests/control-plane/start: {e}"))
                })
                .collect::<Result<_, String>>()?;
            for child in started {
                let out = child
                    .wait_with_output()
                    .map_err(|e| format!("control-plane start: {e}"))?;
                if !out.status.success() {
                    return Err(format!(
                        "a control plane did not start:\n{}",
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
                let said = String::from_utf8_lossy(&out.stdout);
                if let Some(last) = said.lines().last() {
                    println!("  {last}");
                }
            }
        }
        Ok(planes)
    }

    /// Where this process's `count` control planes live.
    pub fn dirs(count: usize) -> Vec<PathBuf> {
        let root = repo().join("target/sei-console-bench");
        (0..count)
            .map(|i| root.join(format!("{}-{i}", std::process::id())))
            .collect()
    }

    /// Stops the control plane in `dir` (idempotent: nothing there, nothing done).
    pub fn stop(dir: &Path) {
        let _ = Command::new("bash")
            .arg(repo().join("tests/control-plane/stop"))
            .arg(dir)
            .output();
    }

    /// The kubectl the control planes were started with.
    pub fn kubectl(&self) -> PathBuf {
        self.dirs[0].join("bin/kubectl")
    }

    /// One kubeconfig with control plane `i` as context `contexts[i]` (each file names its
    /// entries alike, so every entry is renamed after its context), written to `out`.
    pub fn merged_kubeconfig(&self, contexts: &[&str], out: &Path) -> Result<(), String> {
        let mut merged: Option<Kubeconfig> = None;
        for (dir, name) in self.dirs.iter().zip(contexts) {
            let mut config = Kubeconfig::read_from(dir.join("kubeconfig"))
                .map_err(|e| format!("read kubeconfig: {e}"))?;
            for cluster in &mut config.clusters {
                cluster.name = (*name).to_owned();
            }
            for user in &mut config.auth_infos {
                user.name = (*name).to_owned();
            }
            for context in &mut config.contexts {
                context.name = (*name).to_owned();
                if let Some(inner) = context.context.as_mut() {
                    inner.cluster = (*name).to_owned();
                    inner.user = Some((*name).to_owned());
                }
            }
            config.current_context = Some((*name).to_owned());
            merged = Some(match merged {
                None => config,
                Some(first) => first.merge(config).map_err(|e| format!("merge: {e}"))?,
            });
        }
        let text = serde_yaml_ng::to_string(&merged.unwrap_or_default())
            .map_err(|e| format!("kubeconfig yaml: {e}"))?;
        std::fs::write(out, text).map_err(|e| format!("{}: {e}", out.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let _ = std::fs::set_permissions(out, std::fs::Permissions::from_mode(0o600));
        }
        Ok(())
    }
}

impl Drop for ControlPlanes {
    fn drop(&mut self) {
        for dir in &self.dirs {
            ControlPlanes::stop(dir);
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}
