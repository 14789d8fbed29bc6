//! Render-time errors in evaluation order, probe guards, keyring containment, bootstrap.
use k8s_openapi::api::core::v1::{EnvFromSource, SecretEnvSource, VolumeMount};

use super::*;

pub(in crate::render) const KEYRING_VALIDATOR: &str = "chainId: c\n  image: i\n  validator:\n    operatorKeyring:\n      secret: {secretName: kr, passphraseSecretRef: {secretName: pp, key: pass}}";
const KEYRING_SEID_MOUNT: &str = "chainId: c\n  image: i\n  validator:\n    operatorKeyring:\n      secret: {secretName: kr, passphraseSecretRef: {secretName: pp, key: pass}, seidMount: true}";

#[test]
fn statefulset_proxy_image_missing_errors() {
    let mut cfg = fixture();
    cfg.images.kube_rbac_proxy.clear();
    for (_, n) in all_modes() {
        let err = statefulset(&n, &cfg).expect_err("missing");
        assert_eq!(
            err.to_string(),
            "images.kubeRBACProxy is not configured in the app-config file"
        );
    }
}

#[test]
fn seed_render_fails_without_seed_nodepool_other_modes_still_render() {
    let mut cfg = fixture();
    cfg.scheduling.nodepool_seed.clear();
    let err = statefulset(&node(SEED), &cfg).expect_err("no seed pool");
    assert_eq!(
        err.to_string(),
        "scheduling.nodepoolSeed is not configured in the app-config file"
    );
    for (mode, n) in all_modes() {
        if mode != "seed" {
            statefulset(&n, &cfg).unwrap_or_else(|e| panic!("{mode}: {e}"));
        }
    }
}

#[test]
fn render_errors_follow_upstream_evaluation_order() {
    // Proxy image is checked before the seed pool, which is checked before the exporter image.
    let mut cfg = fixture();
    cfg.images.kube_rbac_proxy.clear();
    cfg.scheduling.nodepool_seed.clear();
    cfg.images.cosmos_exporter.clear();
    assert_eq!(
        statefulset(&node(SEED), &cfg).expect_err("1").to_string(),
        "images.kubeRBACProxy is not configured in the app-config file"
    );
    cfg.images.kube_rbac_proxy = "proxy".into();
    assert_eq!(
        statefulset(&node(SEED), &cfg).expect_err("2").to_string(),
        "scheduling.nodepoolSeed is not configured in the app-config file"
    );
    assert_eq!(
        statefulset(&node(FULL), &cfg).expect_err("5").to_string(),
        "images.cosmosExporter is required in the app-config file"
    );
}

#[test]
fn cosmos_exporter_image_unset_errors_only_for_grpc_modes() {
    let mut cfg = fixture();
    cfg.images.cosmos_exporter.clear();
    for (mode, n) in all_modes() {
        let result = statefulset(&n, &cfg);
        if mode == "seed" {
            result.expect("a seed has no exporter");
        } else {
            assert_eq!(
                result.expect_err("missing").to_string(),
                "images.cosmosExporter is required in the app-config file"
            );
        }
    }
}

#[test]
fn gated_seid_container_probe_contract_passes_guards() {
    for (mode, n) in all_modes() {
        let spec = pod(&n);
        let seid = container(&spec, "seid");
        validate_gated_seid_probes(seid).expect(mode);
        validate_seed_probes(serves_seid_rpc(&n), seid).expect(mode);
    }
}

