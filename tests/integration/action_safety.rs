//! Safety of the operator actions as a least-privileged identity (a ServiceAccount token) on the
//! real control plane, proven from the API server's own audit log:
//! - a Role lacking one permission the embedded executor needs makes `rollout` (and `exec`) fail
//!   in the permission check, naming that permission, before any mutating request; with the permission
//!   granted the same rollout succeeds, and every request it sent (per the audit log) is one
//!   its checks asked about;
//! - `--read-only` sends zero mutating requests for every action (rollout, address, seed create,
//!   exec), even for an identity RBAC would allow everything, while its reads are in the log.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::rbac::v1::PolicyRule;
use kube::api::DynamicObject;

use sei_console::actions::permissions::{ExecutionScope, rollout_checks};
use sei_console::config::ExecutorMode;
use sei_console::kube::access::check_permissions;
use sei_console::ports::access::PermissionCheck;
// The update plan of a Running full node.
use sei_console::planner::UPDATE_PROGRESSION as UPDATE_PLAN;

use crate::common::audit::{AuditEvent, after_marker, events_through_marker};
use crate::common::console::{console_with, running_full_nodes};
use crate::common::identity::{Operator, rule};
use crate::common::{TestNamespace, platform_config_path, wait_for};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

/// What an operator needs to roll a Running full node with the embedded executor (sidecar
/// reached directly), optionally without `update` on Leases.
fn rollout_rules(lease_update: bool) -> Vec<PolicyRule> {
    // `list` and `delete`: the rollout's record (`ops::rollout_record`) and its pruning.
    let mut lease_verbs = vec!["get", "create", "list", "delete"];
    if lease_update {
        lease_verbs.push("update");
    }
    vec![
        rule("sei.io", &["seinodes"], &["get", "list", "patch"]),
        rule("sei.io", &["seinodes/status"], &["patch"]),
        rule("", &["events"], &["create", "list"]),
        rule("", &["serviceaccounts"], &["get"]),
        rule("coordination.k8s.io", &["leases"], &lease_verbs),
        rule(
            "apps",
            &["statefulsets"],
            &["get", "create", "patch", "delete"],
        ),
        rule("", &["services"], &["create", "patch"]),
        rule("", &["pods"], &["get", "list", "delete"]),
    ]
}

/// Polls until RBAC answers `allowed` for `check` as `operator` (the authorizer's cache lags).
async fn until_rbac_says(operator: &Operator, check: PermissionCheck, allowed: bool) {
    let client = operator.client().await;
    wait_for("RBAC to settle", Duration::from_secs(30), || async {
        let answer = check_permissions(&client, std::slice::from_ref(&check)).await;
        Ok::<_, kube::Error>((answer.is_ok() == allowed).then_some(()))
    })
    .await;
}

/// A request as `operator` that the audit log records after everything it sent before.
async fn marker(operator: &Operator, ns: &TestNamespace) -> String {
    let marker = format!("audit-marker-{}", uuid::Uuid::new_v4().simple());
    let api: kube::Api<DynamicObject> = kube::Api::namespaced_with(
        operator.client().await,
        &ns.name,
        &crate::common::seinode_resource(),
    );
    let _ = api.get_opt(&marker).await;
    marker
}

/// Whether a permission check authorizes the audited request (a check without a name covers
/// every name, as in RBAC; a watch is a list).
fn covers(check: &PermissionCheck, event: &AuditEvent) -> bool {
    let verb = if event.verb == "watch" {
        "list"
    } else {
        event.verb.as_str()
    };
    check.verb == verb
        && check.group == event.api_group
        && check.resource == event.resource
        && check.subresource.unwrap_or("") == event.subresource
        && check.namespace == event.namespace
        && (check.name.is_empty() || check.name == event.name)
}

fn mutations(events: &[AuditEvent]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e.is_mutating())
        .map(|e| format!("{} {}", e.verb, e.request_uri))
        .collect()
}

async fn resource_version(ns: &TestNamespace, name: &str) -> String {
    let node = ns.seinodes().get(name).await.expect("get SeiNode");
    node.metadata.resource_version.unwrap_or_default()
}

