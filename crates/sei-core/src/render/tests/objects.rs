//! Resources, GOMEMLIMIT, cosmos-exporter, scheduling, Service, PVC, ConfigMap, key volumes.
use super::*;

fn requests(c: &Container) -> (String, String, String) {
    let r = c.resources.clone().expect("resources");
    let req = r.requests.expect("requests");
    let lim = r.limits.expect("limits");
    assert!(!lim.contains_key("cpu"), "never a CPU limit");
    (
        req["cpu"].0.clone(),
        req["memory"].0.clone(),
        lim["memory"].0.clone(),
    )
}

#[test]
fn resources_for_node_defaults_per_mode() {
    let want = [
        ("full", "32", "256Gi"),
        ("archive", "64", "512Gi"),
        ("replayer", "32", "256Gi"),
        ("validator", "16", "128Gi"),
        ("seed", "1", "2Gi"),
    ];
    for ((mode, n), (_, cpu, mem)) in all_modes().into_iter().zip(want) {
        let spec = pod(&n);
        assert_eq!(
            requests(container(&spec, "seid")),
            (cpu.into(), mem.into(), mem.into()),
            "{mode}"
        );
    }
}

#[test]
fn resources_for_node_override_per_role_and_partial_override() {
    let mut cfg = fixture();
    cfg.resources.archive.cpu_request = "48".into();
    cfg.resources.archive.memory = "300Gi".into();
    cfg.resources.replayer.memory = "200Gi".into();
    cfg.resources.node.cpu_request = "  ".into();
    let archive = resources_for_node(&node(ARCHIVE), &cfg).expect("ok");
    assert_eq!(archive.requests.expect("req")["cpu"].0, "48");
    let replayer = resources_for_node(&node(REPLAYER), &cfg).expect("ok");
    let req = replayer.requests.expect("req");
    assert_eq!(
        (req["cpu"].0.as_str(), req["memory"].0.as_str()),
        ("32", "200Gi")
    );
    // Blank override falls back; the full node's override does not leak into the replayer.
    let full = resources_for_node(&node(FULL), &cfg).expect("ok");
    assert_eq!(full.requests.expect("req")["cpu"].0, "32");
}

#[test]
fn quantities_are_written_in_apimachinery_canonical_form() {
    let mut cfg = fixture();
    cfg.resources.seed.memory = "1.5Gi".into();
    cfg.resources.seed.cpu_request = "0.5".into();
    cfg.storage.size_seed = "20480Mi".into();
    let req = resources_for_node(&node(SEED), &cfg)
        .expect("ok")
        .requests
        .expect("req");
    assert_eq!(
        (req["cpu"].0.as_str(), req["memory"].0.as_str()),
        ("500m", "1536Mi")
    );
    let pvc = data_pvc(&node(SEED), &cfg)
        .expect("pvc")
        .spec
        .expect("spec");
    assert_eq!(
        pvc.resources.expect("res").requests.expect("req")["storage"].0,
        "20Gi"
    );
    let n = node(&format!(
        "{SEED}\n  sidecar: {{resources: {{requests: {{cpu: \"1000m\"}}}}}}"
    ));
    let spec = statefulset(&n, &cfg)
        .expect("renders")
        .spec
        .template
        .spec
        .expect("pod");
    let sidecar = container(&spec, "sei-sidecar")
        .resources
        .clone()
        .expect("res");
    assert_eq!(sidecar.requests.expect("req")["cpu"].0, "1");
}

#[test]
fn resources_invalid_override_is_an_error_not_a_panic() {
    let mut cfg = fixture();
    cfg.resources.validator.memory = "lots".into();
    let err = statefulset(&node(VALIDATOR), &cfg).expect_err("invalid");
    assert!(
        err.to_string()
            .starts_with("resources.validator.memory: invalid quantity \"lots\": "),
        "{err}"
    );
}

#[test]
fn seed_gomemlimit_is_87_percent_of_default_limit() {
    let spec = pod(&node(SEED));
    let seid = container(&spec, "seid");
    assert_eq!(
        env_value(seid, "GOMEMLIMIT").as_deref(),
        Some("1868310773B")
    );
    assert_eq!(
        env_names(seid).last().map(String::as_str),
        Some("GOMEMLIMIT")
    );
}

