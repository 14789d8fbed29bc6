//! Version skew between the console, the CRD and the controller (issue 36), on a real API
//! server with a *modified* copy of the upstream CRD: `tests/fixtures/crd/seinodes-newer.yaml`
//! (`spec.maintenance.hold` and `status.maintenanceSince` added) and `seinodes-older.yaml`
//! (`spec.externalAddress` removed). A CRD is cluster-wide and the run's control plane is shared
//! by every test running at once, so this test starts a control plane of its own
//! (`common::second`, bare, the upstream CRD installed byte-identical by `start`) and changes
//! the CRD only there; it is stopped when the test ends, a failing one included.
//!
//! Shown: `version` reports equal, then newer, then older; `get` and `doctor` name the node's
//! unknown field and the CRD's differences; rollout, address, restart, pause and exec with the
//! embedded executor are refused on a node using the new field, and every action on any node
//! while the CRD has a spec field the console does not know, before any request that changes
//! anything (the API server's audit log); an older CRD refuses the action that writes the field
//! it lacks and no other.
use std::path::Path;
use std::time::Duration;

use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::{Value, json};

use crate::common::audit::events_in;
use crate::common::console::cli_as;
use crate::common::second::SecondControlPlane;
use crate::common::{repo_path, seinode_resource, wait_for};

/// The admin identity of a control plane `start` made (its client certificate's CN).
const ADMIN: &str = "sei-console-test-admin";
const NS: &str = "skew";
const V2: &str = "ghcr.io/sei-protocol/seid:v2";

async fn client_for(kubeconfig: &Path) -> kube::Client {
    let config = kube::Config::from_custom_kubeconfig(
        Kubeconfig::read_from(kubeconfig).expect("kubeconfig"),
        &KubeConfigOptions::default(),
    )
    .await
    .expect("config");
    kube::Client::try_from(config).expect("client")
}

