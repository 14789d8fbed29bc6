//! A manifest as the API server holds it before it validates: the CRD's structural decoding
//! (k8s.io/apiextensions-apiserver `pkg/apiserver/schema/defaulting`) first removes the nulls of
//! fields that are neither `nullable` nor defaulted (`PruneNonNullableNullsWithoutDefaults`),
//! then fills in the schema's `default`s, for absent fields and for the nulls it left
//! (`Default`). So `fullNode: {snapshot: null}` is stored as `fullNode: {}`, and the CEL rules
//! never see the null. Array items are walked but never removed. Pure: the embedded CRD's
//! `openAPIV3Schema` is the schema.
use serde_json::Value;

use super::schema::{SchemaError, open_api_schema};

/// Rewrites `object` (a SeiNode as JSON) as the API server decodes it before validation.
pub fn as_the_api_server_decodes(object: &mut Value) -> Result<(), SchemaError> {
    let schema = open_api_schema()?;
    prune_non_nullable_nulls(object, Some(schema));
    apply_defaults(object, Some(schema));
    Ok(())
}

/// The schema of `field` of an object of schema `schema`: its property, else
/// `additionalProperties` when that is a schema.
fn field_schema<'a>(schema: Option<&'a Value>, field: &str) -> Option<&'a Value> {
    let schema = schema?;
    schema
        .get("properties")
        .and_then(|p| p.get(field))
        .or_else(|| schema.get("additionalProperties").filter(|a| a.is_object()))
}

fn nullable(schema: &Value) -> bool {
    schema.get("nullable") == Some(&Value::Bool(true))
}

fn prune_non_nullable_nulls(value: &mut Value, schema: Option<&Value>) {
    match value {
        Value::Object(map) => {
            map.retain(|key, child| {
                let child_schema = field_schema(schema, key);
                !(child.is_null()
                    && child_schema.is_some_and(|s| !nullable(s) && s.get("default").is_none()))
            });
            for (key, child) in map.iter_mut() {
                prune_non_nullable_nulls(child, field_schema(schema, key));
            }
        }
        Value::Array(items) => {
            let items_schema = schema.and_then(|s| s.get("items"));
            for item in items {
                prune_non_nullable_nulls(item, items_schema);
            }
        }
        _ => {}
    }
}

fn apply_defaults(value: &mut Value, schema: Option<&Value>) {
    let Some(schema) = schema else {
        return;
    };
    let non_nullable_null = |v: &Value, s: &Value| v.is_null() && !nullable(s);
    match value {
        Value::Object(map) => {
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (key, property) in properties {
                    let Some(default) = property.get("default") else {
                        continue;
                    };
                    if map.get(key).is_none_or(|v| non_nullable_null(v, property)) {
                        map.insert(key.clone(), default.clone());
                    }
                }
            }
            for (key, child) in map.iter_mut() {
                apply_defaults(child, field_schema(Some(schema), key));
            }
        }
        Value::Array(items) => {
            let Some(items_schema) = schema.get("items") else {
                return;
            };
            for item in items {
                if non_nullable_null(item, items_schema)
                    && let Some(default) = items_schema.get("default")
                {
                    *item = default.clone();
                }
                apply_defaults(item, Some(items_schema));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn decoded(mut object: Value) -> Value {
        as_the_api_server_decodes(&mut object).expect("schema");
        object
    }

    /// Issue 33: the API server accepts this manifest; the nulls never reach the CEL rules.
    #[test]
    fn nulls_of_non_nullable_fields_are_dropped() {
        let object = decoded(json!({"spec": {
            "chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0",
            "fullNode": {"snapshot": null, "snapshotGeneration": null},
        }}));
        assert_eq!(object["spec"]["fullNode"], json!({}));
        assert_eq!(
            super::super::validation::validate_create(&object).expect("rules"),
            Ok(())
        );
    }

    #[test]
    fn defaults_fill_absent_fields_and_nulls_with_a_default() {
        let object = decoded(json!({"spec": {"sidecar": {"image": "x"}}}));
        assert_eq!(object["spec"]["sidecar"]["port"], 7777);
        let object = decoded(json!({"spec": {"sidecar": {"port": null}}}));
        assert_eq!(
            object["spec"]["sidecar"]["port"], 7777,
            "a null with a default"
        );
        let object = decoded(json!({"spec": {"sidecar": {"port": 9000}}}));
        assert_eq!(object["spec"]["sidecar"]["port"], 9000, "a value is kept");
    }

    #[test]
    fn unknown_fields_and_array_items_are_left_alone() {
        let object = decoded(json!({"spec": {"notAField": null, "peers": [null]}}));
        assert_eq!(
            object["spec"]["notAField"],
            Value::Null,
            "pruned elsewhere, not here"
        );
        assert_eq!(
            object["spec"]["peers"],
            json!([null]),
            "items are never removed"
        );
    }
}