#[test]
fn seed_gomemlimit_below_memory_limit_follows_override() {
    let mut cfg = fixture();
    cfg.resources.seed.memory = "1.5Gi".into();
    let sts = statefulset(&node(SEED), &cfg).expect("renders");
    let spec = sts.spec.template.spec.expect("pod");
    let value = env_value(container(&spec, "seid"), "GOMEMLIMIT").expect("set");
    let bytes: i64 = value.trim_end_matches('B').parse().expect("number");
    let limit = 1536 * 1024 * 1024_i64;
    assert!(bytes > limit / 2 && bytes < limit);
    assert_eq!(bytes, limit * 87 / 100);
    // Rounded up to whole bytes, then multiplied first.
    cfg.resources.seed.memory = "1001m".into();
    let sts = statefulset(&node(SEED), &cfg).expect("renders");
    let spec = sts.spec.template.spec.expect("pod");
    assert_eq!(
        env_value(container(&spec, "seid"), "GOMEMLIMIT").as_deref(),
        Some("1B"),
        "2 * 87 / 100"
    );
    // A result that is not positive omits the variable.
    cfg.resources.seed.memory = "1".into();
    let sts = statefulset(&node(SEED), &cfg).expect("renders");
    let spec = sts.spec.template.spec.expect("pod");
    assert_eq!(
        env_value(container(&spec, "seid"), "GOMEMLIMIT"),
        None,
        "1 * 87 / 100 = 0"
    );
}

#[test]
fn non_seed_has_no_gomemlimit() {
    for (mode, n) in all_modes() {
        if mode != "seed" {
            assert_eq!(
                env_value(container(&pod(&n), "seid"), "GOMEMLIMIT"),
                None,
                "{mode}"
            );
        }
    }
}

#[test]
fn cosmos_exporter_present_on_grpc_modes_absent_on_seed() {
    for (mode, n) in all_modes() {
        let spec = pod(&n);
        let containers = names(&spec.containers, |c| &c.name);
        if mode == "seed" {
            assert_eq!(containers, ["seid"]);
        } else {
            assert_eq!(containers, ["seid", "cosmos-exporter"], "{mode}");
        }
    }
}

#[test]
fn cosmos_exporter_container_shape() {
    let spec = pod(&node(FULL));
    let c = container(&spec, "cosmos-exporter");
    assert_eq!(
        c.image.as_deref(),
        Some(fixture().images.cosmos_exporter.as_str())
    );
    assert_eq!(
        c.command,
        Some(vec!["/bin/bash".to_string(), "-c".to_string()])
    );
    assert_eq!(
        c.args.clone().expect("args")[0],
        "echo \"waiting for gRPC :9090 to be available...\"; until (exec 3<>/dev/tcp/localhost/9090) 2>/dev/null; do sleep 5; done; echo \"gRPC available, starting cosmos-exporter\"; exec /usr/local/bin/sei-cosmos-exporter \"--denom\" \"usei\" \"--denom-coefficient\" \"1000000\" \"--bech-prefix\" \"sei\" \"--listen-address\" \":9300\""
    );
    let port = &c.ports.as_ref().expect("ports")[0];
    assert_eq!(
        (port.name.as_deref(), port.container_port),
        (Some("cosmos-metrics"), 9300)
    );
    assert_eq!(requests(c), ("50m".into(), "64Mi".into(), "384Mi".into()));
    assert_eq!(
        names(c.volume_mounts.as_deref().expect("mounts"), |m| &m
            .mount_path),
        ["/tmp"]
    );
    let ready = c.readiness_probe.as_ref().expect("readiness");
    assert_eq!(probe_port(ready), ("tcp".into(), 9300));
    assert_eq!(
        (
            ready.initial_delay_seconds,
            ready.period_seconds,
            ready.failure_threshold
        ),
        (None, Some(10), Some(6))
    );
    let live = c.liveness_probe.as_ref().expect("liveness");
    assert_eq!(
        (
            live.initial_delay_seconds,
            live.period_seconds,
            live.failure_threshold
        ),
        (Some(600), Some(10), Some(3))
    );
    assert!(c.startup_probe.is_none());
}

#[test]
fn schedules_on_pool_per_mode_with_toleration_and_node_affinity() {
    let want = [
        ("full", "sei-node"),
        ("archive", "sei-archive"),
        ("replayer", "sei-node"),
        ("validator", "sei-validator"),
        ("seed", "sei-seed"),
    ];
    for ((mode, n), (_, pool)) in all_modes().into_iter().zip(want) {
        let spec = pod(&n);
        let tol = &spec.tolerations.as_ref().expect("tolerations")[0];
        assert_eq!(
            (
                tol.key.as_deref(),
                tol.value.as_deref(),
                tol.effect.as_deref()
            ),
            (Some("sei.io/workload"), Some(pool), Some("NoSchedule")),
            "{mode}"
        );
        assert!(tol.operator.is_none());
        let affinity = spec.affinity.clone().expect("affinity");
        let terms = affinity
            .node_affinity
            .expect("node")
            .required_during_scheduling_ignored_during_execution
            .expect("req")
            .node_selector_terms;
        let expr = &terms[0].match_expressions.as_ref().expect("exprs")[0];
        assert_eq!(
            (expr.key.as_str(), expr.operator.as_str()),
            ("karpenter.sh/nodepool", "In")
        );
        assert_eq!(expr.values, Some(vec![pool.to_string()]), "{mode}");
    }
}

