//! The doctor's cluster and workload findings (controller and executor Leases, pods, PVCs,
//! conditions, pod warnings, permissions) and the ranking, on the pure function.
use serde_json::json;

use super::*;

fn active(name: &str) -> SeiNode {
    patched(
        healthy(name),
        json!({"spec": {"image": "ghcr.io/sei-protocol/sei:v6.4.0"}, "status": {"plan": plan(&UPDATE_TASKS, 2, None)}}),
    )
}

fn lease(node: &str, holder_gone: bool, renewed_secs_ago: i64) -> ExecutorLease {
    ExecutorLease {
        namespace: NS.into(),
        node: node.into(),
        holder: "sei-console-host-4242".into(),
        renewed: Some(sample::now() - jiff::SignedDuration::from_secs(renewed_secs_ago)),
        duration_seconds: 30,
        holder_gone,
    }
}

#[test]
fn active_plans_with_no_live_controller_and_no_live_executor_are_critical() {
    let mut world = World::new(vec![active("rpc-0"), active("rpc-1"), healthy("rpc-2")]);
    world.controller = Some(ControllerLiveness::NotLive {
        reason: "Lease sei-k8s-controller-system/bc1f5b0a.sei.io is not held or has expired".into(),
    });
    // rpc-1 is driven by a live console: not stranded.
    world.leases.push(lease("rpc-1", false, 5));
    let findings = world.diagnose();
    let finding = only(&findings, FindingClass::ControllerAbsent);
    assert_eq!(finding.severity, Severity::Critical);
    assert_eq!(finding.object.kind, "Lease");
    assert_eq!(finding.object.node, None);
    assert_eq!(
        finding.summary,
        "no live controller, and 1 Active plan(s) orphaned (nobody runs them): rpc-0"
    );
    assert_eq!(
        finding.fix.command.as_deref(),
        Some("sei-console exec rpc-0 --context kind-a -n sei --executor embedded")
    );
    // A live controller runs them: nothing to say.
    world.controller = Some(ControllerLiveness::Live { holder: "c".into() });
    assert!(of_class(&world.diagnose(), FindingClass::ControllerAbsent).is_empty());
    // A Lease that could not be read says nothing either.
    world.controller = None;
    assert!(of_class(&world.diagnose(), FindingClass::ControllerAbsent).is_empty());
}

#[test]
fn an_executor_lease_left_by_a_dead_console_is_named_with_the_resume_command() {
    let mut world = World::new(vec![active("rpc-0"), healthy("rpc-1")]);
    world.controller = Some(ControllerLiveness::NotLive {
        reason: "no Lease".into(),
    });
    world.leases.push(lease("rpc-0", true, 5));
    world.leases.push(lease("rpc-1", false, 600));
    let findings = world.diagnose();
    let found = of_class(&findings, FindingClass::ExecutorLeaseOrphaned);
    assert_eq!(found.len(), 2, "{found:#?}");
    let resumable = found
        .iter()
        .find(|f| f.object.node.as_deref() == Some("rpc-0"))
        .expect("rpc-0");
    assert_eq!(resumable.severity, Severity::Warning);
    assert!(evidence_text(resumable).contains("its process on this machine is gone"));
    assert_eq!(
        resumable.fix.command.as_deref(),
        Some("sei-console exec rpc-0 --context kind-a -n sei")
    );
    let idle = found
        .iter()
        .find(|f| f.object.node.as_deref() == Some("rpc-1"))
        .expect("rpc-1");
    assert_eq!(idle.severity, Severity::Info);
    assert!(evidence_text(idle).contains("not renewed for 600s (it lasts 30s)"));
    assert_eq!(
        idle.fix.command.as_deref(),
        Some("kubectl --context kind-a -n sei delete lease sei-console-exec-rpc-1")
    );
}

#[test]
fn crash_loops_and_image_pulls_are_critical_with_their_fixes() {
    let rolled = patched(
        healthy("rpc-1"),
        json!({"spec": {"image": "ghcr.io/sei-protocol/sei:v9.9.9"}, "status": {"currentImage": IMAGE}}),
    );
    let mut world = World::new(vec![healthy("rpc-0"), rolled]);
    world.pods.push(waiting(
        "rpc-0",
        IMAGE,
        "CrashLoopBackOff",
        "back-off 5m0s restarting failed container",
    ));
    world.pods.push(waiting(
        "rpc-1",
        "ghcr.io/sei-protocol/sei:v9.9.9",
        "ImagePullBackOff",
        "Back-off pulling image",
    ));
    world.events.push(event_about(
        "Pod",
        "rpc-0-0",
        NS,
        true,
        "BackOff",
        "Back-off restarting failed container seid",
        40,
        30,
    ));
    let findings = world.diagnose();
    let crash = only(&findings, FindingClass::PodCrashLoop);
    assert_eq!(crash.severity, Severity::Critical);
    assert!(evidence_text(crash).contains("7 restarts"));
    assert!(
        evidence_text(crash)
            .contains("Event Pod/rpc-0-0 BackOff: Back-off restarting failed container seid ×40")
    );
    assert_eq!(
        crash.fix.command.as_deref(),
        Some("sei-console logs rpc-0 --context kind-a -n sei -c seid --previous")
    );
    // The BackOff event is explained by the crash loop: not a second finding.
    assert!(
        of_class(&findings, FindingClass::PodWarning).is_empty(),
        "{findings:#?}"
    );
    let pull = only(&findings, FindingClass::PodImagePull);
    assert_eq!(
        pull.summary,
        "rpc-1-0 cannot pull ghcr.io/sei-protocol/sei:v9.9.9 (ImagePullBackOff)"
    );
    // The image it ran before exists: rolling back is the fix, previewed.
    assert_eq!(
        pull.fix.command.as_deref(),
        Some(
            format!("sei-console rollout rpc-1 --context kind-a -n sei --image {IMAGE} --dry-run")
                .as_str()
        )
    );
}

