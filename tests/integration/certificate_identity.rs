//! Issue 28: the admin kubeconfig of the control plane authenticates with a client certificate
//! and has no bearer token; kube-rbac-proxy, reached through the port-forward transport
//! (console.env, the production path), authenticates bearer tokens only. An action that needs
//! the sidecar's task API is refused in seconds, naming the missing token and the fix, with no
//! Secret, no SeiNode and no spec change left behind.
use k8s_openapi::api::core::v1::Secret;
use kube::Api;

use crate::common::console::{
    Run, console_in, create_node_service_account, node_reported_running, production_env,
};
use crate::common::{TestNamespace, control_plane, repo_path};

const OLD: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const NEW: &str = "ghcr.io/sei-protocol/sei:v6.4.0";

/// `sei-console ARGS --yes --executor embedded -o json` on the production path as the admin
/// (certificate) identity. Without the pre-flight the run changes the cluster and then waits at
/// the first sidecar task, so "nothing created" below is what shows the refusal came first.
async fn as_admin(args: &[&str], state: &std::path::Path) -> Run {
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--executor", "embedded", "--yes"])
        .collect();
    let env = [
        (
            "KUBECONFIG",
            control_plane().kubeconfig.display().to_string(),
        ),
        (
            "SEI_CONSOLE_PLATFORM_CONFIG",
            repo_path("assets/demo/platform-config.yaml")
                .display()
                .to_string(),
        ),
    ];
    console_in(production_env(), &args, state, &env).await
}

fn names_the_missing_token(run: &Run) {
    let all = format!("{}{:?}", run.stderr, run.lines);
    assert!(all.contains("bearer token"), "{run:?}");
    assert!(all.contains("kubectl create token"), "{run:?}");
    assert!(all.contains("nothing was changed"), "{run:?}");
}

#[tokio::test]
async fn a_seed_bring_up_as_a_certificate_identity_is_refused_and_creates_nothing() {
    let ns = TestNamespace::new("cert-seed").await;
    let dir = tempfile::tempdir().expect("tempdir");
    create_node_service_account(&ns).await;
    let run = as_admin(
        &[
            "seed",
            "create",
            "hs2",
            "-n",
            &ns.name,
            "--chain-id",
            "arctic-1",
            "--image",
            NEW,
            "--external-address",
            "127.0.0.1:1",
        ],
        dir.path(),
    )
    .await;
    assert!(!run.ok, "{run:?}");
    names_the_missing_token(&run);
    assert!(
        ns.seinodes().get_opt("hs2").await.expect("get").is_none(),
        "a SeiNode was created"
    );
    let secrets: Api<Secret> = Api::namespaced(ns.client.clone(), &ns.name);
    assert!(
        secrets
            .get_opt("hs2-node-key")
            .await
            .expect("get")
            .is_none(),
        "a node-key Secret was created"
    );
}

#[tokio::test]
async fn a_rollout_as_a_certificate_identity_is_refused_and_patches_nothing() {
    let ns = TestNamespace::new("cert-rollout").await;
    let dir = tempfile::tempdir().expect("tempdir");
    create_node_service_account(&ns).await;
    node_reported_running(&ns, "cr1", OLD).await;
    let run = as_admin(
        &[
            "rollout",
            "--no-health-gate",
            "cr1",
            "-n",
            &ns.name,
            "--image",
            NEW,
        ],
        dir.path(),
    )
    .await;
    assert!(!run.ok, "{run:?}");
    names_the_missing_token(&run);
    let node = ns.seinodes().get("cr1").await.expect("node");
    assert_eq!(node.data["spec"]["image"], OLD);
    assert!(node.data["status"].get("plan").is_none(), "{node:?}");

    // Without waiting the console makes no sidecar call: the same identity may persist the
    // plan and leave it to the controller.
    let run = as_admin(
        &[
            "rollout",
            "--no-health-gate",
            "cr1",
            "-n",
            &ns.name,
            "--image",
            NEW,
            "--no-wait",
        ],
        dir.path(),
    )
    .await;
    assert!(run.ok, "{run:?}");
    let node = ns.seinodes().get("cr1").await.expect("node");
    assert_eq!(node.data["spec"]["image"], NEW);
}
