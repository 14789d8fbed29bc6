//! Decoding the app-config tree into [`PlatformConfig`] with Go `encoding/json` semantics.
//!
//! Upstream converts YAML to JSON (map keys sorted, scalars coerced to strings where the target is
//! a string) and then runs `json.Unmarshal`: unknown keys are ignored, keys match field names
//! exactly or else case-insensitively, later keys overwrite earlier ones, `null` leaves a field
//! untouched, and a type mismatch is remembered (the first one is reported) while decoding goes on.
use std::collections::BTreeMap;

use super::yaml11::{Node, Scalar, YamlError, key_as_string, scalar_as_go_string};
use super::{
    BucketConfig, ImagesConfig, PlatformConfig, ResourceOverride, ResourcesConfig,
    ResultExportConfig, SchedulingConfig, StateSyncConfig, StorageConfig,
};

/// Decoding state: the path of JSON field names and the first type error seen.
struct Decoder {
    path: Vec<&'static str>,
    struct_name: &'static str,
    first_error: Option<String>,
}

/// Why the parsed document is not a config, in upstream's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// A map key that JSON cannot have (the YAML-to-JSON conversion step).
    #[error("error converting YAML to JSON: {0}")]
    Key(YamlError),
    /// The document is not an object (its JSON kind).
    #[error(
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {0} into Go value of type platform.FileConfig"
    )]
    NotAnObject(&'static str),
    /// The first field of the wrong type (`json: cannot unmarshal …`).
    #[error("error unmarshaling JSON: while decoding JSON: {0}")]
    Field(String),
}

/// Decodes the parsed document. Errors carry the upstream wording after the
/// `error unmarshaling JSON: while decoding JSON: ` prefix, or the YAML-to-JSON conversion prefix.
pub fn decode(root: &Node) -> Result<PlatformConfig, DecodeError> {
    let mut cfg = PlatformConfig::default();
    let mut dec = Decoder {
        path: Vec::new(),
        struct_name: "",
        first_error: None,
    };
    // Build the JSON object first so key-conversion errors surface like upstream's conversion step.
    if let Node::Map(_) = root {
        check_keys(root).map_err(DecodeError::Key)?;
    }
    match root {
        Node::Scalar(Scalar::Null) => {}
        Node::Map(_) => {
            let fields = sorted_fields(root);
            for (key, value) in &fields {
                dec.with_field(
                    "FileConfig",
                    key,
                    value,
                    |dec, name, value| match name {
                        "stateSync" => dec.state_sync(value, &mut cfg.state_sync),
                        "scheduling" => dec.scheduling(value, &mut cfg.scheduling),
                        "storage" => dec.storage(value, &mut cfg.storage),
                        "resources" => dec.resources(value, &mut cfg.resources),
                        "snapshot" => dec.bucket(value, &mut cfg.snapshot),
                        "resultExport" => dec.result_export(value, &mut cfg.result_export),
                        "genesis" => dec.bucket(value, &mut cfg.genesis),
                        "images" => dec.images(value, &mut cfg.images),
                        _ => {}
                    },
                    &[
                        "stateSync",
                        "scheduling",
                        "storage",
                        "resources",
                        "snapshot",
                        "resultExport",
                        "genesis",
                        "images",
                    ],
                );
            }
        }
        other => {
            return Err(DecodeError::NotAnObject(json_kind(other)));
        }
    }
    match dec.first_error {
        Some(err) => Err(DecodeError::Field(err)),
        None => Ok(cfg),
    }
}

/// Every map key in the tree must be convertible to a JSON object key.
fn check_keys(node: &Node) -> Result<(), YamlError> {
    match node {
        Node::Map(entries) => {
            for (k, v) in entries {
                key_as_string(k)?;
                check_keys(v)?;
            }
            Ok(())
        }
        Node::Seq(items) => items.iter().try_for_each(check_keys),
        Node::Scalar(_) => Ok(()),
    }
}

