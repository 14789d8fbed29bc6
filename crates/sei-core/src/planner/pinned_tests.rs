//! Behaviours pinned by upstream node_update_test.go, seed_test.go, planner tests, and the
//! quirks of spec/planner.md section 7.
use serde_json::json;

use super::test_support::*;
use super::*;
use crate::api::*;

mod resolve;

fn condition(
    node: &SeiNode,
    kind: ConditionType,
) -> Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition> {
    node.status.as_ref().and_then(|s| s.condition(kind))
}

fn random_ctx() -> PlanContext {
    PlanContext {
        plan_ids: PlanIdSource::Random,
        ..ctx()
    }
}

fn update_plan(node: SeiNode) -> (SeiNode, TaskPlan) {
    let mut node = running(node, "old-image", "");
    let plan = build_plan(&mut node, &ctx()).expect("build").expect("plan");
    (node, plan)
}

#[test]
fn image_drift_update_progression_is_complete_and_pending() {
    let (_, plan) = update_plan(full_node("f"));
    assert_eq!(plan.phase, PlanPhase::Active);
    for task in &plan.tasks {
        assert_eq!(task.status, TaskStatus::Pending);
        assert!(!task.id.is_empty());
        assert!(
            task.params.as_ref().is_some_and(|p| !p.is_null()),
            "{}",
            task.kind
        );
    }
}

#[test]
fn config_patch_carries_external_address_and_peers() {
    let mut node = full_node("f");
    node.spec.external_address = Some("1.2.3.4:26656".into());
    node.status_mut().resolved_peers = Some(vec!["a@h1:26656".into(), "b@h2:26656".into()]);
    let (_, plan) = update_plan(node);
    let patch = plan
        .tasks
        .iter()
        .find(|t| t.kind == TaskKind::ConfigPatch)
        .expect("CP");
    assert_eq!(
        patch.params.as_deref().cloned(),
        Some(json!({"files": {"config.toml": {"p2p": {
            "external-address": "1.2.3.4:26656",
            "persistent-peers": "a@h1:26656,b@h2:26656"}}}}))
    );
    let (_, again) = update_plan(plan_node_with_same_spec());
    let (_, twice) = update_plan(plan_node_with_same_spec());
    assert_eq!(
        again.tasks[2].params, twice.tasks[2].params,
        "config-patch is deterministic"
    );
}

fn plan_node_with_same_spec() -> SeiNode {
    let mut node = full_node("f");
    node.status_mut().resolved_peers = Some(vec!["a@h1:26656".into()]);
    node
}

#[test]
fn config_patch_stamps_empty_values_when_unset() {
    let (_, plan) = update_plan(full_node("f"));
    let patch = plan
        .tasks
        .iter()
        .find(|t| t.kind == TaskKind::ConfigPatch)
        .expect("CP");
    assert_eq!(
        patch.params.as_deref().cloned(),
        Some(
            json!({"files": {"config.toml": {"p2p": {"external-address": "", "persistent-peers": ""}}}})
        )
    );
}

#[test]
fn sidecar_drift_from_platform_default_and_from_override() {
    let image = full_node("f").spec.image;
    let mut from_default = running(full_node("f"), &image, "ghcr.io/sei-protocol/seictl:old");
    let plan = build_plan(&mut from_default, &ctx())
        .expect("build")
        .expect("plan");
    assert_eq!(plan.tasks.len(), 7);
    let mut overridden = running(full_node("f"), &image, PLATFORM_SIDECAR);
    overridden.spec.sidecar = Some(Box::new(SidecarConfig {
        image: Some("custom:1".into()),
        ..Default::default()
    }));
    assert_eq!(
        build_plan(&mut overridden, &ctx())
            .expect("build")
            .expect("plan")
            .tasks
            .len(),
        7
    );
    let mut matching = running(full_node("f"), &image, PLATFORM_SIDECAR);
    assert_eq!(build_plan(&mut matching, &ctx()).expect("build"), None);
}

#[test]
fn quirk_empty_current_sidecar_image_is_not_drift() {
    let image = full_node("f").spec.image;
    let mut node = running(full_node("f"), &image, "");
    assert!(!sidecar_image_drifted(&node, &ctx()));
    assert_eq!(build_plan(&mut node, &ctx()).expect("build"), None);
}

