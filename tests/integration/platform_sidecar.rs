//! Sidecar drift on the real control plane without `SEI_CONSOLE_PLATFORM_CONFIG`: the console
//! reads the platform's default sidecar image from the controller's ConfigMap
//! (`sei-controller-config` in `SEI_CONSOLE_CONTROLLER_NAMESPACE`), as the actions do.

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::common::{TestNamespace, control_plane, controller_config_map, seinode_resource};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";
const RUNNING_SIDECAR: &str = "ghcr.io/sei-protocol/seictl:v0.9.0";
const NEWER_SIDECAR: &str = "ghcr.io/sei-protocol/seictl:v1.0.0";

fn get_rows(ns: &str, controller_ns: &str) -> Vec<Value> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .args(["get", "-n", ns, "-o", "json", "--kubeconfig"])
        .arg(&control_plane().kubeconfig)
        .env_remove("SEI_CONSOLE_PLATFORM_CONFIG")
        .env("SEI_CONSOLE_CONTROLLER_NAMESPACE", controller_ns)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run sei-console");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).expect("get JSON");
    match json {
        Value::Array(rows) => rows,
        other => other["items"].as_array().cloned().unwrap_or_default(),
    }
}

#[tokio::test]
async fn sidecar_drift_uses_the_platform_config_maps_default_sidecar_image() {
    let ns = TestNamespace::new("platform-sidecar").await;
    let mut node = DynamicObject::new("rpc-0", &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": IMAGE, "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");
    let status = json!({"status": {"phase": "Running", "currentImage": IMAGE,
        "currentSidecarImage": RUNNING_SIDECAR}});
    ns.seinodes()
        .patch_status("rpc-0", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .expect("status");

    // No ConfigMap in that namespace: the default is unknown, so no sidecar drift is claimed.
    let rows = get_rows(&ns.name, &ns.name);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["drift"], false, "{rows:?}");

    // The platform moved on to a newer sidecar: the running one drifts.
    let config_maps = ns.api::<ConfigMap>();
    config_maps
        .create(
            &PostParams::default(),
            &controller_config_map(NEWER_SIDECAR),
        )
        .await
        .expect("create ConfigMap");
    let rows = get_rows(&ns.name, &ns.name);
    assert_eq!(rows[0]["drift"], true, "{rows:?}");

    // The platform default is what runs: no drift.
    config_maps
        .replace(
            "sei-controller-config",
            &PostParams::default(),
            &ConfigMap {
                metadata: config_maps
                    .get("sei-controller-config")
                    .await
                    .expect("get")
                    .metadata,
                ..controller_config_map(RUNNING_SIDECAR)
            },
        )
        .await
        .expect("replace ConfigMap");
    let rows = get_rows(&ns.name, &ns.name);
    assert_eq!(rows[0]["drift"], false, "{rows:?}");
}