#[test]
fn non_dedicated_only_defensive_anti_affinity_dedicated_adds_requester_term_and_label() {
    let terms = |n: &SeiNode| {
        pod(n)
            .affinity
            .expect("affinity")
            .pod_anti_affinity
            .expect("anti")
            .required_during_scheduling_ignored_during_execution
            .expect("terms")
    };
    let plain = terms(&node(FULL));
    assert_eq!(plain.len(), 1);
    assert_eq!(plain[0].topology_key, "kubernetes.io/hostname");
    assert_eq!(plain[0].namespace_selector, Some(Default::default()));
    let expr = &plain[0]
        .label_selector
        .as_ref()
        .expect("sel")
        .match_expressions
        .as_ref()
        .expect("exprs")[0];
    assert_eq!(
        (
            expr.key.as_str(),
            expr.operator.as_str(),
            expr.values.clone()
        ),
        (
            "sei.io/dedicated-node",
            "In",
            Some(vec!["true".to_string()])
        )
    );
    let dedicated = node_with_meta("  annotations: {sei.io/dedicated-node: \"true\"}\n", FULL);
    let both = terms(&dedicated);
    assert_eq!(both.len(), 2);
    let expr = &both[1]
        .label_selector
        .as_ref()
        .expect("sel")
        .match_expressions
        .as_ref()
        .expect("exprs")[0];
    assert_eq!(
        (
            expr.key.as_str(),
            expr.operator.as_str(),
            expr.values.clone()
        ),
        ("sei.io/node", "Exists", None)
    );
    assert_eq!(resource_labels(&dedicated)["sei.io/dedicated-node"], "true");
}

#[test]
fn headless_service_eight_ports_same_for_every_mode() {
    for (mode, n) in all_modes() {
        let svc = headless_service(&n);
        assert_eq!(svc.metadata.name.as_deref(), Some("n1"));
        assert_eq!(svc.metadata.labels, Some(resource_labels(&n)));
        let spec = svc.spec.expect("spec");
        assert_eq!(spec.cluster_ip.as_deref(), Some("None"));
        assert_eq!(spec.publish_not_ready_addresses, Some(true));
        assert_eq!(spec.selector, Some(selector_labels(&n)));
        let ports = spec.ports.expect("ports");
        let got: Vec<(String, i32)> = ports
            .iter()
            .map(|p| (p.name.clone().unwrap_or_default(), p.port))
            .collect();
        assert_eq!(
            got,
            [
                ("evm-rpc".to_string(), 8545),
                ("evm-ws".into(), 8546),
                ("grpc".into(), 9090),
                ("rest".into(), 1317),
                ("p2p".into(), 26656),
                ("rpc".into(), 26657),
                ("metrics".into(), 26660),
                ("api".into(), 8443)
            ],
            "{mode}"
        );
        for p in &ports {
            assert_eq!(p.target_port, Some(IntOrString::Int(p.port)));
            assert_eq!(p.protocol.as_deref(), Some("TCP"));
            let want = (p.name.as_deref() == Some("grpc")).then(|| "kubernetes.io/h2c".to_string());
            assert_eq!(p.app_protocol, want);
        }
    }
}

#[test]
fn data_pvc_name_default_import_and_empty_import() {
    assert_eq!(data_pvc_name(&node(FULL)), "data-n1");
    let imported = node(&format!(
        "{FULL}\n  dataVolume: {{import: {{pvcName: existing}}}}"
    ));
    assert_eq!(data_pvc_name(&imported), "existing");
    let empty = node(&format!("{FULL}\n  dataVolume: {{}}"));
    assert_eq!(data_pvc_name(&empty), "data-n1");
    let spec = pod(&imported);
    assert_eq!(
        spec.volumes.expect("vols")[0]
            .persistent_volume_claim
            .as_ref()
            .expect("pvc")
            .claim_name,
        "existing"
    );
}

#[test]
fn data_pvc_class_and_size_per_mode() {
    let want = [
        ("full", "gp3-10k-750", "2000Gi"),
        ("archive", "gp3-archive", "40Ti"),
        ("replayer", "gp3-10k-750", "2000Gi"),
        ("validator", "gp3-10k-750", "2000Gi"),
        ("seed", "gp3", "20Gi"),
    ];
    for ((mode, n), (_, class, size)) in all_modes().into_iter().zip(want) {
        let pvc = data_pvc(&n, &fixture()).expect("renders");
        assert_eq!(pvc.metadata.name.as_deref(), Some("data-n1"));
        assert_eq!(pvc.metadata.labels, Some(resource_labels(&n)));
        let spec = pvc.spec.expect("spec");
        assert_eq!(spec.access_modes, Some(vec!["ReadWriteOnce".to_string()]));
        assert_eq!(spec.storage_class_name.as_deref(), Some(class), "{mode}");
        assert_eq!(
            spec.resources.expect("res").requests.expect("req")["storage"].0,
            size,
            "{mode}"
        );
    }
}