#[test]
fn validate_gated_seid_probes_rejects_liveness_and_rpc_startup() {
    let spec = pod(&node(FULL));
    let mut seid = container(&spec, "seid").clone();
    seid.liveness_probe = Some(probes::tcp_probe(8443));
    assert_eq!(
        validate_gated_seid_probes(&seid)
            .expect_err("liveness")
            .to_string(),
        "gated seid container \"seid\" must not carry a liveness probe"
    );
    seid.liveness_probe = None;
    for port in [26657, 9090] {
        seid.startup_probe = Some(probes::tcp_probe(port));
        assert_eq!(
            validate_gated_seid_probes(&seid)
                .expect_err("rpc")
                .to_string(),
            "gated seid container \"seid\" startup probe must not target seid's RPC/gRPC port"
        );
        seid.startup_probe = Some(probes::http_probe("/status", port));
        validate_gated_seid_probes(&seid).expect_err("http rpc");
    }
    // Readiness is not checked by the gated guard.
    seid.startup_probe = None;
    seid.readiness_probe = Some(probes::tcp_probe(26657));
    validate_gated_seid_probes(&seid).expect("readiness unchecked");
}

#[test]
fn validate_seed_probes_rejects_rpc_probes_of_any_kind() {
    let spec = pod(&node(SEED));
    let base = container(&spec, "seid").clone();
    type SetProbe = fn(&mut Container, Probe);
    let cases: [(&str, SetProbe); 3] = [
        ("readiness", |c, p| c.readiness_probe = Some(p)),
        ("liveness", |c, p| c.liveness_probe = Some(p)),
        ("startup", |c, p| c.startup_probe = Some(p)),
    ];
    for (kind, set) in cases {
        let mut c = base.clone();
        set(&mut c, probes::tcp_probe(9090));
        assert_eq!(
            validate_seed_probes(false, &c)
                .expect_err("rejected")
                .to_string(),
            format!(
                "seed seid container \"seid\" {kind} probe must not target seid's RPC/gRPC port; seed mode binds neither"
            )
        );
        // Not a seed: no-op.
        validate_seed_probes(true, &c).expect("non-seed no-op");
    }
    // Named ports compare as 0 and pass.
    let mut c = base;
    c.readiness_probe = Some(Probe {
        tcp_socket: Some(k8s_openapi::api::core::v1::TCPSocketAction {
            port: IntOrString::String("rpc".into()),
            ..Default::default()
        }),
        ..Default::default()
    });
    validate_seed_probes(false, &c).expect("named port passes");
}

#[test]
fn operator_keyring_directory_volume_sidecar_mount_and_file_env() {
    let spec = pod(&node(KEYRING_VALIDATOR));
    let vol = spec
        .volumes
        .clone()
        .expect("vols")
        .into_iter()
        .find(|v| v.name == "operator-keyring")
        .expect("volume");
    let s = vol.secret.expect("secret");
    assert_eq!(
        (s.secret_name.as_deref(), s.default_mode, s.items),
        (Some("kr"), Some(256), None)
    );
    let sidecar = container(&spec, "sei-sidecar");
    let m = sidecar
        .volume_mounts
        .clone()
        .expect("mounts")
        .pop()
        .expect("mount");
    assert_eq!(
        (
            m.name.as_str(),
            m.mount_path.as_str(),
            m.read_only,
            m.sub_path
        ),
        (
            "operator-keyring",
            "/home/nonroot/.sei/keyring-file",
            Some(true),
            None
        )
    );
    assert_eq!(
        &env_names(sidecar)[9..],
        [
            "SEI_KEYRING_BACKEND",
            "SEI_KEYRING_DIR",
            "SEI_KEYRING_PASSPHRASE"
        ]
    );
    assert_eq!(
        env_value(sidecar, "SEI_KEYRING_BACKEND").as_deref(),
        Some("file")
    );
    let pass = sidecar
        .env
        .iter()
        .flatten()
        .find(|e| e.name == "SEI_KEYRING_PASSPHRASE")
        .expect("passphrase");
    let r = pass
        .value_from
        .clone()
        .expect("from")
        .secret_key_ref
        .expect("ref");
    assert_eq!((r.name.as_str(), r.key.as_str()), ("pp", "pass"));
    // seid excluded without seidMount; seid-init never.
    for name in ["seid", "seid-init"] {
        let c = container(&spec, name);
        assert!(
            c.volume_mounts
                .iter()
                .flatten()
                .all(|m| m.name != "operator-keyring"),
            "{name}"
        );
        assert!(
            !env_names(c).contains(&"SEI_KEYRING_PASSPHRASE".to_string()),
            "{name}"
        );
    }
}

