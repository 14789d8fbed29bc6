//! The controller's platform configuration (upstream `internal/platform`).
//!
//! Rendering a node's workload needs the cluster-environment knobs the controller reads from its
//! app-config file (`config.yaml` in the ConfigMap `sei-controller-config`): Karpenter pools,
//! storage classes and sizes, images, S3 buckets, per-role resource overrides. This module decodes
//! that file exactly as leniently as the controller ([`PlatformConfig::from_yaml`]), validates it
//! with the controller's wording ([`PlatformConfig::validate`]) and answers the questions the
//! renderer and the planner ask of it. Pure: no I/O except [`PlatformConfig::read_file`].
mod decode;
pub mod quantity;
mod yaml11;

use std::collections::BTreeMap;
use std::path::Path;

use quantity::{Quantity, QuantityError};

/// Container `HOME` of seid pods (upstream `platform.HomeDir`).
pub const HOME_DIR: &str = "/home/nonroot";
/// seid `--home` and the data PVC mount (upstream `platform.DataDir` = `HOME_DIR` + `/.sei`).
pub const DATA_DIR: &str = "/home/nonroot/.sei";
/// Data-volume size of a seed when `storage.sizeSeed` is not set.
pub const DEFAULT_SEED_STORAGE_SIZE: &str = "20Gi";

/// Name of the controller's ConfigMap holding the app-config.
pub const CONFIG_MAP_NAME: &str = "sei-controller-config";
/// Key of the app-config file inside that ConfigMap.
pub const CONFIG_MAP_KEY: &str = "config.yaml";

/// The sei-config mode a node runs as (upstream `NodeMode`: a replayer runs as `full`).
/// It selects the Karpenter pool and the data-volume defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SeiConfigMode {
    Full,
    Archive,
    Validator,
    Seed,
}

impl SeiConfigMode {
    /// The sei-config mode string (`full`, `archive`, `validator`, `seed`).
    pub fn as_str(self) -> &'static str {
        match self {
            SeiConfigMode::Full => "full",
            SeiConfigMode::Archive => "archive",
            SeiConfigMode::Validator => "validator",
            SeiConfigMode::Seed => "seed",
        }
    }
}

/// The decoded app-config plus the gateway settings the controller takes from its environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlatformConfig {
    pub state_sync: StateSyncConfig,
    pub scheduling: SchedulingConfig,
    pub storage: StorageConfig,
    pub resources: ResourcesConfig,
    pub snapshot: BucketConfig,
    pub result_export: ResultExportConfig,
    pub genesis: BucketConfig,
    pub images: ImagesConfig,
    /// `SEI_GATEWAY_*` environment variables of the controller (not part of the file).
    pub gateway: GatewayConfig,
}

/// `stateSync`: chain ID → raw syncer entries as written (see [`PlatformConfig::syncers_for_chain`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateSyncConfig {
    pub syncers: BTreeMap<String, Vec<String>>,
}

/// `scheduling`: Karpenter pools, the taint key and the pod service account.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedulingConfig {
    pub nodepool_name: String,
    pub nodepool_archive: String,
    pub nodepool_validator: String,
    pub nodepool_seed: String,
    pub toleration_key: String,
    pub service_account: String,
}

/// `storage`: data-PVC classes and sizes (sizes are quantity strings, not validated upstream).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StorageConfig {
    pub class_perf: String,
    pub class_default: String,
    pub class_archive: String,
    pub size_default: String,
    pub size_archive: String,
    pub size_seed: String,
}

/// `resources`: per-role seid-container overrides, keyed like the `sei.io/role` label.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourcesConfig {
    pub validator: ResourceOverride,
    pub node: ResourceOverride,
    pub replayer: ResourceOverride,
    pub archive: ResourceOverride,
    pub seed: ResourceOverride,
}

/// One role's override. A blank field falls back to the role's built-in default. `memory` is both
/// the request and the limit; there is deliberately no CPU limit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceOverride {
    pub cpu_request: String,
    pub memory: String,
}

/// An S3 bucket and region (`snapshot`, `genesis`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BucketConfig {
    pub bucket: String,
    pub region: String,
}

/// `resultExport`: shadow-replay result bucket, region and key prefix.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultExportConfig {
    pub bucket: String,
    pub region: String,
    pub prefix: String,
}

/// `images`: the images attached to every node pod.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImagesConfig {
    /// Default `sei-sidecar` image (`images.sidecar`).
    pub sidecar: String,
    pub kube_rbac_proxy: String,
    pub cosmos_exporter: String,
}

/// `SEI_GATEWAY_NAME`, `SEI_GATEWAY_NAMESPACE`, `SEI_GATEWAY_DOMAIN`, `SEI_GATEWAY_PUBLIC_DOMAIN`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GatewayConfig {
    pub name: String,
    pub namespace: String,
    pub domain: String,
    pub public_domain: String,
}

