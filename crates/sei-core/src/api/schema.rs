//! The upstream CRD's `openAPIV3Schema`, embedded, and a walk that finds fields it does not
//! declare (what the API server would prune from a manifest).
use std::sync::OnceLock;

use serde_json::Value;

/// The upstream CRD manifest, byte-identical (`assets/crd/sei.io_seinodes.yaml`).
pub const CRD_YAML: &str = include_str!("../../../../assets/crd/sei.io_seinodes.yaml");

/// The embedded CRD could not be read (only possible if the asset is corrupted).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("embedded SeiNode CRD is unreadable: {0}")]
pub struct SchemaError(String);

/// The embedded CRD manifest as JSON.
pub fn embedded_crd() -> Result<&'static Value, SchemaError> {
    static CRD: OnceLock<Result<Value, SchemaError>> = OnceLock::new();
    CRD.get_or_init(|| {
        serde_yaml_ng::from_str(CRD_YAML).map_err(|err| SchemaError(err.to_string()))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// The `openAPIV3Schema` of the CRD's (only) version.
pub fn open_api_schema() -> Result<&'static Value, SchemaError> {
    embedded_crd()?
        .pointer("/spec/versions/0/schema/openAPIV3Schema")
        .ok_or_else(|| SchemaError("no spec.versions[0].schema.openAPIV3Schema".into()))
}

/// Dotted paths (`spec.genesis`, `spec.peers[0].foo`) of the keys in `object` (a SeiNode as
/// JSON) that the CRD schema does not declare. `metadata` is Kubernetes' own and not checked.
pub fn unknown_field_paths(object: &Value) -> Result<Vec<String>, SchemaError> {
    let schema = open_api_schema()?;
    let mut out = Vec::new();
    if let Value::Object(map) = object {
        for (key, value) in map {
            if key == "metadata" {
                continue;
            }
            match schema.pointer(&format!("/properties/{key}")) {
                Some(child) => walk(child, value, key, &mut out),
                None => out.push(key.clone()),
            }
        }
    }
    Ok(out)
}

fn walk(schema: &Value, value: &Value, path: &str, out: &mut Vec<String>) {
    if schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
        return;
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties");
            for (key, child_value) in map {
                let child_path = format!("{path}.{key}");
                if let Some(child) = properties.and_then(|props| props.get(key)) {
                    walk(child, child_value, &child_path, out);
                } else if let Some(child) = additional.filter(|a| a.is_object()) {
                    walk(child, child_value, &child_path, out);
                } else {
                    out.push(child_path);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    walk(item_schema, item, &format!("{path}[{index}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// The paths of `node`'s fields outside the embedded schema (spec, status, any depth): what a
/// SeiNode read from a cluster with a newer CRD carries that the port does not know (the
/// decoder keeps them in `unknown`; the planner would ignore them).
pub fn node_unknown_field_paths(node: &super::SeiNode) -> Result<Vec<String>, SchemaError> {
    let value = serde_json::to_value(node).map_err(|err| SchemaError(err.to_string()))?;
    unknown_field_paths(&value)
}