#[test]
fn operator_keyring_seid_mount_adds_mount_and_env_on_seid_only() {
    let spec = pod(&node(KEYRING_SEID_MOUNT));
    let seid = container(&spec, "seid");
    assert_eq!(
        env_names(seid),
        [
            "HOME",
            "TMPDIR",
            "SEI_KEYRING_BACKEND",
            "SEI_KEYRING_DIR",
            "SEI_KEYRING_PASSPHRASE"
        ]
    );
    assert!(
        seid.volume_mounts
            .iter()
            .flatten()
            .any(|m| m.name == "operator-keyring")
    );
    let init = container(&spec, "seid-init");
    assert!(
        init.volume_mounts
            .iter()
            .flatten()
            .all(|m| m.name != "operator-keyring")
    );
}

fn keyring_pod(seid_mount: bool) -> (SeiNode, PodSpec) {
    let n = node(if seid_mount {
        KEYRING_SEID_MOUNT
    } else {
        KEYRING_VALIDATOR
    });
    let spec = pod(&n);
    (n, spec)
}

fn keyring_mount() -> VolumeMount {
    VolumeMount {
        name: "operator-keyring".into(),
        mount_path: "/k".into(),
        ..Default::default()
    }
}

#[test]
fn keyring_containment_production_pod_specs_pass() {
    for seid_mount in [false, true] {
        let (n, spec) = keyring_pod(seid_mount);
        keys::assert_operator_keyring_containment(&n, &spec).expect("production spec passes");
    }
}

#[test]
fn keyring_containment_rejects_mount_outside_permitted_containers() {
    let (n, mut spec) = keyring_pod(false);
    spec.containers[0]
        .volume_mounts
        .get_or_insert_with(Vec::new)
        .push(keyring_mount());
    assert_eq!(
        keys::assert_operator_keyring_containment(&n, &spec)
            .expect_err("seid without seidMount")
            .to_string(),
        "pod-spec for ns/n1 mounts operator-keyring volume on container \"seid\"; operator-keyring is exclusively the sidecar's (plus seid main when .secret.seidMount is set) \u{2014} mounting elsewhere would collapse containment"
    );
    // seid-init is forbidden even with seidMount.
    let (n, mut spec) = keyring_pod(true);
    spec.init_containers.as_mut().expect("init")[0]
        .volume_mounts
        .get_or_insert_with(Vec::new)
        .push(keyring_mount());
    let err = keys::assert_operator_keyring_containment(&n, &spec).expect_err("seid-init");
    assert!(err.to_string().contains("on container \"seid-init\""));
}

#[test]
fn keyring_containment_rejects_passphrase_env_and_env_from() {
    let (n, mut spec) = keyring_pod(false);
    let pass = container(&spec, "sei-sidecar")
        .env
        .clone()
        .expect("env")
        .pop()
        .expect("pass");
    spec.containers[1]
        .env
        .get_or_insert_with(Vec::new)
        .push(pass);
    assert_eq!(
        keys::assert_operator_keyring_containment(&n, &spec)
            .expect_err("env")
            .to_string(),
        "pod-spec for ns/n1 references operator-keyring passphrase Secret \"pp\" in env \"SEI_KEYRING_PASSPHRASE\" on container \"cosmos-exporter\"; the passphrase is exclusively the sidecar's (plus seid main when .secret.seidMount is set)"
    );
    let (n, mut spec) = keyring_pod(false);
    let init = spec.init_containers.as_mut().expect("init");
    init[2].env_from = Some(vec![EnvFromSource {
        secret_ref: Some(SecretEnvSource {
            name: "pp".into(),
            optional: None,
        }),
        ..Default::default()
    }]);
    assert_eq!(
        keys::assert_operator_keyring_containment(&n, &spec)
            .expect_err("envFrom")
            .to_string(),
        "pod-spec for ns/n1 references operator-keyring passphrase Secret \"pp\" via envFrom on container \"kube-rbac-proxy\"; the passphrase is exclusively the sidecar's (plus seid main when .secret.seidMount is set)"
    );
}

