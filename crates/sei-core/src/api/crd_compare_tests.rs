//! The structural CRD comparison on real CRD documents: the embedded one, the test fixtures
//! under `tests/fixtures/crd/` (the upstream CRD with fields added or removed), and the
//! embedded one with an enum value and a CEL rule added.
use serde_json::{Value, json};

use super::crd_compare::{
    Change, CrdComparison, Difference, Skew, compare, compare_crd, version_schema,
};
use super::schema::CRD_YAML;

const NEWER: &str = include_str!("../../../../tests/fixtures/crd/seinodes-newer.yaml");
const OLDER: &str = include_str!("../../../../tests/fixtures/crd/seinodes-older.yaml");

fn crd(yaml: &str) -> Value {
    serde_yaml_ng::from_str(yaml).expect("a CRD document")
}

fn compared(crd: &Value) -> CrdComparison {
    compare_crd(crd).expect("compared")
}

fn schema_mut<'a>(crd: &'a mut Value, pointer: &str) -> &'a mut Value {
    crd.pointer_mut(&format!("/spec/versions/0/schema/openAPIV3Schema{pointer}"))
        .expect("the schema node")
}

#[test]
fn the_embedded_crd_is_equal_to_itself() {
    let ours = compared(&crd(CRD_YAML));
    assert_eq!(ours.skew(), Skew::Equal);
    assert!(ours.differences.is_empty(), "{ours:?}");
    assert_eq!(ours.summary(), "CRD equal");
    assert!(ours.planning().is_empty());
}

#[test]
fn descriptions_and_key_order_do_not_count() {
    let mut reordered = crd(CRD_YAML);
    let spec = schema_mut(&mut reordered, "/properties/spec");
    spec["description"] = json!("another description");
    if let Some(Value::Object(properties)) = spec.get_mut("properties") {
        let reversed: serde_json::Map<String, Value> =
            std::mem::take(properties).into_iter().rev().collect();
        *properties = reversed;
    }
    assert_eq!(compared(&reordered).skew(), Skew::Equal);
}

#[test]
fn a_crd_with_added_fields_is_newer_and_its_spec_field_could_change_planning() {
    let newer = compared(&crd(NEWER));
    assert_eq!(newer.skew(), Skew::Newer);
    let paths: Vec<(&str, &Change)> = newer
        .differences
        .iter()
        .map(|d| (d.path.as_str(), &d.change))
        .collect();
    assert_eq!(
        paths,
        [
            ("spec.maintenance", &Change::Added),
            ("status.maintenanceSince", &Change::Added)
        ]
    );
    assert_eq!(newer.summary(), "CRD newer: 2 fields");
    let planning: Vec<&str> = newer.planning().iter().map(|d| d.path.as_str()).collect();
    assert_eq!(planning, ["spec.maintenance"]);
    assert!(newer.missing_written(&["spec.image", "status"]).is_empty());
    assert_eq!(
        newer.differences[0].to_string(),
        "spec.maintenance: a field the console does not know"
    );
}

#[test]
fn a_crd_without_a_field_the_console_writes_is_older_and_names_the_writes_it_drops() {
    let older = compared(&crd(OLDER));
    assert_eq!(older.skew(), Skew::Older);
    assert_eq!(older.summary(), "CRD older: 1 field");
    assert!(older.planning().is_empty());
    let dropped: Vec<&str> = older
        .missing_written(&["spec.externalAddress", "status.plan"])
        .iter()
        .map(|d| d.path.as_str())
        .collect();
    assert_eq!(dropped, ["spec.externalAddress"]);
    assert!(older.missing_written(&["spec.image"]).is_empty());
    // A write of a whole object the cluster lacks a part of is a write of that part.
    assert_eq!(older.missing_written(&["spec"]).len(), 1);
    assert!(older.missing_written(&["spec.external"]).is_empty());
}

#[test]
fn a_changed_enum_is_named_value_by_value() {
    let mut changed = crd(CRD_YAML);
    let phase = schema_mut(&mut changed, "/properties/status/properties/phase");
    let values = phase["enum"].as_array_mut().expect("phase is an enum");
    let dropped = values.remove(0);
    values.push(json!("Held"));
    let comparison = compared(&changed);
    assert_eq!(comparison.skew(), Skew::Both);
    assert_eq!(
        comparison
            .differences
            .iter()
            .map(|d| &d.change)
            .collect::<Vec<_>>(),
        [
            &Change::EnumValuesAdded {
                values: vec!["Held".into()]
            },
            &Change::EnumValuesRemoved {
                values: vec![dropped.as_str().expect("a string").to_owned()]
            }
        ]
    );
    assert!(
        comparison
            .differences
            .iter()
            .all(|d| d.path == "status.phase")
    );
    assert_eq!(comparison.summary(), "CRD newer: 1, older: 1");
    // A status value is the controller's output: it does not change what the port plans.
    assert!(comparison.planning().is_empty());
}

