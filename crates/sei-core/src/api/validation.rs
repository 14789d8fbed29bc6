//! What the API server would refuse in a SeiNode's `spec` on create, checked offline against the
//! embedded CRD schema (`schema::open_api_schema`): `required`, `pattern`, `minLength`,
//! `maxLength`, `minimum`, `maximum`, `minItems`, `maxItems`, `enum`, and the
//! `x-kubernetes-validations` CEL rules (evaluated with the `cel` crate; transition rules that
//! read `oldSelf` do not apply to a create and are skipped, as the API server skips them).
//! `render -f` and `plan -f` take manifests no API server has checked; without this they rendered
//! e.g. a `spec.chainId` outside its pattern into the pod's shell script.
//!
//! Messages are the API server's (apiextensions-apiserver's field errors over kube-openapi's
//! wording), so the operator sees what `kubectl apply` would say; an integration test compares
//! them with a real kube-apiserver's answers.
use std::sync::OnceLock;

use serde_json::Value;

use super::schema::{SchemaError, open_api_schema};

/// One field the API server would refuse.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// `spec.chainId`, `spec.peers[0]`.
    pub path: String,
    pub kind: ViolationKind,
}

/// What is wrong with the field, with what the schema asks.
#[derive(Debug, Clone, PartialEq)]
pub enum ViolationKind {
    Required,
    Pattern {
        value: String,
        pattern: String,
    },
    TooShort {
        value: String,
        min: u64,
    },
    TooLong {
        value: String,
        max: u64,
    },
    BelowMinimum {
        value: Value,
        minimum: Value,
    },
    AboveMaximum {
        value: Value,
        maximum: Value,
    },
    TooFewItems {
        count: usize,
        min: u64,
    },
    TooManyItems {
        count: usize,
        max: u64,
    },
    NotSupported {
        value: Value,
        allowed: Vec<String>,
    },
    /// A CEL rule evaluated to false: its message (or the rule when it has none).
    Rule {
        message: String,
    },
    /// The CEL rules were skipped because of a blocking violation (the API server's last line).
    RulesNotChecked,
}

impl ViolationKind {
    /// Whether the API server skips the CEL rules because of it (`hasBlockingErr`: required,
    /// too long, too many, not supported, wrong type).
    fn blocks_rules(&self) -> bool {
        matches!(
            self,
            Self::Required
                | Self::TooLong { .. }
                | Self::TooManyItems { .. }
                | Self::NotSupported { .. }
        )
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = &self.path;
        match &self.kind {
            ViolationKind::Required => write!(f, "{path}: Required value"),
            ViolationKind::Pattern { value, pattern } => write!(
                f,
                "{path}: Invalid value: {value:?}: {path} in body should match '{pattern}'"
            ),
            ViolationKind::TooShort { value, min } => write!(
                f,
                "{path}: Invalid value: {value:?}: {path} in body should be at least {min} chars long"
            ),
            ViolationKind::TooLong { max, .. } => {
                write!(f, "{path}: Too long: may not be more than {max} bytes")
            }
            ViolationKind::BelowMinimum { value, minimum } => write!(
                f,
                "{path}: Invalid value: {value}: {path} in body should be greater than or equal to {minimum}"
            ),
            ViolationKind::AboveMaximum { value, maximum } => write!(
                f,
                "{path}: Invalid value: {value}: {path} in body should be less than or equal to {maximum}"
            ),
            ViolationKind::TooFewItems { count, min } => write!(
                f,
                "{path}: Invalid value: {count}: {path} in body should have at least {min} items"
            ),
            ViolationKind::TooManyItems { count, max } => {
                write!(
                    f,
                    "{path}: Too many: {count}: must have at most {max} items"
                )
            }
            ViolationKind::NotSupported { value, allowed } => {
                let allowed: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
                write!(
                    f,
                    "{path}: Unsupported value: {value}: supported values: {}",
                    allowed.join(", ")
                )
            }
            ViolationKind::Rule { message } => {
                write!(f, "{path}: Invalid value: {message}")
            }
            ViolationKind::RulesNotChecked => write!(
                f,
                "{path}: Invalid value: null: some validation rules were not checked because the \
                 object was invalid; correct the existing errors to complete validation"
            ),
        }
    }
}

