//! Objects decoded one by one: a list or watch item the console cannot decode is kept with its
//! name and the reason, instead of failing the whole list or ending the watch.
//!
//! kube-rs decodes a list or watch event as one JSON document, so one SeiNode whose
//! `status.plan.tasks[].params` nest past serde_json's recursion limit (128 levels; the field
//! keeps unknown fields, so the API server accepts it) used to fail every list of its
//! namespace. [`Lenient`] takes each item as raw JSON first (serde_json skips a raw value
//! without recursing), then decodes it alone: an item that does not decode becomes
//! [`Lenient::Undecodable`], with the name, namespace and resourceVersion read past everything
//! else.
use std::borrow::Cow;
use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{OwnerReference, Time};
use kube::Resource;
use kube::api::ObjectMeta;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::api::{SeiNode, SeiNodeSpec, SeiNodeStatus};
use crate::fleet::store::{Delta, ObjectKey};
use crate::limits::elide;

/// One list or watch item: decoded, or why not.
#[derive(Debug, Clone)]
pub enum Lenient<K> {
    Decoded(K),
    Undecodable {
        /// Only the identifying fields (name, namespace, uid, resourceVersion).
        metadata: Box<ObjectMeta>,
        reason: String,
    },
}

impl<K> Lenient<K> {
    /// The decoded object, or the key and reason for a skipped one.
    pub fn into_result(self) -> Result<K, (ObjectKey, String)>
    where
        K: Resource,
    {
        match self {
            Lenient::Decoded(object) => Ok(object),
            Lenient::Undecodable { metadata, reason } => Err((key_of(&metadata), reason)),
        }
    }
}

fn key_of(metadata: &ObjectMeta) -> ObjectKey {
    ObjectKey::new(
        metadata.namespace.clone().unwrap_or_default(),
        metadata.name.clone().unwrap_or_default(),
    )
}

/// A store delta for an item the watch listed or saw change: the object, or a skip.
pub fn listed<K: Resource>(item: Lenient<K>, relist: bool) -> Delta<K> {
    match item.into_result() {
        Ok(object) if relist => Delta::relist_item(object),
        Ok(object) => Delta::applied(object),
        Err((key, reason)) => Delta::skipped(key, reason),
    }
}

/// A store delta for a deleted item (only its key matters).
pub fn deleted<K: Resource>(item: Lenient<K>) -> Delta<K> {
    match item.into_result() {
        Ok(object) => Delta::deleted(object),
        Err((key, _)) => Delta::DeletedKey(key),
    }
}

