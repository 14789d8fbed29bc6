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
fn validate_seed_probes_rejects_rpc_probes_of_any_kind_named_ports_pass() {
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

#[test]
fn signing_and_node_key_volumes_mode_0400_single_item_subpath_on_seid_only() {
    let n = node(
        "chainId: c\n  image: i\n  validator:\n    signingKey: {secret: {secretName: sk}}\n    nodeKey: {secret: {secretName: nk}}",
    );
    let spec = pod(&n);
    let vols = spec.volumes.clone().expect("vols");
    assert_eq!(
        names(&vols, |v| &v.name),
        [
            "data",
            "sidecar-tmp",
            "home",
            "rbac-proxy-config",
            "signing-key",
            "node-key"
        ]
    );
    for (vol, secret, key) in [
        (&vols[4], "sk", "priv_validator_key.json"),
        (&vols[5], "nk", "node_key.json"),
    ] {
        let s = vol.secret.clone().expect("secret");
        assert_eq!(s.secret_name.as_deref(), Some(secret));
        assert_eq!(s.default_mode, Some(256));
        let items = s.items.expect("items");
        assert_eq!(
            (items.len(), items[0].key.as_str(), items[0].path.as_str()),
            (1, key, key)
        );
    }
    let seid = container(&spec, "seid");
    let mounts = seid.volume_mounts.clone().expect("mounts");
    assert_eq!(
        mounts[2].mount_path,
        "/home/nonroot/.sei/config/priv_validator_key.json"
    );
    assert_eq!(
        (mounts[2].sub_path.as_deref(), mounts[2].read_only),
        (Some("priv_validator_key.json"), Some(true))
    );
    assert_eq!(
        mounts[3].mount_path,
        "/home/nonroot/.sei/config/node_key.json"
    );
    assert_eq!(
        (mounts[3].sub_path.as_deref(), mounts[3].read_only),
        (Some("node_key.json"), Some(true))
    );
    for other in [
        "seid-init",
        "sei-sidecar",
        "kube-rbac-proxy",
        "cosmos-exporter",
    ] {
        assert!(
            container(&spec, other)
                .volume_mounts
                .iter()
                .flatten()
                .all(|m| m.name != "signing-key" && m.name != "node-key"),
            "{other}"
        );
    }
}

#[test]
fn key_volumes_absent_when_unset() {
    let spec = pod(&node(VALIDATOR));
    assert_eq!(spec.volumes.expect("vols").len(), 4);
}

#[test]
fn seed_node_key_secret_mounted_on_pod_template() {
    let spec = pod(&node(SEED));
    let vol = spec
        .volumes
        .clone()
        .expect("vols")
        .into_iter()
        .find(|v| v.name == "node-key")
        .expect("node-key");
    assert_eq!(
        vol.secret.expect("secret").secret_name.as_deref(),
        Some("seed-key")
    );
    let m = container(&spec, "seid")
        .volume_mounts
        .clone()
        .expect("mounts")
        .into_iter()
        .find(|m| m.name == "node-key")
        .expect("mount");
    assert_eq!(
        (m.sub_path.as_deref(), m.read_only),
        (Some("node_key.json"), Some(true))
    );
}

#[test]
fn operator_keyring_env_test_backend_without_secret_none_for_non_validators() {
    let spec = pod(&node(VALIDATOR));
    let sidecar = container(&spec, "sei-sidecar");
    assert_eq!(
        &env_names(sidecar)[9..],
        ["SEI_KEYRING_BACKEND", "SEI_KEYRING_DIR"]
    );
    assert_eq!(
        env_value(sidecar, "SEI_KEYRING_BACKEND").as_deref(),
        Some("test")
    );
    assert_eq!(
        env_value(sidecar, "SEI_KEYRING_DIR").as_deref(),
        Some("/home/nonroot/.sei")
    );
    for (mode, n) in all_modes() {
        if mode != "validator" {
            let spec = pod(&n);
            assert!(
                !env_names(container(&spec, "sei-sidecar"))
                    .contains(&"SEI_KEYRING_BACKEND".to_string()),
                "{mode}"
            );
        }
    }
}