#[test]
fn keyring_containment_is_a_no_op_without_secret_keyring() {
    let n = node(VALIDATOR);
    let mut spec = pod(&n);
    spec.containers[0]
        .volume_mounts
        .get_or_insert_with(Vec::new)
        .push(keyring_mount());
    keys::assert_operator_keyring_containment(&n, &spec).expect("test backend: nothing to assert");
}

const BOOTSTRAP_REPLAYER: &str = "chainId: pacific-1\n  image: sei:v1\n  sidecar: {port: 7000}\n  replayer:\n    snapshot: {s3: {targetHeight: 1234}, bootstrapImage: sei:boot}";

#[test]
fn bootstrap_job_shape() {
    let n = node(BOOTSTRAP_REPLAYER);
    let job = bootstrap_job(&n, n.spec.snapshot_source(), &fixture()).expect("renders");
    assert_eq!(job.metadata.name.as_deref(), Some("n1-bootstrap"));
    assert_eq!(job.metadata.labels, Some(bootstrap_labels(&n)));
    let spec = job.spec.expect("spec");
    assert_eq!(
        (spec.backoff_limit, spec.ttl_seconds_after_finished),
        (Some(0), Some(3600))
    );
    let meta = spec.template.metadata.expect("meta");
    assert_eq!(meta.labels, Some(bootstrap_labels(&n)));
    assert_eq!(
        meta.annotations.expect("ann")["karpenter.sh/do-not-disrupt"],
        "true"
    );
    let pod = spec.template.spec.expect("pod");
    assert_eq!(
        (pod.hostname.as_deref(), pod.subdomain.as_deref()),
        (Some("n1-0"), Some("n1"))
    );
    assert_eq!(pod.restart_policy.as_deref(), Some("Never"));
    assert_eq!(pod.termination_grace_period_seconds, Some(120));
    assert_eq!(pod.share_process_namespace, Some(true));
    assert!(pod.security_context.is_none() && pod.automount_service_account_token.is_none());
    assert_eq!(
        pod.tolerations.as_ref().expect("tol")[0].value.as_deref(),
        Some("sei-node")
    );
    let anti = pod
        .affinity
        .clone()
        .expect("aff")
        .pod_anti_affinity
        .expect("anti");
    assert_eq!(
        anti.required_during_scheduling_ignored_during_execution
            .expect("terms")
            .len(),
        1
    );
    assert_eq!(
        names(pod.volumes.as_deref().expect("vols"), |v| &v.name),
        ["data", "rbac-proxy-config"]
    );
    assert_eq!(
        names(pod.init_containers.as_deref().expect("init"), |c| &c.name),
        ["seid-init", "sei-sidecar", "kube-rbac-proxy"]
    );
    let seid = container(&pod, "seid");
    assert_eq!(seid.image.as_deref(), Some("sei:boot"));
    assert_eq!(
        container(&pod, "seid-init").image.as_deref(),
        Some("sei:boot")
    );
    assert_eq!(
        seid.args.clone().expect("args")[0],
        "echo \"waiting for sidecar bootstrap tasks to complete...\"; while true; do if (exec 3<>/dev/tcp/localhost/7000 && printf \"GET /v0/healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n\" >&3 && head -1 <&3 | grep -q \"200\") 2>/dev/null; then break; fi; sleep 5; done; echo \"sidecar healthy, starting seid with halt-height 1234\"; seid start --home \"/home/nonroot/.sei\" --halt-height 1234; rc=$?; if [ $rc -eq 130 ]; then echo \"seid halted at target height (exit 130), treating as success\"; exit 0; fi; exit $rc"
    );
    assert_eq!(
        seid.resources.clone().expect("res").requests.expect("req")["memory"].0,
        "256Gi"
    );
    let sidecar = container(&pod, "sei-sidecar");
    assert_eq!(
        env_names(sidecar),
        [
            "SEI_CHAIN_ID",
            "SEI_SIDECAR_PORT",
            "SEI_HOME",
            "SEI_GENESIS_BUCKET",
            "SEI_GENESIS_REGION",
            "SEI_SNAPSHOT_BUCKET",
            "SEI_SNAPSHOT_REGION",
            "SEI_SIDECAR_AUTHN_MODE"
        ]
    );
    assert!(sidecar.ports.is_none() && sidecar.security_context.is_none());
    let proxy = container(&pod, "kube-rbac-proxy");
    assert!(
        proxy
            .args
            .clone()
            .expect("args")
            .iter()
            .all(|a| !a.starts_with("--ignore-paths"))
    );
    assert!(
        proxy.readiness_probe.is_none()
            && proxy.startup_probe.is_none()
            && proxy.liveness_probe.is_none()
    );
    assert!(
        proxy
            .args
            .clone()
            .expect("args")
            .contains(&"--upstream=http://127.0.0.1:7000/".to_string())
    );
}