/// The fields a skipped object is still named by; everything else is skipped unread.
#[derive(Deserialize)]
struct Identity {
    #[serde(default)]
    metadata: IdentityMeta,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct IdentityMeta {
    name: Option<String>,
    namespace: Option<String>,
    uid: Option<String>,
    resource_version: Option<String>,
}

/// How a list or watch item is decoded for the screens and `get`: as the type itself, unless
/// the type says otherwise. Such objects are shown, never written back.
pub trait DisplayDecode: DeserializeOwned {
    fn decode_for_display(json: &str) -> serde_json::Result<Self> {
        serde_json::from_str(json)
    }
}

impl DisplayDecode for k8s_openapi::api::core::v1::Event {}
impl DisplayDecode for k8s_openapi::api::core::v1::Pod {}
impl DisplayDecode for k8s_openapi::api::apps::v1::StatefulSet {}

/// A SeiNode as the screens read it: `metadata.managedFields` (often the largest part of a
/// SeiNode with a status) is skipped unread instead of decoded and dropped, and the top level
/// decodes field by field: `SeiNode` keeps unknown top-level keys through `serde(flatten)`,
/// which buffers the whole object, managed fields included, before decoding it. Unknown
/// top-level keys are not kept (the API server sends none).
impl DisplayDecode for SeiNode {
    fn decode_for_display(json: &str) -> serde_json::Result<Self> {
        let shown: DisplayedSeiNode = serde_json::from_str(json)?;
        Ok(SeiNode {
            api_version: shown.api_version,
            kind: shown.kind,
            metadata: shown.metadata.into(),
            spec: shown.spec,
            status: shown.status,
            unknown: Default::default(),
        })
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DisplayedSeiNode {
    #[serde(default)]
    api_version: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    metadata: DisplayedMeta,
    spec: SeiNodeSpec,
    #[serde(default)]
    status: Option<SeiNodeStatus>,
}

/// `ObjectMeta` but `managedFields` (skipped as an unknown key).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct DisplayedMeta {
    annotations: Option<BTreeMap<String, String>>,
    creation_timestamp: Option<Time>,
    deletion_grace_period_seconds: Option<i64>,
    deletion_timestamp: Option<Time>,
    finalizers: Option<Vec<String>>,
    generate_name: Option<String>,
    generation: Option<i64>,
    labels: Option<BTreeMap<String, String>>,
    name: Option<String>,
    namespace: Option<String>,
    owner_references: Option<Vec<OwnerReference>>,
    resource_version: Option<String>,
    self_link: Option<String>,
    uid: Option<String>,
}

impl From<DisplayedMeta> for ObjectMeta {
    fn from(meta: DisplayedMeta) -> ObjectMeta {
        ObjectMeta {
            annotations: meta.annotations,
            creation_timestamp: meta.creation_timestamp,
            deletion_grace_period_seconds: meta.deletion_grace_period_seconds,
            deletion_timestamp: meta.deletion_timestamp,
            finalizers: meta.finalizers,
            generate_name: meta.generate_name,
            generation: meta.generation,
            labels: meta.labels,
            managed_fields: None,
            name: meta.name,
            namespace: meta.namespace,
            owner_references: meta.owner_references,
            resource_version: meta.resource_version,
            self_link: meta.self_link,
            uid: meta.uid,
        }
    }
}

impl<K: DisplayDecode> Lenient<K> {
    /// Decodes one item's JSON.
    pub fn decode(json: &str) -> Lenient<K> {
        match K::decode_for_display(json) {
            Ok(object) => Lenient::Decoded(object),
            Err(error) => {
                let meta = serde_json::from_str::<Identity>(json)
                    .map(|identity| identity.metadata)
                    .unwrap_or_default();
                Lenient::Undecodable {
                    metadata: Box::new(ObjectMeta {
                        name: meta.name,
                        namespace: meta.namespace,
                        uid: meta.uid,
                        resource_version: meta.resource_version,
                        ..ObjectMeta::default()
                    }),
                    reason: decode_reason(&error),
                }
            }
        }
    }
}

/// One short line for a decoding error: the recursion limit in words, else serde's message
/// without its position, elided.
pub fn decode_reason(error: &serde_json::Error) -> String {
    let text = error.to_string();
    if text.starts_with("recursion limit exceeded") {
        return "nested deeper than 128 levels (the JSON decoder's limit)".to_owned();
    }
    // serde_json appends " at line L column C": a position in one API response, no help.
    let message = match text.rfind(" at line ") {
        Some(at) => &text[..at],
        None => text.as_str(),
    };
    format!("cannot decode: {}", elide(message))
}

impl<'de, K: DisplayDecode> Deserialize<'de> for Lenient<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // A raw value is skipped by scanning, not recursion: any depth gets here.
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        Ok(Lenient::decode(raw.get()))
    }
}

impl<K: Resource> Resource for Lenient<K> {
    type DynamicType = K::DynamicType;
    type Scope = K::Scope;

