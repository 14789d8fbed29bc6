//! Workload rendering (upstream `internal/noderesource` and `internal/task/bootstrap_resources.go`).
//!
//! Pure functions from a [`SeiNode`] and the [`PlatformConfig`] to the Kubernetes objects the
//! controller applies: the StatefulSet ([`statefulset`]), the headless Service
//! ([`headless_service`]), the data PVC ([`data_pvc`]), the kube-rbac-proxy ConfigMap
//! ([`rbac_proxy_config_map`]) and, for snapshot bootstraps, a Job ([`bootstrap_job`]) and its
//! Service ([`bootstrap_service`]). Every render-time error carries the controller's wording
//! (spec/tasks-and-resources.md §5.13).
//!
//! The renderer's guards (probe ports, keyring containment, bootstrap isolation) fail with the
//! upstream error wording; `fix` turns a render failure into the operator's fix and judges a
//! `StatefulSetRenderFailed` event against the platform config in use (`fleet::Fleet` holds that
//! config, `fleet::detail` judges the node's latest render failure with it).
use std::collections::BTreeMap;

use crate::api::SeiNode;
use crate::platform::{PlatformConfig, SeiConfigMode, go_quote};

mod apply;
mod bootstrap;
pub mod fix;
mod keys;
mod pod;
mod probes;
mod resources;
mod workload;

pub use apply::{AppliedWorkload, applied_workload, owner_reference, statefulset_for_apply};
pub use bootstrap::{bootstrap_job, bootstrap_job_name, bootstrap_labels, bootstrap_service};
pub use pod::pod_anti_affinity;
pub use probes::{validate_gated_seid_probes, validate_seed_probes};
pub use resources::{GOMEMLIMIT_PERCENT_OF_LIMIT, default_storage_for_mode, resources_for_node};
pub use workload::{
    data_pvc, headless_service, rbac_proxy_config_map, rbac_proxy_config_map_name, statefulset,
};

/// Label carrying the node name; the only selector label anywhere.
pub const NODE_LABEL: &str = "sei.io/node";
/// Observability label with the chain ID.
pub const CHAIN_LABEL: &str = "sei.io/chain";
/// Observability label with the role (`validator`, `archive`, `replayer`, `seed`, `node`).
pub const ROLE_LABEL: &str = "sei.io/role";
/// Annotation (opt-in) and mirrored label for single-tenant scheduling.
pub const DEDICATED_NODE_KEY: &str = "sei.io/dedicated-node";
/// Label marking pods that publish Tendermint snapshots.
pub const SNAPSHOT_PUBLISH_LABEL: &str = "sei.io/snapshot-publish";
/// Port kube-rbac-proxy listens on in front of the sidecar (name `api`).
pub const RBAC_PROXY_PORT: i32 = 8443;
/// Sidecar port when `spec.sidecar.port` is unset or zero.
pub const DEFAULT_SIDECAR_PORT: i32 = 7777;
/// seid's Tendermint RPC port.
pub const PORT_RPC: i32 = 26657;
/// seid's gRPC port.
pub const PORT_GRPC: i32 = 9090;
/// seid's P2P port.
pub const PORT_P2P: i32 = 26656;

/// seid's ports in sei-config `NodePorts()` order: identical for every mode.
pub const SEID_PORTS: [(&str, i32); 7] = [
    ("evm-rpc", 8545),
    ("evm-ws", 8546),
    ("grpc", PORT_GRPC),
    ("rest", 1317),
    ("p2p", PORT_P2P),
    ("rpc", PORT_RPC),
    ("metrics", 26660),
];

/// A render-time failure; `Display` is the controller's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    #[error("images.kubeRBACProxy is not configured in the app-config file")]
    KubeRbacProxyImageMissing,
    #[error("scheduling.nodepoolSeed is not configured in the app-config file")]
    SeedNodepoolMissing,
    #[error("images.cosmosExporter is required in the app-config file")]
    CosmosExporterImageMissing,
    /// `ValidateGatedSeidProbes` / `ValidateSeedProbes` (fail-closed guards).
    #[error("{0}")]
    ProbeGuard(String),
    /// Operator-keyring containment (§5.11).
    #[error("{0}")]
    KeyringContainment(String),
    /// Bootstrap pod isolation guard and the missing-S3-snapshot error (§3.1).
    #[error("{0}")]
    Bootstrap(String),
    /// A quantity from the platform config that does not parse. Upstream panics here
    /// (`resource.MustParse`); the port reports it instead.
    #[error("{key}: invalid quantity {}: {reason}", go_quote(value))]
    InvalidQuantity {
        key: String,
        value: String,
        reason: String,
    },
}

/// A node's role: the `sei.io/role` label value and the resource profile it gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Validator,
    Archive,
    Replayer,
    Seed,
    /// fullNode, or no mode sub-spec at all.
    Node,
}

impl Role {
    /// The `sei.io/role` label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Validator => "validator",
            Role::Archive => "archive",
            Role::Replayer => "replayer",
            Role::Seed => "seed",
            Role::Node => "node",
        }
    }
}