#[test]
fn quirk_empty_current_image_counts_as_drift() {
    let mut node = running(full_node("f"), "", "");
    assert!(image_drifted(&node));
    let plan = build_plan(&mut node, &ctx())
        .expect("build")
        .expect("backfill plan");
    assert_eq!(classify_plan(&plan), PlanClass::NodeUpdate);
    let message = &condition(&node, ConditionType::NodeUpdateInProgress)
        .expect("cond")
        .message;
    assert_eq!(
        message,
        "image drift detected: spec=ghcr.io/sei-protocol/sei:v6.3.0 current="
    );
}

#[test]
fn image_drift_message_names_which_drifted() {
    let spec_image = full_node("f").spec.image;
    let seid_only = running(full_node("f"), "old", "");
    assert_eq!(
        image_drift_message(&seid_only, &ctx()),
        format!("image drift detected: spec={spec_image} current=old")
    );
    let sidecar_only = running(full_node("f"), &spec_image, "sc:old");
    assert_eq!(
        image_drift_message(&sidecar_only, &ctx()),
        format!("sidecar image drift detected: spec={PLATFORM_SIDECAR} current=sc:old")
    );
    let mut both = running(full_node("f"), "old", "sc:old");
    assert_eq!(
        image_drift_message(&both, &ctx()),
        format!(
            "image drift detected: seid spec={spec_image} current=old; sidecar spec={PLATFORM_SIDECAR} current=sc:old"
        )
    );
    let plan = build_plan(&mut both, &ctx()).expect("build").expect("plan");
    assert_eq!(plan.tasks.len(), 7, "combined drift is one plan");
}

#[test]
fn init_uses_config_apply_update_uses_config_patch() {
    let mut init = full_node("f");
    let init_plan = build_plan(&mut init, &ctx()).expect("build").expect("plan");
    let kinds = |plan: &TaskPlan, kind: TaskKind| plan.tasks.iter().any(|t| t.kind == kind);
    assert!(kinds(&init_plan, TaskKind::ConfigApply) && !kinds(&init_plan, TaskKind::ConfigPatch));
    let (_, update) = update_plan(full_node("f"));
    assert!(kinds(&update, TaskKind::ConfigPatch) && !kinds(&update, TaskKind::ConfigApply));
}

#[test]
fn image_drift_wins_over_lost_sidecar_readiness() {
    let mut node = with_condition(
        running(full_node("f"), "old", ""),
        ConditionType::SidecarReady,
        ConditionStatus::False,
        Reason::NotReady,
    );
    let plan = build_plan(&mut node, &ctx()).expect("build").expect("plan");
    assert_eq!(plan.tasks.len(), 7);
}

#[test]
fn sidecar_needs_reapproval_only_for_false_not_ready() {
    let base = running_steady(full_node("f"));
    assert!(!sidecar_needs_reapproval(&base));
    let cases = [
        (ConditionStatus::True, Reason::Ready, false),
        (ConditionStatus::Unknown, Reason::Unreachable, false),
        (ConditionStatus::False, Reason::Unreachable, false),
        (ConditionStatus::False, Reason::NotReady, true),
    ];
    for (status, reason, want) in cases {
        let node = with_condition(base.clone(), ConditionType::SidecarReady, status, reason);
        assert_eq!(sidecar_needs_reapproval(&node), want, "{status}/{reason}");
    }
}

#[test]
fn quirk_plan_ids_are_fresh_per_build_so_task_ids_change() {
    let mut node = with_condition(
        running_steady(full_node("f")),
        ConditionType::SidecarReady,
        ConditionStatus::False,
        Reason::NotReady,
    );
    let a = build_plan(&mut node, &random_ctx()).expect("a").expect("a");
    let b = build_plan(&mut node, &random_ctx()).expect("b").expect("b");
    assert_ne!(a.id, b.id);
    assert_ne!(a.tasks[0].id, b.tasks[0].id);
    let mut drifted = running(full_node("f"), "old", "");
    let c = build_plan(&mut drifted, &random_ctx())
        .expect("c")
        .expect("c");
    let d = build_plan(&mut drifted, &random_ctx())
        .expect("d")
        .expect("d");
    assert_ne!(c.id, d.id);
    let mut ids: Vec<&String> = c.tasks.iter().map(|t| &t.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), c.tasks.len(), "task ids unique within a plan");
}

