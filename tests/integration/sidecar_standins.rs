//! The control plane's sidecar add-on: every SeiNode gets a sidecar (the real seictl, see
//! `real_seictl.rs`) whose home is `DIR/sidecars/<namespace>/<node>/`, reachable through
//! `DIR/console.env`, and the platform ConfigMap exists.

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::api::{DynamicObject, PostParams};
use sei_console::api::sidecar::{SidecarTaskType, TaskRequest, TaskStatus};
use sei_console::ports::{SidecarApi, SidecarTarget};
use sei_console::sidecar::env::transport_from_env;
use sei_console::sidecar::http::HttpSidecar;
use serde_json::json;

use crate::common::console::console_env;
use crate::common::{TestNamespace, client, control_plane, seinode_resource, wait_for};

#[tokio::test]
async fn a_new_seinode_gets_a_sidecar_with_its_own_config_file() {
    let ns = TestNamespace::new("sidecar").await;
    let mut node = DynamicObject::new("full-0", &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0",
        "fullNode": {}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create SeiNode");

    let config = control_plane()
        .dir
        .join("sidecars")
        .join(&ns.name)
        .join("full-0/config/config.toml");
    let config_path = config.clone();
    wait_for("the node's sidecar home", Duration::from_secs(20), || {
        let exists = config_path.exists();
        async move { Ok(exists.then_some(())) }
    })
    .await;

    let home = config.parent().and_then(|dir| dir.parent()).expect("home");
    let chain = std::fs::read_to_string(home.join(".standin-chain-id")).expect("chain id file");
    assert_eq!(chain.trim(), "pacific-1");

    let env = console_env();
    let transport = transport_from_env(|name| env.get(name).cloned(), None).expect("transport");
    let sidecar = HttpSidecar::new(transport);
    let target = SidecarTarget::new(&ns.name, "full-0");
    assert!(
        !sidecar.healthz(&target).await.expect("healthz"),
        "not ready before mark-ready"
    );

    let id = uuid::Uuid::new_v4();
    let patch = json!({"files": {"config.toml": {"p2p": {"persistent-peers": "abc@peer:26656"}}}});
    let request = TaskRequest::new(id, SidecarTaskType::ConfigPatch, Some(patch));
    sidecar
        .submit_task(&target, &request)
        .await
        .expect("submit");
    let task = wait_for("config-patch to finish", Duration::from_secs(20), || {
        let sidecar = &sidecar;
        let target = &target;
        async move {
            let task = sidecar.get_task(target, id).await.expect("get task");
            Ok(task.filter(|t| t.status.is_terminal()))
        }
    })
    .await;
    assert_eq!(task.status, TaskStatus::Completed, "{task:?}");
    let text = std::fs::read_to_string(&config).expect("config.toml");
    assert!(
        text.contains("persistent-peers = 'abc@peer:26656'"),
        "{text}"
    );

    // The platform ConfigMap is where console.env says.
    let namespace = &env["SEI_CONSOLE_CONTROLLER_NAMESPACE"];
    let config_maps: Api<ConfigMap> = Api::namespaced(client().await, namespace);
    let platform = config_maps
        .get("sei-controller-config")
        .await
        .expect("ConfigMap");
    assert!(
        platform
            .data
            .is_some_and(|data| data.contains_key("config.yaml"))
    );
}

/// The pod-proxy transport against the real API server: a missing pod is a transient error, and
/// a pod whose address cannot be reached is an error, never a readiness answer. kwok gives pods
/// loopback IPs (tests/control-plane/start), which the API server refuses to proxy to, so the
/// API server never dials anything outside 127.0.0.0/8.
#[tokio::test]
async fn pod_proxy_failures_are_transient_and_never_read_as_not_ready() {
    let ns = TestNamespace::new("podproxy").await;
    let kubeconfig =
        kube::config::Kubeconfig::read_from(&control_plane().kubeconfig).expect("read kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("kubeconfig");
    // As the console builds it: its requests name it.
    let config = sei_console::kube::client::with_user_agent(config);
    let transport = sei_console::sidecar::http::SidecarTransport::pod_proxy(config)
        .expect("pod proxy transport");
    let timeouts = sei_console::sidecar::http::SidecarTimeouts {
        health: Duration::from_secs(5),
        ..Default::default()
    };
    let sidecar = HttpSidecar::new(transport).with_timeouts(timeouts);

    let missing = SidecarTarget::new(&ns.name, "missing");
    let err = sidecar.healthz(&missing).await.expect_err("no pod");
    assert!(
        matches!(&err, sei_console::ports::SidecarError::Unreachable { detail, .. } if detail.contains("not found")),
        "{err}"
    );
    assert!(err.is_transient());

    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(json!({
        "metadata": {"name": "kwok-0"},
        "spec": {
            "tolerations": [{"operator": "Exists"}],
            "containers": [{"name": "sidecar", "image": "ghcr.io/sei-protocol/seictl:test"}]
        }
    }))
    .expect("pod json");
    let pods: Api<k8s_openapi::api::core::v1::Pod> = ns.api();
    pods.create(&PostParams::default(), &pod)
        .await
        .expect("create pod");
    let pod_ip: String = wait_for("the kwok pod to run", Duration::from_secs(30), || {
        let pods = pods.clone();
        async move {
            let pod = pods.get("kwok-0").await?;
            Ok(pod.status.and_then(|s| s.pod_ip))
        }
    })
    .await;
    let pod_ip: std::net::IpAddr = pod_ip.parse().expect("pod IP");
    assert!(
        pod_ip.is_loopback(),
        "kwok pod IPs must stay on loopback: {pod_ip}"
    );
    let answer = sidecar.healthz(&SidecarTarget::new(&ns.name, "kwok")).await;
    assert!(answer.is_err(), "a kwok pod cannot answer: {answer:?}");
}
