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
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::api::core::v1::{
        PersistentVolume, PersistentVolumeClaimSpec, PersistentVolumeClaimStatus,
        PersistentVolumeSpec, PersistentVolumeStatus,
    };
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

    use super::*;
    use crate::ports::ClusterErrorKind;
    use crate::tasks::owner_reference;
    use crate::tasks::testing::*;

    async fn run(h: &Harness, node: &mut SeiNode) -> (Result<(), ExecuteError>, Cached) {
        let mut t = EnsureDataPvc::default();
        let r = t.execute(&h.env(), node).await;
        (r, t.state)
    }

    fn import_node() -> SeiNode {
        let mut node = full_node("ns", "a");
        node.spec.data_volume =
            serde_json::from_value(serde_json::json!({"import": {"pvcName": "imp"}})).ok();
        node
    }

    fn storage(size: &str) -> BTreeMap<String, K8sQuantity> {
        BTreeMap::from([("storage".to_owned(), K8sQuantity(size.into()))])
    }

    fn import_pvc(phase: &str, modes: &[&str], capacity: Option<&str>) -> PersistentVolumeClaim {
        PersistentVolumeClaim {
            metadata: meta("ns", "imp"),
            spec: Some(PersistentVolumeClaimSpec {
                access_modes: Some(modes.iter().map(|m| (*m).to_owned()).collect()),
                volume_name: Some("pv-1".into()),
                ..PersistentVolumeClaimSpec::default()
            }),
            status: Some(PersistentVolumeClaimStatus {
                phase: Some(phase.into()),
                capacity: capacity.map(storage),
                ..PersistentVolumeClaimStatus::default()
            }),
        }
    }

    fn pv(capacity: &str, phase: &str) -> PersistentVolume {
        PersistentVolume {
            metadata: meta("", "pv-1"),
            spec: Some(PersistentVolumeSpec {
                capacity: Some(storage(capacity)),
                ..PersistentVolumeSpec::default()
            }),
            status: Some(PersistentVolumeStatus {
                phase: Some(phase.into()),
                ..PersistentVolumeStatus::default()
            }),
        }
    }

    fn setup_import(h: &Harness, pvc: PersistentVolumeClaim, volume: Option<PersistentVolume>) {
        h.cluster.put(ClusterObject::PersistentVolumeClaim(pvc));
        if let Some(volume) = volume {
            h.cluster.put_volume(volume);
        }
    }

    fn terminal(r: Result<(), ExecuteError>) -> String {
        match r {
            Err(ExecuteError::Terminal(m)) => m,
            other => panic!("expected terminal, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_create_pvc_missing_creates_and_completes() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        assert_eq!(run(&h, &mut node).await, (Ok(()), Cached::Complete));
        let Some(ClusterObject::PersistentVolumeClaim(pvc)) =
            h.cluster
                .object(ObjectKind::PersistentVolumeClaim, "ns", "data-a")
        else {
            panic!("PVC not created");
        };
        assert_eq!(
            pvc.spec.and_then(|s| s.access_modes),
            Some(vec!["ReadWriteOnce".to_owned()])
        );
        assert_eq!(
            pvc.metadata.owner_references,
            Some(vec![owner_reference(&node)])
        );
        assert_eq!(h.cluster.count_calls("create persistentvolumeclaims"), 1);
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_create_pvc_exists_owned_by_us_completes() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let mut pvc = import_pvc("Bound", &["ReadWriteOnce"], None);
        pvc.metadata.name = Some("data-a".into());
        pvc.metadata.owner_references = Some(vec![owner_reference(&node)]);
        h.cluster.put(ClusterObject::PersistentVolumeClaim(pvc));
        assert_eq!(run(&h, &mut node).await, (Ok(()), Cached::Complete));
        assert_eq!(h.cluster.count_calls("create"), 0);
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_create_pvc_exists_not_owned_terminal_error() {
        let h = Harness::new();
        let mut node = full_node("ns", "a");
        let mut pvc = import_pvc("Bound", &["ReadWriteOnce"], None);
        pvc.metadata.name = Some("data-a".into());
        h.cluster.put(ClusterObject::PersistentVolumeClaim(pvc));
        assert!(terminal(run(&h, &mut node).await.0).contains("already exists and is not owned"));
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_create_already_exists_race_requeues() {
        let h = Harness::new();
        h.cluster.fail_next(
            "create persistentvolumeclaims",
            ClusterErrorKind::AlreadyExists,
            "persistentvolumeclaims \"data-a\" already exists",
        );
        let mut node = full_node("ns", "a");
        let (r, state) = run(&h, &mut node).await;
        assert!(matches!(r, Err(ExecuteError::Transient(m)) if m.contains("concurrently")));
        assert_eq!(state, Cached::Running);
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_all_requirements_met_completes() {
        let h = Harness::new();
        setup_import(
            &h,
            import_pvc("Bound", &["ReadWriteOnce"], Some("2000Gi")),
            Some(pv("2000Gi", "Bound")),
        );
        let mut node = import_node();
        assert_eq!(run(&h, &mut node).await, (Ok(()), Cached::Complete));
        assert_condition(&node, ConditionType::ImportPvcReady, "True", "PVCValidated");
        assert_eq!(
            condition_message(&node, ConditionType::ImportPvcReady),
            "PVC \"imp\" passes all import requirements"
        );
        assert_eq!(h.cluster.count_calls("create"), 0, "import never mutates");
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_pvc_not_found_transient() {
        let h = Harness::new();
        let mut node = import_node();
        assert_eq!(run(&h, &mut node).await, (Ok(()), Cached::Running));
        assert_condition(&node, ConditionType::ImportPvcReady, "False", "PVCNotReady");
        assert_eq!(
            condition_message(&node, ConditionType::ImportPvcReady),
            "PVC \"imp\" not found in namespace \"ns\""
        );
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_pvc_not_found_then_appears_completes() {
        let h = Harness::new();
        let mut node = import_node();
        assert_eq!(run(&h, &mut node).await.1, Cached::Running);
        setup_import(
            &h,
            import_pvc("Bound", &["ReadWriteOnce"], Some("2000Gi")),
            Some(pv("2000Gi", "Bound")),
        );
        assert_eq!(run(&h, &mut node).await.1, Cached::Complete);
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_pvc_terminating_transient() {
        let h = Harness::new();
        let mut pvc = import_pvc("Bound", &["ReadWriteOnce"], Some("2000Gi"));
        pvc.metadata.deletion_timestamp = Some(Time(jiff::Timestamp::UNIX_EPOCH));
        setup_import(&h, pvc, Some(pv("2000Gi", "Bound")));
        let mut node = import_node();
        assert_eq!(run(&h, &mut node).await, (Ok(()), Cached::Running));
        assert_condition(&node, ConditionType::ImportPvcReady, "False", "PVCNotReady");
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_pvc_pending_and_released_transient() {
        for phase in ["Pending", "Released", ""] {
            let h = Harness::new();
            setup_import(
                &h,
                import_pvc(phase, &["ReadWriteOnce"], Some("2000Gi")),
                None,
            );
            let mut node = import_node();
            assert_eq!(
                run(&h, &mut node).await,
                (Ok(()), Cached::Running),
                "{phase}"
            );
            assert!(
                condition_message(&node, ConditionType::ImportPvcReady)
                    .contains("waiting for Bound")
            );
        }
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_pvc_lost_terminal() {
        let h = Harness::new();
        setup_import(
            &h,
            import_pvc("Lost", &["ReadWriteOnce"], Some("2000Gi")),
            None,
        );
        let mut node = import_node();
        assert!(terminal(run(&h, &mut node).await.0).contains("Lost"));
        assert_condition(&node, ConditionType::ImportPvcReady, "False", "PVCInvalid");
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_wrong_access_mode_terminal() {
        let h = Harness::new();
        setup_import(
            &h,
            import_pvc("Bound", &["ReadOnlyMany"], Some("2000Gi")),
            None,
        );
        let mut node = import_node();
        assert!(terminal(run(&h, &mut node).await.0).contains("ReadWriteOnce"));
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_read_write_once_pod_access_mode_completes() {
        let h = Harness::new();
        setup_import(
            &h,
            import_pvc("Bound", &["ReadWriteOncePod"], Some("2000Gi")),
            Some(pv("2000Gi", "Bound")),
        );
        let mut node = import_node();
        assert_eq!(run(&h, &mut node).await.1, Cached::Complete);
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_capacity_too_small_terminal() {
        let h = Harness::new();
        setup_import(
            &h,
            import_pvc("Bound", &["ReadWriteOnce"], Some("100Gi")),
            Some(pv("100Gi", "Bound")),
        );
        let mut node = import_node();
        assert!(terminal(run(&h, &mut node).await.0).contains("less than required"));
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_capacity_unset_transient() {
        let h = Harness::new();
        setup_import(&h, import_pvc("Bound", &["ReadWriteOnce"], None), None);
        let mut node = import_node();
        assert_eq!(run(&h, &mut node).await, (Ok(()), Cached::Running));
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_pv_capacity_mismatch_terminal() {
        let h = Harness::new();
        setup_import(
            &h,
            import_pvc("Bound", &["ReadWriteOnce"], Some("2000Gi")),
            Some(pv("3000Gi", "Bound")),
        );
        let mut node = import_node();
        assert!(terminal(run(&h, &mut node).await.0).contains("does not match"));
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_pv_missing_transient() {
        let h = Harness::new();
        setup_import(
            &h,
            import_pvc("Bound", &["ReadWriteOnce"], Some("2000Gi")),
            None,
        );
        let mut node = import_node();
        assert_eq!(run(&h, &mut node).await, (Ok(()), Cached::Running));
        assert!(
            condition_message(&node, ConditionType::ImportPvcReady)
                .contains("underlying PV \"pv-1\"")
        );
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_pv_failed_terminal() {
        let h = Harness::new();
        setup_import(
            &h,
            import_pvc("Bound", &["ReadWriteOnce"], Some("2000Gi")),
            Some(pv("2000Gi", "Failed")),
        );
        let mut node = import_node();
        assert!(terminal(run(&h, &mut node).await.0).contains("phase Failed"));
    }

    #[tokio::test]
    async fn test_ensure_data_pvc_import_transient_validation_repeats() {
        let h = Harness::new();
        setup_import(&h, import_pvc("Pending", &["ReadWriteOnce"], None), None);
        let mut node = import_node();
        for round in 1..=3 {
            assert_eq!(run(&h, &mut node).await.1, Cached::Running);
            assert_eq!(
                h.cluster.count_calls("get persistentvolumeclaims imp"),
                round
            );
        }
    }
}
