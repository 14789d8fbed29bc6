//! The production path to the sidecars: a ServiceAccount operator with a token kubeconfig, the
//! port-forward transport to each node's pod port 8443, and the kube-rbac-proxy stand-in in
//! front of the sidecar (TokenReview + SubjectAccessReview on `seinodetasks`). The operator
//! brings a node up and rolls it, and brings a seed up with its NodeID verified, through nothing
//! else; without the `seinodetasks` grant the proxy refuses and the console names the grant
//! before any change.
use std::path::Path;

use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::api::rbac::v1::PolicyRule;
use kube::api::{DynamicObject, PostParams};
use sei_console::actions::node_key::NodeKey;
use sei_console::ports::{SidecarApi, SidecarError, SidecarTarget};
use sei_console::sidecar::env::transport_from_env;
use sei_console::sidecar::http::HttpSidecar;
use serde_json::json;

use crate::common::audit::events_of;
use crate::common::console::{Run, console_in, create_node_service_account, production_env};
use crate::common::identity::{Operator, rule};
use crate::common::{TestNamespace, repo_path, seinode_resource};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

/// Everything a node's actions need in its namespace, except the proxy's `seinodetasks`.
fn workload_rules() -> Vec<PolicyRule> {
    vec![
        rule("sei.io", &["seinodes", "seinodes/status"], &["*"]),
        rule("apps", &["statefulsets"], &["*"]),
        rule(
            "",
            &[
                "services",
                "pods",
                "pods/portforward",
                "persistentvolumeclaims",
                "configmaps",
                "secrets",
                "events",
                "serviceaccounts",
            ],
            &["*"],
        ),
        rule("coordination.k8s.io", &["leases"], &["*"]),
        rule("batch", &["jobs"], &["*"]),
    ]
}

fn granted_rules() -> Vec<PolicyRule> {
    let mut rules = workload_rules();
    rules.push(rule(
        "sei.io",
        &["seinodetasks"],
        &["get", "create", "delete"],
    ));
    rules
}

/// `sei-console ARGS --executor embedded --yes -o json` as `operator` over the production path
/// (console.env's transport).
async fn run_as(operator: &Operator, args: &[&str], state: &Path) -> Run {
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--executor", "embedded", "--yes"])
        // The embedded executor reads the controller's Lease: here, in the operator's own
        // namespace (the `-n` argument), where its Role allows reading Leases.
        .chain(
            namespace_of(args)
                .map(|ns| ["--controller-namespace", ns])
                .into_iter()
                .flatten(),
        )
        .collect();
    let env = [
        ("KUBECONFIG", operator.kubeconfig.display().to_string()),
        (
            "SEI_CONSOLE_PLATFORM_CONFIG",
            repo_path("assets/demo/platform-config.yaml")
                .display()
                .to_string(),
        ),
    ];
    console_in(production_env(), &args, state, &env).await
}

/// The value of `-n` in `args`.
fn namespace_of<'a>(args: &[&'a str]) -> Option<&'a str> {
    args.windows(2).find(|w| w[0] == "-n").map(|w| w[1])
}

async fn full_node(ns: &TestNamespace, name: &str) {
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": OLD, "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
}

