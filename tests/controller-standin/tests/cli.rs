//! The stand-in's start-up refusals. Besides checking them, this test target makes `cargo test`
//! build the `controller-standin` binary with the workspace's unified features, so the
//! integration tests use that build (tests/run exports it) instead of a second `cargo build -p`
//! with another feature set, which rebuilt the whole workspace in every cold CI run.
use std::process::Command;

fn standin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_controller-standin"))
}

#[test]
fn a_missing_kubeconfig_is_refused_naming_the_file() {
    // A missing platform config is an empty one (as upstream's), so the kubeconfig is what fails.
    let output = standin()
        .args([
            "--kubeconfig",
            "/nonexistent/sei-standin-kubeconfig",
            "-n",
            "ns",
        ])
        .args(["--controller-namespace", "sys", "--max-runtime-secs", "5"])
        .args(["--platform-config", "/nonexistent/platform.yaml"])
        .output()
        .expect("run controller-standin");
    assert!(!output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.starts_with("controller-standin: "), "{stderr}");
    assert!(
        stderr.contains("/nonexistent/sei-standin-kubeconfig"),
        "{stderr}"
    );
}

#[test]
fn no_namespace_is_a_usage_error() {
    let output = standin()
        .args([
            "--kubeconfig",
            "/nonexistent/kubeconfig",
            "--controller-namespace",
            "sys",
        ])
        .args(["--platform-config", "/nonexistent/platform.yaml"])
        .output()
        .expect("run controller-standin");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("--namespace"));
}