#[test]
fn quirk_update_and_mark_ready_plans_have_no_failed_phase() {
    let (_, update) = update_plan(seed_node("s", "k"));
    assert_eq!(update.failed_phase, None);
    let json = serde_json::to_value(&update).expect("ser");
    assert!(json.get("failedPhase").is_none());
    assert_eq!(json["targetPhase"], "Running");
}

#[test]
fn quirk_node_update_condition_is_not_seeded() {
    let mut init = full_node("f");
    resolve_plan(&mut init, &ctx()).expect("resolve");
    assert!(condition(&init, ConditionType::NodeUpdateInProgress).is_none());
}

#[test]
fn classify_plan_labels() {
    let mut init = full_node("f");
    assert_eq!(
        classify_plan(&build_plan(&mut init, &ctx()).expect("b").expect("p")),
        PlanClass::Init
    );
    let mut mr = with_condition(
        running_steady(full_node("f")),
        ConditionType::SidecarReady,
        ConditionStatus::False,
        Reason::NotReady,
    );
    let plan = build_plan(&mut mr, &ctx()).expect("b").expect("p");
    assert_eq!(classify_plan(&plan).as_str(), "mark-ready-reapply");
}

#[test]
fn quirk_state_sync_gate_blocks_only_on_present_non_true_condition() {
    let mut node = full_node("f");
    node.spec.full_node.as_mut().expect("full").snapshot = Some(s3(10));
    assert!(
        !state_sync_blocks_plan(&node),
        "missing condition does not block"
    );
    let blocked = with_condition(
        node.clone(),
        ConditionType::StateSyncReady,
        ConditionStatus::False,
        Reason::NoSyncersConfigured,
    );
    assert!(state_sync_blocks_plan(&blocked));
    let mut blocked_resolve = blocked.clone();
    assert_eq!(
        resolve_plan(&mut blocked_resolve, &ctx()).expect("r"),
        Resolution::StateSyncBlocked
    );
    let ready = with_condition(
        node.clone(),
        ConditionType::StateSyncReady,
        ConditionStatus::True,
        Reason::Ready,
    );
    assert!(!state_sync_blocks_plan(&ready));
    let mut running_node = running(blocked.clone(), "old", "");
    assert!(
        !state_sync_blocks_plan(&running_node),
        "Running nodes are never gated"
    );
    assert_eq!(
        resolve_plan(&mut running_node, &ctx()).expect("r"),
        Resolution::Built
    );
    // A genesis-ceremony validator with a snapshot is gated too.
    let mut ceremony = with_genesis_ceremony(validator_node("v"));
    validator_mut(&mut ceremony).snapshot = Some(state_sync());
    let ceremony = with_condition(
        ceremony,
        ConditionType::StateSyncReady,
        ConditionStatus::Unknown,
        Reason::SyncerSourceError,
    );
    assert!(state_sync_blocks_plan(&ceremony));
}

#[test]
fn quirk_validate_runs_on_running_nodes_without_a_plan() {
    let mut node = running_steady(seed_node("s", ""));
    let err = resolve_plan(&mut node, &ctx()).expect_err("seed without key");
    assert!(
        err.to_string()
            .starts_with("seed: nodeKey.secret.secretName is required")
    );
}

#[test]
fn resolve_plan_without_mode_reports_namespace_and_name() {
    let mut node = full_node("f");
    node.spec.full_node = None;
    assert_eq!(
        resolve_plan(&mut node, &ctx())
            .expect_err("no mode")
            .to_string(),
        "no mode sub-spec set on SeiNode ns/f"
    );
}

#[test]
fn sidecar_probe_results_set_the_condition() {
    let cases = [
        (SidecarProbe::Ready, "True", "Ready", "sidecar returned 200"),
        (
            SidecarProbe::NotReady,
            "False",
            "NotReady",
            "sidecar returned 503, re-issuing mark-ready",
        ),
        (
            SidecarProbe::Error("dial tcp: refused".into()),
            "Unknown",
            "Unreachable",
            "sidecar Healthz error: dial tcp: refused",
        ),
    ];
    for (probe, status, reason, message) in cases {
        let mut node = running_steady(full_node("f"));
        apply_sidecar_probe(&mut node, &probe, &ctx());
        let cond = condition(&node, ConditionType::SidecarReady).expect("cond");
        assert_eq!(
            (
                cond.status.as_str(),
                cond.reason.as_str(),
                cond.message.as_str()
            ),
            (status, reason, message)
        );
    }
}