/// The sidecar client an operator's console builds: port-forward with its own token.
async fn sidecar_as(operator: &Operator) -> HttpSidecar {
    let kubeconfig =
        kube::config::Kubeconfig::read_from(&operator.kubeconfig).expect("operator kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("config");
    // As the console builds it: its requests name it.
    let config = sei_console::kube::client::with_user_agent(config);
    let env = production_env();
    let transport = transport_from_env(|k| env.get(k).cloned(), Some(config)).expect("transport");
    assert_eq!(transport.name(), "port-forward");
    HttpSidecar::new(transport)
}

#[tokio::test]
async fn a_token_operator_brings_up_and_rolls_a_node_through_the_port_forward_only() {
    let ns = TestNamespace::new("pf-rollout").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let operator = Operator::create(&ns, "operator", granted_rules(), dir.path()).await;
    grant_cluster_reads(&ns, &operator).await;
    create_node_service_account(&ns).await;
    full_node(&ns, "full-a").await;

    let init = run_as(&operator, &["exec", "full-a", "-n", &ns.name], dir.path()).await;
    assert!(init.ok, "{init:?}");
    let rollout = run_as(
        &operator,
        &[
            "rollout",
            "--no-health-gate",
            "full-a",
            "-n",
            &ns.name,
            "--image",
            NEW,
        ],
        dir.path(),
    )
    .await;
    assert!(rollout.ok, "{rollout:?}");
    assert_eq!(rollout.result()["ok"], true, "{rollout:?}");
    let node = ns.seinodes().get("full-a").await.expect("node");
    assert_eq!(node.data["status"]["currentImage"], NEW);
    assert_eq!(node.data["status"]["phase"], "Running");

    // Every sidecar call went through a port-forward to the node's pod, none through the pod
    // proxy, and a whole run reused its forwards: fewer forwards opened (upgraded, HTTP 101;
    // attempts while the pod is being replaced get 404 and open nothing) than progress lines,
    // while every task takes at least two sidecar calls (submit, then read).
    let events = events_of(&operator.username);
    let opened = events
        .iter()
        .filter(|e| {
            e.subresource == "portforward"
                && e.name == "full-a-0"
                && e.stage == "ResponseStarted"
                && e.code == Some(101)
        })
        .count();
    assert!(opened > 0, "no port-forward by the operator");
    assert!(
        !events.iter().any(|e| e.subresource == "proxy"),
        "pod proxy used"
    );
    let tasks_run = init.lines.len() + rollout.lines.len();
    assert!(
        opened < tasks_run,
        "{opened} forwards opened for {tasks_run} progress lines"
    );

    // The proxy saw the operator: kube-rbac-proxy's upstream header names it.
    let sidecar = sidecar_as(&operator).await;
    let target = SidecarTarget::new(&ns.name, "full-a");
    // The add-on serves the replaced pod's port-forward once it sees the pod Running; give it a
    // bounded moment (the rollout ends when the pod is Ready).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let tasks = loop {
        match sidecar.list_tasks(&target).await {
            Ok(tasks) => break tasks,
            Err(error) if std::time::Instant::now() < deadline => {
                eprintln!("list tasks: {error}; again");
                tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            }
            Err(error) => panic!("list tasks as the operator: {error}"),
        }
    };
    assert!(!tasks.is_empty(), "the plans' sidecar tasks are listed");
}