/// Upstream `deriveRole`: validator, archive, replayer, seed, else node (first match wins).
pub fn role(node: &SeiNode) -> Role {
    let s = &node.spec;
    if s.validator.is_some() {
        Role::Validator
    } else if s.archive.is_some() {
        Role::Archive
    } else if s.replayer.is_some() {
        Role::Replayer
    } else if s.seed.is_some() {
        Role::Seed
    } else {
        Role::Node
    }
}

/// Upstream `NodeMode`: archive, validator, seed, else full (a replayer runs as `full`).
pub fn node_mode(node: &SeiNode) -> SeiConfigMode {
    let s = &node.spec;
    if s.archive.is_some() {
        SeiConfigMode::Archive
    } else if s.validator.is_some() {
        SeiConfigMode::Validator
    } else if s.seed.is_some() {
        SeiConfigMode::Seed
    } else {
        SeiConfigMode::Full
    }
}

/// Upstream `servesSeidRPC`: false only for a seed, which binds neither RPC nor gRPC. Gates the
/// readiness probe target, cosmos-exporter and `GOMEMLIMIT`.
pub fn serves_seid_rpc(node: &SeiNode) -> bool {
    node.spec.seed.is_none()
}

/// Upstream `NeedsLongStartup` (only feeds an intermediate probe that the final render replaces).
pub fn needs_long_startup(node: &SeiNode) -> bool {
    let s = &node.spec;
    if let Some(full) = &s.full_node {
        full.snapshot.is_some()
    } else if let Some(validator) = &s.validator {
        validator.snapshot.is_some()
    } else {
        s.replayer.is_some() || s.archive.is_some()
    }
}

/// Whether the node opted into single-tenant scheduling (annotation `sei.io/dedicated-node: "true"`).
pub fn is_dedicated_node(node: &SeiNode) -> bool {
    node.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(DEDICATED_NODE_KEY))
        .is_some_and(|v| v == "true")
}

fn snapshot_publish_enabled(node: &SeiNode) -> bool {
    let generation = if let Some(full) = &node.spec.full_node {
        full.snapshot_generation.as_ref()
    } else if let Some(archive) = &node.spec.archive {
        archive.snapshot_generation.as_ref()
    } else {
        None
    };
    generation
        .and_then(|g| g.tendermint.as_ref())
        .is_some_and(|t| t.publish.is_some())
}

/// `{sei.io/node: <name>}`: the StatefulSet and Service selector (immutable).
pub fn selector_labels(node: &SeiNode) -> BTreeMap<String, String> {
    BTreeMap::from([(NODE_LABEL.to_string(), node.name().to_string())])
}

/// Upstream `ResourceLabels`: `spec.podLabels`, overwritten by the system labels. Conditional
/// system labels only overwrite when their rule fires.
pub fn resource_labels(node: &SeiNode) -> BTreeMap<String, String> {
    let mut labels = node.spec.pod_labels.clone().unwrap_or_default();
    labels.insert(NODE_LABEL.into(), node.name().into());
    if !node.spec.chain_id.is_empty() {
        labels.insert(CHAIN_LABEL.into(), node.spec.chain_id.clone());
    }
    labels.insert(ROLE_LABEL.into(), role(node).as_str().into());
    if is_dedicated_node(node) {
        labels.insert(DEDICATED_NODE_KEY.into(), "true".into());
    }
    if snapshot_publish_enabled(node) {
        labels.insert(SNAPSHOT_PUBLISH_LABEL.into(), "true".into());
    }
    labels
}

/// Upstream `DataPVCName`: the imported PVC's name when set and non-empty, else `data-<node>`.
pub fn data_pvc_name(node: &SeiNode) -> String {
    node.spec
        .data_volume
        .as_ref()
        .and_then(|dv| dv.import.as_ref())
        .map(|import| import.pvc_name.as_str())
        .filter(|name| !name.is_empty())
        .map_or_else(|| format!("data-{}", node.name()), str::to_string)
}

/// Upstream `SidecarPort`: `spec.sidecar.port` when set and non-zero, else 7777.
pub fn sidecar_port(node: &SeiNode) -> i32 {
    node.spec
        .sidecar
        .as_ref()
        .and_then(|s| s.port)
        .filter(|p| *p != 0)
        .unwrap_or(DEFAULT_SIDECAR_PORT)
}

/// Upstream `SidecarURLForNode`: the in-cluster URL of the node's sidecar, through the proxy.
pub fn sidecar_url_for_node(node: &SeiNode) -> String {
    format!(
        "http://{name}-0.{name}.{ns}.svc.cluster.local:{RBAC_PROXY_PORT}",
        name = node.name(),
        ns = node.namespace()
    )
}

/// Go's `omitempty` for string fields: an empty value is left out of the object.
pub(crate) fn omit_empty(value: &str) -> Option<String> {
    (!value.is_empty()).then(|| value.to_string())
}

/// The sidecar image this node runs (`spec.sidecar.image` or `images.sidecar`).
pub fn sidecar_image<'a>(node: &'a SeiNode, platform: &'a PlatformConfig) -> &'a str {
    platform.effective_sidecar_image(node.spec.sidecar_image())
}

#[cfg(test)]
mod tests;