#[tokio::test]
async fn a_missing_executor_permission_fails_the_check_before_any_change() {
    let ns = TestNamespace::new("forbidden").await;
    let state = tempfile::tempdir().expect("tempdir");
    let names = ["full-0".to_owned()];
    running_full_nodes(&ns, &names, OLD, &BTreeMap::new(), state.path()).await;
    let operator = Operator::create(&ns, "operator", rollout_rules(false), state.path()).await;
    let lease_update = PermissionCheck::new(
        "update",
        "coordination.k8s.io",
        "leases",
        &ns.name,
        "sei-console-exec-full-0",
    );
    let node_patch = PermissionCheck::new("patch", "sei.io", "seinodes", &ns.name, "full-0");
    until_rbac_says(&operator, node_patch, true).await;
    let env = [
        ("KUBECONFIG", operator.kubeconfig.display().to_string()),
        (
            "SEI_CONSOLE_PLATFORM_CONFIG",
            platform_config_path().display().to_string(),
        ),
    ];
    let rollout = [
        "rollout",
        // The one missing permission is the executor's (the gate would add pods/portforward).
        "--no-health-gate",
        "full-0",
        "-n",
        &ns.name,
        "--image",
        NEW,
        "--executor",
        "embedded",
        // The embedded executor reads the controller's Lease (here in the operator's namespace).
        "--controller-namespace",
        &ns.name,
        "--yes",
    ];
    let before = resource_version(&ns, "full-0").await;

    let refused = console_with(&rollout, state.path(), &env).await;
    assert!(!refused.ok, "{refused:?}");
    assert!(
        refused.stderr.contains(&format!(
            "not allowed to update leases.coordination.k8s.io \"sei-console-exec-full-0\" in namespace \"{}\"",
            ns.name
        )) && refused.stderr.contains("nothing was changed"),
        "{refused:?}"
    );
    // Exactly the one missing permission is named, for the two Leases a rollout updates:
    // the node's and the rollout record's.
    assert!(
        refused
            .stderr
            .contains("update leases.coordination.k8s.io \"sei-console-rollout-"),
        "{refused:?}"
    );
    assert_eq!(
        refused.stderr.matches("in namespace").count(),
        2,
        "exactly the one missing permission is named: {}",
        refused.stderr
    );
    assert_eq!(resource_version(&ns, "full-0").await, before);

    // `exec` of a new node's init plan: refused in the check too, before any change.
    let mut fresh = DynamicObject::new("full-1", &crate::common::seinode_resource());
    fresh.data =
        serde_json::json!({"spec": {"chainId": "pacific-1", "image": OLD, "fullNode": {}}});
    ns.seinodes()
        .create(&kube::api::PostParams::default(), &fresh)
        .await
        .expect("create SeiNode");
    let fresh_before = resource_version(&ns, "full-1").await;
    let exec = [
        "exec",
        "full-1",
        "-n",
        &ns.name,
        "--executor",
        "embedded",
        "--controller-namespace",
        &ns.name,
        "--yes",
    ];
    let refused_exec = console_with(&exec, state.path(), &env).await;
    assert!(!refused_exec.ok, "{refused_exec:?}");
    assert!(
        refused_exec.stderr.contains(&format!(
            "update leases.coordination.k8s.io \"sei-console-exec-full-1\" in namespace \"{}\"",
            ns.name
        )) && refused_exec.stderr.contains("nothing was changed"),
        "{refused_exec:?}"
    );
    assert_eq!(resource_version(&ns, "full-1").await, fresh_before);

    let events = events_through_marker(&operator.username, &marker(&operator, &ns).await).await;
    assert_eq!(mutations(&events), Vec::<String>::new());
    assert!(
        events
            .iter()
            .any(|e| e.resource == "selfsubjectaccessreviews"),
        "the check itself is in the log: {events:?}"
    );

    // Granted the one permission, the same command goes through: the list asked for nothing
    // the action does not need, and the action needed nothing the list did not ask.
    operator.set_rules(&ns, rollout_rules(true)).await;
    until_rbac_says(&operator, lease_update, true).await;
    let granted = marker(&operator, &ns).await;
    let rolled = console_with(&rollout, state.path(), &env).await;
    assert!(rolled.ok, "{rolled:?}");
    let node = ns.seinodes().get("full-0").await.expect("get");
    assert_eq!(node.data["status"]["currentImage"], NEW);

    // Every request the successful rollout sent (reads included) is one its checks asked about.
    let events = events_through_marker(&operator.username, &marker(&operator, &ns).await).await;
    let scope = ExecutionScope {
        executor: ExecutorMode::Embedded,
        sidecar_reach: sei_console::ports::SidecarReach::Direct,
        controller_namespace: ns.name.clone(),
        reads_platform_config_map: false,
    };
    let work = [("full-0".to_owned(), UPDATE_PLAN.to_vec())];
    let mut checks = rollout_checks(&scope, &ns.name, &work, false, true);
    let id = rolled.result()["rollout"]
        .as_str()
        .expect("the rollout's ID");
    checks.extend(sei_console::ops::rollout_record::record_checks(
        &ns.name, id,
    ));
    let sent: Vec<&AuditEvent> = after_marker(&events, &granted)
        .iter()
        .filter(|e| {
            // The names check's read of the namespace (issue 33) comes before the action and
            // is a read anyone may be refused: a 403 there says nothing and changes nothing.
            // The skew guard's read of the CRD (issue 36) may be refused too: it falls back.
            let lookup = e.verb == "get"
                && (e.resource == "namespaces" || e.resource == "customresourcedefinitions");
            e.resource != "selfsubjectaccessreviews"
                && !e.name.starts_with("audit-marker-")
                && !lookup
        })
        .collect();
    assert!(
        sent.iter()
            .any(|e| e.verb == "patch" && e.resource == "statefulsets"),
        "{sent:?}"
    );
    for event in sent {
        assert!(
            checks.as_slice().iter().any(|c| covers(c, event)),
            "{} {} was sent but never checked",
            event.verb,
            event.request_uri
        );
    }
}

