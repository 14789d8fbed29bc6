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

/// Upstream `DeterministicTaskID`: UUIDv5 over `planID/taskType/planIndex`. Identical to
/// `Uuid::new_v5(&TASK_ID_NAMESPACE, name)`, hashed incrementally with the (hardware-assisted
/// where available) `sha1` crate because every planned task needs one.
pub fn task_id(plan_id: &str, kind: &TaskKind, plan_index: usize) -> String {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(TASK_ID_NAMESPACE.as_bytes());
    hasher.update(plan_id.as_bytes());
    hasher.update(b"/");
    hasher.update(kind.as_str().as_bytes());
    hasher.update(b"/");
    let mut digits = [0u8; 20];
    hasher.update(decimal(plan_index, &mut digits));
    let digest = hasher.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_sha1_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// `value` in decimal, written at the end of `buf`.
fn decimal(mut value: usize, buf: &mut [u8; 20]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return &buf[at..];
        }
    }
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
    fn task_id_equals_the_uuid_crates_v5() {
        for index in [0, 7, 10, 123, usize::MAX] {
            for kind in TaskKind::KNOWN {
                let name = format!("some-plan/{kind}/{index}");
                let want = Uuid::new_v5(&TASK_ID_NAMESPACE, name.as_bytes()).to_string();
                assert_eq!(task_id("some-plan", kind, index), want);
            }
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
