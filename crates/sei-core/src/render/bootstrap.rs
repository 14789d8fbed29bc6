//! The bootstrap Job and Service (upstream `internal/task/bootstrap_resources.go`): a one-shot pod
//! that restores an S3 snapshot and runs seid to a halt height before the node pod takes over.
use std::collections::BTreeMap;

use k8s_openapi::api::batch::v1::{Job, JobSpec};
use k8s_openapi::api::core::v1::{
    Container, PodSpec, PodTemplateSpec, Service, ServicePort, ServiceSpec, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::omit_empty;
use super::pod::{
    data_volume, env, mount, rbac_proxy_config_volume, scheduling, seid_init_script,
    sidecar_base_env, sidecar_resources, sidecar_wait_loop, tcp_port,
};
use super::resources::resources_for_node;
use super::{NODE_LABEL, RBAC_PROXY_PORT, RenderError, sidecar_image, sidecar_port};
use crate::api::{SeiNode, SnapshotSource};
use crate::platform::{DATA_DIR, HOME_DIR, PlatformConfig, SeiConfigMode, go_quote};

/// `<node>-bootstrap`.
pub fn bootstrap_job_name(node: &SeiNode) -> String {
    format!("{}-bootstrap", node.name())
}

/// `{sei.io/node: <node>, sei.io/component: bootstrap}` (labels and selector of Job and Service).
pub fn bootstrap_labels(node: &SeiNode) -> BTreeMap<String, String> {
    BTreeMap::from([
        (NODE_LABEL.to_string(), node.name().to_string()),
        ("sei.io/component".to_string(), "bootstrap".to_string()),
    ])
}

/// Upstream `bootstrapNodeMode`: archive, validator, else full — there is no seed arm (seeds
/// never bootstrap).
fn bootstrap_node_mode(node: &SeiNode) -> SeiConfigMode {
    if node.spec.archive.is_some() {
        SeiConfigMode::Archive
    } else if node.spec.validator.is_some() {
        SeiConfigMode::Validator
    } else {
        SeiConfigMode::Full
    }
}

/// Upstream `GenerateBootstrapJob`. Errors: no S3 snapshot source; for validators, a pod spec
/// that references validator-owned Secrets (fail-closed isolation guard).
pub fn bootstrap_job(
    node: &SeiNode,
    snapshot: Option<&SnapshotSource>,
    platform: &PlatformConfig,
) -> Result<Job, RenderError> {
    let Some((snap, target_height)) =
        snapshot.and_then(|s| s.s3.as_ref().map(|s3| (s, s3.target_height)))
    else {
        return Err(RenderError::Bootstrap(format!(
            "bootstrap job requires an S3 snapshot source (node {}/{})",
            node.namespace(),
            node.name()
        )));
    };
    let labels = bootstrap_labels(node);
    let pod_spec = bootstrap_pod_spec(node, snap, target_height, platform)?;
    assert_no_validator_secrets_on_bootstrap_pod(node, &pod_spec)?;
    Ok(Job {
        metadata: ObjectMeta {
            name: Some(bootstrap_job_name(node)),
            namespace: Some(node.namespace().to_string()),
            labels: Some(labels.clone()),
            ..Default::default()
        },
        spec: Some(JobSpec {
            backoff_limit: Some(0),
            ttl_seconds_after_finished: Some(3600),
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    annotations: Some(BTreeMap::from([(
                        "karpenter.sh/do-not-disrupt".to_string(),
                        "true".to_string(),
                    )])),
                    ..Default::default()
                }),
                spec: Some(pod_spec),
            },
            ..Default::default()
        }),
        status: None,
    })
}

/// Upstream `GenerateBootstrapService`: headless, selector = bootstrap labels, port `api` 8443.
pub fn bootstrap_service(node: &SeiNode) -> Service {
    let labels = bootstrap_labels(node);
    Service {
        metadata: ObjectMeta {
            name: Some(node.name().to_string()),
            namespace: Some(node.namespace().to_string()),
            labels: Some(labels.clone()),
            ..Default::default()
        },
        spec: Some(ServiceSpec {
            cluster_ip: Some("None".into()),
            selector: Some(labels),
            publish_not_ready_addresses: Some(true),
            ports: Some(vec![ServicePort {
                name: Some("api".into()),
                port: RBAC_PROXY_PORT,
                target_port: Some(IntOrString::Int(RBAC_PROXY_PORT)),
                protocol: Some("TCP".into()),
                ..Default::default()
            }]),
            ..Default::default()
        }),
        status: None,
    }
}