#[test]
fn bootstrap_job_home_and_data_dir() {
    let n = node(BOOTSTRAP_REPLAYER);
    let job = bootstrap_job(&n, n.spec.snapshot_source(), &fixture()).expect("renders");
    let pod = job.spec.expect("spec").template.spec.expect("pod");
    for name in ["seid", "seid-init"] {
        let c = container(&pod, name);
        assert_eq!(env_value(c, "HOME").as_deref(), Some("/home/nonroot"));
        let text = format!("{:?}{:?}", c.command, c.args);
        assert!(
            text.contains("--home \\\"/home/nonroot/.sei\\\""),
            "{name}: {text}"
        );
        assert!(!text.contains("$HOME"));
        assert_eq!(
            names(c.volume_mounts.as_deref().expect("m"), |m| &m.name),
            ["data"]
        );
    }
    let init = container(&pod, "seid-init");
    assert!(!init.command.clone().expect("cmd")[2].contains("CLIENT_TOML"));
}

#[test]
fn bootstrap_pod_always_mounts_data_node_even_when_imported() {
    let n = node(&format!(
        "{BOOTSTRAP_REPLAYER}\n  dataVolume: {{import: {{pvcName: existing}}}}"
    ));
    let job = bootstrap_job(&n, n.spec.snapshot_source(), &fixture()).expect("renders");
    let pod = job.spec.expect("spec").template.spec.expect("pod");
    assert_eq!(
        pod.volumes.expect("vols")[0]
            .persistent_volume_claim
            .as_ref()
            .expect("pvc")
            .claim_name,
        "data-n1"
    );
}

#[test]
fn bootstrap_job_requires_s3_snapshot() {
    let n = node(FULL);
    assert_eq!(
        bootstrap_job(&n, None, &fixture())
            .expect_err("nil")
            .to_string(),
        "bootstrap job requires an S3 snapshot source (node ns/n1)"
    );
    let state_sync = node("chainId: c\n  image: i\n  fullNode: {snapshot: {stateSync: {}}}");
    bootstrap_job(&state_sync, state_sync.spec.snapshot_source(), &fixture()).expect_err("no s3");
}

#[test]
fn seed_never_bootstraps() {
    assert!(node(SEED).spec.snapshot_source().is_none());
}

#[test]
fn bootstrap_service_shape() {
    let svc = bootstrap_service(&node(FULL));
    assert_eq!(svc.metadata.name.as_deref(), Some("n1"));
    let spec = svc.spec.expect("spec");
    assert_eq!(spec.cluster_ip.as_deref(), Some("None"));
    assert_eq!(spec.selector, Some(bootstrap_labels(&node(FULL))));
    assert_eq!(spec.publish_not_ready_addresses, Some(true));
    let ports = spec.ports.expect("ports");
    assert_eq!(
        (ports.len(), ports[0].name.as_deref(), ports[0].port),
        (1, Some("api"), 8443)
    );
}

