//! Every row of the test-oracle tables (spec/planner.md section 4), table-driven.
use super::test_support::*;
use super::{build_plan, resolve_plan, validate};
use crate::api::*;

fn init_rows() -> Vec<(&'static str, SeiNode, &'static str)> {
    let mut full_ss = full_node("f");
    full_ss.spec.full_node.as_mut().expect("full").snapshot = Some(state_sync());
    let mut full_s3 = full_node("f");
    full_s3.spec.full_node.as_mut().expect("full").snapshot = Some(s3(100));
    let mut archive_generating = archive_node("a");
    archive_generating
        .spec
        .archive
        .as_mut()
        .expect("archive")
        .snapshot_generation = Some(SnapshotGenerationConfig {
        tendermint: Some(TendermintSnapshotGenerationConfig {
            keep_recent: 5,
            ..Default::default()
        }),
        ..Default::default()
    });
    archive_generating.status_mut().resolved_peers = Some(vec!["peer1@host:26656".into()]);
    let mut v8 = with_operator_keyring(with_keys(validator_node("v"), "sk", "nk"), "opk", "pass");
    validator_mut(&mut v8).snapshot = Some(s3(100));
    let mut v9 = with_operator_keyring(validator_node("v"), "opk", "pass");
    validator_mut(&mut v9).snapshot = Some(state_sync());
    let mut r12 = replayer_node("r", 100);
    r12.spec.replayer.as_mut().expect("replayer").snapshot = with_bootstrap(s3(100));
    let mut f12 = full_node("f");
    f12.spec.full_node.as_mut().expect("full").snapshot = Some(with_bootstrap(s3(100)));
    let mut v13 = with_keys(validator_node("v"), "sk", "nk");
    validator_mut(&mut v13).snapshot = Some(with_bootstrap(s3(100)));
    let mut v14 = with_operator_keyring(with_keys(validator_node("v"), "sk", "nk"), "opk", "pass");
    validator_mut(&mut v14).snapshot = Some(with_bootstrap(s3(100)));
    let bootstrap_row =
        "PVC, RBAC, DBS, DBJ, SR, CG, CA, CSS, CV, MR, ABC, TB, STS, SVC, CG, CA, CV, MR";
    vec![
        ("I1", full_node("f"), "PVC, RBAC, STS, SVC, CG, CA, CV, MR"),
        ("I2", full_ss, "PVC, RBAC, STS, SVC, CG, CA, CSS, CV, MR"),
        (
            "I3",
            full_s3,
            "PVC, RBAC, STS, SVC, SR, CG, CA, CSS, CV, MR",
        ),
        (
            "I4",
            archive_node("a"),
            "PVC, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I4 generating, peers",
            archive_generating,
            "PVC, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I5",
            replayer_node("r", 100),
            "PVC, RBAC, STS, SVC, SR, CG, CA, CSS, CV, MR",
        ),
        (
            "I6",
            validator_node("v"),
            "PVC, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I7",
            with_keys(validator_node("v"), "sk", "nk"),
            "PVC, VSK, VNK, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I8",
            v8,
            "PVC, VSK, VNK, VOK, RBAC, STS, SVC, SR, CG, CA, CSS, CV, MR",
        ),
        ("I9", v9, "PVC, VOK, RBAC, STS, SVC, CG, CA, CSS, CV, MR"),
        (
            "I10",
            seed_node("s", "seed-key"),
            "PVC, VNK, RBAC, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I11",
            with_genesis_ceremony(validator_node("v")),
            "PVC, RBAC, STS, SVC, generate-identity, generate-gentx, upload-genesis-artifacts, CG, CA, set-genesis-peers, CV, MR",
        ),
        ("I12 replayer", r12, bootstrap_row),
        ("I12 fullNode", f12, bootstrap_row),
        (
            "I13",
            v13,
            "PVC, RBAC, VSK, VNK, DBS, DBJ, SR, CG, CA, CSS, CV, MR, ABC, TB, STS, SVC, CG, CA, CV, MR",
        ),
        (
            "I14",
            v14,
            "PVC, RBAC, VSK, VNK, VOK, DBS, DBJ, SR, CG, CA, CSS, CV, MR, ABC, TB, STS, SVC, CG, CA, CV, MR",
        ),
    ]
}

#[test]
fn oracle_init_plans() {
    for (row, node, expected) in init_rows() {
        for phase in [None, Some(Phase::Pending), Some(Phase::Initializing)] {
            let mut node = node.clone();
            node.status_mut().phase = phase;
            validate(&node).unwrap_or_else(|err| panic!("{row}: validate: {err}"));
            let plan = build_plan(&mut node, &ctx()).expect(row).expect(row);
            assert_eq!(abbrevs(&plan), split(expected), "{row} ({phase:?})");
            assert_eq!(plan.phase, PlanPhase::Active, "{row}");
            assert_eq!(plan.target_phase, Some(Phase::Running), "{row}");
            assert_eq!(plan.failed_phase, Some(Phase::Failed), "{row}");
            for task in &plan.tasks {
                let budget = if task.kind == TaskKind::ConfigureGenesis {
                    180
                } else {
                    0
                };
                assert_eq!(task.max_retries, budget, "{row}: {}", task.kind);
                assert_eq!(task.status, TaskStatus::Pending, "{row}");
            }
            assert!(
                !plan.tasks.iter().any(|t| t.kind == TaskKind::ReplacePod),
                "{row}"
            );
        }
    }
}

