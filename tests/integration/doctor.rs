//! `sei-console doctor` on the real control plane: a namespace with a broken fleet (a failed
//! plan, a render blocker, image and sidecar drift, a failing condition, Active plans with no
//! controller and a task running too long, an executor Lease left by a dead console, an
//! unschedulable pod the real scheduler judged, a PVC the storage class cannot bind, a seed no
//! one can reach), ranked with their evidence and fixes; `--fail-on critical` exits 1 there and
//! 0 on a healthy namespace whose only finding is a render-failure event from before.
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod};
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common::console::cli;
use crate::common::{TestNamespace, platform_value, repo_path, seinode_resource, wait_for};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const OLD_IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.2.1";
const OLD_SIDECAR: &str = "ghcr.io/sei-protocol/seictl:v0.0.1";

fn ago(seconds: i64) -> String {
    (jiff::Timestamp::now() - jiff::SignedDuration::from_secs(seconds))
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

async fn create(ns: &TestNamespace, name: &str, spec: Value, status: Value) {
    let mut node = DynamicObject::new(name, &seinode_resource());
    node.data = json!({ "spec": spec });
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .unwrap_or_else(|e| panic!("create {name}: {e}"));
    ns.seinodes()
        .patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(&json!({ "status": status })),
        )
        .await
        .unwrap_or_else(|e| panic!("status of {name}: {e}"));
}

fn task(kind: &str, status: &str, submitted: Option<i64>) -> Value {
    let mut task =
        json!({"type": kind, "id": format!("id-{kind}"), "status": status, "params": {}});
    if let Some(seconds) = submitted {
        task["submittedAt"] = json!(ago(seconds));
    }
    task
}

fn running(sidecar: &str) -> Value {
    json!({"phase": "Running", "currentImage": IMAGE, "currentSidecarImage": sidecar})
}

fn doctor(ns: &str, extra: &[&str], state: &std::path::Path) -> (Option<i32>, Value, String) {
    let mut args = vec![
        "doctor",
        "-n",
        ns,
        "-o",
        "json",
        "--controller-namespace",
        ns,
    ];
    args.extend(extra);
    let out = cli(&args, state);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("doctor JSON: {e}; stderr: {stderr}"));
    (out.status.code(), json, stderr)
}