#[tokio::test]
async fn read_only_actions_send_no_mutating_request_even_when_rbac_allows_everything() {
    let ns = TestNamespace::new("read-only-audit").await;
    let state = tempfile::tempdir().expect("tempdir");
    let mut node = DynamicObject::new("full-0", &crate::common::seinode_resource());
    node.metadata.labels = Some(BTreeMap::from([("fleet".to_owned(), "ro".to_owned())]));
    node.data = serde_json::json!({"spec": {"chainId": "pacific-1", "image": OLD, "fullNode": {}}});
    ns.seinodes()
        .create(&kube::api::PostParams::default(), &node)
        .await
        .expect("create SeiNode");
    let everything = vec![PolicyRule {
        api_groups: Some(vec!["*".into()]),
        resources: Some(vec!["*".into()]),
        verbs: vec!["*".into()],
        ..PolicyRule::default()
    }];
    let operator = Operator::create(&ns, "reader", everything, state.path()).await;
    let delete_secrets = PermissionCheck::new("delete", "", "secrets", &ns.name, "");
    until_rbac_says(&operator, delete_secrets, true).await;
    let env = [
        ("KUBECONFIG", operator.kubeconfig.display().to_string()),
        (
            "SEI_CONSOLE_PLATFORM_CONFIG",
            platform_config_path().display().to_string(),
        ),
    ];
    let ns_name = ns.name.as_str();
    let actions: [&[&str]; 4] = [
        &["rollout", "full-0", "--image", NEW],
        &[
            "rollout", "-l", "fleet=ro", "--mode", "full", "--image", NEW,
        ],
        &[
            "address",
            "full-0",
            "--external-address",
            "203.0.113.9:26656",
        ],
        &[
            "seed",
            "create",
            "seed-0",
            "--chain-id",
            "pacific-1",
            "--image",
            NEW,
            "--external-address",
            "seed-0.example.com:26656",
        ],
    ];
    for action in actions {
        let common = ["-n", ns_name, "--read-only", "--executor", "embedded"];
        let refused =
            console_with(&[action, &common, &["--yes"]].concat(), state.path(), &env).await;
        assert!(!refused.ok, "{action:?}: {refused:?}");
        assert!(
            refused.stderr.contains("read-only mode: refusing to run"),
            "{action:?}: {refused:?}"
        );
        let previewed = console_with(
            &[action, &common, &["--dry-run"]].concat(),
            state.path(),
            &env,
        )
        .await;
        assert!(previewed.ok, "{action:?}: {previewed:?}");
        assert_eq!(previewed.result()["ok"], true, "{action:?}");
    }

    // `exec` (following a plan) refused the same way.
    let exec = [
        "exec",
        "full-0",
        "-n",
        ns_name,
        "--read-only",
        "--executor",
        "embedded",
        "--yes",
    ];
    let refused = console_with(&exec, state.path(), &env).await;
    assert!(!refused.ok, "{refused:?}");
    assert!(
        refused
            .stderr
            .contains("read-only mode: refusing to run exec on full-0"),
        "{refused:?}"
    );

    let events = events_through_marker(&operator.username, &marker(&operator, &ns).await).await;
    assert_eq!(mutations(&events), Vec::<String>::new());
    // The log does hold this identity's reads, so the assertion above could have failed.
    let reads = |resource: &str, verb: &str| {
        events
            .iter()
            .any(|e| e.resource == resource && e.verb == verb)
    };
    assert!(reads("seinodes", "get"), "{events:?}");
    assert!(reads("seinodes", "list"), "{events:?}");
    // Nothing the actions would have created exists.
    assert!(
        ns.seinodes()
            .get_opt("seed-0")
            .await
            .expect("get")
            .is_none()
    );
    let node = ns.seinodes().get("full-0").await.expect("get");
    assert_eq!(node.data["spec"]["image"], OLD);
}
