//! What runs, and since when: the drift judgement against the pod's container status.
use jiff::SignedDuration;
use serde_json::json;

use super::running::{
    RunningImage, TaskTook, drift_since, image_drift, slim_container_statuses, task_durations,
    took_text,
};
use super::sample::{self, IMAGE, OLD_IMAGE};
use crate::api::NodeMode;

fn running(image: &str, image_id: Option<&str>) -> RunningImage {
    RunningImage {
        image: image.to_owned(),
        image_id: image_id.map(str::to_owned),
        since: None,
    }
}

#[test]
fn drift_is_judged_against_what_the_pod_runs_when_it_is_known() {
    // Issue 33: a rollout stopped before observe-image leaves currentImage old while the pod
    // already runs the new image: that node runs what its spec says.
    let runs_new = running(IMAGE, None);
    assert!(!image_drift(IMAGE, Some(OLD_IMAGE), Some(&runs_new)));
    // The pod still runs the old image (archive-0 of the demo): drift, whatever currentImage.
    let runs_old = running(OLD_IMAGE, None);
    assert!(image_drift(IMAGE, Some(IMAGE), Some(&runs_old)));
    // No pod (or no status yet): the controller's judgement, an empty currentImage is drift.
    assert!(image_drift(IMAGE, None, None));
    assert!(image_drift(IMAGE, Some(OLD_IMAGE), None));
    assert!(!image_drift(IMAGE, Some(IMAGE), None));
}

#[test]
fn a_digest_pin_matches_the_runtime_s_digest_and_docker_hub_names_match_their_short_form() {
    let digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let pinned = format!("{IMAGE}@{digest}");
    // The kubelet reports the tag it pulled and the digest it resolved.
    let by_id = running(IMAGE, Some(&format!("ghcr.io/sei-protocol/sei@{digest}")));
    assert!(by_id.is(&pinned));
    let other_digest = running(
        IMAGE,
        Some(
            "ghcr.io/sei-protocol/sei@sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        ),
    );
    assert!(!other_digest.is(&pinned), "same tag, another digest");
    assert!(running(&format!("ghcr.io/sei-protocol/sei@{digest}"), None).is(&pinned));
    assert!(running("docker.io/library/busybox:1.36", None).is("busybox:1.36"));
    assert!(!running("busybox:1.37", None).is("busybox:1.36"));
}

#[test]
fn the_running_image_is_the_main_container_s_and_survives_slimming() {
    let mut pod = sample::pod("sei", "rpc-0", true, 0, "rev-1");
    let status = pod.status.as_mut().expect("status");
    let statuses = status.container_statuses.as_mut().expect("statuses");
    statuses[0].image = OLD_IMAGE.to_owned();
    statuses[0].image_id = "ghcr.io/sei-protocol/sei@sha256:aa".to_owned();
    statuses[0].state =
        serde_json::from_value(json!({"running": {"startedAt": sample::ago(300)}})).ok();
    let seen = RunningImage::of(&pod).expect("seid reports an image");
    assert_eq!(seen.image, OLD_IMAGE, "seid's, not the sidecar's");
    assert_eq!(
        seen.since,
        sample::now()
            .checked_sub(SignedDuration::from_secs(300))
            .ok()
    );
    let status = pod.status.as_mut().expect("status");
    status.container_statuses = slim_container_statuses(status.container_statuses.take());
    assert_eq!(
        status.container_statuses.as_ref().map(Vec::len),
        Some(1),
        "only the main container is kept"
    );
    assert_eq!(RunningImage::of(&pod), Some(seen));
    // A pod whose status names no image yet (Pending) runs nothing known.
    let mut pending = sample::pod("sei", "rpc-0", false, 0, "rev-1");
    if let Some(status) = pending.status.as_mut() {
        status.container_statuses = None;
    }
    assert_eq!(RunningImage::of(&pending), None);
}

#[test]
fn drift_since_is_the_update_condition_else_the_active_plan_s_first_submission() {
    let (nodes, _) = sample::demo_fleet();
    let updating = nodes.iter().find(|n| n.name() == "rpc-1").expect("rpc-1");
    let since = drift_since(updating).expect("NodeUpdateInProgress True");
    assert_eq!(since.source, "condition NodeUpdateInProgress");
    assert_eq!(
        since.at,
        sample::now()
            .checked_sub(SignedDuration::from_secs(400))
            .expect("in range")
    );
    let planned = sample::patched(
        sample::node("sei", "a", NodeMode::Full, 900),
        json!({"status": {"plan": sample::plan(&sample::UPDATE_TASKS, 2, None)}}),
    );
    let since = drift_since(&planned).expect("an Active plan");
    assert_eq!(since.source, "plan 6f1c2d3e");
    assert_eq!(
        since.at,
        sample::now()
            .checked_sub(SignedDuration::from_secs(600))
            .expect("in range")
    );
    assert_eq!(
        drift_since(&sample::running(sample::node(
            "sei",
            "b",
            NodeMode::Full,
            9
        ))),
        None
    );
}

#[test]
fn a_complete_task_took_until_the_next_was_submitted_and_the_current_runs_since_its_own() {
    let node = sample::patched(
        sample::node("sei", "a", NodeMode::Full, 900),
        json!({"status": {"plan": sample::plan(&sample::UPDATE_TASKS, 3, None)}}),
    );
    let plan = node
        .status
        .as_ref()
        .and_then(|s| s.plan.as_ref())
        .expect("plan");
    let took = task_durations(plan);
    // Submitted 600, 540, 480 s ago; the current one 95 s ago.
    assert_eq!(took[0], TaskTook::Took(SignedDuration::from_secs(60)));
    assert_eq!(took[1], TaskTook::Took(SignedDuration::from_secs(60)));
    assert_eq!(took[2], TaskTook::Took(SignedDuration::from_secs(385)));
    assert!(matches!(took[3], TaskTook::Running(_)));
    assert_eq!(took_text(took[3], sample::now()), "running 1m35s");
    assert_eq!(took_text(took[2], sample::now()), "6m25s");
    assert!(took[4..].iter().all(|t| *t == TaskTook::Unknown));
    assert_eq!(took_text(TaskTook::Unknown, sample::now()), "-");
}