/// The API server's refusal of a whole object: `SeiNode.sei.io "NAME" is invalid: …`, the
/// violations in brackets when there are several.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct Invalid {
    pub name: String,
    pub violations: Vec<Violation>,
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SeiNode.sei.io {:?} is invalid: ", self.name)?;
        match self.violations.as_slice() {
            [one] => write!(f, "{one}"),
            many => {
                let each: Vec<String> = many.iter().map(ToString::to_string).collect();
                write!(f, "[{}]", each.join(", "))
            }
        }
    }
}

/// Why the check itself could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// A CEL rule of the embedded CRD does not compile or evaluate (a corrupted asset or a rule
    /// the `cel` crate cannot run): named, never taken as passed silently.
    #[error("the CRD rule {rule:?} at {path} cannot be evaluated: {reason}")]
    Rule {
        path: String,
        rule: String,
        reason: String,
    },
}

/// Checks `object` (a SeiNode as JSON) as the API server would on create: `Ok(())` or the
/// refusal with every violation of `spec`.
pub fn validate_create(object: &Value) -> Result<Result<(), Invalid>, ValidationError> {
    let schema = open_api_schema()?;
    let mut violations = Vec::new();
    if let (Some(spec_schema), Some(spec)) =
        (schema.pointer("/properties/spec"), object.get("spec"))
    {
        walk(spec_schema, spec, "spec", &mut violations);
        // As the API server: a violation that bounds or types the object blocks the CEL rules
        // (apiextensions' `hasBlockingErr`), which are then said not to have been checked.
        if violations.iter().any(|v| v.kind.blocks_rules()) {
            violations.push(Violation {
                path: "<nil>".into(),
                kind: ViolationKind::RulesNotChecked,
            });
        } else {
            walk_rules(spec_schema, spec, "spec", &mut violations)?;
        }
    }
    if violations.is_empty() {
        return Ok(Ok(()));
    }
    let name = object
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    Ok(Err(Invalid { name, violations }))
}

