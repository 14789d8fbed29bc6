//! The bootstrap Job and Service, their isolation guard, and the bootstrap quirks.
use k8s_openapi::api::core::v1::{EnvFromSource, SecretEnvSource};

use super::*;

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
fn quirk_bootstrap_pod_always_mounts_data_node_even_when_imported() {
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
        crate::render::bootstrap::check_bootstrap_isolation(&n, &spec)
            .expect_err("signing")
            .to_string(),
        "bootstrap pod-spec for ns/n1 references signing-key Secret \"sk\" on volume \"x\"; bootstrap pods must never carry validator-owned credentials"
    );
    let mut spec = clean.clone();
    spec.volumes
        .get_or_insert_with(Vec::new)
        .push(secret_volume("y", "nk"));
    crate::render::bootstrap::check_bootstrap_isolation(&n, &spec)
        .expect("node key deliberately allowed");
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
        crate::render::bootstrap::check_bootstrap_isolation(&n, &spec)
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
        crate::render::bootstrap::check_bootstrap_isolation(&n, &spec)
            .expect_err("keyring")
            .to_string(),
        "bootstrap pod-spec for ns/n1 references operator-keyring Secret \"kr\" in container \"seid\" envFrom; bootstrap pods must never carry validator-owned credentials"
    );
    // Non-validators are never checked.
    let full = node(FULL);
    crate::render::bootstrap::check_bootstrap_isolation(&full, &spec)
        .expect("non-validator passes");
}

#[test]
fn quirk_bootstrap_pool_has_no_seed_arm() {
    let n = node("chainId: c\n  image: i\n  validator: {snapshot: {s3: {targetHeight: 5}}}");
    let job = bootstrap_job(&n, n.spec.snapshot_source(), &fixture()).expect("renders");
    let pod = job.spec.expect("spec").template.spec.expect("pod");
    assert_eq!(
        pod.tolerations.expect("tol")[0].value.as_deref(),
        Some("sei-validator")
    );
}

#[test]
fn quirk_bootstrap_proxy_has_no_ignore_paths_and_no_probes() {
    let n = node(BOOTSTRAP_REPLAYER);
    let job = bootstrap_job(&n, n.spec.snapshot_source(), &fixture()).expect("renders");
    let pod = job.spec.expect("spec").template.spec.expect("pod");
    let proxy = container(&pod, "kube-rbac-proxy");
    assert_eq!(
        proxy.args.clone().expect("args"),
        [
            "--insecure-listen-address=0.0.0.0:8443",
            "--upstream=http://127.0.0.1:7000/",
            "--config-file=/etc/kube-rbac-proxy/config.yaml",
            "--auth-header-fields-enabled=true",
            "--v=0",
        ]
    );
    assert!(
        proxy.startup_probe.is_none()
            && proxy.readiness_probe.is_none()
            && proxy.liveness_probe.is_none()
    );
    assert!(proxy.security_context.is_none());
}

#[test]
fn quirk_bootstrap_validator_seid_init_has_no_client_toml_write() {
    let n = node("chainId: c\n  image: i\n  validator: {snapshot: {s3: {targetHeight: 5}}}");
    let job = bootstrap_job(&n, n.spec.snapshot_source(), &fixture()).expect("renders");
    let pod = job.spec.expect("spec").template.spec.expect("pod");
    let init = container(&pod, "seid-init");
    assert!(!init.command.clone().expect("cmd")[2].contains("client.toml"));
    assert!(
        init.security_context.is_none(),
        "bootstrap seid-init has no security context"
    );
    // No keyring env on the bootstrap sidecar even for a validator.
    assert!(
        !env_names(container(&pod, "sei-sidecar")).contains(&"SEI_KEYRING_BACKEND".to_string())
    );
}
