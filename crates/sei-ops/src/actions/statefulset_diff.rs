//! The StatefulSet part of a preview: the StatefulSet the node would get after the change,
//! applied by the API server as a server-side dry run (`dryRun=All`) over the live object, and
//! the fields that would change. Only what an operator reads is compared (replicas, annotations,
//! volumes, each container's image, command, args and env); server bookkeeping
//! (resourceVersion, managedFields, generation, defaults both sides share) never shows.
//!
//! Needs `get` and `patch` on `statefulsets`; without them the preview says why, and the action is
//! not refused for it.
use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{Container, EnvVar, PodSpec, Volume};
use serde::Serialize;
use serde_json::Value;

use crate::api::SeiNode;
use crate::ports::{ClusterApi, ClusterObject, ObjectKind};
use crate::tasks::WorkloadRenderer;
use crate::tasks::apply_statefulset::desired_statefulset;

/// One field that differs between the live StatefulSet and the dry-run result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    pub path: String,
    /// `None` when the field is added.
    pub before: Option<Value>,
    /// `None` when the field is removed.
    pub after: Option<Value>,
}

/// What the StatefulSet would look like after the change.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum StatefulSetPreview {
    /// The dry run over the live object changes these fields.
    Changes {
        name: String,
        changes: Vec<FieldChange>,
    },
    /// The dry run over the live object changes none of the compared fields.
    Unchanged { name: String },
    /// No live StatefulSet: the plan's apply-statefulset would create it.
    NoLive { name: String },
    /// The StatefulSet cannot be rendered (the controller would record StatefulSetRenderFailed).
    RenderFailed { message: String },
    /// Reading the live object or the dry run failed (forbidden, invalid...).
    Unavailable { message: String },
}

/// Renders the StatefulSet for `node` (the node as it would be after the change), reads the live
/// one and asks the API server for a server-side apply dry run over it.
pub async fn statefulset_preview(
    cluster: &dyn ClusterApi,
    renderer: &dyn WorkloadRenderer,
    node: &SeiNode,
) -> StatefulSetPreview {
    let desired = match desired_statefulset(renderer, node) {
        Ok(desired) => desired,
        Err(err) => {
            return StatefulSetPreview::RenderFailed {
                message: err.to_string(),
            };
        }
    };
    let name = desired.metadata.name.clone().unwrap_or_default();
    let live = match cluster
        .get(ObjectKind::StatefulSet, node.namespace(), &name)
        .await
    {
        Ok(Some(ClusterObject::StatefulSet(live))) => live,
        Ok(_) => return StatefulSetPreview::NoLive { name },
        Err(err) => {
            return StatefulSetPreview::Unavailable {
                message: format!("reading StatefulSet {name}: {err}"),
            };
        }
    };
    let after = match cluster
        .apply_dry_run(&ClusterObject::StatefulSet(desired))
        .await
    {
        Ok(ClusterObject::StatefulSet(after)) => after,
        Ok(_) => {
            return StatefulSetPreview::Unavailable {
                message: format!("dry run of StatefulSet {name} answered another kind"),
            };
        }
        Err(err) => {
            return StatefulSetPreview::Unavailable {
                message: format!("server-side dry run of StatefulSet {name}: {err}"),
            };
        }
    };
    let changes = statefulset_changes(&live, &after);
    if changes.is_empty() {
        StatefulSetPreview::Unchanged { name }
    } else {
        StatefulSetPreview::Changes { name, changes }
    }
}

/// The compared fields of `live` and `after` that differ, in a stable order.
pub fn statefulset_changes(live: &StatefulSet, after: &StatefulSet) -> Vec<FieldChange> {
    let mut changes = Vec::new();
    let replicas = |s: &StatefulSet| s.spec.replicas.map(Value::from);
    push(
        &mut changes,
        "spec.replicas".into(),
        replicas(live),
        replicas(after),
    );
    diff_maps(
        &mut changes,
        "metadata.annotations",
        &string_map(live.metadata.annotations.as_ref()),
        &string_map(after.metadata.annotations.as_ref()),
    );
    let template_annotations = |s: &StatefulSet| {
        string_map(
            s.spec
                .template
                .metadata
                .as_ref()
                .and_then(|m| m.annotations.as_ref()),
        )
    };
    diff_maps(
        &mut changes,
        "spec.template.metadata.annotations",
        &template_annotations(live),
        &template_annotations(after),
    );
    let pod = |s: &StatefulSet| -> PodSpec { s.spec.template.spec.clone().unwrap_or_default() };
    let (before_pod, after_pod) = (pod(live), pod(after));
    diff_maps(
        &mut changes,
        "spec.template.spec.volumes",
        &volumes(before_pod.volumes.as_deref()),
        &volumes(after_pod.volumes.as_deref()),
    );
    for (field, before, after) in [
        (
            "initContainers",
            before_pod.init_containers.as_deref(),
            after_pod.init_containers.as_deref(),
        ),
        (
            "containers",
            Some(before_pod.containers.as_slice()),
            Some(after_pod.containers.as_slice()),
        ),
    ] {
        diff_containers(
            &mut changes,
            field,
            before.unwrap_or(&[]),
            after.unwrap_or(&[]),
        );
    }
    changes
}