/// `kubectl apply` of a CRD fixture on the test's own control plane.
fn apply_crd(plane: &SecondControlPlane, fixture: &str) {
    let output = std::process::Command::new(plane.dir.join("bin/kubectl"))
        .arg("--kubeconfig")
        .arg(&plane.kubeconfig)
        .args([
            "apply",
            "--server-side",
            "--force-conflicts",
            "--field-manager=sei-console-test",
            "-f",
        ])
        .arg(repo_path(fixture))
        .output()
        .expect("kubectl");
    assert!(
        output.status.success(),
        "apply {fixture}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `sei-console ARGS -n skew` on the test's control plane; (exit ok, stdout, stderr).
async fn run(kubeconfig: &Path, state: &Path, args: &[&str]) -> (bool, String, String) {
    let mut args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    args.extend(["-n".to_owned(), NS.to_owned()]);
    let (kubeconfig, state) = (kubeconfig.to_owned(), state.to_owned());
    let output = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cli_as(&args, &kubeconfig, &state)
    })
    .await
    .expect("join");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

async fn json_of(kubeconfig: &Path, state: &Path, args: &[&str]) -> Value {
    let (ok, stdout, stderr) = run(kubeconfig, state, args).await;
    assert!(ok, "{args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
}

/// Polls `version -o json` until the cluster's CRD compares as `skew`.
async fn wait_for_skew(kubeconfig: &Path, state: &Path, skew: &str) -> Value {
    for _ in 0..100 {
        let version = json_of(kubeconfig, state, &["version", "-o", "json"]).await;
        if version["cluster"]["crd"]["skew"] == skew {
            return version;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("the CRD never compared as {skew}");
}

/// A full node reporting Running on v1; `extra` merged into its spec.
async fn create_node(nodes: &Api<DynamicObject>, name: &str, extra: Value) {
    let mut spec =
        json!({"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/seid:v1", "fullNode": {}});
    if let (Value::Object(spec), Value::Object(extra)) = (&mut spec, extra) {
        spec.extend(extra);
    }
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.data = json!({"spec": spec});
    nodes
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
    let status =
        json!({"status": {"phase": "Running", "currentImage": "ghcr.io/sei-protocol/seid:v1"}});
    nodes
        .patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("status");
}

#[tokio::test]
async fn a_crd_the_console_does_not_port_is_shown_and_its_actions_are_refused_before_any_change() {
    let mut plane = tokio::task::spawn_blocking(|| SecondControlPlane::start("skew"))
        .await
        .expect("join");
    let kubeconfig = plane.kubeconfig.clone();
    let state = tempfile::tempdir().expect("state");
    let state = state.path();
    let client = client_for(&kubeconfig).await;

    // The upstream CRD as `start` installs it: equal, as on every cluster of the other tests.
    let version = json_of(&kubeconfig, state, &["version", "-o", "json"]).await;
    assert_eq!(version["cluster"]["crd"]["skew"], "equal", "{version}");
    assert_eq!(version["ports"]["controller"], "2d670ad");

    let namespace: k8s_openapi::api::core::v1::Namespace =
        serde_json::from_value(json!({"metadata": {"name": NS}})).expect("namespace");
    Api::<k8s_openapi::api::core::v1::Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .expect("namespace");
    // The ServiceAccount every rendered pod runs as (the previews block without it).
    let account: k8s_openapi::api::core::v1::ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": "seid-node"}})).expect("sa");
    Api::<k8s_openapi::api::core::v1::ServiceAccount>::namespaced(client.clone(), NS)
        .create(&PostParams::default(), &account)
        .await
        .expect("ServiceAccount");
    let nodes: Api<DynamicObject> = Api::namespaced_with(client.clone(), NS, &seinode_resource());

    // A newer CRD: the API server now keeps `spec.maintenance` of a held node.
    apply_crd(&plane, "tests/fixtures/crd/seinodes-newer.yaml");
    let version = wait_for_skew(&kubeconfig, state, "newer").await;
    assert_eq!(
        version["cluster"]["crd"]["planning"],
        json!(["spec.maintenance"])
    );
    assert_eq!(version["cluster"]["crd"]["summary"], "CRD newer: 2 fields");
    create_node(&nodes, "clean", json!({})).await;
    create_node(&nodes, "held", json!({"maintenance": {"hold": true}})).await;
    wait_for("spec.maintenance kept", Duration::from_secs(30), || async {
        let node = nodes.get("held").await?;
        if node.data["spec"]["maintenance"]["hold"] == true {
            return Ok(Some(()));
        }
        // Created before the new schema served: set it again.
        let patch = json!({"spec": {"maintenance": {"hold": true}}});
        nodes
            .patch("held", &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        Ok(None)
    })
    .await;
    let (ok, text, _) = run(&kubeconfig, state, &["version"]).await;
    assert!(ok);
    assert!(
        text.contains("ports sei-k8s-controller 2d670ad (seictl v0.0.68, sei-config v0.0.23)"),
        "{text}"
    );
    assert!(text.contains("CRD newer: 2 fields"), "{text}");
    assert!(
        text.contains("spec.maintenance: a field the console does not know"),
        "{text}"
    );

    // Nothing below changes anything: every request of the admin after this marker is a read.
    let marker = format!("skew-marker-{}", uuid::Uuid::new_v4().simple());
    let _ = Api::<k8s_openapi::api::core::v1::ConfigMap>::namespaced(client.clone(), NS)
        .get_opt(&marker)
        .await;

    let embedded = ["--yes", "--executor", "embedded"];
    let actions: [(&str, Vec<&str>); 5] = [
        ("rollout", vec!["rollout", "held", "--image", V2]),
        (
            "address",
            vec!["address", "held", "--external-address", "203.0.113.7:26656"],
        ),
        ("restart", vec!["restart", "held", "--yes"]),
        ("pause", vec!["pause", "held"]),
        ("exec", vec!["exec", "held"]),
    ];
    for (action, mut args) in actions {
        if action != "restart" {
            args.extend(embedded);
        }
        let (ok, _, stderr) = run(&kubeconfig, state, &args).await;
        assert!(!ok, "{action} ran: {stderr}");
        assert!(
            stderr.contains(&format!(
                "refusing to run {action} on held: held carries fields sei-console does not know \
                 (spec.maintenance)"
            )),
            "{action}: {stderr}"
        );
        assert!(stderr.contains("nothing was changed"), "{stderr}");
    }
    // A node without the field: refused too while the CRD has a spec field the port lacks.
    let (ok, _, stderr) = run(
        &kubeconfig,
        state,
        &[
            "rollout",
            "clean",
            "--image",
            V2,
            "--yes",
            "--executor",
            "embedded",
        ],
    )
    .await;
    assert!(!ok);
    assert!(
        stderr.contains("the cluster's SeiNode CRD has spec fields sei-console does not know"),
        "{stderr}"
    );

    // The fleet and the doctor show the skew.
    let get = json_of(&kubeconfig, state, &["get", "-o", "json"]).await;
    let unknown = |name: &str| {
        get.as_array()
            .and_then(|items| items.iter().find(|i| i["name"] == name))
            .map(|item| item["unknownFields"].clone())
            .expect("listed")
    };
    assert_eq!(unknown("held"), json!(["spec.maintenance"]));
    assert_eq!(unknown("clean"), Value::Null);
    let (_, doctor, _) = run(&kubeconfig, state, &["doctor", "-o", "json"]).await;
    assert!(doctor.contains("\"crd-skew\""), "{doctor}");
    assert!(doctor.contains("\"unknown-fields\""), "{doctor}");
    let describe = json_of(&kubeconfig, state, &["describe", "held", "-o", "json"]).await;
    assert_eq!(describe["unknownFields"], json!(["spec.maintenance"]));
    assert_eq!(describe["crd"]["skew"], "newer");

    let events = events_in(&plane.dir, ADMIN);
    let at = events
        .iter()
        .position(|e| e.request_uri.contains(&marker))
        .expect("marker in the audit log");
    let mutating: Vec<String> = events[at + 1..]
        .iter()
        .filter(|e| e.is_mutating())
        .map(|e| format!("{} {} {}", e.verb, e.resource, e.name))
        .collect();
    assert!(mutating.is_empty(), "changes were sent: {mutating:?}");
    let journal =
        std::fs::read_to_string(state.join("sei-console/journal.jsonl")).expect("journal");
    assert_eq!(
        journal
            .lines()
            .filter(|l| l.contains("\"refused\""))
            .count(),
        6,
        "{journal}"
    );

    // The console: the same refusal in its dialog, and the override typed there.
    crate::crd_skew_console::a_console_pause_goes_on_only_when_the_override_is_typed(
        client.clone(),
        NS,
        "held",
        state,
    )
    .await;

    // An older CRD (no spec.externalAddress): the address action is refused, a rollout is not.
    nodes
        .delete("held", &Default::default())
        .await
        .expect("delete");
    apply_crd(&plane, "tests/fixtures/crd/seinodes-older.yaml");
    let version = wait_for_skew(&kubeconfig, state, "older").await;
    assert_eq!(version["cluster"]["crd"]["summary"], "CRD older: 1 field");
    let (ok, _, stderr) = run(
        &kubeconfig,
        state,
        &[
            "address",
            "clean",
            "--external-address",
            "203.0.113.7:26656",
            "--dry-run",
            "--executor",
            "embedded",
        ],
    )
    .await;
    assert!(!ok);
    assert!(
        stderr.contains(
            "lacks fields this action writes, which the API server would drop (spec.externalAddress)"
        ),
        "{stderr}"
    );
    let (ok, stdout, stderr) = run(
        &kubeconfig,
        state,
        &[
            "rollout",
            "clean",
            "--image",
            V2,
            "--dry-run",
            "--executor",
            "embedded",
        ],
    )
    .await;
    assert!(
        ok,
        "a rollout writes nothing the older CRD lacks: {stdout}{stderr}"
    );
    tokio::task::spawn_blocking(move || plane.stop())
        .await
        .expect("stop");
}