#[test]
fn oracle_init_plans_through_resolve_set_initializing() {
    for (row, mut node, expected) in init_rows() {
        let outcome = resolve_plan(&mut node, &ctx()).expect(row);
        assert_eq!(outcome, super::Resolution::Built, "{row}");
        let status = node.status.as_ref().expect(row);
        assert_eq!(status.phase, Some(Phase::Initializing), "{row}");
        assert!(status.phase_transition_time.is_some(), "{row}");
        assert_eq!(
            abbrevs(status.plan.as_ref().expect(row)),
            split(expected),
            "{row}"
        );
    }
}

const UPDATE: &str = "STS, SVC, CP, CV, RP, OI, MR";

fn drifted(node: SeiNode) -> SeiNode {
    running(node, "ghcr.io/sei-protocol/sei:v6.2.0", "")
}

fn sidecar_drifted(node: SeiNode) -> SeiNode {
    let image = node.spec.image.clone();
    running(node, &image, "ghcr.io/sei-protocol/seictl:old")
}

fn backfill(node: SeiNode) -> SeiNode {
    running(node, "", "")
}

fn running_rows() -> Vec<(&'static str, SeiNode, String)> {
    let update = UPDATE.to_owned();
    let keys = || with_keys(validator_node("v"), "sk", "nk");
    let keys_opk = || with_operator_keyring(keys(), "opk", "pass");
    vec![
        ("R1 full image", drifted(full_node("f")), update.clone()),
        (
            "R1 archive image",
            drifted(archive_node("a")),
            update.clone(),
        ),
        (
            "R1 replayer image",
            drifted(replayer_node("r", 100)),
            update.clone(),
        ),
        (
            "R1 full sidecar",
            sidecar_drifted(full_node("f")),
            update.clone(),
        ),
        (
            "R1 archive sidecar",
            sidecar_drifted(archive_node("a")),
            update.clone(),
        ),
        ("R2 validator", drifted(validator_node("v")), update.clone()),
        (
            "R2 genesis validator",
            drifted(with_genesis_ceremony(validator_node("v"))),
            update.clone(),
        ),
        ("R3", drifted(keys()), format!("VSK, VNK, {UPDATE}")),
        (
            "R4",
            drifted(keys_opk()),
            format!("VSK, VNK, VOK, {UPDATE}"),
        ),
        (
            "R5",
            drifted(seed_node("s", "seed-key")),
            format!("VNK, {UPDATE}"),
        ),
        ("R8 full", backfill(full_node("f")), update.clone()),
        (
            "R8 replayer",
            backfill(replayer_node("r", 100)),
            update.clone(),
        ),
        (
            "R8 validator keys",
            backfill(keys()),
            format!("VSK, VNK, {UPDATE}"),
        ),
        (
            "R8 seed",
            backfill(seed_node("s", "seed-key")),
            format!("VNK, {UPDATE}"),
        ),
    ]
}

#[test]
fn oracle_running_update_plans() {
    for (row, mut node, expected) in running_rows() {
        validate(&node).unwrap_or_else(|err| panic!("{row}: validate: {err}"));
        let plan = build_plan(&mut node, &ctx()).expect(row).expect(row);
        assert_eq!(abbrevs(&plan), split(&expected), "{row}");
        assert_eq!(
            (plan.target_phase, plan.failed_phase),
            (Some(Phase::Running), None),
            "{row}"
        );
        for task in &plan.tasks {
            let budget = if task.kind == TaskKind::ReplacePod {
                3
            } else {
                0
            };
            assert_eq!(task.max_retries, budget, "{row}: {}", task.kind);
        }
        let condition = node
            .status
            .as_ref()
            .and_then(|s| s.condition(ConditionType::NodeUpdateInProgress))
            .expect(row);
        assert_eq!(
            (condition.status.as_str(), condition.reason.as_str()),
            ("True", "UpdateStarted"),
            "{row}"
        );
    }
}

fn every_mode() -> Vec<SeiNode> {
    vec![
        full_node("f"),
        archive_node("a"),
        replayer_node("r", 100),
        with_keys(validator_node("v"), "sk", "nk"),
        seed_node("s", "seed-key"),
    ]
}

#[test]
fn oracle_r6_lost_readiness_gets_a_single_mark_ready_plan() {
    for node in every_mode() {
        let mut node = with_condition(
            running_steady(node),
            ConditionType::SidecarReady,
            ConditionStatus::False,
            Reason::NotReady,
        );
        let plan = build_plan(&mut node, &ctx()).expect("build").expect("plan");
        assert_eq!(abbrevs(&plan), ["MR"]);
        assert_eq!(
            (plan.target_phase, plan.failed_phase),
            (Some(Phase::Running), None)
        );
        assert_eq!(plan.phase, PlanPhase::Active);
    }
}

#[test]
fn oracle_r7_no_plan_in_steady_state() {
    let sidecar_states = [
        None,
        Some((ConditionStatus::True, Reason::Ready)),
        Some((ConditionStatus::Unknown, Reason::Unreachable)),
        Some((ConditionStatus::False, Reason::Unreachable)),
    ];
    for node in every_mode() {
        for state in sidecar_states {
            let mut node = running_steady(node.clone());
            if let Some((status, reason)) = state {
                node = with_condition(node, ConditionType::SidecarReady, status, reason);
            }
            assert_eq!(
                build_plan(&mut node, &ctx()).expect("build"),
                None,
                "{state:?}"
            );
        }
    }
}
