//! The cluster's SeiNode CRD compared with the embedded one, structurally: the fields each
//! declares, their types, their enums and their CEL rules (`x-kubernetes-validations`).
//! Descriptions, printer columns and the order of keys do not count.
//!
//! The outcome ([`CrdComparison`]) is one of four [`Skew`]s: equal; older (the cluster lacks
//! fields or values the port knows: a write of them would be pruned or refused); newer (the
//! cluster has fields, values or rules the port does not know: the controller that installed
//! them may plan differently); or both. What it means for actions: [`CrdComparison::planning`]
//! (spec fields or values the port does not know, which could change a plan: the embedded
//! executor does not act while there are any) and [`CrdComparison::missing_written`] (fields an
//! action writes that the cluster would drop).
//!
//! Paths are dotted from the object's root (`spec.maintenance.hold`); `[]` is an array's items
//! and `{}` a map's values (`spec.overrides{}`). A field the other side lacks is one path: its
//! own children are not listed.
use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

/// How the cluster's CRD stands to the embedded one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Skew {
    Equal,
    /// The cluster lacks fields, values or rules the port knows.
    Older,
    /// The cluster has fields, values or rules the port does not know.
    Newer,
    /// Both at once (or a field whose type changed).
    Both,
}

impl Skew {
    pub fn as_str(self) -> &'static str {
        match self {
            Skew::Equal => "equal",
            Skew::Older => "older",
            Skew::Newer => "newer",
            Skew::Both => "both",
        }
    }
}

/// One structural difference at a path, as the cluster has it against the port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "change", rename_all = "kebab-case")]
pub enum Change {
    /// A field the cluster declares and the port does not.
    Added,
    /// A field the port declares and the cluster does not.
    Removed,
    /// Both declare it with another type (`string` against `integer`).
    TypeChanged { ours: String, theirs: String },
    /// Enum values the cluster accepts and the port does not know.
    EnumValuesAdded { values: Vec<String> },
    /// Enum values the port knows and the cluster no longer accepts.
    EnumValuesRemoved { values: Vec<String> },
    /// An enum the cluster imposes where the port accepts any value.
    EnumIntroduced { values: Vec<String> },
    /// An enum the port knows that the cluster no longer imposes.
    EnumDropped,
    /// CEL rules only the cluster has.
    RulesAdded { rules: Vec<String> },
    /// CEL rules only the port has.
    RulesRemoved { rules: Vec<String> },
}

impl Change {
    /// The cluster knows something the port does not.
    fn is_newer(&self) -> bool {
        matches!(
            self,
            Change::Added
                | Change::TypeChanged { .. }
                | Change::EnumValuesAdded { .. }
                | Change::EnumIntroduced { .. }
                | Change::RulesAdded { .. }
        )
    }

    /// The port knows something the cluster does not.
    fn is_older(&self) -> bool {
        matches!(
            self,
            Change::Removed
                | Change::TypeChanged { .. }
                | Change::EnumValuesRemoved { .. }
                | Change::EnumDropped
                | Change::RulesRemoved { .. }
        )
    }
}

/// A difference and where.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Difference {
    pub path: String,
    #[serde(flatten)]
    pub change: Change,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = &self.path;
        match &self.change {
            Change::Added => write!(f, "{path}: a field the console does not know"),
            Change::Removed => write!(f, "{path}: a field the cluster's CRD lacks"),
            Change::TypeChanged { ours, theirs } => {
                write!(
                    f,
                    "{path}: type {theirs} in the cluster, {ours} in the console"
                )
            }
            Change::EnumValuesAdded { values } => {
                write!(
                    f,
                    "{path}: values the console does not know: {}",
                    values.join(", ")
                )
            }
            Change::EnumValuesRemoved { values } => write!(
                f,
                "{path}: values the cluster no longer accepts: {}",
                values.join(", ")
            ),
            Change::EnumIntroduced { values } => {
                write!(f, "{path}: the cluster accepts only: {}", values.join(", "))
            }
            Change::EnumDropped => write!(f, "{path}: the cluster no longer limits its values"),
            Change::RulesAdded { rules } => {
                write!(
                    f,
                    "{path}: CEL rules the console does not know: {}",
                    rules.join("; ")
                )
            }
            Change::RulesRemoved { rules } => {
                write!(
                    f,
                    "{path}: CEL rules the cluster lacks: {}",
                    rules.join("; ")
                )
            }
        }
    }
}

