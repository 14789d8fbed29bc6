//! `ensure-data-pvc` (internal/task/ensure_pvc.go), spec section 2.1: create the data PVC, or
//! validate an imported one without ever mutating it.
use k8s_openapi::api::core::v1::PersistentVolumeClaim;

use super::api_calls::{ApiCall, CallObject};
use super::secret_checks::go_time;
use super::{
    Cached, ExecuteError, TaskEnv, go_quote, is_controlled_by, set_node_condition, set_owner,
};
use crate::api::{ConditionStatus, ConditionType, Reason, SeiNode};
use crate::platform::quantity::Quantity;
use crate::ports::{ClusterObject, ObjectKind};

/// Reads and creates the data PVC; validating an imported PVC reads its (cluster-scoped) PV.
pub const API_CALLS: &[ApiCall] = &[
    ApiCall::new("get", "", "persistentvolumeclaims", CallObject::InNamespace),
    ApiCall::new(
        "create",
        "",
        "persistentvolumeclaims",
        CallObject::InNamespace,
    ),
    ApiCall::new("get", "", "persistentvolumes", CallObject::ClusterScoped),
];

#[derive(Debug, Clone, Default)]
pub struct EnsureDataPvc {
    pub(crate) state: Cached,
}

/// An import check failure.
enum ImportCheck {
    Transient(String),
    Terminal(String),
}

impl EnsureDataPvc {
    pub async fn execute(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
    ) -> Result<(), ExecuteError> {
        let import = node
            .spec
            .data_volume
            .as_ref()
            .and_then(|d| d.import.as_ref())
            .map(|i| i.pvc_name.clone())
            .filter(|name| !name.is_empty());
        match import {
            Some(pvc_name) => self.execute_import(env, node, &pvc_name).await,
            None => self.execute_create(env, node).await,
        }
    }

    async fn execute_create(
        &mut self,
        env: &TaskEnv<'_>,
        node: &SeiNode,
    ) -> Result<(), ExecuteError> {
        // The render of a PVC cannot fail for a valid platform config; an unparsable size is
        // reported instead of panicking as upstream does.
        let mut pvc = env
            .renderer
            .data_pvc(node)
            .map_err(|err| ExecuteError::Terminal(err.to_string()))?;
        set_owner(&mut pvc.metadata, node);
        let name = pvc.metadata.name.clone().unwrap_or_default();
        match env
            .cluster
            .get(ObjectKind::PersistentVolumeClaim, node.namespace(), &name)
            .await
        {
            Ok(None) => {}
            Ok(Some(existing)) => {
                let uid = node.metadata.uid.as_deref().unwrap_or("");
                if is_controlled_by(existing.metadata(), uid) {
                    self.state = Cached::Complete;
                    return Ok(());
                }
                return Err(ExecuteError::Terminal(format!(
                    "data PVC {} already exists and is not owned by SeiNode {}; set spec.dataVolume.import.pvcName to adopt, or delete the PVC",
                    go_quote(&name),
                    go_quote(node.name())
                )));
            }
            Err(err) => {
                return Err(ExecuteError::Transient(format!(
                    "checking for existing data PVC: {err}"
                )));
            }
        }
        match env
            .cluster
            .create(&ClusterObject::PersistentVolumeClaim(pvc))
            .await
        {
            Ok(_) => {
                self.state = Cached::Complete;
                Ok(())
            }
            Err(err) if err.is_already_exists() => Err(ExecuteError::Transient(format!(
                "data PVC created concurrently: {err}"
            ))),
            Err(err) => Err(ExecuteError::Transient(format!("creating data PVC: {err}"))),
        }
    }

    async fn execute_import(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
        pvc_name: &str,
    ) -> Result<(), ExecuteError> {
        let outcome = validate_import(env, node, pvc_name).await;
        let (status, reason, message, result) = match outcome {
            Ok(()) => {
                self.state = Cached::Complete;
                (
                    ConditionStatus::True,
                    Reason::PvcValidated,
                    format!("PVC {} passes all import requirements", go_quote(pvc_name)),
                    Ok(()),
                )
            }
            Err(ImportCheck::Transient(message)) => {
                (ConditionStatus::False, Reason::PvcNotReady, message, Ok(()))
            }
            Err(ImportCheck::Terminal(message)) => (
                ConditionStatus::False,
                Reason::PvcInvalid,
                message.clone(),
                Err(ExecuteError::Terminal(message)),
            ),
        };
        set_node_condition(
            node,
            ConditionType::ImportPvcReady,
            status,
            reason,
            message,
            env.now,
        );
        result
    }
}