#[tokio::test]
async fn a_seed_comes_up_with_its_node_id_verified_through_the_port_forward() {
    let ns = TestNamespace::new("pf-seed").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let operator = Operator::create(&ns, "operator", granted_rules(), dir.path()).await;
    grant_cluster_reads(&ns, &operator).await;
    create_node_service_account(&ns).await;
    let standin = crate::common::real_seed::real_seed_for_new_seed(
        &ns,
        "seed-0",
        crate::common::real_seed::KeyFrom::Secret,
    )
    .await;
    let address = standin.external_address();
    let run = run_as(
        &operator,
        &[
            "seed",
            "create",
            "seed-0",
            "-n",
            &ns.name,
            "--chain-id",
            "pacific-1",
            "--image",
            OLD,
            "--external-address",
            &address,
        ],
        dir.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");
    let secret = ns
        .api::<Secret>()
        .get("seed-0-node-key")
        .await
        .expect("key");
    let json = &secret.data.as_ref().expect("data")["node_key.json"].0;
    let key = NodeKey::from_node_key_json(&String::from_utf8_lossy(json)).expect("key");
    let result = run.result();
    assert_eq!(result["verified"], true, "{result}");
    assert_eq!(result["reachable"], true, "{result}");
    assert_eq!(result["nodeId"], key.node_id().as_str());
    let sidecar = sidecar_as(&operator).await;
    let node_id = sidecar
        .node_id(&SidecarTarget::new(&ns.name, "seed-0"))
        .await
        .expect("node id through the port-forward");
    assert_eq!(node_id, key.node_id());
}

#[tokio::test]
async fn without_the_seinodetasks_grant_the_proxy_refuses_and_the_console_names_it_first() {
    let ns = TestNamespace::new("pf-denied").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let admin_side = Operator::create(&ns, "granted", granted_rules(), dir.path()).await;
    let operator = Operator::create(&ns, "operator", workload_rules(), dir.path()).await;
    grant_cluster_reads(&ns, &admin_side).await;
    grant_cluster_reads(&ns, &operator).await;
    create_node_service_account(&ns).await;
    full_node(&ns, "full-a").await;
    let init = run_as(&admin_side, &["exec", "full-a", "-n", &ns.name], dir.path()).await;
    assert!(init.ok, "{init:?}");

    // The proxy itself: health passes unauthenticated, the rest is 403 naming the review.
    let sidecar = sidecar_as(&operator).await;
    let target = SidecarTarget::new(&ns.name, "full-a");
    assert!(
        sidecar
            .healthz(&target)
            .await
            .expect("healthz is a bypass path")
    );
    let err = sidecar.list_tasks(&target).await.expect_err("refused");
    let SidecarError::Unauthorized { status, body, .. } = &err else {
        panic!("expected the proxy's refusal, got {err}");
    };
    assert_eq!(*status, 403, "{err}");
    assert!(
        body.contains(&format!(
            "user={}, verb=get, resource=seinodetasks",
            operator.username
        )),
        "{body}"
    );

    // The console: the rollout is refused before any change, naming the missing grant.
    let run = run_as(
        &operator,
        &[
            "rollout",
            "--no-health-gate",
            "full-a",
            "-n",
            &ns.name,
            "--image",
            NEW,
        ],
        dir.path(),
    )
    .await;
    assert!(!run.ok, "{run:?}");
    let said = format!("{run:?}");
    assert!(
        said.contains(r#"seinodetasks.sei.io \"full-a\""#)
            || said.contains("seinodetasks.sei.io \"full-a\""),
        "{said}"
    );
    let changes: Vec<_> = events_of(&operator.username)
        .into_iter()
        .filter(|e| e.is_mutating() && e.subresource != "portforward")
        .collect();
    assert!(changes.is_empty(), "changed: {changes:?}");
    let node = ns.seinodes().get("full-a").await.expect("node");
    assert_eq!(node.data["spec"]["image"], OLD);
}

#[tokio::test]
async fn a_node_without_a_running_pod_has_no_reachable_sidecar() {
    let ns = TestNamespace::new("pf-nopod").await;
    let dir = tempfile::tempdir().expect("tempdir");
    let operator = Operator::create(&ns, "operator", granted_rules(), dir.path()).await;
    full_node(&ns, "lonely").await;
    let sidecar = sidecar_as(&operator).await;
    let err = sidecar
        .healthz(&SidecarTarget::new(&ns.name, "lonely"))
        .await
        .expect_err("no pod, no sidecar");
    assert!(err.is_transient(), "{err}");
    assert!(err.to_string().contains("lonely-0"), "{err}");
}

/// The cluster-scoped reads a bring-up needs (a Role cannot grant them): PersistentVolumes of the
/// data PVC's binding.
async fn grant_cluster_reads(ns: &TestNamespace, operator: &Operator) {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, RoleRef, Subject};
    let client = crate::common::client().await;
    let name = format!("{}-{}", ns.name, operator.name);
    let meta = kube::api::ObjectMeta {
        name: Some(name.clone()),
        ..Default::default()
    };
    kube::Api::<ClusterRole>::all(client.clone())
        .create(
            &PostParams::default(),
            &ClusterRole {
                metadata: meta.clone(),
                rules: Some(vec![rule("", &["persistentvolumes"], &["get", "list"])]),
                ..Default::default()
            },
        )
        .await
        .expect("ClusterRole");
    kube::Api::<ClusterRoleBinding>::all(client)
        .create(
            &PostParams::default(),
            &ClusterRoleBinding {
                metadata: meta,
                role_ref: RoleRef {
                    api_group: Some("rbac.authorization.k8s.io".into()),
                    kind: "ClusterRole".into(),
                    name,
                },
                subjects: Some(vec![Subject {
                    kind: "ServiceAccount".into(),
                    name: operator.name.clone(),
                    namespace: Some(ns.name.clone()),
                    ..Default::default()
                }]),
            },
        )
        .await
        .expect("ClusterRoleBinding");
}