/// Every structural difference between the embedded schema and the cluster's, in path order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CrdComparison {
    pub differences: Vec<Difference>,
}

/// The cluster's CRD has no schema for the served version the console reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the cluster's SeiNode CRD has no openAPIV3Schema for {version}")]
pub struct NoSchema {
    pub version: String,
}

/// The `openAPIV3Schema` of `version` in a CRD object (as the API server returns it).
pub fn version_schema<'a>(crd: &'a Value, version: &str) -> Result<&'a Value, NoSchema> {
    crd.pointer("/spec/versions")
        .and_then(Value::as_array)
        .and_then(|versions| {
            versions
                .iter()
                .find(|v| v.get("name").and_then(Value::as_str) == Some(version))
        })
        .and_then(|v| v.pointer("/schema/openAPIV3Schema"))
        .ok_or_else(|| NoSchema {
            version: version.to_owned(),
        })
}

/// Compares `theirs` (the cluster's `openAPIV3Schema`) with `ours` (the embedded one).
pub fn compare(ours: &Value, theirs: &Value) -> CrdComparison {
    let mut differences = Vec::new();
    walk(ours, theirs, "", &mut differences);
    differences.sort_by(|a, b| a.path.cmp(&b.path));
    CrdComparison { differences }
}

/// The cluster's CRD object (`customresourcedefinitions/seinodes.sei.io`) against the embedded
/// one, for the console's version.
pub fn compare_crd(crd: &Value) -> Result<CrdComparison, CompareError> {
    let ours = super::schema::open_api_schema()?;
    let theirs = version_schema(crd, super::VERSION)?;
    Ok(compare(ours, theirs))
}

/// Why the comparison could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error(transparent)]
    Embedded(#[from] super::schema::SchemaError),
    #[error(transparent)]
    NoSchema(#[from] NoSchema),
}

impl CrdComparison {
    pub fn skew(&self) -> Skew {
        let newer = self.differences.iter().any(|d| d.change.is_newer());
        let older = self.differences.iter().any(|d| d.change.is_older());
        match (newer, older) {
            (false, false) => Skew::Equal,
            (false, true) => Skew::Older,
            (true, false) => Skew::Newer,
            (true, true) => Skew::Both,
        }
    }

    /// What the cluster knows and the port does not.
    pub fn newer(&self) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(|d| d.change.is_newer())
    }

    /// What the port knows and the cluster does not.
    pub fn older(&self) -> impl Iterator<Item = &Difference> {
        self.differences.iter().filter(|d| d.change.is_older())
    }

    /// Spec fields (or spec enum values, or spec types) the port does not know: a controller
    /// that knows them may plan otherwise, so the console does not plan or execute while there
    /// are any. New CEL rules only refuse writes (the API server checks them) and new status
    /// fields are the controller's own output: neither changes what the port would plan.
    pub fn planning(&self) -> Vec<&Difference> {
        self.differences
            .iter()
            .filter(|d| {
                d.path.starts_with("spec.")
                    && matches!(
                        d.change,
                        Change::Added | Change::TypeChanged { .. } | Change::EnumValuesAdded { .. }
                    )
            })
            .collect()
    }

    /// The fields of `writes` (paths an action writes, `spec.image`, `status.plan`) the
    /// cluster's CRD lacks, in whole or in part: the API server would drop them.
    pub fn missing_written(&self, writes: &[&str]) -> Vec<&Difference> {
        self.differences
            .iter()
            .filter(|d| matches!(d.change, Change::Removed | Change::TypeChanged { .. }))
            .filter(|d| writes.iter().any(|w| overlaps(&d.path, w)))
            .collect()
    }

    /// `CRD equal`, `CRD newer: 3 fields`, `CRD older: 1 field`, `CRD newer: 2, older: 1`
    /// (the header's words).
    pub fn summary(&self) -> String {
        let count = |n: usize| {
            if n == 1 {
                "1 field".to_owned()
            } else {
                format!("{n} fields")
            }
        };
        let (newer, older) = (self.newer().count(), self.older().count());
        match self.skew() {
            Skew::Equal => "CRD equal".to_owned(),
            Skew::Newer => format!("CRD newer: {}", count(newer)),
            Skew::Older => format!("CRD older: {}", count(older)),
            Skew::Both => format!("CRD newer: {newer}, older: {older}"),
        }
    }
}