#[test]
fn a_pending_pod_carries_the_schedulers_reason_and_a_pending_pvc_its_class() {
    let mut world = World::new(vec![healthy("rpc-0")]);
    world.pods.push(pod_json(
        "rpc-0",
        IMAGE,
        json!({"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "message": "0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector."}]}),
    ));
    world.events.push(event_about(
        "Pod",
        "rpc-0-0",
        NS,
        true,
        "FailedScheduling",
        "0/4 nodes are available",
        9,
        10,
    ));
    world.pvcs.push(serde_json::from_value(json!({
        "metadata": {"namespace": NS, "name": "data-rpc-0", "creationTimestamp": sample::ago(300)},
        "spec": {"storageClassName": "gp3-missing"},
        "status": {"phase": "Pending"},
    })).expect("pvc"));
    let findings = world.diagnose();
    let pending = only(&findings, FindingClass::PodPending);
    assert_eq!(pending.severity, Severity::Critical);
    assert_eq!(
        pending.summary,
        "rpc-0-0 is Pending: Unschedulable: 0/4 nodes are available: 4 node(s) didn't match Pod's node affinity/selector."
    );
    assert!(evidence_text(pending).contains("Event Pod/rpc-0-0 FailedScheduling"));
    assert!(of_class(&findings, FindingClass::PodWarning).is_empty());
    let pvc = only(&findings, FindingClass::PvcPending);
    assert_eq!(pvc.severity, Severity::Warning);
    assert_eq!(pvc.object.kind, "PersistentVolumeClaim");
    assert_eq!(
        pvc.summary,
        "PVC data-rpc-0 is Pending (storage class gp3-missing)"
    );
}

#[test]
fn a_running_node_with_a_failing_condition_or_a_recent_pod_warning_is_not_healthy() {
    let sick = patched(
        healthy("rpc-0"),
        json!({"status": {"conditions": [condition("SidecarReady", "False", "Unreachable", "sidecar did not answer", 120)]}}),
    );
    let mut world = World::new(vec![sick, healthy("rpc-1")]);
    world.events.push(event_about(
        "Pod",
        "rpc-1-0",
        NS,
        true,
        "Unhealthy",
        "Readiness probe failed",
        3,
        60,
    ));
    // An old warning is history.
    world.events.push(event_about(
        "StatefulSet",
        "rpc-1",
        NS,
        true,
        "FailedCreate",
        "old",
        1,
        7200,
    ));
    let findings = world.diagnose();
    let condition = only(&findings, FindingClass::ConditionFailing);
    assert_eq!(
        condition.summary,
        "SidecarReady is False/Unreachable while Running"
    );
    let warning = only(&findings, FindingClass::PodWarning);
    assert_eq!(warning.object.name, "rpc-1-0");
    assert_eq!(
        warning.summary,
        "Pod/rpc-1-0: Unhealthy: Readiness probe failed"
    );
}

#[test]
fn permissions_the_fixes_need_are_listed_with_a_can_i_command() {
    let mut world = World::new(vec![healthy("rpc-0")]);
    world.denials.push(FixDenials {
        namespace: NS.into(),
        action: "rollout".into(),
        denials: vec![Denial {
            check: PermissionCheck::new("patch", "sei.io", "seinodes", NS, "rpc-0"),
            reason: String::new(),
        }],
    });
    let findings = world.diagnose();
    let finding = only(&findings, FindingClass::PermissionMissing);
    assert_eq!(finding.severity, Severity::Warning);
    assert_eq!(
        finding.summary,
        "you cannot run rollout here: 1 permission(s) missing"
    );
    assert_eq!(
        finding.fix.command.as_deref(),
        Some("kubectl --context kind-a auth can-i patch seinodes.sei.io -n sei")
    );
}

#[test]
fn findings_rank_by_severity_then_a_stable_order_and_other_checks_findings_join_in() {
    let failed = patched(
        node(NS, "b-full", NodeMode::Full, 7200),
        json!({"status": {"phase": "Failed", "plan": plan(&FULL_INIT_TASKS, 5, Some("bad"))}}),
    );
    let drifted = patched(
        healthy("a-rpc"),
        json!({"status": {"currentImage": OLD_IMAGE}}),
    );
    let mut world = World::new(vec![drifted, failed]);
    world
        .pods
        .push(waiting("a-rpc", OLD_IMAGE, "CrashLoopBackOff", ""));
    let first = world.diagnose();
    let order: Vec<(Severity, &str, FindingClass)> = first
        .iter()
        .map(|f| (f.severity, f.object.node.as_deref().unwrap_or(""), f.class))
        .collect();
    assert_eq!(
        order,
        [
            (Severity::Critical, "a-rpc", FindingClass::PodCrashLoop),
            (Severity::Critical, "b-full", FindingClass::PlanFailed),
            (Severity::Warning, "a-rpc", FindingClass::ImageDrift),
        ]
    );
    // The same input ranks the same way every time.
    assert_eq!(world.diagnose(), first);
    // Findings made elsewhere (chain health) are ranked with these.
    let mut more = first[2].clone();
    more.severity = Severity::Critical;
    more.summary = "chain stalled".into();
    let mut ranked = vec![first[2].clone(), more.clone(), first[0].clone()];
    rank(&mut ranked);
    assert_eq!(ranked[0], first[0]);
    assert_eq!(ranked[1], more);
    assert_eq!(Counts::of(&first).at_or_above(Severity::Critical), 2);
    assert_eq!(Counts::of(&first).at_or_above(Severity::Warning), 3);
}
