//! The `SeiNode` resource, its spec, and the mode of a spec (api/v1alpha1/seinode_types.go).
use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta};
use serde::{Deserialize, Serialize};

use super::{
    API_VERSION, ArchiveSpec, DataVolumeSpec, FullNodeSpec, GENTX_OPERATOR_KEY_NAME, GROUP, KIND,
    LIST_KIND, NodeKeySource, PLURAL, PeerSource, ReplayerSpec, SecretNodeKeySource, SeedSpec,
    SeiNodeStatus, SidecarConfig, SnapshotSource, UnknownFields, VERSION, ValidatorSpec,
};

/// A `sei.io/v1alpha1` `SeiNode`. Works with `kube::Api<SeiNode>` (namespaced).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeiNode {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: SeiNodeSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<SeiNodeStatus>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

impl SeiNode {
    /// A node with `apiVersion`/`kind` filled in, the given name and namespace, and no status.
    pub fn new(namespace: &str, name: &str, spec: SeiNodeSpec) -> Self {
        SeiNode {
            api_version: API_VERSION.to_owned(),
            kind: KIND.to_owned(),
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                namespace: Some(namespace.to_owned()),
                ..ObjectMeta::default()
            },
            spec,
            status: None,
            unknown: UnknownFields::new(),
        }
    }

    /// `metadata.name`, or `""`.
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or("")
    }

    /// `metadata.namespace`, or `""`.
    pub fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or("")
    }

    /// `metadata.generation`, or 0.
    pub fn generation(&self) -> i64 {
        self.metadata.generation.unwrap_or(0)
    }

    /// The status, created empty if absent (the planner and executor mutate it in place).
    pub fn status_mut(&mut self) -> &mut SeiNodeStatus {
        self.status.get_or_insert_with(SeiNodeStatus::default)
    }

    /// Upstream `ResolveOperatorKeyringUID`: the operator keyring's key name, `node_admin` when
    /// it is empty, or `validator` when no operator keyring Secret is configured.
    pub fn resolve_operator_keyring_uid(&self) -> &str {
        match self
            .spec
            .validator
            .as_ref()
            .and_then(|v| v.operator_keyring_secret())
        {
            Some(secret) => secret.effective_key_name(),
            None => GENTX_OPERATOR_KEY_NAME,
        }
    }
}

impl k8s_openapi::Resource for SeiNode {
    const API_VERSION: &'static str = API_VERSION;
    const GROUP: &'static str = GROUP;
    const KIND: &'static str = KIND;
    const VERSION: &'static str = VERSION;
    const URL_PATH_SEGMENT: &'static str = PLURAL;
    type Scope = k8s_openapi::NamespaceResourceScope;
}

impl k8s_openapi::Metadata for SeiNode {
    type Ty = ObjectMeta;

    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

impl k8s_openapi::ListableResource for SeiNode {
    const LIST_KIND: &'static str = LIST_KIND;
}

/// A `SeiNodeList`, as printed by `kubectl get seinodes -o yaml`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeiNodeList {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(default)]
    pub metadata: ListMeta,
    pub items: Vec<SeiNode>,
}

/// Desired state of a SeiNode.
///
/// The mode sub-specs, the sidecar and the data volume are boxed: unset they are 8 bytes each
/// instead of 3.2 KB in all, and a watched fleet stores one spec per node (10,000 nodes: 31 MiB).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SeiNodeSpec {
    pub chain_id: String,
    pub image: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peers: Option<Vec<PeerSource>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overrides: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sidecar: Option<Box<SidecarConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_labels: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_volume: Option<Box<DataVolumeSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_node: Option<Box<FullNodeSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archive: Option<Box<ArchiveSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replayer: Option<Box<ReplayerSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validator: Option<Box<ValidatorSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<Box<SeedSpec>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_address: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    #[serde(flatten)]
    pub unknown: UnknownFields,
}

/// The five node modes, one per mode sub-spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeMode {
    Full,
    Archive,
    Replayer,
    Validator,
    Seed,
}

impl NodeMode {
    /// Every mode, in the controller's dispatch order.
    pub const ALL: [NodeMode; 5] = [
        NodeMode::Full,
        NodeMode::Archive,
        NodeMode::Replayer,
        NodeMode::Validator,
        NodeMode::Seed,
    ];