#[test]
fn a_new_spec_enum_value_could_change_planning() {
    // The upstream spec has no enum yet: give both sides one on `spec.chainId`, the cluster's
    // with a value more.
    let schema = version_schema(&crd(CRD_YAML), "v1alpha1")
        .expect("schema")
        .clone();
    let with_enum = |values: Value| {
        let mut schema = schema.clone();
        schema
            .pointer_mut("/properties/spec/properties/chainId")
            .expect("chainId")["enum"] = values;
        schema
    };
    let comparison = compare(
        &with_enum(json!(["pacific-1", "atlantic-2"])),
        &with_enum(json!(["pacific-1", "atlantic-2", "arctic-1"])),
    );
    assert_eq!(comparison.skew(), Skew::Newer);
    assert_eq!(
        comparison.differences,
        [Difference {
            path: "spec.chainId".into(),
            change: Change::EnumValuesAdded {
                values: vec!["arctic-1".into()]
            }
        }]
    );
    assert_eq!(comparison.planning().len(), 1);
    // An enum where the port has none only restricts values: newer, not a planning field.
    let introduced = compare(&schema, &with_enum(json!(["pacific-1"])));
    assert_eq!(introduced.skew(), Skew::Newer);
    assert!(introduced.planning().is_empty());
}

#[test]
fn a_new_cel_rule_is_newer_and_only_the_rule_is_named() {
    let mut changed = crd(CRD_YAML);
    let spec = schema_mut(&mut changed, "/properties/spec");
    let rule = "!has(self.paused) || !self.paused || has(self.image)";
    match spec.get_mut("x-kubernetes-validations") {
        Some(Value::Array(rules)) => rules.push(json!({"rule": rule, "message": "m"})),
        _ => spec["x-kubernetes-validations"] = json!([{"rule": rule, "message": "m"}]),
    }
    let comparison = compared(&changed);
    assert_eq!(comparison.skew(), Skew::Newer);
    assert_eq!(
        comparison
            .differences
            .iter()
            .map(|d| (d.path.as_str(), &d.change))
            .collect::<Vec<_>>(),
        [(
            "spec",
            &Change::RulesAdded {
                rules: vec![rule.to_owned()]
            }
        )]
    );
    // A new rule refuses writes; it does not change what the port plans.
    assert!(comparison.planning().is_empty());
}

#[test]
fn a_changed_type_is_both_newer_and_older() {
    let mut changed = crd(CRD_YAML);
    schema_mut(&mut changed, "/properties/spec/properties/paused")["type"] = json!("string");
    let comparison = compared(&changed);
    assert_eq!(comparison.skew(), Skew::Both);
    assert_eq!(comparison.planning().len(), 1);
    assert_eq!(comparison.missing_written(&["spec.paused"]).len(), 1);
    assert_eq!(
        comparison.differences[0].to_string(),
        "spec.paused: type string in the cluster, boolean in the console"
    );
}

#[test]
fn a_crd_without_the_served_version_says_so() {
    let mut other = crd(CRD_YAML);
    other["spec"]["versions"][0]["name"] = json!("v1beta1");
    assert_eq!(
        compare_crd(&other).expect_err("no v1alpha1").to_string(),
        "the cluster's SeiNode CRD has no openAPIV3Schema for v1alpha1"
    );
}

#[test]
fn a_node_carrying_fields_outside_the_schema_names_them_at_any_depth() {
    let node: super::SeiNode = serde_json::from_value(json!({
        "apiVersion": "sei.io/v1alpha1",
        "kind": "SeiNode",
        "metadata": {"name": "n", "namespace": "ns"},
        "spec": {"chainId": "c", "image": "i", "fullNode": {}, "maintenance": {"hold": true}},
        "status": {"phase": "Running", "maintenanceSince": "2026-01-01T00:00:00Z"}
    }))
    .expect("decodes");
    assert_eq!(
        super::schema::node_unknown_field_paths(&node).expect("schema"),
        ["spec.maintenance", "status.maintenanceSince"]
    );
}