    fn kind(dt: &Self::DynamicType) -> Cow<'_, str> {
        K::kind(dt)
    }
    fn group(dt: &Self::DynamicType) -> Cow<'_, str> {
        K::group(dt)
    }
    fn version(dt: &Self::DynamicType) -> Cow<'_, str> {
        K::version(dt)
    }
    fn plural(dt: &Self::DynamicType) -> Cow<'_, str> {
        K::plural(dt)
    }
    fn meta(&self) -> &ObjectMeta {
        match self {
            Lenient::Decoded(object) => object.meta(),
            Lenient::Undecodable { metadata, .. } => metadata,
        }
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        match self {
            Lenient::Decoded(object) => object.meta_mut(),
            Lenient::Undecodable { metadata, .. } => metadata,
        }
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::ObjectList;

    use super::*;
    use crate::api::SeiNode;

    /// A SeiNode whose first plan task's params nest `levels` deep.
    pub fn deep_seinode_json(name: &str, levels: usize) -> String {
        let params = format!("{}1{}", "{\"a\":".repeat(levels), "}".repeat(levels));
        format!(
            r#"{{"apiVersion":"sei.io/v1alpha1","kind":"SeiNode","metadata":{{"name":"{name}","namespace":"ns","resourceVersion":"7"}},"spec":{{"chainId":"c","image":"i","full":{{}}}},"status":{{"plan":{{"id":"p","phase":"Active","tasks":[{{"type":"config-apply","id":"t","status":"Pending","params":{params}}}]}}}}}}"#
        )
    }

    fn good_seinode_json(name: &str) -> String {
        format!(
            r#"{{"apiVersion":"sei.io/v1alpha1","kind":"SeiNode","metadata":{{"name":"{name}","namespace":"ns"}},"spec":{{"chainId":"c","image":"i","full":{{}}}}}}"#
        )
    }

    #[test]
    fn one_over_deep_item_is_named_and_skipped_and_the_others_decode() {
        let list = format!(
            r#"{{"apiVersion":"sei.io/v1alpha1","kind":"SeiNodeList","metadata":{{"resourceVersion":"9"}},"items":[{},{},{}]}}"#,
            good_seinode_json("a"),
            deep_seinode_json("deep", 200),
            good_seinode_json("b"),
        );
        // The whole list as one typed document fails: the bug this module exists for.
        assert!(serde_json::from_str::<ObjectList<SeiNode>>(&list).is_err());
        let list: ObjectList<Lenient<SeiNode>> = serde_json::from_str(&list).expect("lenient list");
        let results: Vec<_> = list.items.into_iter().map(Lenient::into_result).collect();
        assert_eq!(results.len(), 3);
        assert_eq!(
            results[0].as_ref().map(|n| n.metadata.name.clone()).ok(),
            Some(Some("a".into()))
        );
        let (key, reason) = results[1].as_ref().expect_err("deep one is skipped");
        assert_eq!(key.to_string(), "ns/deep");
        assert_eq!(
            reason,
            "nested deeper than 128 levels (the JSON decoder's limit)"
        );
        assert!(results[2].is_ok());
    }

    #[test]
    fn a_skipped_item_keeps_its_resource_version_for_the_watcher() {
        let item: Lenient<SeiNode> = Lenient::decode(&deep_seinode_json("deep", 300));
        assert_eq!(item.meta().resource_version.as_deref(), Some("7"));
    }

    #[test]
    fn a_wrong_shape_is_one_short_line_without_the_position() {
        let pod: Lenient<Pod> = Lenient::decode(
            r#"{"metadata":{"name":"p","namespace":"ns"},"spec":{"containers":7}}"#,
        );
        let Err((_, reason)) = pod.into_result() else {
            panic!("decoded");
        };
        assert_eq!(
            reason,
            "cannot decode: invalid type: integer `7`, expected a sequence"
        );
    }

    #[test]
    fn a_seinode_decoded_for_display_is_the_whole_decode_but_managed_fields_and_unknown_top_level_keys()
     {
        let node = crate::fleet::sample::patched(
            crate::fleet::sample::running(crate::fleet::sample::node(
                "ns",
                "rpc-0",
                crate::api::NodeMode::Full,
                60,
            )),
            serde_json::json!({
                "metadata": {
                    "labels": {"tier": "rpc"},
                    "annotations": {"a": "b"},
                    "finalizers": ["sei.io/f"],
                    "resourceVersion": "42",
                    "ownerReferences": [{"apiVersion": "v1", "kind": "X", "name": "x", "uid": "u"}],
                },
                "status": {"plan": crate::fleet::sample::plan(&crate::fleet::sample::FULL_INIT_TASKS, 3, None)},
            }),
        );
        let mut json = serde_json::to_value(&node).expect("encodes");
        json["metadata"]["managedFields"] = serde_json::json!([{
            "manager": "kubectl", "operation": "Update", "apiVersion": "sei.io/v1alpha1",
            "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:image": {}}},
        }]);
        json["futureTopLevelKey"] = serde_json::json!({"x": 1});
        let text = json.to_string();
        let whole: SeiNode = serde_json::from_str(&text).expect("decodes");
        assert!(whole.metadata.managed_fields.is_some());
        assert!(!whole.unknown.is_empty());
        let shown = SeiNode::decode_for_display(&text).expect("decodes for display");
        let mut expected = whole;
        expected.metadata.managed_fields = None;
        expected.unknown.clear();
        assert_eq!(shown, expected);
    }
}