#[test]
fn is_bootstrap_complete_follows_teardown_task() {
    assert!(!is_bootstrap_complete(None));
    let mut plain = full_node("f");
    let plan = build_plan(&mut plain, &ctx()).expect("b").expect("p");
    assert!(is_bootstrap_complete(Some(&plan)), "no teardown task");
    let mut boot = full_node("f");
    boot.spec.full_node.as_mut().expect("full").snapshot = Some(with_bootstrap(s3(5)));
    let mut plan = build_plan(&mut boot, &ctx()).expect("b").expect("p");
    assert!(!is_bootstrap_complete(Some(&plan)));
    for task in plan
        .tasks
        .iter_mut()
        .filter(|t| t.kind == TaskKind::TeardownBootstrap)
    {
        task.status = TaskStatus::Complete;
    }
    assert!(is_bootstrap_complete(Some(&plan)));
}

#[test]
fn preview_honours_controller_exits() {
    let mut failed = full_node("f");
    failed.status_mut().phase = Some(Phase::Failed);
    assert_eq!(
        preview(&failed, None, &ctx()).expect("p").outcome,
        Err(NoPlanReason::Failed)
    );
    let mut paused = full_node("f");
    paused.spec.paused = Some(true);
    assert_eq!(
        preview(&paused, None, &ctx()).expect("p").outcome,
        Err(NoPlanReason::Paused)
    );
    let steady = running_steady(full_node("f"));
    assert_eq!(
        preview(&steady, None, &ctx()).expect("p").outcome,
        Err(NoPlanReason::SteadyState)
    );
    let fresh = preview(&full_node("f"), None, &ctx()).expect("p");
    assert_eq!(fresh.outcome.expect("plan").tasks.len(), 8);
    assert_eq!(
        fresh.node.status.as_ref().and_then(|s| s.phase),
        Some(Phase::Initializing)
    );
}

#[test]
fn preview_re_evaluates_the_state_sync_gate_when_syncers_are_given() {
    let mut node = full_node("f");
    node.spec.full_node.as_mut().expect("full").snapshot = Some(state_sync());
    let none: Vec<String> = Vec::new();
    let blocked = preview(&node, Some(&none), &ctx()).expect("p");
    assert_eq!(
        blocked.outcome,
        Err(NoPlanReason::StateSyncBlocked {
            status: "False".into(),
            reason: "NoSyncersConfigured".into()
        })
    );
    let two = vec!["h1:26657".to_owned(), "h2:26657".to_owned()];
    let built = preview(&node, Some(&two), &ctx())
        .expect("p")
        .outcome
        .expect("plan");
    let css = built
        .tasks
        .iter()
        .find(|t| t.kind == TaskKind::ConfigureStateSync)
        .expect("CSS");
    assert_eq!(
        css.params.as_ref().expect("params")["RpcServers"],
        json!(["h1:26657", "h2:26657"])
    );
}

/// Upstream's init plans never run observe-image, so a node leaves its init plan Running with
/// `currentImage` empty and the next reconcile builds the backfill update plan (empty counts as
/// drift). A rollout arriving then finds that plan Active and must let it end before it pins
/// the image (`ops::actions::rollout`).
#[test]
fn quirk_init_plan_sets_no_current_image_so_an_update_plan_follows_every_init() {
    let mut node = full_node("f");
    let init = build_plan(&mut node, &ctx())
        .expect("build")
        .expect("init plan");
    assert!(
        init.tasks.iter().all(|t| t.kind != TaskKind::ObserveImage),
        "{init:?}"
    );
    assert_eq!(init.target_phase, Some(Phase::Running));
    let mut after = running(full_node("f"), "", "");
    let backfill = build_plan(&mut after, &ctx())
        .expect("build")
        .expect("backfill plan");
    assert_eq!(classify_plan(&backfill), PlanClass::NodeUpdate);
    assert!(
        backfill
            .tasks
            .iter()
            .any(|t| t.kind == TaskKind::ObserveImage)
    );
}