impl GatewayConfig {
    /// Reads the four `SEI_GATEWAY_*` variables through `lookup` (e.g. `std::env::var(..).ok()`).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let get = |name: &str| lookup(name).unwrap_or_default();
        GatewayConfig {
            name: get("SEI_GATEWAY_NAME"),
            namespace: get("SEI_GATEWAY_NAMESPACE"),
            domain: get("SEI_GATEWAY_DOMAIN"),
            public_domain: get("SEI_GATEWAY_PUBLIC_DOMAIN"),
        }
    }
}

/// Loading or validation failure; `Display` is the controller's wording.
#[derive(Debug, thiserror::Error)]
pub enum PlatformError {
    /// The YAML could not be decoded (the text after upstream's `parsing … %q: ` prefix).
    #[error("{0}")]
    Decode(String),
    /// `parsing controller config file %q: %w`.
    #[error("parsing controller config file {}: {detail}", go_quote(path))]
    ParseFile { path: String, detail: String },
    /// `reading controller config file %q: %w`.
    #[error("reading controller config file {}: {source}", go_quote(path))]
    ReadFile {
        path: String,
        source: std::io::Error,
    },
    /// `<key> is required` (first missing key in upstream order).
    #[error("{0} is required")]
    Required(&'static str),
    /// `<key>.<field>: invalid quantity %q: %w`.
    #[error("{key}.{field}: invalid quantity {}: {source}", go_quote(value))]
    InvalidQuantity {
        key: &'static str,
        field: &'static str,
        value: String,
        source: QuantityError,
    },
}

impl PlatformConfig {
    /// Decodes an app-config document as the controller does (`sigs.k8s.io/yaml`): unknown keys
    /// ignored, keys case-insensitive, YAML 1.1 scalars coerced to strings (`cpuRequest: 8` is
    /// `"8"`, a plain `no` is `"false"`). An empty document is an empty config. Gateway fields
    /// stay empty (they come from the controller's environment).
    pub fn from_yaml(text: &str) -> Result<Self, PlatformError> {
        // The YAML reader recurses per level: bound the input first (file or ConfigMap).
        crate::limits::check_yaml(text, crate::limits::CONFIG_FILE)
            .map_err(|e| PlatformError::Decode(format!("refused before decoding: {e}")))?;
        let root = yaml11::parse(text)
            .map_err(|e| PlatformError::Decode(format!("error converting YAML to JSON: {e}")))?;
        decode::decode(&root).map_err(|e| PlatformError::Decode(e.to_string()))
    }

