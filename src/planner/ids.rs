//! Plan and task IDs and per-type retry budgets (spec/planner.md 2.10).
use uuid::Uuid;

use crate::api::TaskKind;

/// Namespace of the deterministic task IDs (`internal/task/task.go`).
pub const TASK_ID_NAMESPACE: Uuid = Uuid::from_u128(0xb7e89c3a_4f12_4d8b_9a6e_1c2d3e4f5a6b);

/// Retry budget of `configure-genesis` (in every plan that has it).
pub const GENESIS_CONFIGURE_MAX_RETRIES: i64 = 180;
/// Retry budget of `assemble-and-upload-genesis`.
pub const GROUP_ASSEMBLY_MAX_RETRIES: i64 = 180;
/// Retry budget of `replace-pod` (inert upstream: it only fails through a terminal error).
pub const REPLACE_POD_MAX_RETRIES: i64 = 3;

/// Upstream `DeterministicTaskID`: UUIDv5 over `planID/taskType/planIndex`.
pub fn task_id(plan_id: &str, kind: &TaskKind, plan_index: usize) -> String {
    let name = format!("{plan_id}/{}/{plan_index}", kind.as_str());
    Uuid::new_v5(&TASK_ID_NAMESPACE, name.as_bytes()).to_string()
}

/// Upstream `taskMaxRetries`.
pub fn task_max_retries(kind: &TaskKind) -> i64 {
    match kind {
        TaskKind::ConfigureGenesis => GENESIS_CONFIGURE_MAX_RETRIES,
        TaskKind::AssembleAndUploadGenesis => GROUP_ASSEMBLY_MAX_RETRIES,
        TaskKind::ReplacePod => REPLACE_POD_MAX_RETRIES,
        _ => 0,
    }
}

/// Where plan IDs come from: a fresh random UUIDv4 per build (the controller's behaviour), or
/// one fixed ID so task IDs are reproducible (`sei-console plan --plan-id`, tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PlanIdSource {
    #[default]
    Random,
    Fixed(Uuid),
}

impl PlanIdSource {
    /// The ID of the next plan, lowercase and hyphenated.
    pub fn next_plan_id(&self) -> String {
        match self {
            PlanIdSource::Random => Uuid::new_v4().to_string(),
            PlanIdSource::Fixed(id) => id.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_id_test_vectors() {
        let cases = [
            (
                "test-plan-retry",
                TaskKind::ConfigureGenesis,
                0,
                "52870ba7-7f29-5143-8fa9-c17316f83728",
            ),
            (
                "test-plan-exhausted",
                TaskKind::ConfigureGenesis,
                0,
                "27adea66-b835-5d03-9643-9e4501a1fc76",
            ),
            (
                "00000000-0000-0000-0000-000000000000",
                TaskKind::EnsureDataPvc,
                0,
                "a6787ec4-4403-56ac-afd0-f275a2954e39",
            ),
            (
                "00000000-0000-0000-0000-000000000000",
                TaskKind::MarkReady,
                0,
                "30650901-1124-565a-9bd8-320886404344",
            ),
            (
                "11111111-1111-4111-8111-111111111111",
                TaskKind::ApplyStatefulSet,
                3,
                "0524406a-fc5e-5dee-ba63-479d0bd822a2",
            ),
        ];
        for (plan, kind, index, want) in cases {
            assert_eq!(task_id(plan, &kind, index), want, "{plan}/{kind}/{index}");
        }
    }

    #[test]
    fn task_max_retries_per_type() {
        assert_eq!(task_max_retries(&TaskKind::ConfigureGenesis), 180);
        assert_eq!(task_max_retries(&TaskKind::AssembleAndUploadGenesis), 180);
        assert_eq!(task_max_retries(&TaskKind::ReplacePod), 3);
        assert_eq!(task_max_retries(&TaskKind::MarkReady), 0);
        assert_eq!(task_max_retries(&TaskKind::Unknown(String::new())), 0);
        assert_eq!(task_max_retries(&TaskKind::Unknown("whatever".into())), 0);
    }

    #[test]
    fn random_plan_ids_are_fresh_v4_and_fixed_ones_repeat() {
        let a = PlanIdSource::Random.next_plan_id();
        let b = PlanIdSource::Random.next_plan_id();
        assert_ne!(a, b);
        assert_eq!(Uuid::parse_str(&a).expect("uuid").get_version_num(), 4);
        let fixed = PlanIdSource::Fixed(Uuid::nil());
        assert_eq!(fixed.next_plan_id(), fixed.next_plan_id());
    }
}