fn push(changes: &mut Vec<FieldChange>, path: String, before: Option<Value>, after: Option<Value>) {
    if before != after {
        changes.push(FieldChange {
            path,
            before,
            after,
        });
    }
}

fn diff_maps(
    changes: &mut Vec<FieldChange>,
    prefix: &str,
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
) {
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for key in keys {
        push(
            changes,
            format!("{prefix}[{key}]"),
            before.get(key).cloned(),
            after.get(key).cloned(),
        );
    }
}

fn string_map(map: Option<&BTreeMap<String, String>>) -> BTreeMap<String, Value> {
    map.into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
        .collect()
}

/// Each volume by name, its source as JSON.
fn volumes(volumes: Option<&[Volume]>) -> BTreeMap<String, Value> {
    volumes
        .unwrap_or(&[])
        .iter()
        .map(|v| {
            let mut value = serde_json::to_value(v).unwrap_or(Value::Null);
            if let Some(object) = value.as_object_mut() {
                object.remove("name");
            }
            (v.name.clone(), value)
        })
        .collect()
}

fn diff_containers(
    changes: &mut Vec<FieldChange>,
    field: &str,
    before: &[Container],
    after: &[Container],
) {
    let by_name = |list: &[Container]| -> BTreeMap<String, Container> {
        list.iter().map(|c| (c.name.clone(), c.clone())).collect()
    };
    let (before, after) = (by_name(before), by_name(after));
    let names: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for name in names {
        let prefix = format!("spec.template.spec.{field}[{name}]");
        let image = |c: &Container| c.image.as_deref().map(Value::from);
        match (before.get(name), after.get(name)) {
            (Some(b), Some(a)) => {
                push(changes, format!("{prefix}.image"), image(b), image(a));
                let list = |v: &Option<Vec<String>>| v.as_ref().map(|l| Value::from(l.clone()));
                push(
                    changes,
                    format!("{prefix}.command"),
                    list(&b.command),
                    list(&a.command),
                );
                push(
                    changes,
                    format!("{prefix}.args"),
                    list(&b.args),
                    list(&a.args),
                );
                diff_maps(
                    changes,
                    &format!("{prefix}.env"),
                    &env(b.env.as_deref()),
                    &env(a.env.as_deref()),
                );
            }
            (b, a) => push(changes, prefix, b.and_then(image), a.and_then(image)),
        }
    }
}

/// Each env var by name: its value, or its `valueFrom` as JSON.
fn env(vars: Option<&[EnvVar]>) -> BTreeMap<String, Value> {
    vars.unwrap_or(&[])
        .iter()
        .map(|v| {
            let value = match (&v.value, &v.value_from) {
                (_, Some(from)) => {
                    serde_json::json!({"valueFrom": serde_json::to_value(from).unwrap_or(Value::Null)})
                }
                (value, None) => Value::from(value.clone().unwrap_or_default()),
            };
            (v.name.clone(), value)
        })
        .collect()
}

/// Text lines of a StatefulSet preview (`~` changed, `+` added, `-` removed).
pub fn statefulset_text(text: &mut String, preview: &StatefulSetPreview) {
    use std::fmt::Write as _;
    match preview {
        StatefulSetPreview::Changes { name, changes } => {
            let _ = writeln!(
                text,
                "StatefulSet {name} (server-side dry run against the live object), {} changes:",
                changes.len()
            );
            for change in changes {
                let line = match (&change.before, &change.after) {
                    (Some(b), Some(a)) => format!("  ~ {}: {b} -> {a}", change.path),
                    (None, Some(a)) => format!("  + {}: {a}", change.path),
                    (Some(b), None) => format!("  - {}: {b}", change.path),
                    (None, None) => continue,
                };
                let _ = writeln!(text, "{line}");
            }
        }
        StatefulSetPreview::Unchanged { name } => {
            let _ = writeln!(
                text,
                "StatefulSet {name}: no change (server-side dry run against the live object)"
            );
        }
        StatefulSetPreview::NoLive { name } => {
            let _ = writeln!(
                text,
                "StatefulSet {name}: no live StatefulSet to compare with; apply-statefulset would create it"
            );
        }
        StatefulSetPreview::RenderFailed { message } => {
            let _ = writeln!(text, "StatefulSet: cannot be rendered: {message}");
        }
        StatefulSetPreview::Unavailable { message } => {
            let _ = writeln!(text, "StatefulSet diff unavailable: {message}");
        }
    }
}

#[cfg(test)]
mod tests;
