//! Names that do not exist are errors (issue 33): a namespace, context or SeiNode that is not
//! there is a one-line error naming the near matches, exit 2, on every command and at console
//! start; an operator who may not look namespaces up (namespaced RBAC only) is not refused.
use std::path::Path;
use std::process::Output;

use kube::api::PostParams;
use serde_json::json;

use crate::common::TestNamespace;
use crate::common::console::{cli, cli_as};
use crate::common::identity::{Operator, rule};

/// `name` with its 2nd and 3rd letters after the last `-` swapped (`sei-dmeo` for `sei-demo`).
/// Two neighbouring characters of the last part swapped (two that differ: a suffix such as
/// `56607357` has a pair that would swap into itself).
fn typo(name: &str) -> String {
    let at = name.rfind('-').map_or(0, |i| i + 1);
    let mut chars: Vec<char> = name.chars().collect();
    let i = (at..chars.len() - 1)
        .find(|&i| chars[i] != chars[i + 1])
        .expect("two different neighbours");
    chars.swap(i, i + 1);
    chars.into_iter().collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_refused(out: &Output, names: &[&str], what: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{what}: exit 2: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(lines.len(), 1, "{what}: one error line: {err}");
    for name in names {
        assert!(lines[0].contains(name), "{what}: names {name}: {err}");
    }
    assert!(out.stdout.is_empty(), "{what}: prints nothing else");
}

async fn create_node(ns: &TestNamespace, name: &str) {
    let node: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "sei.io/v1alpha1", "kind": "SeiNode",
        "metadata": {"name": name, "namespace": ns.name},
        "spec": {"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0",
                 "fullNode": {}}
    }))
    .expect("SeiNode");
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
}

fn run(args: &[&str], state: &Path) -> Output {
    cli(args, state)
}

#[tokio::test]
async fn a_mistyped_namespace_context_or_node_is_an_error_naming_the_near_ones() {
    let ns = TestNamespace::new("names").await;
    create_node(&ns, "pacific-1-full-0").await;
    let state = tempfile::tempdir().expect("state");
    let state = state.path();
    let wrong = typo(&ns.name);
    assert_ne!(wrong, ns.name);

    // Issue 33: `doctor -n sei-dmeo --fail-on critical` said "no findings", exit 0.
    for args in [
        vec!["doctor", "-n", &wrong, "--fail-on", "critical"],
        vec!["get", "-n", &wrong],
        vec!["get", "-n", &wrong, "-o", "json"],
        vec!["describe", "pacific-1-full-0", "-n", &wrong],
        vec!["logs", "pacific-1-full-0", "-n", &wrong],
        vec!["pause", "pacific-1-full-0", "-n", &wrong, "--yes"],
        vec!["restart", "pacific-1-full-0", "-n", &wrong, "--dry-run"],
        // The console, before its screen opens.
        vec!["-n", &wrong],
    ] {
        let out = run(&args, state);
        assert_refused(&out, &[&wrong, &ns.name], &args.join(" "));
    }

    // A node that does not exist, on every command that names one.
    for args in [
        vec!["get", "pacific-1-full-9", "-n", &ns.name],
        vec!["describe", "pacific-1-full-9", "-n", &ns.name],
        vec!["logs", "pacific-1-full-9", "-n", &ns.name],
        vec!["pause", "pacific-1-full-9", "-n", &ns.name, "--yes"],
        vec![
            "rollout",
            "pacific-1-full-9",
            "-n",
            &ns.name,
            "--image",
            "ghcr.io/sei-protocol/sei:v6.4.0",
            "--yes",
        ],
    ] {
        let out = run(&args, state);
        assert_refused(
            &out,
            &["pacific-1-full-9", "pacific-1-full-0"],
            &args.join(" "),
        );
    }

    // A context that does not exist.
    let out = run(&["get", "--context", "tset", "-n", &ns.name], state);
    assert_refused(&out, &["tset"], "get --context tset");

    // What exists still works.
    let out = run(&["get", "-n", &ns.name, "-o", "json"], state);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = run(
        &["get", "pacific-1-full-0", "-n", &ns.name, "-o", "json"],
        state,
    );
    assert!(out.status.success(), "{}", stderr(&out));
}

#[tokio::test]
async fn an_operator_who_cannot_look_namespaces_up_is_not_refused() {
    let ns = TestNamespace::new("names-rbac").await;
    create_node(&ns, "pacific-1-full-0").await;
    let dir = tempfile::tempdir().expect("dir");
    // Namespaced RBAC only: SeiNodes, events and pods of this namespace; no namespaces.
    let operator = Operator::create(
        &ns,
        "reader",
        vec![
            rule("sei.io", &["seinodes"], &["get", "list", "watch"]),
            rule("", &["events", "pods"], &["get", "list", "watch"]),
        ],
        dir.path(),
    )
    .await;
    let state = tempfile::tempdir().expect("state");
    let out = cli_as(
        &["get", "-n", &ns.name, "-o", "json"],
        &operator.kubeconfig,
        state.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let items: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(items.len(), 1, "{items:?}");
    // A node it may GET: missing is still said, with the near ones it may list.
    let out = cli_as(
        &["describe", "pacific-1-full-9", "-n", &ns.name],
        &operator.kubeconfig,
        state.path(),
    );
    assert_refused(
        &out,
        &["pacific-1-full-9", "pacific-1-full-0"],
        "describe as reader",
    );
    // A namespace it cannot look up (GET namespaces is forbidden): not refused by the check;
    // the command says what it meets itself, as before.
    let wrong = typo(&ns.name);
    let out = cli_as(&["get", "-n", &wrong], &operator.kubeconfig, state.path());
    let err = stderr(&out);
    assert!(
        !err.contains("did you mean"),
        "cannot tell missing from unseen: no guess: {err}"
    );
}