fn bootstrap_pod_spec(
    node: &SeiNode,
    snap: &SnapshotSource,
    halt_height: i64,
    platform: &PlatformConfig,
) -> Result<PodSpec, RenderError> {
    let port = sidecar_port(node);
    let image = match snap.bootstrap_image.as_deref() {
        Some(image) if !image.is_empty() => image.to_string(),
        _ => node.spec.image.clone(),
    };
    let seid_init = Container {
        name: "seid-init".into(),
        image: omit_empty(&image),
        // Never the validator client.toml suffix, even for validators.
        command: Some(vec![
            "/bin/sh".into(),
            "-c".into(),
            seid_init_script(&node.spec.chain_id),
        ]),
        env: Some(vec![env("HOME", HOME_DIR)]),
        volume_mounts: Some(vec![mount("data", DATA_DIR)]),
        ..Default::default()
    };
    let sidecar = Container {
        name: "sei-sidecar".into(),
        image: omit_empty(sidecar_image(node, platform)),
        command: Some(vec!["seictl".into(), "serve".into()]),
        restart_policy: Some("Always".into()),
        env: Some(sidecar_base_env(node, platform, false)),
        volume_mounts: Some(vec![mount("data", DATA_DIR)]),
        resources: sidecar_resources(node),
        ..Default::default()
    };
    // No --ignore-paths and no probes on the bootstrap proxy (upstream quirk).
    let proxy = Container {
        name: "kube-rbac-proxy".into(),
        image: omit_empty(&platform.images.kube_rbac_proxy),
        restart_policy: Some("Always".into()),
        args: Some(vec![
            format!("--insecure-listen-address=0.0.0.0:{RBAC_PROXY_PORT}"),
            format!("--upstream=http://127.0.0.1:{port}/"),
            "--config-file=/etc/kube-rbac-proxy/config.yaml".into(),
            "--auth-header-fields-enabled=true".into(),
            "--v=0".into(),
        ]),
        ports: Some(vec![tcp_port("api", RBAC_PROXY_PORT)]),
        volume_mounts: Some(vec![VolumeMount {
            read_only: Some(true),
            ..mount("rbac-proxy-config", "/etc/kube-rbac-proxy")
        }]),
        ..Default::default()
    };
    let script = format!(
        "echo \"waiting for sidecar bootstrap tasks to complete...\"; {}echo \"sidecar healthy, starting seid with halt-height {halt_height}\"; seid start --home \"{DATA_DIR}\" --halt-height {halt_height}; rc=$?; if [ $rc -eq 130 ]; then echo \"seid halted at target height (exit 130), treating as success\"; exit 0; fi; exit $rc",
        sidecar_wait_loop(port)
    );
    let seid = Container {
        name: "seid".into(),
        image: omit_empty(&image),
        command: Some(vec!["/bin/bash".into(), "-c".into()]),
        args: Some(vec![script]),
        env: Some(vec![
            env("HOME", HOME_DIR),
            env("TMPDIR", &format!("{DATA_DIR}/tmp")),
        ]),
        volume_mounts: Some(vec![mount("data", DATA_DIR)]),
        resources: Some(resources_for_node(node, platform)?),
        ..Default::default()
    };
    let pool = platform.nodepool_for_mode(bootstrap_node_mode(node));
    let (tolerations, affinity) = scheduling(platform, pool, false);
    Ok(PodSpec {
        hostname: Some(format!("{}-0", node.name())),
        subdomain: Some(node.name().to_string()),
        service_account_name: omit_empty(&platform.scheduling.service_account),
        share_process_namespace: Some(true),
        restart_policy: Some("Never".into()),
        termination_grace_period_seconds: Some(120),
        tolerations: Some(tolerations),
        affinity: Some(affinity),
        // Always data-<node>, even for an imported PVC (upstream quirk).
        volumes: Some(vec![
            data_volume(format!("data-{}", node.name())),
            rbac_proxy_config_volume(node),
        ]),
        init_containers: Some(vec![seid_init, sidecar, proxy]),
        containers: vec![seid],
        ..Default::default()
    })
}

/// Upstream `assertNoValidatorSecretsOnBootstrapPod`: a validator's signing-key, operator-keyring
/// and passphrase Secrets must not appear on the bootstrap pod (volumes, env, envFrom). The
/// node-key Secret is deliberately not guarded.
fn assert_no_validator_secrets_on_bootstrap_pod(
    node: &SeiNode,
    spec: &PodSpec,
) -> Result<(), RenderError> {
    let Some(validator) = &node.spec.validator else {
        return Ok(());
    };
    let mut forbidden: Vec<(&str, &str)> = Vec::new();
    if let Some(secret) = validator
        .signing_key
        .as_ref()
        .and_then(|k| k.secret.as_ref())
    {
        forbidden.push((&secret.secret_name, "signing-key"));
    }
    if let Some(secret) = validator
        .operator_keyring
        .as_ref()
        .and_then(|k| k.secret.as_ref())
    {
        forbidden.push((&secret.secret_name, "operator-keyring"));
        forbidden.push((
            &secret.passphrase_secret_ref.secret_name,
            "operator-keyring-passphrase",
        ));
    }
    let (ns, name) = (node.namespace(), node.name());
    let fail = |kind: &str, secret: &str, place: String| {
        Err(RenderError::Bootstrap(format!(
            "bootstrap pod-spec for {ns}/{name} references {kind} Secret {} {place}; bootstrap pods must never carry validator-owned credentials",
            go_quote(secret)
        )))
    };
    for volume in spec.volumes.iter().flatten() {
        let Some(secret_name) = volume
            .secret
            .as_ref()
            .and_then(|s| s.secret_name.as_deref())
        else {
            continue;
        };
        if let Some((secret, kind)) = forbidden.iter().find(|(s, _)| *s == secret_name) {
            return fail(
                kind,
                secret,
                format!("on volume {}", go_quote(&volume.name)),
            );
        }
    }
    for c in spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
    {
        for ev in c.env.iter().flatten() {
            let Some(r) = ev
                .value_from
                .as_ref()
                .and_then(|v| v.secret_key_ref.as_ref())
            else {
                continue;
            };
            if let Some((secret, kind)) = forbidden.iter().find(|(s, _)| *s == r.name) {
                return fail(
                    kind,
                    secret,
                    format!("in container {} env", go_quote(&c.name)),
                );
            }
        }
        for ef in c.env_from.iter().flatten() {
            let Some(r) = ef.secret_ref.as_ref() else {
                continue;
            };
            if let Some((secret, kind)) = forbidden.iter().find(|(s, _)| *s == r.name) {
                return fail(
                    kind,
                    secret,
                    format!("in container {} envFrom", go_quote(&c.name)),
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) fn check_bootstrap_isolation(node: &SeiNode, spec: &PodSpec) -> Result<(), RenderError> {
    assert_no_validator_secrets_on_bootstrap_pod(node, spec)
}