async fn validate_import(env: &TaskEnv<'_>, node: &SeiNode, name: &str) -> Result<(), ImportCheck> {
    use ImportCheck::{Terminal, Transient};
    let ns = node.namespace();
    let q = go_quote(name);
    let pvc: PersistentVolumeClaim = match env
        .cluster
        .get(ObjectKind::PersistentVolumeClaim, ns, name)
        .await
    {
        Ok(Some(ClusterObject::PersistentVolumeClaim(pvc))) => pvc,
        Ok(_) => {
            return Err(Transient(format!(
                "PVC {q} not found in namespace {}",
                go_quote(ns)
            )));
        }
        Err(err) => return Err(Transient(format!("getting PVC {q}: {err}"))),
    };
    if let Some(ts) = &pvc.metadata.deletion_timestamp {
        return Err(Transient(format!(
            "PVC {q} is being deleted (deletionTimestamp={})",
            go_time(ts.0)
        )));
    }
    let phase = pvc
        .status
        .as_ref()
        .and_then(|s| s.phase.clone())
        .unwrap_or_default();
    if phase == "Lost" {
        return Err(Terminal(format!(
            "PVC {q} phase is Lost; underlying PV is gone"
        )));
    }
    if phase != "Bound" {
        return Err(Transient(format!(
            "PVC {q} phase is {}, waiting for Bound",
            go_quote(&phase)
        )));
    }
    let modes = pvc
        .spec
        .as_ref()
        .and_then(|s| s.access_modes.clone())
        .unwrap_or_default();
    if !modes
        .iter()
        .any(|m| m == "ReadWriteOnce" || m == "ReadWriteOncePod")
    {
        return Err(Terminal(format!(
            "PVC {q} accessModes [{}] must include ReadWriteOnce or ReadWriteOncePod",
            modes.join(" ")
        )));
    }
    let required_text = env
        .renderer
        .data_pvc(node)
        .ok()
        .and_then(|p| p.spec)
        .and_then(|s| s.resources)
        .and_then(|r| r.requests)
        .and_then(|r| r.get("storage").map(|q| q.0.clone()))
        .unwrap_or_default();
    let required = Quantity::parse(&required_text).map_err(|err| {
        Terminal(format!(
            "cannot parse required storage {}: {err}",
            go_quote(&required_text)
        ))
    })?;
    let Some(capacity_text) = pvc
        .status
        .as_ref()
        .and_then(|s| s.capacity.as_ref())
        .and_then(|c| c.get("storage"))
        .map(|q| q.0.clone())
    else {
        return Err(Transient(format!(
            "PVC {q} has no status.capacity.storage reported yet"
        )));
    };
    let capacity = Quantity::parse(&capacity_text).map_err(|err| {
        Terminal(format!(
            "cannot parse PVC {q} capacity {}: {err}",
            go_quote(&capacity_text)
        ))
    })?;
    if capacity.value_rounded_up() < required.value_rounded_up() {
        return Err(Terminal(format!(
            "PVC {q} capacity {capacity_text} is less than required {required_text}"
        )));
    }
    let volume_name = pvc
        .spec
        .as_ref()
        .and_then(|s| s.volume_name.clone())
        .unwrap_or_default();
    if volume_name.is_empty() {
        return Err(Transient(format!(
            "PVC {q} is Bound but has no spec.volumeName"
        )));
    }
    let vq = go_quote(&volume_name);
    let pv = match env.cluster.get_persistent_volume(&volume_name).await {
        Ok(Some(pv)) => pv,
        Ok(None) => {
            return Err(Transient(format!(
                "underlying PV {vq} for PVC {q} not found"
            )));
        }
        Err(err) => return Err(Transient(format!("getting PV {vq}: {err}"))),
    };
    if pv.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Failed") {
        return Err(Terminal(format!(
            "underlying PV {vq} for PVC {q} is in phase Failed"
        )));
    }
    let pv_capacity = pv
        .spec
        .as_ref()
        .and_then(|s| s.capacity.as_ref())
        .and_then(|c| c.get("storage"))
        .map(|q| q.0.clone())
        .unwrap_or_default();
    let equal = Quantity::parse(&pv_capacity)
        .is_ok_and(|pvq| pvq.value_rounded_up() == capacity.value_rounded_up());
    if !equal {
        return Err(Terminal(format!(
            "underlying PV {vq} capacity {pv_capacity} does not match PVC {q} capacity {capacity_text}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