/// The cluster's SeiNode CRD as the console read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CrdView {
    Compared(CrdComparison),
    /// The operator may not read it: only the nodes' own fields are checked.
    Forbidden(String),
    /// Not installed, unreadable or without the served version's schema.
    Unread(String),
}

impl CrdView {
    /// The console header's words: `CRD newer: 3 fields`, `CRD unreadable`; `None` when equal.
    pub fn header(&self) -> Option<String> {
        match self {
            CrdView::Compared(c) if c.skew() == Skew::Equal => None,
            CrdView::Compared(c) => Some(c.summary()),
            CrdView::Forbidden(_) => Some("CRD unreadable".to_owned()),
            CrdView::Unread(_) => Some("CRD not compared".to_owned()),
        }
    }

    pub fn comparison(&self) -> Option<&CrdComparison> {
        match self {
            CrdView::Compared(comparison) => Some(comparison),
            _ => None,
        }
    }

    /// One line: `CRD newer: 2 fields (spec.maintenance, status.maintenanceSince)`, or why it
    /// is not known.
    pub fn line(&self) -> String {
        match self {
            CrdView::Compared(c) => {
                let paths: Vec<&str> = c.differences.iter().map(|d| d.path.as_str()).collect();
                if paths.is_empty() {
                    c.summary()
                } else {
                    format!("{} ({})", c.summary(), paths.join(", "))
                }
            }
            CrdView::Forbidden(why) => format!(
                "CRD not compared: reading customresourcedefinitions/seinodes.sei.io is \
                 forbidden ({why}); each node's fields are checked instead"
            ),
            CrdView::Unread(why) => format!("CRD not compared: {why}"),
        }
    }
}

impl CrdView {
    /// What the comparison means for actions, one line each (the doctor's evidence, `version`).
    pub fn consequences(&self) -> Vec<String> {
        let Some(comparison) = self.comparison() else {
            return match self {
                CrdView::Forbidden(_) => {
                    vec!["each node's own fields are checked before an action instead".to_owned()]
                }
                _ => Vec::new(),
            };
        };
        let mut out = Vec::new();
        let planning: Vec<&str> = comparison
            .planning()
            .iter()
            .map(|d| d.path.as_str())
            .collect();
        if !planning.is_empty() {
            out.push(format!(
                "actions on any node are refused while the CRD has spec fields sei-console does \
                 not know ({}): a controller that knows them may plan otherwise; a live \
                 controller still carries them out (--allow-unknown-fields overrides)",
                planning.join(", ")
            ));
        }
        let removed: Vec<&str> = comparison
            .older()
            .filter(|d| matches!(d.change, Change::Removed))
            .map(|d| d.path.as_str())
            .collect();
        if !removed.is_empty() {
            out.push(format!(
                "actions that write {} are refused: the API server would drop them",
                removed.join(", ")
            ));
        }
        let other: Vec<&str> = comparison
            .newer()
            .filter(|d| !planning.contains(&d.path.as_str()))
            .map(|d| d.path.as_str())
            .collect();
        if !other.is_empty() {
            out.push(format!(
                "a node carrying a field sei-console does not know is refused by the embedded \
                 executor; the API server checks rules or values the console does not ({})",
                other.join(", ")
            ));
        }
        out
    }
}

