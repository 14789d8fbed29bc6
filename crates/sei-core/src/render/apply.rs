//! The objects as the controller applies them: owner reference set, a paused node's StatefulSet
//! scaled to zero (upstream `SyncStatefulSet` and the apply tasks).
use k8s_openapi::api::apps::v1::StatefulSet;
use k8s_openapi::api::core::v1::{PersistentVolumeClaim, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use super::{RenderError, data_pvc, headless_service, statefulset};
use crate::api::{API_VERSION, KIND, SeiNode};
use crate::platform::PlatformConfig;

/// The controller owner reference to the SeiNode (`controller: true`, `blockOwnerDeletion:
/// true`, as `controllerutil.SetControllerReference` writes it). `None` without a UID (a
/// manifest that was never created).
pub fn owner_reference(node: &SeiNode) -> Option<OwnerReference> {
    let uid = node.metadata.uid.clone().filter(|uid| !uid.is_empty())?;
    Some(OwnerReference {
        api_version: API_VERSION.into(),
        kind: KIND.into(),
        name: node.name().into(),
        uid,
        controller: Some(true),
        block_owner_deletion: Some(true),
    })
}

fn set_owner(meta: &mut ObjectMeta, node: &SeiNode) {
    if let Some(owner) = owner_reference(node) {
        meta.owner_references = Some(vec![owner]);
    }
}

/// What the controller would apply for a node now.
#[derive(Debug, Clone, PartialEq)]
pub struct AppliedWorkload {
    pub statefulset: StatefulSet,
    pub service: Service,
    /// `None` when the node imports an existing PVC (imported PVCs are never rendered).
    pub data_pvc: Option<PersistentVolumeClaim>,
}

/// The StatefulSet as `SyncStatefulSet` applies it: owner reference, `replicas: 0` when paused.
pub fn statefulset_for_apply(
    node: &SeiNode,
    platform: &PlatformConfig,
) -> Result<StatefulSet, RenderError> {
    let mut sts = statefulset(node, platform)?;
    set_owner(&mut sts.metadata, node);
    if node.spec.is_paused() {
        sts.spec.replicas = Some(0);
    }
    Ok(sts)
}

/// StatefulSet, headless Service and (create path only) data PVC, each with the owner reference.
pub fn applied_workload(
    node: &SeiNode,
    platform: &PlatformConfig,
) -> Result<AppliedWorkload, RenderError> {
    let statefulset = statefulset_for_apply(node, platform)?;
    let mut service = headless_service(node);
    set_owner(&mut service.metadata, node);
    let imported = node
        .spec
        .data_volume
        .as_ref()
        .and_then(|dv| dv.import.as_ref())
        .is_some_and(|import| !import.pvc_name.is_empty());
    let data_pvc = if imported {
        None
    } else {
        let mut pvc = data_pvc(node, platform)?;
        set_owner(&mut pvc.metadata, node);
        Some(pvc)
    };
    Ok(AppliedWorkload {
        statefulset,
        service,
        data_pvc,
    })
}
