//! The node pod spec and its containers (upstream `buildNodePodSpec` and the container builders).
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Affinity, Capabilities, ConfigMapVolumeSource, Container, ContainerPort, EmptyDirVolumeSource,
    EnvVar, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    PersistentVolumeClaimVolumeSource, PodAffinityTerm, PodAntiAffinity, PodSecurityContext,
    PodSpec, ResourceRequirements, SeccompProfile, SecurityContext, Toleration, Volume,
    VolumeMount,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

use super::keys::{self, operator_keyring_env, operator_keyring_mounts};
use super::omit_empty;
use super::probes::{self, seid_readiness_probe, seid_startup_probe, tcp_probe, timing};
use super::resources::{go_mem_limit_env, resources_for_node};
use super::{
    DEDICATED_NODE_KEY, NODE_LABEL, PORT_GRPC, RBAC_PROXY_PORT, RenderError, SEID_PORTS,
    data_pvc_name, is_dedicated_node, node_mode, rbac_proxy_config_map_name, serves_seid_rpc,
    sidecar_image, sidecar_port,
};
use crate::api::SeiNode;
use crate::platform::{DATA_DIR, HOME_DIR, PlatformConfig};

/// Non-root UID/GID of the distroless images, and the pod fsGroup.
pub(super) const NON_ROOT_UID: i64 = 65532;
const COSMOS_EXPORTER_PORT: i32 = 9300;
/// Paths kube-rbac-proxy lets through without authn/authz (the sidecar's public health paths).
const PROXY_IGNORE_PATHS: &str = "/v0/healthz,/v0/startupz,/v0/livez,/v0/metrics";

pub(super) fn env(name: &str, value: &str) -> EnvVar {
    EnvVar {
        name: name.into(),
        value: omit_empty(value),
        ..Default::default()
    }
}

pub(super) fn mount(name: &str, path: &str) -> VolumeMount {
    VolumeMount {
        name: name.into(),
        mount_path: path.into(),
        ..Default::default()
    }
}

pub(super) fn tcp_port(name: &str, port: i32) -> ContainerPort {
    ContainerPort {
        name: Some(name.into()),
        container_port: port,
        protocol: Some("TCP".into()),
        ..Default::default()
    }
}

pub(super) fn data_volume(claim: String) -> Volume {
    Volume {
        name: "data".into(),
        persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
            claim_name: claim,
            read_only: None,
        }),
        ..Default::default()
    }
}

pub(super) fn rbac_proxy_config_volume(node: &SeiNode) -> Volume {
    Volume {
        name: "rbac-proxy-config".into(),
        config_map: Some(ConfigMapVolumeSource {
            name: rbac_proxy_config_map_name(node),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn empty_dir(name: &str) -> Volume {
    Volume {
        name: name.into(),
        empty_dir: Some(EmptyDirVolumeSource::default()),
        ..Default::default()
    }
}

/// seid and seid-init: non-root, no privilege escalation, all capabilities dropped.
fn seid_security_context() -> SecurityContext {
    SecurityContext {
        run_as_non_root: Some(true),
        run_as_user: Some(NON_ROOT_UID),
        run_as_group: Some(NON_ROOT_UID),
        allow_privilege_escalation: Some(false),
        capabilities: Some(Capabilities {
            drop: Some(vec!["ALL".into()]),
            add: None,
        }),
        seccomp_profile: Some(SeccompProfile {
            type_: "RuntimeDefault".into(),
            localhost_profile: None,
        }),
        ..Default::default()
    }
}

/// sidecar, proxy, exporter: the seid context plus a read-only root filesystem.
fn sidecar_security_context() -> SecurityContext {
    SecurityContext {
        read_only_root_filesystem: Some(true),
        ..seid_security_context()
    }
}

/// `karpenter.sh/nodepool In [pool]` node affinity, the pool toleration and the anti-affinity.
pub(super) fn scheduling(
    platform: &PlatformConfig,
    pool: &str,
    dedicated: bool,
) -> (Vec<Toleration>, Affinity) {
    let tolerations = vec![Toleration {
        key: omit_empty(&platform.scheduling.toleration_key),
        value: omit_empty(pool),
        effect: Some("NoSchedule".into()),
        ..Default::default()
    }];
    let affinity = Affinity {
        node_affinity: Some(NodeAffinity {
            required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: Some(vec![NodeSelectorRequirement {
                        key: "karpenter.sh/nodepool".into(),
                        operator: "In".into(),
                        values: Some(vec![pool.into()]),
                    }]),
                    match_fields: None,
                }],
            }),
            ..Default::default()
        }),
        pod_anti_affinity: Some(pod_anti_affinity(dedicated)),
        ..Default::default()
    };
    (tolerations, affinity)
}

