//! A server that cannot be reached is named in the error (a closed port on 127.0.0.1) of the
//! reads and of the actions, and
//! `get`'s and `describe`'s help list their own flags apart from the global ones.
use assert_cmd::Command;
use predicates::prelude::*;

fn kubeconfig_to_closed_port(dir: &std::path::Path) -> std::path::PathBuf {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n\
         users:\n- name: u\n  user:\n    token: x\ncontexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n\
         current-context: ctx\n",
    )
    .expect("write kubeconfig");
    path
}

#[test]
fn get_and_describe_name_the_server_they_cannot_reach() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = kubeconfig_to_closed_port(dir.path());
    for args in [vec!["get"], vec!["describe", "rpc-0"]] {
        Command::cargo_bin("sei-console")
            .expect("binary")
            .args(&args)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .env("XDG_STATE_HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path())
            .assert()
            .code(1)
            .stderr(predicate::str::contains(
                "cannot reach the API server https://127.0.0.1:1/",
            ));
    }
}

#[test]
fn actions_name_the_server_they_cannot_reach() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = kubeconfig_to_closed_port(dir.path());
    for args in [
        vec![
            "rollout",
            "rpc-0",
            "--image",
            "ghcr.io/sei-protocol/sei:v2",
            "--dry-run",
        ],
        vec![
            "address",
            "rpc-0",
            "--external-address",
            "203.0.113.7:26656",
            "--yes",
        ],
        vec!["exec", "rpc-0", "--yes"],
        vec!["seed", "probe", "seed-0"],
    ] {
        let output = Command::cargo_bin("sei-console")
            .expect("binary")
            .args(&args)
            .arg("--kubeconfig")
            .arg(&kubeconfig)
            .env("XDG_STATE_HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path())
            .env_remove("SEI_CONSOLE_PLATFORM_CONFIG")
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        let error = stderr
            .lines()
            .find(|line| line.starts_with("error: "))
            .unwrap_or_else(|| panic!("{args:?}: no error line in {stderr}"));
        assert!(
            error.contains("cannot reach the API server https://127.0.0.1:1/"),
            "{args:?}: {error}"
        );
    }
}

#[test]
fn subcommand_help_lists_the_commands_own_flags_apart_from_the_global_ones() {
    for (command, own) in [
        ("get", "--selector"),
        ("describe", "--output"),
        ("rollout", "--canary"),
    ] {
        let output = Command::cargo_bin("sei-console")
            .expect("binary")
            .args([command, "--help"])
            .output()
            .expect("help");
        let help = String::from_utf8_lossy(&output.stdout);
        let (mine, global) = help
            .split_once("Global options:")
            .unwrap_or_else(|| panic!("{command}: no global heading:\n{help}"));
        assert!(
            mine.contains(own),
            "{command}: {own} among its own:\n{help}"
        );
        assert!(!mine.contains("--kubeconfig"), "{command}:\n{help}");
        assert!(
            global.contains("--kubeconfig") && global.contains("--read-only"),
            "{command}:\n{help}"
        );
    }
}

/// `KUBECONFIG` naming a file that is not there is named in the error; it used to fall back
/// to the in-cluster service account and say "failed to read an incluster environment variable".
#[test]
fn a_missing_kubeconfig_named_by_the_environment_is_named_in_the_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("missing-kubeconfig");
    for args in [vec!["get"], vec!["describe", "rpc-0"]] {
        Command::cargo_bin("sei-console")
            .expect("binary")
            .args(&args)
            .env("KUBECONFIG", &missing)
            .env("XDG_STATE_HOME", dir.path())
            .env("XDG_CONFIG_HOME", dir.path())
            .env_remove("KUBERNETES_SERVICE_HOST")
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains(format!("{}: cannot open it", missing.display()))
                    .and(predicate::str::contains("incluster").not()),
            );
    }
}
