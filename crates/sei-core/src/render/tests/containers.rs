//! The sidecar, kube-rbac-proxy and seid containers and the seid probes.
use super::*;

#[test]
fn sidecar_image_and_port_fall_back_to_platform_default_and_7777() {
    let cfg = fixture();
    assert_eq!(sidecar_image(&node(FULL), &cfg), cfg.images.sidecar);
    assert_eq!(sidecar_port(&node(FULL)), 7777);
    let custom = node(&format!("{FULL}\n  sidecar: {{image: mine:1, port: 9999}}"));
    assert_eq!(sidecar_image(&custom, &cfg), "mine:1");
    assert_eq!(sidecar_port(&custom), 9999);
    let zero = node(&format!("{FULL}\n  sidecar: {{image: \"\", port: 0}}"));
    assert_eq!(
        (sidecar_image(&zero, &cfg), sidecar_port(&zero)),
        (cfg.images.sidecar.as_str(), 7777)
    );
}

#[test]
fn sidecar_container_shape() {
    let spec = pod(&node(FULL));
    let c = container(&spec, "sei-sidecar");
    assert_eq!(c.image.as_deref(), Some(fixture().images.sidecar.as_str()));
    assert_eq!(
        c.command,
        Some(vec!["seictl".to_string(), "serve".to_string()])
    );
    assert_eq!(c.restart_policy.as_deref(), Some("Always"));
    assert_eq!(
        env_names(c),
        [
            "SEI_CHAIN_ID",
            "SEI_SIDECAR_PORT",
            "SEI_HOME",
            "HOME",
            "SEI_GENESIS_BUCKET",
            "SEI_GENESIS_REGION",
            "SEI_SNAPSHOT_BUCKET",
            "SEI_SNAPSHOT_REGION",
            "SEI_SIDECAR_AUTHN_MODE",
        ]
    );
    assert_eq!(env_value(c, "SEI_SIDECAR_PORT").as_deref(), Some("7777"));
    assert_eq!(
        env_value(c, "SEI_GENESIS_BUCKET").as_deref(),
        Some("test-sei-k8s-genesis-artifacts")
    );
    assert_eq!(
        env_value(c, "SEI_SNAPSHOT_BUCKET").as_deref(),
        Some("test-sei-snapshots")
    );
    assert_eq!(
        env_value(c, "SEI_SIDECAR_AUTHN_MODE").as_deref(),
        Some("trusted-header")
    );
    let mounts: Vec<(String, String)> = c
        .volume_mounts
        .iter()
        .flatten()
        .map(|m| (m.name.clone(), m.mount_path.clone()))
        .collect();
    assert_eq!(
        mounts,
        [
            ("home".to_string(), "/home/nonroot".to_string()),
            ("data".into(), "/home/nonroot/.sei".into()),
            ("sidecar-tmp".into(), "/tmp".into()),
        ]
    );
    let port = &c.ports.as_ref().expect("ports")[0];
    assert_eq!(
        (port.name.as_deref(), port.container_port),
        (Some("sidecar"), 7777)
    );
    assert!(c.resources.is_none());
    assert!(c.startup_probe.is_none() && c.readiness_probe.is_none() && c.liveness_probe.is_none());
}

#[test]
fn sidecar_container_custom_port_and_resources() {
    let n = node(&format!(
        "{FULL}\n  sidecar: {{port: 9999, resources: {{requests: {{cpu: 100m}}, limits: {{memory: 1Gi}}}}}}"
    ));
    let spec = pod(&n);
    let c = container(&spec, "sei-sidecar");
    assert_eq!(env_value(c, "SEI_SIDECAR_PORT").as_deref(), Some("9999"));
    assert_eq!(c.ports.as_ref().expect("ports")[0].container_port, 9999);
    let res = c.resources.clone().expect("resources");
    assert_eq!(res.requests.expect("requests")["cpu"].0, "100m");
}

#[test]
fn proxy_upstream_uses_custom_sidecar_port() {
    let n = node(&format!("{FULL}\n  sidecar: {{port: 9999}}"));
    let args = container(&pod(&n), "kube-rbac-proxy")
        .args
        .clone()
        .expect("args");
    assert!(args.contains(&"--upstream=http://127.0.0.1:9999/".to_string()));
}