fn anti_affinity_term(requirement: LabelSelectorRequirement) -> PodAffinityTerm {
    PodAffinityTerm {
        topology_key: "kubernetes.io/hostname".into(),
        // Empty, non-nil: all namespaces (co-tenants live in other namespaces).
        namespace_selector: Some(LabelSelector::default()),
        label_selector: Some(LabelSelector {
            match_expressions: Some(vec![requirement]),
            match_labels: None,
        }),
        ..Default::default()
    }
}

/// Upstream `BuildPodAntiAffinity`: always the defensive term (avoid hosts running a dedicated
/// pod); a dedicated node adds the requester term (avoid hosts running any Sei pod).
pub fn pod_anti_affinity(dedicated: bool) -> PodAntiAffinity {
    let mut terms = vec![anti_affinity_term(LabelSelectorRequirement {
        key: DEDICATED_NODE_KEY.into(),
        operator: "In".into(),
        values: Some(vec!["true".into()]),
    })];
    if dedicated {
        terms.push(anti_affinity_term(LabelSelectorRequirement {
            key: NODE_LABEL.into(),
            operator: "Exists".into(),
            values: None,
        }));
    }
    PodAntiAffinity {
        required_during_scheduling_ignored_during_execution: Some(terms),
        ..Default::default()
    }
}

/// The `seid init` guard script shared by the node pod and the bootstrap pod.
pub(super) fn seid_init_script(chain_id: &str) -> String {
    format!(
        "if [ -f \"{DATA_DIR}/config/genesis.json\" ]; then echo \"data directory already initialized, skipping seid init\"; else seid init {chain_id} --chain-id {chain_id} --home \"{DATA_DIR}\" --overwrite; fi && mkdir -p \"{DATA_DIR}/tmp\""
    )
}

/// Validators only: set `keyring-backend` in client.toml on every boot (after the init guard).
fn client_toml_keyring_backend_write(backend: &str) -> String {
    let line = format!("keyring-backend = \"{backend}\"");
    format!(
        "CLIENT_TOML=\"{DATA_DIR}/config/client.toml\" && if [ -f \"$CLIENT_TOML\" ] && grep -q '^keyring-backend[[:space:]]*=' \"$CLIENT_TOML\"; then sed -i 's#^keyring-backend[[:space:]]*=.*#{line}#' \"$CLIENT_TOML\"; else mkdir -p \"{DATA_DIR}/config\" && echo '{line}' >> \"$CLIENT_TOML\"; fi"
    )
}

fn seid_init_container(node: &SeiNode) -> Container {
    let mut script = seid_init_script(&node.spec.chain_id);
    if node.spec.validator.is_some() {
        let backend = if keys::operator_keyring(node).is_some() {
            "file"
        } else {
            "test"
        };
        script.push_str(" && ");
        script.push_str(&client_toml_keyring_backend_write(backend));
    }
    Container {
        name: "seid-init".into(),
        image: omit_empty(&node.spec.image),
        command: Some(vec!["/bin/sh".into(), "-c".into(), script]),
        env: Some(vec![env("HOME", HOME_DIR)]),
        volume_mounts: Some(vec![mount("data", DATA_DIR), mount("home", HOME_DIR)]),
        security_context: Some(seid_security_context()),
        ..Default::default()
    }
}

/// The sidecar env shared by node and bootstrap pods, up to (not including) the keyring env.
pub(super) fn sidecar_base_env(
    node: &SeiNode,
    platform: &PlatformConfig,
    with_home: bool,
) -> Vec<EnvVar> {
    let mut out = vec![
        env("SEI_CHAIN_ID", &node.spec.chain_id),
        env("SEI_SIDECAR_PORT", &sidecar_port(node).to_string()),
        env("SEI_HOME", DATA_DIR),
    ];
    if with_home {
        out.push(env("HOME", HOME_DIR));
    }
    out.extend([
        env("SEI_GENESIS_BUCKET", &platform.genesis.bucket),
        env("SEI_GENESIS_REGION", &platform.genesis.region),
        env("SEI_SNAPSHOT_BUCKET", &platform.snapshot.bucket),
        env("SEI_SNAPSHOT_REGION", &platform.snapshot.region),
        env("SEI_SIDECAR_AUTHN_MODE", "trusted-header"),
    ]);
    out
}

