//! The crate graph is the architecture: each layer's normal dependency tree (`cargo tree -e
//! normal`, what ships; dev-dependencies left out) lacks what the layers above it bring. A wrong
//! import then does not compile, and this test fails when a dependency would make it compile.
use std::collections::BTreeSet;
use std::process::Command;

/// The packages in `package`'s normal dependency tree, by name (itself included).
fn tree(package: &str) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "tree",
            "--locked",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .args(["--format", "{p}", "-p", package])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree -p {package}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// The packages of `tree` that are `forbidden` or start with one of `families` (`kube` also
/// forbids `kube-client`, `kube-runtime`, …).
fn found(tree: &BTreeSet<String>, forbidden: &[&str]) -> Vec<String> {
    tree.iter()
        .filter(|name| {
            forbidden
                .iter()
                .any(|f| name.as_str() == *f || name.starts_with(&format!("{f}-")))
        })
        .cloned()
        .collect()
}

#[test]
fn the_core_has_no_runtime_cluster_client_terminal_or_command_line() {
    let core = tree("sei-core");
    assert!(core.contains("k8s-openapi"), "{core:?}");
    let bad = found(
        &core,
        &[
            "tokio",
            "kube",
            "ratatui",
            "crossterm",
            "clap",
            "hyper",
            "sei-ops",
        ],
    );
    assert!(bad.is_empty(), "sei-core depends on {bad:?}");
}

#[test]
fn the_use_cases_have_no_adapter_terminal_or_command_line() {
    let ops = tree("sei-ops");
    assert!(ops.contains("sei-core"), "{ops:?}");
    let bad = found(
        &ops,
        &[
            "kube",
            "hyper",
            "ratatui",
            "crossterm",
            "clap",
            "sei-adapters",
            "sei-tui",
        ],
    );
    assert!(bad.is_empty(), "sei-ops depends on {bad:?}");
}

#[test]
fn the_adapters_know_neither_the_console_nor_the_commands() {
    let adapters = tree("sei-adapters");
    let bad = found(&adapters, &["ratatui", "crossterm", "clap", "sei-tui"]);
    assert!(bad.is_empty(), "sei-adapters depends on {bad:?}");
}

#[test]
fn the_console_has_no_command_line() {
    let tui = tree("sei-tui");
    let bad = found(&tui, &["clap", "sei-console"]);
    assert!(bad.is_empty(), "sei-tui depends on {bad:?}");
}

/// The console reaches the clusters through its port (`app::port`), which the composition root
/// fills with the adapters: no adapter, Kubernetes client or HTTP stack is in its tree.
#[test]
fn the_console_knows_no_adapter() {
    let tui = tree("sei-tui");
    assert!(tui.contains("sei-ops"), "{tui:?}");
    let bad = found(&tui, &["sei-adapters", "kube", "hyper", "tower"]);
    assert!(bad.is_empty(), "sei-tui depends on {bad:?}");
}

#[test]
fn a_forbidden_family_is_found_by_its_prefix() {
    let tree: BTreeSet<String> = ["kube-runtime", "kubed", "tokio", "tokio-util", "jiff"]
        .map(String::from)
        .into();
    assert_eq!(
        found(&tree, &["kube", "tokio"]),
        ["kube-runtime", "tokio", "tokio-util"]
    );
}

/// The `testing` features carry the fakes and the PTY tests' injected panic
/// (`SEI_CONSOLE_TEST_PANIC_AFTER_MS`, `app::test_panic`): what ships (`cargo install`, normal
/// edges only) enables none of them; only the tests' dev-dependency on the package itself does.
#[test]
fn the_shipped_binary_enables_no_testing_feature() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let features = |edges: &str| {
        let output = Command::new(&cargo)
            .args(["tree", "--locked", "--offline", "-p", "sei-console", "-e"])
            .args([edges, "--prefix", "none"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo tree runs");
        assert!(output.status.success(), "{output:?}");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter(|line| line.contains("feature \"testing\""))
            .map(str::to_owned)
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(features("normal,features"), BTreeSet::new());
    // The check can see it: the tests' build has it.
    assert!(
        features("features").contains("sei-tui feature \"testing\""),
        "{:?}",
        features("features")
    );
}