    /// Upstream `ReadFileConfig`: a blank path or a missing file is an empty config; an unreadable
    /// or undecodable file is an error naming the path.
    pub fn read_file(path: &Path) -> Result<Self, PlatformError> {
        let shown = path.display().to_string();
        if shown.trim().is_empty() {
            return Ok(Self::default());
        }
        let read = std::fs::File::open(path)
            .and_then(|file| crate::limits::read_bounded_bytes(file, crate::limits::CONFIG_FILE));
        let text = match read {
            Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(Err(limit)) => {
                return Err(PlatformError::ParseFile {
                    path: shown,
                    detail: format!("refused before decoding: {limit}"),
                });
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => {
                return Err(PlatformError::ReadFile {
                    path: shown,
                    source,
                });
            }
        };
        Self::from_yaml(&text).map_err(|err| PlatformError::ParseFile {
            path: shown,
            detail: err.to_string(),
        })
    }

    /// Upstream `Config.Validate`: the first blank required key (in upstream order), then every
    /// non-blank resource override must be a Kubernetes quantity.
    pub fn validate(&self) -> Result<(), PlatformError> {
        let s = &self.scheduling;
        let st = &self.storage;
        let required: [(&'static str, &str); 24] = [
            ("scheduling.nodepoolName", &s.nodepool_name),
            ("scheduling.nodepoolArchive", &s.nodepool_archive),
            ("scheduling.nodepoolValidator", &s.nodepool_validator),
            ("scheduling.nodepoolSeed", &s.nodepool_seed),
            ("scheduling.tolerationKey", &s.toleration_key),
            ("scheduling.serviceAccount", &s.service_account),
            ("storage.classPerf", &st.class_perf),
            ("storage.classDefault", &st.class_default),
            ("storage.classArchive", &st.class_archive),
            ("storage.sizeDefault", &st.size_default),
            ("storage.sizeArchive", &st.size_archive),
            ("snapshot.bucket", &self.snapshot.bucket),
            ("snapshot.region", &self.snapshot.region),
            ("resultExport.bucket", &self.result_export.bucket),
            ("resultExport.region", &self.result_export.region),
            ("resultExport.prefix", &self.result_export.prefix),
            ("genesis.bucket", &self.genesis.bucket),
            ("genesis.region", &self.genesis.region),
            ("images.sidecar", &self.images.sidecar),
            ("images.kubeRBACProxy", &self.images.kube_rbac_proxy),
            ("images.cosmosExporter", &self.images.cosmos_exporter),
            ("SEI_GATEWAY_NAME", &self.gateway.name),
            ("SEI_GATEWAY_NAMESPACE", &self.gateway.namespace),
            ("SEI_GATEWAY_DOMAIN", &self.gateway.domain),
        ];
        if let Some((key, _)) = required.iter().find(|(_, value)| value.trim().is_empty()) {
            return Err(PlatformError::Required(key));
        }
        let r = &self.resources;
        let overrides: [(&'static str, &ResourceOverride); 5] = [
            ("resources.validator", &r.validator),
            ("resources.node", &r.node),
            ("resources.replayer", &r.replayer),
            ("resources.archive", &r.archive),
            ("resources.seed", &r.seed),
        ];
        for (key, o) in overrides {
            for (field, value) in [("cpuRequest", &o.cpu_request), ("memory", &o.memory)] {
                if value.trim().is_empty() {
                    continue;
                }
                Quantity::parse(value).map_err(|source| PlatformError::InvalidQuantity {
                    key,
                    field,
                    value: value.clone(),
                    source,
                })?;
            }
        }
        Ok(())
    }

    /// Upstream `NodepoolForMode`: archive and validator have their own pools, seed uses
    /// `nodepoolSeed` with **no fallback** (may be empty — the renderer must reject that), every
    /// other mode uses `nodepoolName`.
    pub fn nodepool_for_mode(&self, mode: SeiConfigMode) -> &str {
        match mode {
            SeiConfigMode::Archive => &self.scheduling.nodepool_archive,
            SeiConfigMode::Validator => &self.scheduling.nodepool_validator,
            SeiConfigMode::Seed => &self.scheduling.nodepool_seed,
            SeiConfigMode::Full => &self.scheduling.nodepool_name,
        }
    }

    /// Upstream `SeedStorageSize`: `storage.sizeSeed`, or `20Gi` when it is empty.
    pub fn seed_storage_size(&self) -> &str {
        if self.storage.size_seed.is_empty() {
            DEFAULT_SEED_STORAGE_SIZE
        } else {
            &self.storage.size_seed
        }
    }

    /// The sidecar image a node runs: its `spec.sidecar.image` when set and non-empty, otherwise
    /// the platform default `images.sidecar`. The planner compares this with
    /// `status.currentSidecarImage` for drift and `observe-image` stamps it.
    pub fn effective_sidecar_image<'a>(&'a self, spec_sidecar_image: Option<&'a str>) -> &'a str {
        match spec_sidecar_image {
            Some(image) if !image.is_empty() => image,
            _ => &self.images.sidecar,
        }
    }

    /// The canonical state-sync syncers for a chain: entries joined by newlines, split on
    /// newline, carriage return, comma, space and tab, blanks dropped, sorted, de-duplicated.
    /// Empty when the chain has no entry.
    pub fn syncers_for_chain(&self, chain_id: &str) -> Vec<String> {
        let Some(entries) = self.state_sync.syncers.get(chain_id) else {
            return Vec::new();
        };
        let joined = entries.join("\n");
        let mut out: Vec<String> = joined
            .split(['\n', '\r', ',', ' ', '\t'])
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The upstream test fixture (`platformtest.Config()`), fully populated and valid.
    pub fn test_fixture() -> Self {
        PlatformConfig {
            scheduling: SchedulingConfig {
                nodepool_name: "sei-node".into(),
                nodepool_archive: "sei-archive".into(),
                nodepool_validator: "sei-validator".into(),
                nodepool_seed: "sei-seed".into(),
                toleration_key: "sei.io/workload".into(),
                service_account: "seid-node".into(),
            },
            storage: StorageConfig {
                class_perf: "gp3-10k-750".into(),
                class_default: "gp3".into(),
                class_archive: "gp3-archive".into(),
                size_default: "2000Gi".into(),
                size_archive: "40Ti".into(),
                size_seed: String::new(),
            },
            snapshot: BucketConfig { bucket: "test-sei-snapshots".into(), region: "us-east-2".into() },
            result_export: ResultExportConfig {
                bucket: "test-sei-shadow-results".into(),
                region: "us-east-2".into(),
                prefix: "shadow-results/".into(),
            },
            genesis: BucketConfig {
                bucket: "test-sei-k8s-genesis-artifacts".into(),
                region: "us-east-2".into(),
            },
            gateway: GatewayConfig {
                name: "sei-gateway".into(),
                namespace: "istio-system".into(),
                domain: "test.platform.sei.io".into(),
                public_domain: String::new(),
            },
            images: ImagesConfig {
                sidecar: "ghcr.io/sei-protocol/seictl@sha256:a2af4e1b8ed4c12661a3c98cce050bae3f292cc7560abc2ba98fd7dfc80d9be5".into(),
                kube_rbac_proxy: "quay.io/brancz/kube-rbac-proxy:v0.19.1".into(),
                cosmos_exporter: "ghcr.io/sei-protocol/sei-cosmos-exporter@sha256:0000000000000000000000000000000000000000000000000000000000000000".into(),
            },
            ..Default::default()
        }
    }
}

/// Go's `%q` for the plain strings in our messages: double-quoted with `"` and `\` escaped and
/// control characters written as escapes.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