pub(super) fn sidecar_resources(node: &SeiNode) -> Option<ResourceRequirements> {
    node.spec
        .sidecar
        .as_ref()
        .and_then(|s| s.resources.clone())
        .map(super::resources::canonical_requirements)
}

fn sidecar_container(node: &SeiNode, platform: &PlatformConfig) -> Container {
    let mut env_vars = sidecar_base_env(node, platform, true);
    env_vars.extend(operator_keyring_env(node));
    let mut mounts = vec![
        mount("home", HOME_DIR),
        mount("data", DATA_DIR),
        mount("sidecar-tmp", "/tmp"),
    ];
    mounts.extend(operator_keyring_mounts(node));
    Container {
        name: "sei-sidecar".into(),
        image: omit_empty(sidecar_image(node, platform)),
        command: Some(vec!["seictl".into(), "serve".into()]),
        restart_policy: Some("Always".into()),
        env: Some(env_vars),
        ports: Some(vec![tcp_port("sidecar", sidecar_port(node))]),
        volume_mounts: Some(mounts),
        security_context: Some(sidecar_security_context()),
        resources: sidecar_resources(node),
        ..Default::default()
    }
}

fn rbac_proxy_container(node: &SeiNode, platform: &PlatformConfig) -> Container {
    Container {
        name: "kube-rbac-proxy".into(),
        image: omit_empty(&platform.images.kube_rbac_proxy),
        restart_policy: Some("Always".into()),
        args: Some(vec![
            format!("--insecure-listen-address=0.0.0.0:{RBAC_PROXY_PORT}"),
            format!("--upstream=http://127.0.0.1:{}/", sidecar_port(node)),
            "--config-file=/etc/kube-rbac-proxy/config.yaml".into(),
            format!("--ignore-paths={PROXY_IGNORE_PATHS}"),
            "--auth-header-fields-enabled=true".into(),
            "--v=0".into(),
        ]),
        ports: Some(vec![tcp_port("api", RBAC_PROXY_PORT)]),
        volume_mounts: Some(vec![VolumeMount {
            read_only: Some(true),
            ..mount("rbac-proxy-config", "/etc/kube-rbac-proxy")
        }]),
        startup_probe: Some(timing(tcp_probe(RBAC_PROXY_PORT), 5, 5, 60)),
        liveness_probe: Some(timing(
            probes::http_probe("/v0/livez", RBAC_PROXY_PORT),
            5,
            10,
            3,
        )),
        readiness_probe: Some(timing(
            probes::http_probe("/v0/healthz", RBAC_PROXY_PORT),
            2,
            5,
            6,
        )),
        security_context: Some(sidecar_security_context()),
        ..Default::default()
    }
}

/// The shell loop that waits for the sidecar's `/v0/healthz` on loopback port `port`.
pub(super) fn sidecar_wait_loop(port: i32) -> String {
    format!(
        "while true; do if (exec 3<>/dev/tcp/localhost/{port} && printf \"GET /v0/healthz HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n\" >&3 && head -1 <&3 | grep -q \"200\") 2>/dev/null; then break; fi; sleep 5; done; "
    )
}

fn seid_container(node: &SeiNode, platform: &PlatformConfig) -> Result<Container, RenderError> {
    let seid_mount = keys::seid_mount_enabled(node);
    let mut mounts = vec![mount("data", DATA_DIR), mount("home", HOME_DIR)];
    mounts.extend(keys::seid_key_mounts(node));
    let mut env_vars = vec![
        env("HOME", HOME_DIR),
        env("TMPDIR", &format!("{DATA_DIR}/tmp")),
    ];
    if seid_mount {
        mounts.extend(operator_keyring_mounts(node));
        env_vars.extend(operator_keyring_env(node));
    }
    let resources = resources_for_node(node, platform)?;
    if let Some(limit) = go_mem_limit_env(node, &resources)? {
        env_vars.push(limit);
    }
    let script = format!(
        "echo \"waiting for sidecar to become ready...\"; {}echo \"sidecar ready, starting seid\"; exec seid \"start\" \"--home\" \"{DATA_DIR}\"",
        sidecar_wait_loop(sidecar_port(node))
    );
    Ok(Container {
        name: "seid".into(),
        image: omit_empty(&node.spec.image),
        command: Some(vec!["/bin/bash".into(), "-c".into()]),
        args: Some(vec![script]),
        env: Some(env_vars),
        volume_mounts: Some(mounts),
        ports: Some(
            SEID_PORTS
                .iter()
                .map(|(name, port)| tcp_port(name, *port))
                .collect(),
        ),
        resources: Some(resources),
        security_context: Some(seid_security_context()),
        startup_probe: Some(seid_startup_probe()),
        readiness_probe: Some(seid_readiness_probe(serves_seid_rpc(node))),
        ..Default::default()
    })
}