/// Whether one path is the other or contains it (`status.plan` and `status.plan.tasks[].x`).
fn overlaps(a: &str, b: &str) -> bool {
    let within = |inner: &str, outer: &str| {
        inner == outer
            || inner
                .strip_prefix(outer)
                .is_some_and(|rest| rest.starts_with(['.', '[', '{']))
    };
    within(a, b) || within(b, a)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The type a schema node declares: `type`, else int-or-string, else its `anyOf` types.
fn type_of(schema: &Value) -> String {
    if let Some(kind) = schema.get("type").and_then(Value::as_str) {
        return kind.to_owned();
    }
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return "int-or-string".to_owned();
    }
    let any: Vec<&str> = schema
        .get("anyOf")
        .and_then(Value::as_array)
        .map(|alternatives| {
            alternatives
                .iter()
                .filter_map(|a| a.get("type").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    any.join("|")
}

fn enum_values(schema: &Value) -> BTreeSet<String> {
    schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|values| {
            values
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn rules(schema: &Value) -> BTreeSet<String> {
    schema
        .get("x-kubernetes-validations")
        .and_then(Value::as_array)
        .map(|rules| {
            rules
                .iter()
                .filter_map(|r| r.get("rule").and_then(Value::as_str))
                .map(|rule| rule.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect()
        })
        .unwrap_or_default()
}

fn only_in(a: &BTreeSet<String>, b: &BTreeSet<String>) -> Vec<String> {
    a.difference(b).cloned().collect()
}

fn walk(ours: &Value, theirs: &Value, path: &str, out: &mut Vec<Difference>) {
    let mut push = |change: Change| {
        out.push(Difference {
            path: if path.is_empty() { "." } else { path }.to_owned(),
            change,
        })
    };
    let (our_type, their_type) = (type_of(ours), type_of(theirs));
    if our_type != their_type {
        push(Change::TypeChanged {
            ours: our_type,
            theirs: their_type,
        });
        return;
    }
    let (our_enum, their_enum) = (enum_values(ours), enum_values(theirs));
    let added = only_in(&their_enum, &our_enum);
    let removed = only_in(&our_enum, &their_enum);
    match (our_enum.is_empty(), their_enum.is_empty()) {
        (true, false) => push(Change::EnumIntroduced { values: added }),
        (false, true) => push(Change::EnumDropped),
        _ => {
            if !added.is_empty() {
                push(Change::EnumValuesAdded { values: added });
            }
            if !removed.is_empty() {
                push(Change::EnumValuesRemoved { values: removed });
            }
        }
    }
    let (our_rules, their_rules) = (rules(ours), rules(theirs));
    let added = only_in(&their_rules, &our_rules);
    if !added.is_empty() {
        push(Change::RulesAdded { rules: added });
    }
    let removed = only_in(&our_rules, &their_rules);
    if !removed.is_empty() {
        push(Change::RulesRemoved { rules: removed });
    }
    let empty = serde_json::Map::new();
    let props = |schema: &Value| {
        schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty)
            .clone()
    };
    let (our_props, their_props) = (props(ours), props(theirs));
    for (key, their_child) in &their_props {
        match our_props.get(key) {
            Some(our_child) => walk(our_child, their_child, &join(path, key), out),
            None => out.push(Difference {
                path: join(path, key),
                change: Change::Added,
            }),
        }
    }
    for key in our_props.keys().filter(|k| !their_props.contains_key(*k)) {
        out.push(Difference {
            path: join(path, key),
            change: Change::Removed,
        });
    }
    for (field, suffix) in [("items", "[]"), ("additionalProperties", "{}")] {
        let child = |schema: &Value| schema.get(field).filter(|c| c.is_object()).cloned();
        match (child(ours), child(theirs)) {
            (Some(a), Some(b)) => walk(&a, &b, &format!("{path}{suffix}"), out),
            (None, Some(_)) => out.push(Difference {
                path: format!("{path}{suffix}"),
                change: Change::Added,
            }),
            (Some(_), None) => out.push(Difference {
                path: format!("{path}{suffix}"),
                change: Change::Removed,
            }),
            (None, None) => {}
        }
    }
}
