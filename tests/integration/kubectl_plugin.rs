//! `kubectl sei …`: the console found and run by a real kubectl (the control plane's own build)
//! through kubectl's plugin convention, a `kubectl-sei` link to the binary on `$PATH`.
use std::path::Path;
use std::process::{Command, Output};

use crate::common::console::node_reported_running;
use crate::common::{TestNamespace, control_plane};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

/// `kubectl ARGS` with `bin` (holding the `kubectl-sei` link) first on `$PATH` and the console's
/// state under `state`.
fn kubectl(bin: &Path, state: &Path, args: &[&str]) -> Output {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    Command::new(control_plane().dir.join("bin/kubectl"))
        .args(args)
        .env("PATH", std::env::join_paths(dirs).expect("PATH"))
        .env("KUBECONFIG", &control_plane().kubeconfig)
        .env("XDG_STATE_HOME", state)
        .env("XDG_CONFIG_HOME", state)
        .output()
        .expect("run kubectl")
}

#[tokio::test]
async fn kubectl_finds_the_plugin_and_runs_get_with_the_same_flags() {
    let ns = TestNamespace::new("kubectl-plugin").await;
    node_reported_running(&ns, "full-k", IMAGE).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).expect("bin");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sei-console"), bin.join("kubectl-sei"))
        .expect("link");

    let listed = kubectl(&bin, dir.path(), &["plugin", "list"]);
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains(&*bin.join("kubectl-sei").to_string_lossy()),
        "{listed:?}"
    );

    let got = kubectl(
        &bin,
        dir.path(),
        &["sei", "get", "-n", &ns.name, "-o", "json"],
    );
    assert!(got.status.success(), "{got:?}");
    let items: serde_json::Value = serde_json::from_slice(&got.stdout).expect("JSON");
    let names: Vec<_> = items
        .as_array()
        .expect("a list")
        .iter()
        .map(|item| item["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["full-k"], "{items}");

    let help = kubectl(&bin, dir.path(), &["sei", "get", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("Usage: kubectl sei get [OPTIONS]"), "{help}");

    // A bad flag is the console's one-line refusal, named as kubectl's plugin.
    let bad = kubectl(&bin, dir.path(), &["sei", "get", "--no-such-flag"]);
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("Usage: kubectl sei get"), "{err}");
}