fn cosmos_exporter_container(platform: &PlatformConfig) -> Result<Container, RenderError> {
    if platform.images.cosmos_exporter.is_empty() {
        return Err(RenderError::CosmosExporterImageMissing);
    }
    let script = format!(
        "echo \"waiting for gRPC :{PORT_GRPC} to be available...\"; until (exec 3<>/dev/tcp/localhost/{PORT_GRPC}) 2>/dev/null; do sleep 5; done; echo \"gRPC available, starting cosmos-exporter\"; exec /usr/local/bin/sei-cosmos-exporter \"--denom\" \"usei\" \"--denom-coefficient\" \"1000000\" \"--bech-prefix\" \"sei\" \"--listen-address\" \":{COSMOS_EXPORTER_PORT}\""
    );
    let quantity = |s: &str| K8sQuantity(s.to_string());
    Ok(Container {
        name: "cosmos-exporter".into(),
        image: omit_empty(&platform.images.cosmos_exporter),
        command: Some(vec!["/bin/bash".into(), "-c".into()]),
        args: Some(vec![script]),
        ports: Some(vec![tcp_port("cosmos-metrics", COSMOS_EXPORTER_PORT)]),
        security_context: Some(sidecar_security_context()),
        resources: Some(ResourceRequirements {
            requests: Some(BTreeMap::from([
                ("cpu".to_string(), quantity("50m")),
                ("memory".to_string(), quantity("64Mi")),
            ])),
            limits: Some(BTreeMap::from([("memory".to_string(), quantity("384Mi"))])),
            ..Default::default()
        }),
        volume_mounts: Some(vec![mount("sidecar-tmp", "/tmp")]),
        readiness_probe: Some(timing(tcp_probe(COSMOS_EXPORTER_PORT), 0, 10, 6)),
        liveness_probe: Some(timing(tcp_probe(COSMOS_EXPORTER_PORT), 600, 10, 3)),
        ..Default::default()
    })
}

/// Upstream `buildNodePodSpec`, including the probe guards and the cosmos-exporter check (errors
/// 3, 4, 5 of §5.13, in that order).
pub(super) fn node_pod_spec(
    node: &SeiNode,
    platform: &PlatformConfig,
) -> Result<PodSpec, RenderError> {
    let mut volumes = vec![
        data_volume(data_pvc_name(node)),
        empty_dir("sidecar-tmp"),
        empty_dir("home"),
        rbac_proxy_config_volume(node),
    ];
    volumes.extend(keys::key_volumes(node));
    let pool = platform.nodepool_for_mode(node_mode(node));
    let (tolerations, affinity) = scheduling(platform, pool, is_dedicated_node(node));
    let seid = seid_container(node, platform)?;
    probes::validate_gated_seid_probes(&seid)?;
    probes::validate_seed_probes(serves_seid_rpc(node), &seid)?;
    let mut containers = vec![seid];
    if serves_seid_rpc(node) {
        containers.push(cosmos_exporter_container(platform)?);
    }
    Ok(PodSpec {
        automount_service_account_token: Some(true),
        service_account_name: omit_empty(&platform.scheduling.service_account),
        tolerations: Some(tolerations),
        affinity: Some(affinity),
        volumes: Some(volumes),
        share_process_namespace: Some(true),
        security_context: Some(PodSecurityContext {
            fs_group: Some(NON_ROOT_UID),
            fs_group_change_policy: Some("OnRootMismatch".into()),
            ..Default::default()
        }),
        init_containers: Some(vec![
            seid_init_container(node),
            sidecar_container(node, platform),
            rbac_proxy_container(node, platform),
        ]),
        containers,
        ..Default::default()
    })
}
