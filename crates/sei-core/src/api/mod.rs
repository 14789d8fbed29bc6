//! SeiNode custom resource types, TaskPlan types, conditions and the task-type enum (serde only).
//!
//! The shapes mirror `api/v1alpha1/*_types.go` of sei-k8s-controller field for field
//! (spec/planner.md section 1), with one deliberate difference: every optional field is an
//! `Option`, so a manifest round-trips losslessly (`paused: false` stays `paused: false`).
//! Accessor methods give the Go zero-value view where the planner needs it.
//!
//! Unknown fields: every object type carries an `unknown` map (`#[serde(flatten)]`) that keeps
//! keys this model does not know, with their values, in the order read. They are written back
//! unchanged, so reading and re-writing a manifest or a plan someone else wrote never loses data.
//! The planner ignores them (as the controller does: the API server prunes unknown fields, so a
//! node read from a cluster never has any). `schema::unknown_field_paths` lists them, by walking
//! the upstream CRD's own schema, so the edge can warn about them.
//!
//! The files: `seinode.rs` (SeiNode, SeiNodeSpec, NodeMode, spec helpers), `common.rs` and
//! `modes.rs` (the sub-specs), `status.rs` (SeiNodeStatus, Phase), `plan.rs` (TaskPlan,
//! PlannedTask, FailedTaskInfo), `conditions.rs` (types, reasons, the SetStatusCondition rules),
//! `task_kind.rs` (`TaskKind`, serde-renamed to the upstream strings), `sidecar.rs` (the seictl
//! sidecar's wire types), `schema.rs` (the embedded CRD schema, the unknown-field walk),
//! `validation.rs`, `unknown.rs`.
mod common;
mod conditions;
pub mod crd_compare;
pub mod defaulting;
mod modes;
mod plan;
pub mod schema;
mod seinode;
pub mod sidecar;
mod status;
mod task_kind;
pub mod upstream;
pub mod validation;

pub use common::*;
pub use conditions::*;
pub use modes::*;
pub use plan::*;
pub use seinode::*;
pub use status::*;
pub use task_kind::*;

mod unknown;
pub use unknown::UnknownFields;

/// API group of the SeiNode custom resource.
pub const GROUP: &str = "sei.io";
/// API version of the SeiNode custom resource.
pub const VERSION: &str = "v1alpha1";
/// `apiVersion` as written in manifests.
pub const API_VERSION: &str = "sei.io/v1alpha1";
/// Kind of the custom resource.
pub const KIND: &str = "SeiNode";
/// Kind of the list type.
pub const LIST_KIND: &str = "SeiNodeList";
/// Plural resource name.
pub const PLURAL: &str = "seinodes";

#[cfg(test)]
mod crd_compare_tests;
#[cfg(test)]
mod roundtrip_tests;
#[cfg(test)]
mod schema_tests;
