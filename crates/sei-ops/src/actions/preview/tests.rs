use super::*;
use crate::api::{Phase, TaskStatus};
use crate::planner::test_support::{ctx, full_node, running, seed_node};

const V2: &str = "ghcr.io/sei-protocol/sei:v6.4.0";
const PINNED: &str = "ghcr.io/sei-protocol/sei@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn running_full() -> SeiNode {
    running(full_node("rpc-0"), "ghcr.io/sei-protocol/sei:v6.3.0", "")
}

#[test]
fn image_pin_builds_the_update_plan_with_the_new_image() {
    let image = ImageRef::parse(V2).expect("valid");
    let preview = image_pin_preview(&running_full(), &image, &ctx()).expect("preview");
    let plan = preview.plan.plan.as_ref().expect("update plan");
    let kinds: Vec<&str> = plan.tasks.iter().map(|t| t.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "apply-statefulset",
            "apply-service",
            "config-patch",
            "config-validate",
            "replace-pod",
            "observe-image",
            "mark-ready"
        ]
    );
    assert_eq!(plan.target_phase, Some(Phase::Running));
    assert_eq!(preview.to_image, V2);
    assert_eq!(preview.warnings.len(), 1, "tag only: not pinned");
    insta::assert_snapshot!("image_pin_full_node_text", image_pin_text(&preview));
    insta::assert_json_snapshot!("image_pin_full_node_json", preview);
}

