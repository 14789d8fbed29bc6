use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    PersistentVolume, PersistentVolumeClaimSpec, PersistentVolumeClaimStatus, PersistentVolumeSpec,
    PersistentVolumeStatus,
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
            condition_message(&node, ConditionType::ImportPvcReady).contains("waiting for Bound")
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
        condition_message(&node, ConditionType::ImportPvcReady).contains("underlying PV \"pv-1\"")
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