/// The map's entries as the JSON object upstream builds: string keys, later duplicates winning,
/// sorted by key bytes (Go's `json.Marshal` of a map).
fn sorted_fields(node: &Node) -> BTreeMap<String, &Node> {
    let mut out = BTreeMap::new();
    if let Node::Map(entries) = node {
        for (k, v) in entries {
            if let Ok(key) = key_as_string(k) {
                out.insert(key, v);
            }
        }
    }
    out
}

fn json_kind(node: &Node) -> &'static str {
    match node {
        Node::Map(_) => "object",
        Node::Seq(_) => "array",
        Node::Scalar(Scalar::Str(_)) => "string",
        Node::Scalar(Scalar::Bool(_)) => "bool",
        Node::Scalar(Scalar::Null) => "null",
        Node::Scalar(_) => "number",
    }
}

impl Decoder {
    /// Matches `key` against `fields` (exact first, then ASCII case-insensitive) and runs `apply`
    /// with the canonical field name; unknown keys are ignored.
    fn with_field(
        &mut self,
        struct_name: &'static str,
        key: &str,
        value: &Node,
        apply: impl FnOnce(&mut Self, &'static str, &Node),
        fields: &[&'static str],
    ) {
        let matched = fields
            .iter()
            .find(|f| **f == key)
            .or_else(|| fields.iter().find(|f| f.eq_ignore_ascii_case(key)));
        if let Some(name) = matched {
            let saved = self.struct_name;
            self.path.push(name);
            self.struct_name = struct_name;
            apply(self, name, value);
            self.path.pop();
            self.struct_name = saved;
        }
    }

    fn type_error(&mut self, value: &Node, go_type: &str) {
        if self.first_error.is_none() {
            self.first_error = Some(format!(
                "json: cannot unmarshal {} into Go struct field {}.{} of type {go_type}",
                json_kind(value),
                self.struct_name,
                self.path.join(".")
            ));
        }
    }

    /// Decodes a struct: `null` is a no-op, a non-object is a type error.
    fn object(
        &mut self,
        value: &Node,
        go_type: &str,
        struct_name: &'static str,
        fields: &[&'static str],
        mut apply: impl FnMut(&mut Self, &'static str, &Node),
    ) {
        match value {
            Node::Scalar(Scalar::Null) => {}
            Node::Map(_) => {
                for (key, v) in sorted_fields(value) {
                    self.with_field(struct_name, &key, v, &mut apply, fields);
                }
            }
            other => self.type_error(other, go_type),
        }
    }

    fn string(&mut self, value: &Node, target: &mut String) {
        match value {
            Node::Scalar(scalar) => {
                if let Some(s) = scalar_as_go_string(scalar) {
                    *target = s;
                }
            }
            other => self.type_error(other, "string"),
        }
    }

    fn scheduling(&mut self, value: &Node, out: &mut SchedulingConfig) {
        const FIELDS: &[&str] = &[
            "nodepoolName",
            "nodepoolArchive",
            "nodepoolValidator",
            "nodepoolSeed",
            "tolerationKey",
            "serviceAccount",
        ];
        self.object(
            value,
            "platform.SchedulingConfig",
            "SchedulingConfig",
            FIELDS,
            |d, name, v| {
                let target = match name {
                    "nodepoolName" => &mut out.nodepool_name,
                    "nodepoolArchive" => &mut out.nodepool_archive,
                    "nodepoolValidator" => &mut out.nodepool_validator,
                    "nodepoolSeed" => &mut out.nodepool_seed,
                    "tolerationKey" => &mut out.toleration_key,
                    _ => &mut out.service_account,
                };
                d.string(v, target);
            },
        );
    }

    fn storage(&mut self, value: &Node, out: &mut StorageConfig) {
        const FIELDS: &[&str] = &[
            "classPerf",
            "classDefault",
            "classArchive",
            "sizeDefault",
            "sizeArchive",
            "sizeSeed",
        ];
        self.object(
            value,
            "platform.StorageConfig",
            "StorageConfig",
            FIELDS,
            |d, name, v| {
                let target = match name {
                    "classPerf" => &mut out.class_perf,
                    "classDefault" => &mut out.class_default,
                    "classArchive" => &mut out.class_archive,
                    "sizeDefault" => &mut out.size_default,
                    "sizeArchive" => &mut out.size_archive,
                    _ => &mut out.size_seed,
                };
                d.string(v, target);
            },
        );
    }

    fn resources(&mut self, value: &Node, out: &mut ResourcesConfig) {
        const FIELDS: &[&str] = &["validator", "node", "replayer", "archive", "seed"];
        self.object(
            value,
            "platform.ResourcesConfig",
            "ResourcesConfig",
            FIELDS,
            |d, name, v| {
                let target = match name {
                    "validator" => &mut out.validator,
                    "node" => &mut out.node,
                    "replayer" => &mut out.replayer,
                    "archive" => &mut out.archive,
                    _ => &mut out.seed,
                };
                d.resource_override(v, target);
            },
        );
    }

    fn resource_override(&mut self, value: &Node, out: &mut ResourceOverride) {
        const FIELDS: &[&str] = &["cpuRequest", "memory"];
        self.object(
            value,
            "platform.ResourceOverride",
            "ResourceOverride",
            FIELDS,
            |d, name, v| {
                let target = if name == "cpuRequest" {
                    &mut out.cpu_request
                } else {
                    &mut out.memory
                };
                d.string(v, target);
            },
        );
    }

    fn bucket(&mut self, value: &Node, out: &mut BucketConfig) {
        const FIELDS: &[&str] = &["bucket", "region"];
        self.object(
            value,
            "platform.BucketConfig",
            "BucketConfig",
            FIELDS,
            |d, name, v| {
                let target = if name == "bucket" {
                    &mut out.bucket
                } else {
                    &mut out.region
                };
                d.string(v, target);
            },
        );
    }

    fn result_export(&mut self, value: &Node, out: &mut ResultExportConfig) {
        const FIELDS: &[&str] = &["bucket", "region", "prefix"];
        self.object(
            value,
            "platform.ResultExportConfig",
            "ResultExportConfig",
            FIELDS,
            |d, name, v| {
                let target = match name {
                    "bucket" => &mut out.bucket,
                    "region" => &mut out.region,
                    _ => &mut out.prefix,
                };
                d.string(v, target);
            },
        );
    }

    fn images(&mut self, value: &Node, out: &mut ImagesConfig) {
        const FIELDS: &[&str] = &["sidecar", "kubeRBACProxy", "cosmosExporter"];
        self.object(
            value,
            "platform.ImagesConfig",
            "ImagesConfig",
            FIELDS,
            |d, name, v| {
                let target = match name {
                    "sidecar" => &mut out.sidecar,
                    "kubeRBACProxy" => &mut out.kube_rbac_proxy,
                    _ => &mut out.cosmos_exporter,
                };
                d.string(v, target);
            },
        );
    }

    fn state_sync(&mut self, value: &Node, out: &mut StateSyncConfig) {
        self.object(
            value,
            "platform.StateSyncConfig",
            "StateSyncConfig",
            &["syncers"],
            |d, _, v| {
                d.syncers(v, &mut out.syncers);
            },
        );
    }

    /// `map[string][]string`: a JSON object decodes into the existing map (keys exact, not folded).
    fn syncers(&mut self, value: &Node, out: &mut BTreeMap<String, Vec<String>>) {
        match value {
            Node::Scalar(Scalar::Null) => {}
            Node::Map(_) => {
                for (chain, list) in sorted_fields(value) {
                    match list {
                        Node::Scalar(Scalar::Null) => {
                            out.insert(chain, Vec::new());
                        }
                        Node::Seq(items) => {
                            let mut entries = Vec::with_capacity(items.len());
                            for item in items {
                                let mut s = String::new();
                                self.string(item, &mut s);
                                entries.push(s);
                            }
                            out.insert(chain, entries);
                        }
                        other => self.type_error(other, "[]string"),
                    }
                }
            }
            other => self.type_error(other, "map[string][]string"),
        }
    }
}