#[test]
fn bootstrap_isolation_guard_rejects_validator_secrets_and_allows_node_key() {
    let spec_yaml = "chainId: c\n  image: i\n  validator:\n    snapshot: {s3: {targetHeight: 5}}\n    signingKey: {secret: {secretName: sk}}\n    nodeKey: {secret: {secretName: nk}}\n    operatorKeyring:\n      secret: {secretName: kr, passphraseSecretRef: {secretName: pp, key: pass}}";
    let n = node(spec_yaml);
    let job = bootstrap_job(&n, n.spec.snapshot_source(), &fixture()).expect("clean spec passes");
    let clean = job.spec.expect("spec").template.spec.expect("pod");
    let secret_volume = |name: &str, secret: &str| k8s_openapi::api::core::v1::Volume {
        name: name.into(),
        secret: Some(k8s_openapi::api::core::v1::SecretVolumeSource {
            secret_name: Some(secret.into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut spec = clean.clone();
    spec.volumes
        .get_or_insert_with(Vec::new)
        .push(secret_volume("x", "sk"));
    assert_eq!(
        bootstrap::check_bootstrap_isolation(&n, &spec)
            .expect_err("signing")
            .to_string(),
        "bootstrap pod-spec for ns/n1 references signing-key Secret \"sk\" on volume \"x\"; bootstrap pods must never carry validator-owned credentials"
    );
    let mut spec = clean.clone();
    spec.volumes
        .get_or_insert_with(Vec::new)
        .push(secret_volume("y", "nk"));
    bootstrap::check_bootstrap_isolation(&n, &spec).expect("node key deliberately allowed");
    let mut spec = clean.clone();
    let mut pass = EnvVar {
        name: "P".into(),
        ..Default::default()
    };
    pass.value_from = Some(k8s_openapi::api::core::v1::EnvVarSource {
        secret_key_ref: Some(k8s_openapi::api::core::v1::SecretKeySelector {
            name: "pp".into(),
            key: "k".into(),
            optional: None,
        }),
        ..Default::default()
    });
    spec.init_containers.as_mut().expect("init")[1]
        .env
        .get_or_insert_with(Vec::new)
        .push(pass);
    assert_eq!(
        bootstrap::check_bootstrap_isolation(&n, &spec)
            .expect_err("passphrase")
            .to_string(),
        "bootstrap pod-spec for ns/n1 references operator-keyring-passphrase Secret \"pp\" in container \"sei-sidecar\" env; bootstrap pods must never carry validator-owned credentials"
    );
    let mut spec = clean;
    spec.containers[0].env_from = Some(vec![EnvFromSource {
        secret_ref: Some(SecretEnvSource {
            name: "kr".into(),
            optional: None,
        }),
        ..Default::default()
    }]);
    assert_eq!(
        bootstrap::check_bootstrap_isolation(&n, &spec)
            .expect_err("keyring")
            .to_string(),
        "bootstrap pod-spec for ns/n1 references operator-keyring Secret \"kr\" in container \"seid\" envFrom; bootstrap pods must never carry validator-owned credentials"
    );
    // Non-validators are never checked.
    let full = node(FULL);
    bootstrap::check_bootstrap_isolation(&full, &spec).expect("non-validator passes");
}

#[test]
fn bootstrap_pool_has_no_seed_arm() {
    let n = node("chainId: c\n  image: i\n  validator: {snapshot: {s3: {targetHeight: 5}}}");
    let job = bootstrap_job(&n, n.spec.snapshot_source(), &fixture()).expect("renders");
    let pod = job.spec.expect("spec").template.spec.expect("pod");
    assert_eq!(
        pod.tolerations.expect("tol")[0].value.as_deref(),
        Some("sei-validator")
    );
}