    /// The spec field naming this mode (`fullNode`, `archive`, …).
    pub fn spec_field(self) -> &'static str {
        match self {
            NodeMode::Full => "fullNode",
            NodeMode::Archive => "archive",
            NodeMode::Replayer => "replayer",
            NodeMode::Validator => "validator",
            NodeMode::Seed => "seed",
        }
    }

    /// Short display name (`full`, `archive`, `replayer`, `validator`, `seed`).
    pub fn as_str(self) -> &'static str {
        match self {
            NodeMode::Full => "full",
            NodeMode::Archive => "archive",
            NodeMode::Replayer => "replayer",
            NodeMode::Validator => "validator",
            NodeMode::Seed => "seed",
        }
    }

    /// The sei-config mode of the planner's `Mode()`: a replayer runs as `full`.
    pub fn config_mode(self) -> &'static str {
        match self {
            NodeMode::Full | NodeMode::Replayer => "full",
            NodeMode::Archive => "archive",
            NodeMode::Validator => "validator",
            NodeMode::Seed => "seed",
        }
    }
}

impl fmt::Display for NodeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Zero or several mode sub-specs are set. The message is the CRD's own CEL message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("exactly one of fullNode, archive, replayer, validator, or seed must be set")]
pub struct ModeError {
    /// The sub-specs that are set (empty when none is).
    pub set: Vec<NodeMode>,
}

impl SeiNodeSpec {
    /// The sub-specs that are set, in dispatch order.
    pub fn modes_set(&self) -> Vec<NodeMode> {
        NodeMode::ALL
            .into_iter()
            .filter(|mode| self.has_mode(*mode))
            .collect()
    }

    /// Whether the sub-spec of `mode` is set.
    pub fn has_mode(&self, mode: NodeMode) -> bool {
        match mode {
            NodeMode::Full => self.full_node.is_some(),
            NodeMode::Archive => self.archive.is_some(),
            NodeMode::Replayer => self.replayer.is_some(),
            NodeMode::Validator => self.validator.is_some(),
            NodeMode::Seed => self.seed.is_some(),
        }
    }

    /// The node's mode, enforcing the CRD rule that exactly one sub-spec is set.
    pub fn mode(&self) -> Result<NodeMode, ModeError> {
        let set = self.modes_set();
        match set.as_slice() {
            [only] => Ok(*only),
            _ => Err(ModeError { set }),
        }
    }

    /// The controller's dispatch: the first set sub-spec wins (it does not enforce "exactly one";
    /// the CRD does).
    pub fn first_mode(&self) -> Option<NodeMode> {
        NodeMode::ALL.into_iter().find(|mode| self.has_mode(*mode))
    }

    /// Upstream `SnapshotSource()`: fullNode's, else validator's, else the replayer's (always
    /// present); archive and seed never have one.
    pub fn snapshot_source(&self) -> Option<&SnapshotSource> {
        if let Some(full) = &self.full_node {
            full.snapshot.as_ref()
        } else if let Some(validator) = &self.validator {
            validator.snapshot.as_ref()
        } else {
            self.replayer.as_ref().map(|replayer| &replayer.snapshot)
        }
    }

    /// Upstream `NodeKeySecret()`: the validator's node-key Secret (if the validator has a
    /// nodeKey), else the seed's.
    pub fn node_key_secret(&self) -> Option<&SecretNodeKeySource> {
        if let Some(node_key) = self.validator.as_ref().and_then(|v| v.node_key.as_ref()) {
            node_key.secret.as_ref()
        } else {
            self.seed
                .as_ref()
                .and_then(|seed| seed_node_key(&seed.node_key))
        }
    }

    /// `NodeKeySecret().secretName`, or `""`.
    pub fn node_key_secret_name(&self) -> &str {
        self.node_key_secret()
            .map_or("", |secret| secret.secret_name.as_str())
    }

    /// `externalAddress`, or `""`.
    pub fn external_address(&self) -> &str {
        self.external_address.as_deref().unwrap_or("")
    }

    /// `paused`, false when unset.
    pub fn is_paused(&self) -> bool {
        self.paused.unwrap_or(false)
    }

    /// `sidecar.image` when set and non-empty.
    pub fn sidecar_image(&self) -> Option<&str> {
        self.sidecar
            .as_ref()
            .and_then(|sidecar| sidecar.image.as_deref())
            .filter(|image| !image.is_empty())
    }

