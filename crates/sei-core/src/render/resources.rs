//! seid resources per role, `GOMEMLIMIT` for seeds, and data-volume defaults per mode.
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{EnvVar, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::{RenderError, Role, role};
use crate::api::SeiNode;
use crate::platform::quantity::Quantity;
use crate::platform::{PlatformConfig, ResourceOverride, SeiConfigMode};

/// A seed's `GOMEMLIMIT` as a percentage of its memory limit (the rest is non-heap margin).
pub const GOMEMLIMIT_PERCENT_OF_LIMIT: i128 = 87;

/// Built-in `(cpu request, memory)` per role, used when the override field is blank.
fn default_profile(role: Role) -> (&'static str, &'static str) {
    match role {
        Role::Validator => ("16", "128Gi"),
        Role::Node | Role::Replayer => ("32", "256Gi"),
        Role::Archive => ("64", "512Gi"),
        Role::Seed => ("1", "2Gi"),
    }
}

fn override_for_role(role: Role, platform: &PlatformConfig) -> (&'static str, &ResourceOverride) {
    let r = &platform.resources;
    match role {
        Role::Validator => ("resources.validator", &r.validator),
        Role::Archive => ("resources.archive", &r.archive),
        Role::Replayer => ("resources.replayer", &r.replayer),
        Role::Seed => ("resources.seed", &r.seed),
        Role::Node => ("resources.node", &r.node),
    }
}

fn first_non_blank<'a>(value: &'a str, fallback: &'a str) -> &'a str {
    if value.trim().is_empty() {
        fallback
    } else {
        value
    }
}

/// Parses a platform quantity, reporting the config key when it does not parse.
pub(super) fn parse_quantity(key: &str, value: &str) -> Result<Quantity, RenderError> {
    Quantity::parse(value).map_err(|err| RenderError::InvalidQuantity {
        key: key.to_string(),
        value: value.to_string(),
        reason: err.to_string(),
    })
}

/// Upstream `ResourcesForNode`: cpu request and memory (request = limit) from the role's
/// `resources.<role>` override where non-blank, else the built-in default. Never a CPU limit.
/// The bootstrap Job's seid uses the same footprint.
pub fn resources_for_node(
    node: &SeiNode,
    platform: &PlatformConfig,
) -> Result<ResourceRequirements, RenderError> {
    let role = role(node);
    let (default_cpu, default_memory) = default_profile(role);
    let (key, o) = override_for_role(role, platform);
    let cpu = first_non_blank(&o.cpu_request, default_cpu);
    let memory = first_non_blank(&o.memory, default_memory);
    // Written in apimachinery's canonical form, as the controller's Go types serialize them.
    let cpu = parse_quantity(&format!("{key}.cpuRequest"), cpu)?.canonical();
    let memory = parse_quantity(&format!("{key}.memory"), memory)?.canonical();
    Ok(ResourceRequirements {
        requests: Some(BTreeMap::from([
            ("cpu".to_string(), K8sQuantity(cpu)),
            ("memory".to_string(), K8sQuantity(memory.clone())),
        ])),
        limits: Some(BTreeMap::from([(
            "memory".to_string(),
            K8sQuantity(memory),
        )])),
        ..Default::default()
    })
}

/// Upstream `goMemLimitEnv`: for a seed, `GOMEMLIMIT=<floor(limit bytes × 87 / 100)>B` from the
/// resolved memory limit (rounded up to whole bytes); none without a limit or when the result is
/// not positive.
pub(super) fn go_mem_limit_env(
    node: &SeiNode,
    resources: &ResourceRequirements,
) -> Result<Option<EnvVar>, RenderError> {
    if super::serves_seid_rpc(node) {
        return Ok(None);
    }
    let Some(limit) = resources.limits.as_ref().and_then(|l| l.get("memory")) else {
        return Ok(None);
    };
    let bytes = parse_quantity("resources.seed.memory", &limit.0)?.value_rounded_up();
    let soft = bytes.saturating_mul(GOMEMLIMIT_PERCENT_OF_LIMIT) / 100;
    if soft <= 0 {
        return Ok(None);
    }
    Ok(Some(EnvVar {
        name: "GOMEMLIMIT".into(),
        value: Some(format!("{soft}B")),
        ..Default::default()
    }))
}

/// Requirements from a node's spec as the controller's Go types serialize them: every parsable
/// quantity in canonical form (unparsable ones, which admission would have rejected, unchanged).
pub(super) fn canonical_requirements(
    mut requirements: ResourceRequirements,
) -> ResourceRequirements {
    for list in [requirements.requests.as_mut(), requirements.limits.as_mut()]
        .into_iter()
        .flatten()
    {
        for value in list.values_mut() {
            if let Ok(q) = Quantity::parse(&value.0) {
                value.0 = q.canonical();
            }
        }
    }
    requirements
}

/// Upstream `DefaultStorageForMode`: `(storage class, size)` of the data PVC.
pub fn default_storage_for_mode(mode: SeiConfigMode, platform: &PlatformConfig) -> (&str, &str) {
    let s = &platform.storage;
    match mode {
        SeiConfigMode::Archive => (&s.class_archive, &s.size_archive),
        SeiConfigMode::Full | SeiConfigMode::Validator => (&s.class_perf, &s.size_default),
        SeiConfigMode::Seed => (&s.class_default, platform.seed_storage_size()),
    }
}