#[test]
fn pod_spec_always_has_proxy_with_http_probes_and_ignore_paths() {
    for (mode, n) in all_modes() {
        let spec = pod(&n);
        let proxy = container(&spec, "kube-rbac-proxy");
        assert_eq!(
            proxy.image.as_deref(),
            Some("quay.io/brancz/kube-rbac-proxy:v0.19.1")
        );
        assert_eq!(proxy.restart_policy.as_deref(), Some("Always"));
        assert_eq!(
            proxy.args.clone().expect("args"),
            [
                "--insecure-listen-address=0.0.0.0:8443",
                "--upstream=http://127.0.0.1:7777/",
                "--config-file=/etc/kube-rbac-proxy/config.yaml",
                "--ignore-paths=/v0/healthz,/v0/startupz,/v0/livez,/v0/metrics",
                "--auth-header-fields-enabled=true",
                "--v=0",
            ],
            "{mode}"
        );
        let startup = proxy.startup_probe.as_ref().expect("startup");
        assert_eq!(probe_port(startup), ("tcp".into(), 8443));
        assert_eq!(
            (
                startup.initial_delay_seconds,
                startup.period_seconds,
                startup.failure_threshold
            ),
            (Some(5), Some(5), Some(60))
        );
        let live = proxy.liveness_probe.as_ref().expect("liveness");
        assert_eq!(probe_port(live), ("/v0/livez".into(), 8443));
        assert_eq!(
            (
                live.initial_delay_seconds,
                live.period_seconds,
                live.failure_threshold
            ),
            (Some(5), Some(10), Some(3))
        );
        let ready = proxy.readiness_probe.as_ref().expect("readiness");
        assert_eq!(probe_port(ready), ("/v0/healthz".into(), 8443));
        assert_eq!(
            (
                ready.initial_delay_seconds,
                ready.period_seconds,
                ready.failure_threshold
            ),
            (Some(2), Some(5), Some(6))
        );
        assert!(ready.timeout_seconds.is_none());
        let m = &proxy.volume_mounts.as_ref().expect("mounts")[0];
        assert_eq!(
            (m.name.as_str(), m.mount_path.as_str(), m.read_only),
            ("rbac-proxy-config", "/etc/kube-rbac-proxy", Some(true))
        );
    }
}

#[test]
fn seid_startup_probe_targets_healthz_through_proxy_in_every_mode() {
    for (mode, n) in all_modes() {
        let spec = pod(&n);
        let seid = container(&spec, "seid");
        let p = seid.startup_probe.as_ref().expect("startup");
        assert_eq!(probe_port(p), ("/v0/healthz".into(), 8443), "{mode}");
        assert_eq!(
            (
                p.initial_delay_seconds,
                p.period_seconds,
                p.failure_threshold
            ),
            (Some(5), Some(5), Some(86400))
        );
        assert!(seid.liveness_probe.is_none(), "{mode}: no liveness probe");
    }
}

#[test]
fn non_seed_readiness_probes_lag_status_seed_probes_p2p_tcp() {
    for (mode, n) in all_modes() {
        let spec = pod(&n);
        let p = container(&spec, "seid")
            .readiness_probe
            .clone()
            .expect("readiness");
        let want = if mode == "seed" {
            ("tcp".to_string(), 26656)
        } else {
            ("/lag_status".to_string(), 26657)
        };
        assert_eq!(probe_port(&p), want, "{mode}");
        assert_eq!(
            (
                p.initial_delay_seconds,
                p.period_seconds,
                p.failure_threshold,
                p.timeout_seconds
            ),
            (Some(30), Some(10), Some(3), Some(5))
        );
    }
}

#[test]
fn seid_wait_wrapper_polls_sidecar_port_then_execs_seid() {
    let n = node(&format!("{FULL}\n  sidecar: {{port: 9999}}"));
    let spec = pod(&n);
    let seid = container(&spec, "seid");
    assert_eq!(
        seid.command,
        Some(vec!["/bin/bash".to_string(), "-c".to_string()])
    );
    assert_eq!(
        seid.args.clone().expect("args"),
        [
            "echo \"waiting for sidecar to become ready...\"; while true; do if (exec 3<>/dev/tcp/localhost/9999 && printf \"GET /v0/healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n\" >&3 && head -1 <&3 | grep -q \"200\") 2>/dev/null; then break; fi; sleep 5; done; echo \"sidecar ready, starting seid\"; exec seid \"start\" \"--home\" \"/home/nonroot/.sei\""
        ]
    );
    let default = pod(&node(FULL));
    assert!(
        container(&default, "seid").args.clone().expect("args")[0]
            .contains("/dev/tcp/localhost/7777")
    );
}

#[test]
fn seid_image_env_mounts_and_seven_ports_in_every_mode() {
    for (mode, n) in all_modes() {
        let spec = pod(&n);
        let seid = container(&spec, "seid");
        assert_eq!(seid.image.as_deref(), Some("sei:v1"));
        assert_eq!(&env_names(seid)[..2], ["HOME", "TMPDIR"], "{mode}");
        assert_eq!(
            env_value(seid, "TMPDIR").as_deref(),
            Some("/home/nonroot/.sei/tmp")
        );
        let ports: Vec<(String, i32)> = seid
            .ports
            .iter()
            .flatten()
            .map(|p| (p.name.clone().unwrap_or_default(), p.container_port))
            .collect();
        assert_eq!(
            ports,
            [
                ("evm-rpc".to_string(), 8545),
                ("evm-ws".into(), 8546),
                ("grpc".into(), 9090),
                ("rest".into(), 1317),
                ("p2p".into(), 26656),
                ("rpc".into(), 26657),
                ("metrics".into(), 26660)
            ],
            "{mode}"
        );
        assert!(
            seid.ports
                .iter()
                .flatten()
                .all(|p| p.protocol.as_deref() == Some("TCP"))
        );
        let mounts = names(seid.volume_mounts.as_deref().expect("mounts"), |m| &m.name);
        assert_eq!(&mounts[..2], ["data", "home"]);
    }
}