    /// `peers`, or an empty slice.
    pub fn peers(&self) -> &[PeerSource] {
        self.peers.as_deref().unwrap_or(&[])
    }
}

fn seed_node_key(source: &NodeKeySource) -> Option<&SecretNodeKeySource> {
    source.secret.as_ref()
}

#[cfg(test)]
mod tests {
    use crate::api::*;

    fn spec_with(modes: &[NodeMode]) -> SeiNodeSpec {
        let mut spec = SeiNodeSpec {
            chain_id: "c".into(),
            image: "i".into(),
            ..SeiNodeSpec::default()
        };
        for mode in modes {
            match mode {
                NodeMode::Full => spec.full_node = Some(Box::new(FullNodeSpec::default())),
                NodeMode::Archive => spec.archive = Some(Box::new(ArchiveSpec::default())),
                NodeMode::Replayer => spec.replayer = Some(Box::new(ReplayerSpec::default())),
                NodeMode::Validator => spec.validator = Some(Box::new(ValidatorSpec::default())),
                NodeMode::Seed => spec.seed = Some(Box::new(SeedSpec::default())),
            }
        }
        spec
    }

    #[test]
    fn mode_requires_exactly_one_sub_spec() {
        for mode in NodeMode::ALL {
            assert_eq!(spec_with(&[mode]).mode(), Ok(mode));
        }
        let none = spec_with(&[]).mode().expect_err("no sub-spec");
        assert_eq!(
            none.to_string(),
            "exactly one of fullNode, archive, replayer, validator, or seed must be set"
        );
        let two = spec_with(&[NodeMode::Full, NodeMode::Seed])
            .mode()
            .expect_err("two");
        assert_eq!(two.set, vec![NodeMode::Full, NodeMode::Seed]);
        assert_eq!(two.to_string(), none.to_string());
    }

    #[test]
    fn snapshot_source_first_match_wins() {
        let snap = SnapshotSource {
            trust_period: Some("x".into()),
            ..Default::default()
        };
        let mut spec = spec_with(&[NodeMode::Replayer]);
        spec.replayer.as_mut().expect("replayer").snapshot = snap.clone();
        assert_eq!(spec.snapshot_source(), Some(&snap));
        // fullNode wins over the replayer even with no snapshot of its own.
        spec.full_node = Some(Box::new(FullNodeSpec::default()));
        assert_eq!(spec.snapshot_source(), None);
        assert_eq!(spec_with(&[NodeMode::Archive]).snapshot_source(), None);
        assert_eq!(spec_with(&[NodeMode::Seed]).snapshot_source(), None);
    }

    #[test]
    fn node_key_secret_prefers_validator_node_key() {
        let secret = |name: &str| NodeKeySource {
            secret: Some(SecretNameRef {
                secret_name: name.into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut spec = spec_with(&[NodeMode::Seed]);
        spec.seed.as_mut().expect("seed").node_key = secret("seed-key");
        assert_eq!(spec.node_key_secret_name(), "seed-key");
        spec.validator = Some(Box::new(ValidatorSpec {
            node_key: Some(secret("val-key")),
            ..Default::default()
        }));
        assert_eq!(spec.node_key_secret_name(), "val-key");
        // A validator without nodeKey falls through to the seed.
        spec.validator = Some(Box::new(ValidatorSpec::default()));
        assert_eq!(spec.node_key_secret_name(), "seed-key");
    }

    #[test]
    fn operator_keyring_uid_defaults() {
        let mut node = SeiNode::new("ns", "v", spec_with(&[NodeMode::Validator]));
        assert_eq!(node.resolve_operator_keyring_uid(), "validator");
        let keyring = |key_name: Option<&str>| OperatorKeyringSource {
            secret: Some(SecretOperatorKeyringSource {
                secret_name: "opk".into(),
                key_name: key_name.map(str::to_owned),
                ..Default::default()
            }),
            ..Default::default()
        };
        node.spec.validator.as_mut().expect("v").operator_keyring = Some(keyring(None));
        assert_eq!(node.resolve_operator_keyring_uid(), "node_admin");
        node.spec.validator.as_mut().expect("v").operator_keyring = Some(keyring(Some("")));
        assert_eq!(node.resolve_operator_keyring_uid(), "node_admin");
        node.spec.validator.as_mut().expect("v").operator_keyring = Some(keyring(Some("ops")));
        assert_eq!(node.resolve_operator_keyring_uid(), "ops");
    }
}