fn evidence(finding: &Value) -> String {
    finding["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            format!(
                "{}: {}",
                e["source"].as_str().unwrap_or(""),
                e["detail"].as_str().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn doctor_ranks_a_broken_fleet_with_evidence_and_fixes_and_fails_on_critical() {
    let ns = TestNamespace::new("doctor").await;
    let state = tempfile::tempdir().expect("state dir");
    let sidecar = platform_value("images.sidecar");

    // A validator whose init plan failed terminally.
    create(&ns, "val-0", json!({"chainId": "pacific-1", "image": IMAGE,
        "validator": {"signingKey": {"secret": {"secretName": "val-0-signing-key"}}, "nodeKey": {"secret": {"secretName": "val-0-node-key"}}}}),
        json!({"phase": "Failed", "plan": {"id": "plan-failed", "phase": "Failed",
            "targetPhase": "Running", "failedPhase": "Failed", "failedTaskIndex": 1,
            "failedTaskDetail": {"type": "validate-signing-key", "id": "id-validate-signing-key",
                "error": "secret \"val-0-signing-key\" not found", "retryCount": 0, "maxRetries": 0},
            "tasks": [task("ensure-data-pvc", "Complete", Some(900)),
                      task("validate-signing-key", "Failed", Some(890))]}})).await;
    // A full node whose init plan is Active (no controller runs it) at a task for 2 hours.
    create(
        &ns,
        "rpc-0",
        json!({"chainId": "pacific-1", "image": IMAGE, "fullNode": {}}),
        json!({"phase": "Initializing", "plan": {"id": "plan-active", "phase": "Active",
            "targetPhase": "Running", "failedPhase": "Failed",
            "tasks": [task("ensure-data-pvc", "Complete", Some(7300)),
                      task("config-apply", "Pending", Some(7200))]}}),
    )
    .await;
    // Running on an old image, and a sidecar behind the platform's, with no plan.
    let mut drifted = running(OLD_SIDECAR);
    drifted["currentImage"] = json!(OLD_IMAGE);
    create(
        &ns,
        "rpc-1",
        json!({"chainId": "pacific-1", "image": IMAGE, "fullNode": {}}),
        drifted,
    )
    .await;
    // Running, but its sidecar does not answer.
    let mut sick = running(&sidecar);
    sick["conditions"] = json!([{"type": "SidecarReady", "status": "False", "reason": "Unreachable",
        "message": "sidecar did not answer", "lastTransitionTime": ago(120)}]);
    create(
        &ns,
        "rpc-2",
        json!({"chainId": "pacific-1", "image": IMAGE, "fullNode": {}}),
        sick,
    )
    .await;
    // A published seed the platform config in use cannot render, nothing listening for it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    create(
        &ns,
        "seed-0",
        json!({"chainId": "pacific-1", "image": IMAGE,
        "externalAddress": format!("127.0.0.1:{port}"),
        "seed": {"nodeKey": {"secret": {"secretName": "seed-0-node-key"}}}}),
        json!({"phase": "Pending"}),
    )
    .await;

    // The embedded executor's Lease of rpc-0, left by a console that stopped renewing it.
    let lease: Lease = serde_json::from_value(json!({
        "metadata": {"name": "sei-console-exec-rpc-0"},
        "spec": {"holderIdentity": "sei-console-elsewhere-4242", "leaseDurationSeconds": 30,
                 "acquireTime": format!("{}.000000Z", ago(700).trim_end_matches('Z')),
                 "renewTime": format!("{}.000000Z", ago(600).trim_end_matches('Z'))}}))
    .expect("lease");
    ns.api::<Lease>()
        .create(&PostParams::default(), &lease)
        .await
        .expect("create Lease");
    // rpc-2's pod asks for a node pool no Node has: the real scheduler leaves it Pending.
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": "rpc-2-0", "labels": {"sei.io/node": "rpc-2"}},
        "spec": {"nodeSelector": {"karpenter.sh/nodepool": "no-such-pool"},
                 "containers": [{"name": "seid", "image": IMAGE}]}}))
    .expect("pod");
    ns.api::<Pod>()
        .create(&PostParams::default(), &pod)
        .await
        .expect("create Pod");
    // rpc-1's data volume on a storage class that does not exist.
    let pvc: PersistentVolumeClaim = serde_json::from_value(json!({
        "metadata": {"name": "data-rpc-1"},
        "spec": {"storageClassName": "no-such-class", "accessModes": ["ReadWriteOnce"],
                 "resources": {"requests": {"storage": "1Gi"}}}}))
    .expect("pvc");
    ns.api::<PersistentVolumeClaim>()
        .create(&PostParams::default(), &pvc)
        .await
        .expect("create PVC");
    let pods = ns.api::<Pod>();
    wait_for(
        "the scheduler to judge rpc-2-0",
        Duration::from_secs(60),
        || async {
            let pod = pods.get("rpc-2-0").await?;
            let unschedulable = pod
                .status
                .and_then(|s| s.conditions)
                .into_iter()
                .flatten()
                .any(|c| c.type_ == "PodScheduled" && c.reason.as_deref() == Some("Unschedulable"));
            Ok(unschedulable.then_some(()))
        },
    )
    .await;

    // The platform config in use has no seed node pool.
    let platform = std::fs::read_to_string(repo_path("assets/demo/platform-config.yaml"))
        .expect("platform config")
        .lines()
        .filter(|line| !line.contains("nodepoolSeed"))
        .collect::<Vec<_>>()
        .join("\n");
    let platform_file = state.path().join("platform-no-seed-pool.yaml");
    std::fs::write(&platform_file, platform).expect("write platform config");
    let platform_arg = platform_file.to_str().expect("utf-8 path");

    let (code, report, stderr) = doctor(
        &ns.name,
        &["--platform-config", platform_arg, "--fail-on", "critical"],
        state.path(),
    );
    assert_eq!(code, Some(1), "critical findings exit 1; stderr: {stderr}");
    assert_eq!(report["apiVersion"], "sei-console.doctor/v1");
    assert_eq!(report["failed"], true);
    let findings = report["findings"].as_array().expect("findings").clone();
    let classes: Vec<(String, String, String)> = findings
        .iter()
        .map(|f| {
            (
                f["severity"].as_str().unwrap_or("").to_owned(),
                f["object"]["node"].as_str().unwrap_or("-").to_owned(),
                f["class"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let find = |class: &str, node: &str| {
        findings
            .iter()
            .find(|f| f["class"] == class && f["object"]["node"].as_str().unwrap_or("-") == node)
            .unwrap_or_else(|| panic!("{class} of {node} in {classes:#?}"))
    };
    // Ranked: every critical before every warning, then by node and class.
    let expected_critical = [
        ("-", "controller-absent"),
        ("rpc-2", "pod-pending"),
        ("seed-0", "render-blocked"),
        ("seed-0", "seed-unreachable"),
        ("val-0", "plan-failed"),
    ];
    let criticals: Vec<(&str, &str)> = classes
        .iter()
        .filter(|(s, _, _)| s == "critical")
        .map(|(_, n, c)| (n.as_str(), c.as_str()))
        .collect();
    assert_eq!(criticals, expected_critical, "{classes:#?}");
    let first_warning = classes
        .iter()
        .position(|(s, _, _)| s == "warning")
        .expect("warnings");
    assert_eq!(first_warning, expected_critical.len(), "{classes:#?}");
    for (node, class) in [
        ("rpc-0", "executor-lease-orphaned"),
        ("rpc-0", "task-overdue"),
        ("rpc-1", "image-drift"),
        ("rpc-1", "pvc-pending"),
        ("rpc-1", "sidecar-behind"),
        ("rpc-2", "condition-failing"),
    ] {
        assert_eq!(
            find(class, node)["severity"],
            "warning",
            "{class} of {node}"
        );
    }

    // Evidence and fixes; the fix commands name the cluster and namespace they were found in.
    let context = findings[0]["object"]["context"]
        .as_str()
        .expect("context")
        .to_owned();
    let scope = format!("--context {context} -n {}", ns.name);
    let controller = find("controller-absent", "-");
    assert!(
        controller["summary"]
            .as_str()
            .unwrap_or("")
            .contains("rpc-0"),
        "{controller}"
    );
    assert!(evidence(controller).contains("plan plan-active Active, 1/2 tasks done"));
    let pending = find("pod-pending", "rpc-2");
    assert!(
        evidence(pending).contains("False Unschedulable: 0/"),
        "{pending}"
    );
    let blocked = find("render-blocked", "seed-0");
    assert_eq!(
        blocked["fix"]["summary"],
        format!("set scheduling.nodepoolSeed in the platform config file {platform_arg}")
    );
    assert_eq!(
        blocked["fix"]["command"],
        format!("sei-console rollout seed-0 {scope} --image {IMAGE} --dry-run")
    );
    assert_eq!(
        blocked["fix"]["action"],
        json!({"kind": "rollout", "image": IMAGE})
    );
    let unreachable = find("seed-unreachable", "seed-0");
    assert!(evidence(unreachable).contains("no pod"), "{unreachable}");
    let failed = find("plan-failed", "val-0");
    assert!(evidence(failed).contains("secret \"val-0-signing-key\" not found"));
    assert!(
        failed["fix"]["summary"]
            .as_str()
            .unwrap_or("")
            .contains("the node is Failed, which is terminal"),
        "{failed}"
    );
    assert_eq!(
        failed["fix"]["command"],
        format!("kubectl {scope} get seinode val-0 -o yaml > val-0.yaml")
    );
    let overdue = find("task-overdue", "rpc-0");
    assert!(
        overdue["summary"]
            .as_str()
            .unwrap_or("")
            .starts_with("task config-apply has run 1"),
        "{overdue}"
    );
    let lease = find("executor-lease-orphaned", "rpc-0");
    assert_eq!(
        lease["fix"]["command"],
        format!("sei-console exec rpc-0 {scope}")
    );
    let drift = find("image-drift", "rpc-1");
    assert_eq!(
        drift["fix"]["command"],
        format!("sei-console rollout rpc-1 {scope} --image {IMAGE} --dry-run")
    );

    // The fix of the render blocker works when followed: its preview names the fix.
    let preview = cli(
        &[
            "rollout",
            "seed-0",
            "-n",
            &ns.name,
            "--image",
            IMAGE,
            "--dry-run",
            "--platform-config",
            platform_arg,
        ],
        state.path(),
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&preview.stdout),
        String::from_utf8_lossy(&preview.stderr)
    );
    assert!(text.contains("set scheduling.nodepoolSeed"), "{text}");

    // Without --fail-on the same report exits 0.
    let (code, _, _) = doctor(&ns.name, &["--platform-config", platform_arg], state.path());
    assert_eq!(code, Some(0));
}

#[tokio::test]
async fn doctor_passes_a_healthy_namespace_and_calls_an_old_render_failure_from_before() {
    let ns = TestNamespace::new("doctor-ok").await;
    let state = tempfile::tempdir().expect("state dir");
    let sidecar = platform_value("images.sidecar");
    create(
        &ns,
        "rpc-0",
        json!({"chainId": "pacific-1", "image": IMAGE, "fullNode": {}}),
        running(&sidecar),
    )
    .await;
    create(
        &ns,
        "seed-0",
        json!({"chainId": "pacific-1", "image": IMAGE,
        "seed": {"nodeKey": {"secret": {"secretName": "seed-0-node-key"}}}}),
        running(&sidecar),
    )
    .await;
    let seed = ns.seinodes().get("seed-0").await.expect("seed");
    let event: Event = serde_json::from_value(json!({
        "metadata": {"name": "seed-0.render-failed"},
        "involvedObject": {"apiVersion": "sei.io/v1alpha1", "kind": "SeiNode", "namespace": ns.name,
            "name": "seed-0", "uid": seed.metadata.uid},
        "type": "Warning", "reason": "StatefulSetRenderFailed",
        "message": "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file",
        "source": {"component": "seinode-controller"}, "count": 3,
        "firstTimestamp": ago(900), "lastTimestamp": ago(600)}))
    .expect("event");
    ns.api::<Event>()
        .create(&PostParams::default(), &event)
        .await
        .expect("create Event");

    let (code, report, stderr) = doctor(&ns.name, &["--fail-on", "critical"], state.path());
    assert_eq!(
        code,
        Some(0),
        "nothing critical; stderr: {stderr}; {report}"
    );
    assert_eq!(report["failed"], false);
    let findings = report["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1, "{findings:#?}");
    assert_eq!(findings[0]["class"], "render-failed-before");
    assert_eq!(findings[0]["severity"], "info");
    assert!(
        findings[0]["summary"]
            .as_str()
            .unwrap_or("")
            .contains("renders the node now"),
        "{}",
        findings[0]
    );
}