/// The OpenAPI checks (kube-openapi's), depth first: the value's own, then each property or
/// item, then `required`.
fn walk(schema: &Value, value: &Value, path: &str, out: &mut Vec<Violation>) {
    let mut push = |kind| {
        out.push(Violation {
            path: path.to_owned(),
            kind,
        })
    };
    match value {
        Value::String(text) => check_string(schema, text, &mut push),
        Value::Number(_) => check_number(schema, value, &mut push),
        Value::Array(items) => check_items(schema, items.len(), &mut push),
        _ => {}
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        push(ViolationKind::NotSupported {
            value: value.clone(),
            allowed: allowed.iter().map(shown_scalar).collect(),
        });
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (key, child) in map {
                let child_schema = properties.and_then(|p| p.get(key)).or(additional);
                if let Some(child_schema) = child_schema {
                    walk(child_schema, child, &format!("{path}.{key}"), out);
                }
            }
            // After the properties, as the API server orders its answer.
            for required in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !map.contains_key(required) {
                    out.push(Violation {
                        path: format!("{path}.{required}"),
                        kind: ViolationKind::Required,
                    });
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

/// The CEL rules, as the API server's CEL validator visits them: a node's own rules, then its
/// properties' and items'.
fn walk_rules(
    schema: &Value,
    value: &Value,
    path: &str,
    out: &mut Vec<Violation>,
) -> Result<(), ValidationError> {
    check_rules(schema, value, path, out)?;
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|a| a.is_object());
            for (key, child) in map {
                if let Some(child_schema) = properties.and_then(|p| p.get(key)).or(additional) {
                    walk_rules(child_schema, child, &format!("{path}.{key}"), out)?;
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    walk_rules(item_schema, item, &format!("{path}[{index}]"), out)?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

fn check_string(schema: &Value, text: &str, push: &mut impl FnMut(ViolationKind)) {
    let chars = text.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64)
        && chars < min
    {
        push(ViolationKind::TooShort {
            value: text.to_owned(),
            min,
        });
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
        && chars > max
    {
        push(ViolationKind::TooLong {
            value: text.to_owned(),
            max,
        });
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
        && !pattern_matches(pattern, text)
    {
        push(ViolationKind::Pattern {
            value: text.to_owned(),
            pattern: pattern.to_owned(),
        });
    }
}

/// A CRD pattern and its compiled form (`None`: the `regex` crate could not compile it).
type CompiledPattern = (String, Option<regex::Regex>);

/// The CRD's patterns compiled once. A pattern the `regex` crate cannot compile (none in this
/// CRD) is not enforced: the API server would have refused to install such a CRD.
fn pattern_matches(pattern: &str, text: &str) -> bool {
    static COMPILED: OnceLock<std::sync::Mutex<Vec<CompiledPattern>>> = OnceLock::new();
    let mut cache = COMPILED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, compiled)) = cache.iter().find(|(p, _)| p == pattern) {
        return compiled.as_ref().is_none_or(|re| re.is_match(text));
    }
    let compiled = regex::Regex::new(pattern).ok();
    let matches = compiled.as_ref().is_none_or(|re| re.is_match(text));
    cache.push((pattern.to_owned(), compiled));
    matches
}

fn check_number(schema: &Value, value: &Value, push: &mut impl FnMut(ViolationKind)) {
    let number = value.as_f64().unwrap_or_default();
    if let Some(minimum) = schema.get("minimum")
        && minimum.as_f64().is_some_and(|min| number < min)
    {
        push(ViolationKind::BelowMinimum {
            value: value.clone(),
            minimum: minimum.clone(),
        });
    }
    if let Some(maximum) = schema.get("maximum")
        && maximum.as_f64().is_some_and(|max| number > max)
    {
        push(ViolationKind::AboveMaximum {
            value: value.clone(),
            maximum: maximum.clone(),
        });
    }
}

fn check_items(schema: &Value, count: usize, push: &mut impl FnMut(ViolationKind)) {
    if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
        && (count as u64) < min
    {
        push(ViolationKind::TooFewItems { count, min });
    }
    if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
        && (count as u64) > max
    {
        push(ViolationKind::TooManyItems { count, max });
    }
}

fn shown_scalar(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The node's `x-kubernetes-validations` rules with `self` bound to `value`.
fn check_rules(
    schema: &Value,
    value: &Value,
    path: &str,
    out: &mut Vec<Violation>,
) -> Result<(), ValidationError> {
    let rules = schema
        .get("x-kubernetes-validations")
        .and_then(Value::as_array);
    for rule in rules.into_iter().flatten() {
        let Some(text) = rule.get("rule").and_then(Value::as_str) else {
            continue;
        };
        if text.contains("oldSelf") {
            continue;
        }
        let cannot = |reason: String| ValidationError::Rule {
            path: path.to_owned(),
            rule: text.to_owned(),
            reason,
        };
        let program = cel::Program::compile(text).map_err(|e| cannot(e.to_string()))?;
        let bound = cel::to_value(value).map_err(|e| cannot(e.to_string()))?;
        let mut context = cel::Context::default();
        context.add_variable_from_value("self", bound);
        match program.execute(&context) {
            Ok(cel::Value::Bool(true)) => {}
            Ok(cel::Value::Bool(false)) => out.push(Violation {
                path: path.to_owned(),
                kind: ViolationKind::Rule {
                    message: rule
                        .get("message")
                        .and_then(Value::as_str)
                        .map_or_else(|| format!("failed rule: {text}"), str::to_owned),
                },
            }),
            Ok(other) => return Err(cannot(format!("evaluated to {other:?}, not a bool"))),
            Err(err) => return Err(cannot(err.to_string())),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