#[test]
fn seed_storage_uses_class_default_and_seed_size_not_size_default() {
    let mut cfg = fixture();
    cfg.storage.size_seed = "50Gi".into();
    let (class, size) = default_storage_for_mode(crate::platform::SeiConfigMode::Seed, &cfg);
    assert_eq!((class, size), ("gp3", "50Gi"));
    assert_ne!(size, cfg.storage.size_default);
}

#[test]
fn data_pvc_unparsable_size_is_an_error() {
    let mut cfg = fixture();
    cfg.storage.size_archive = "huge".into();
    let err = data_pvc(&node(ARCHIVE), &cfg).expect_err("invalid");
    assert!(
        err.to_string()
            .starts_with("storage.sizeArchive: invalid quantity \"huge\": "),
        "{err}"
    );
}

#[test]
fn rbac_proxy_config_map_uses_api_group_and_scopes_to_node() {
    let cm = rbac_proxy_config_map(&node(FULL));
    assert_eq!(cm.metadata.name.as_deref(), Some("n1-rbac-proxy-config"));
    assert_eq!(cm.metadata.namespace.as_deref(), Some("ns"));
    assert_eq!(
        cm.data.expect("data")["config.yaml"],
        "authorization:\n  resourceAttributes:\n    apiGroup: sei.io\n    resource: seinodetasks\n    namespace: ns\n    name: n1\n"
    );
}

#[test]
fn sidecar_url_for_node_uses_pod_dns_and_proxy_port() {
    let n = node(REPLAYER);
    assert_eq!(
        sidecar_url_for_node(&n),
        "http://n1-0.n1.ns.svc.cluster.local:8443"
    );
}

#[test]
fn applied_workload_sets_owner_reference_when_node_has_uid() {
    let n = node_with_meta("  uid: 1234-abcd\n", FULL);
    let applied = applied_workload(&n, &fixture()).expect("renders");
    for owners in [
        applied.statefulset.metadata.owner_references.clone(),
        applied.service.metadata.owner_references.clone(),
        applied
            .data_pvc
            .clone()
            .expect("pvc")
            .metadata
            .owner_references,
    ] {
        let owner = &owners.expect("owner")[0];
        assert_eq!(
            (
                owner.api_version.as_str(),
                owner.kind.as_str(),
                owner.name.as_str(),
                owner.uid.as_str()
            ),
            ("sei.io/v1alpha1", "SeiNode", "n1", "1234-abcd")
        );
        assert_eq!(
            (owner.controller, owner.block_owner_deletion),
            (Some(true), Some(true))
        );
    }
    let without_uid = applied_workload(&node(FULL), &fixture()).expect("renders");
    assert!(without_uid.statefulset.metadata.owner_references.is_none());
}

#[test]
fn paused_node_statefulset_applies_with_zero_replicas() {
    let n = node(&format!("{FULL}\n  paused: true"));
    assert_eq!(
        statefulset_for_apply(&n, &fixture())
            .expect("renders")
            .spec
            .replicas,
        Some(0)
    );
    assert_eq!(
        statefulset(&n, &fixture()).expect("renders").spec.replicas,
        Some(1)
    );
}

#[test]
fn imported_pvc_is_never_rendered() {
    let n = node(&format!(
        "{FULL}\n  dataVolume: {{import: {{pvcName: existing}}}}"
    ));
    assert!(
        applied_workload(&n, &fixture())
            .expect("renders")
            .data_pvc
            .is_none()
    );
}

#[test]
fn empty_strings_are_omitted_like_go_omitempty() {
    let mut cfg = fixture();
    cfg.scheduling.toleration_key.clear();
    cfg.scheduling.service_account.clear();
    cfg.genesis.bucket.clear();
    let sts = statefulset(&node(FULL), &cfg).expect("renders");
    let spec = sts.spec.template.spec.expect("pod");
    assert!(spec.service_account_name.is_none());
    assert!(
        spec.tolerations.as_ref().expect("tolerations")[0]
            .key
            .is_none()
    );
    let sidecar = container(&spec, "sei-sidecar");
    let bucket = sidecar
        .env
        .iter()
        .flatten()
        .find(|e| e.name == "SEI_GENESIS_BUCKET")
        .expect("env");
    assert!(bucket.value.is_none(), "name kept, empty value left out");
}