/// A node mid-way through a plan (an init plan, or the controller's backfill update plan): the
/// rollout follows it first, so the preview says so and shows the update plan built once it
/// ended (its target phase reached), not "Active, resumed".
#[test]
fn image_pin_with_a_plan_active_previews_the_update_plan_after_it() {
    let image = ImageRef::parse(V2).expect("valid");
    let mut node = full_node("rpc-0");
    let ctx = ctx();
    crate::planner::resolve_plan(&mut node, &ctx).expect("init plan");
    let init = node
        .status
        .as_ref()
        .and_then(|s| s.plan.clone())
        .expect("init plan");
    assert_eq!(init.target_phase, Some(Phase::Running));
    let pin_id = uuid::Uuid::from_u128(42);
    let preview =
        image_pin_preview(&node, &image, &ctx.clone().with_plan_id(pin_id)).expect("preview");
    let first = preview.runs_first.as_ref().expect("runs first");
    assert_eq!(first.plan_id, init.id);
    assert_eq!((first.tasks_done, first.tasks), (0, init.tasks.len()));
    let plan = preview
        .plan
        .plan
        .as_ref()
        .expect("the update plan after it");
    assert_eq!(
        plan.id,
        pin_id.to_string(),
        "the ID the persisted plan will carry"
    );
    assert!(
        plan.tasks
            .iter()
            .any(|t| t.kind.as_str() == "observe-image")
    );
    let text = image_pin_text(&preview);
    assert!(
        text.contains(&format!(
            "First: plan {} is Active (0 of {} tasks done); it runs to its end, then spec.image is pinned:",
            init.id,
            init.tasks.len()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("Then: Update plan {}", plan.id)),
        "{text}"
    );
}

/// A node left by an abandoned rollout to v6.4.0: spec.image pinned, its update plan Active
/// with 4 of 7 tasks done (seen: the preview of the way back listed a one-task mark-ready plan,
/// then 7 tasks ran under that ID).
fn abandoned_on_v2() -> (SeiNode, TaskPlan) {
    let mut node = running_full();
    node.spec.image = V2.to_owned();
    crate::planner::resolve_plan(&mut node, &ctx()).expect("update plan");
    let status = node.status.as_mut().expect("status");
    let plan = status.plan.as_mut().expect("plan");
    for task in plan.tasks.iter_mut().take(4) {
        task.status = TaskStatus::Complete;
    }
    let plan = plan.clone();
    (node, plan)
}

#[test]
fn after_an_abandoned_rollout_the_way_back_previews_its_remaining_tasks_then_the_plan_back() {
    let (node, abandoned) = abandoned_on_v2();
    let back = ImageRef::parse("ghcr.io/sei-protocol/sei:v6.3.0").expect("valid");
    let id = uuid::Uuid::from_u128(7);
    let preview = image_pin_preview(&node, &back, &ctx().with_plan_id(id)).expect("preview");
    let first = preview
        .runs_first
        .as_ref()
        .expect("the abandoned plan runs first");
    assert_eq!(first.plan_id, abandoned.id);
    assert_eq!(
        first.remaining,
        abandoned.tasks[4..].to_vec(),
        "as persisted"
    );
    assert_eq!(
        first.pod_image, V2,
        "it ends with the pod on the pinned image"
    );
    let plan = preview
        .plan
        .plan
        .as_ref()
        .expect("then the update plan back");
    assert_eq!(plan.id, id.to_string());
    let kinds: Vec<&str> = plan.tasks.iter().map(|t| t.kind.as_str()).collect();
    assert_eq!(
        kinds.len(),
        7,
        "{kinds:?}: the update plan, not a mark-ready"
    );
    assert!(!preview.active_plan_suffices());
    let text = image_pin_text(&preview);
    for line in [
        format!(
            "First: plan {} is Active (4 of 7 tasks done); it runs to its end, then spec.image is pinned:",
            abandoned.id
        ),
        "   5. replace-pod".to_owned(),
        "   7. mark-ready".to_owned(),
        format!("  then the pod runs {V2}"),
        format!("Then: Update plan {id} (7 tasks, target phase Running):"),
        "   1. apply-statefulset".to_owned(),
    ] {
        assert!(text.contains(&line), "{line:?} not in:\n{text}");
    }
}

/// The same rollout run again (a resume): its Active plan takes the node to the image and
/// nothing is planned after it; the preview says so instead of a plan that will not run.
#[test]
fn resuming_a_rollout_previews_its_active_plan_and_nothing_after_it() {
    let (node, abandoned) = abandoned_on_v2();
    let image = ImageRef::parse(V2).expect("valid");
    let preview = image_pin_preview(&node, &image, &ctx()).expect("preview");
    assert!(preview.active_plan_suffices(), "{preview:#?}");
    let text = image_pin_text(&preview);
    assert!(
        text.contains(&format!(
            "Then: no plan: plan {} takes the node to {V2}",
            abandoned.id
        )),
        "{text}"
    );
    assert!(!text.contains("No plan would be built"), "{text}");
}

#[test]
fn image_pin_to_the_running_image_plans_nothing() {
    let image = ImageRef::parse("ghcr.io/sei-protocol/sei:v6.3.0").expect("valid");
    let preview = image_pin_preview(&running_full(), &image, &ctx()).expect("preview");
    assert!(preview.plan.plan.is_none());
    assert!(
        preview
            .plan
            .no_plan
            .as_deref()
            .is_some_and(|r| r.starts_with("steady state"))
    );
}

#[test]
fn pinned_seed_rollout_is_gated_by_validate_node_key_and_has_no_warning() {
    let node = running(
        seed_node("seed-0", "seed-0-key"),
        "ghcr.io/sei-protocol/sei:v6.3.0",
        "",
    );
    let image = ImageRef::parse(PINNED).expect("valid");
    let preview = image_pin_preview(&node, &image, &ctx()).expect("preview");
    assert!(preview.warnings.is_empty());
    let plan = preview.plan.plan.as_ref().expect("plan");
    assert_eq!(plan.tasks[0].kind, TaskKind::ValidateNodeKey);
    insta::assert_snapshot!("image_pin_seed_text", image_pin_text(&preview));
}

#[test]
fn address_change_persists_the_update_progression_with_the_new_address() {
    let address = ExternalAddress::parse("203.0.113.7:26656").expect("valid");
    let preview = address_preview(&running_full(), &address, &ctx()).expect("preview");
    let patch = preview.plan.config_patch.as_ref().expect("config patch");
    assert_eq!(
        patch["config.toml"]["p2p"]["external-address"],
        "203.0.113.7:26656"
    );
    assert!(preview.note.contains("would not propagate"));
    assert!(preview.note.contains("next image roll"));
    let text = address_text(&preview);
    assert!(
        text.contains("external-address = \"203.0.113.7:26656\""),
        "{text}"
    );
    insta::assert_snapshot!("address_full_node_text", text);
    insta::assert_json_snapshot!("address_full_node_json", preview);
}

#[test]
fn address_change_on_a_paused_node_says_why_there_is_no_plan() {
    let mut node = running_full();
    node.spec.paused = Some(true);
    let address = ExternalAddress::parse("seed.example.com:26656").expect("valid");
    let preview = address_preview(&node, &address, &ctx()).expect("preview");
    assert!(preview.plan.plan.is_none());
    assert_eq!(
        preview.plan.no_plan.as_deref(),
        Some("spec.paused is true; reconciliation is frozen")
    );
}
