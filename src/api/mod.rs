//! SeiNode custom resource types, TaskPlan types, conditions and wire types (serde only).

/// API group of the SeiNode custom resource.
pub const GROUP: &str = "sei.io";
/// API version of the SeiNode custom resource.
pub const VERSION: &str = "v1alpha1";
/// `apiVersion` as written in manifests.
pub const API_VERSION: &str = "sei.io/v1alpha1";
/// Kind of the custom resource.
pub const KIND: &str = "SeiNode";
/// Plural resource name.
pub const PLURAL: &str = "seinodes";
