//! No silent loss of the record (issue 26): a journal that cannot be written is said in the
//! action's output, and `require_journal` refuses the action before any call.
use super::*;

const UNRECORDED: &str = "warning: not recorded in the journal of console actions: cannot write \
    journal /state/sei-console/journal.jsonl: No space left on device";

#[tokio::test]
async fn a_journal_that_cannot_be_written_is_said_in_the_actions_output() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    world.log.break_it();
    let ops = world.ops();
    let prepared = crate::ops::action::prepare(&ops, &rollout_input(&["a"], 1, 1))
        .await
        .expect("prepare");
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    let lines = report.0.lock().expect("lock").clone();
    assert!(lines.iter().any(|l| l == UNRECORDED), "{lines:#?}");
}

#[tokio::test]
async fn require_journal_refuses_before_any_call_when_the_journal_cannot_be_written() {
    let mut world = World::new();
    world.settings.require_journal = true;
    world.h.cluster.put_node(full_node("ns", "a"));
    world.log.break_it();
    let ops = world.ops();
    let refused = crate::ops::action::prepare(&ops, &rollout_input(&["a"], 1, 1)).await;
    let Err(OpsError::JournalRequired { action, why }) = &refused else {
        panic!("{refused:?}");
    };
    assert_eq!(action, "run rollout on a");
    assert!(why.contains("No space left on device"), "{why}");
    assert!(
        refused
            .as_ref()
            .err()
            .is_some_and(|e| e.to_string().ends_with("nothing was sent to the cluster")),
        "{refused:?}"
    );
    assert!(
        world.h.cluster.calls().is_empty(),
        "{:?}",
        world.h.cluster.calls()
    );
    assert_eq!(*world.access.asked.lock().expect("lock"), 0);
}

#[tokio::test]
async fn require_journal_with_a_journal_that_works_lets_the_action_run() {
    let mut world = World::new();
    world.settings.require_journal = true;
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let prepared = crate::ops::action::prepare(&ops, &rollout_input(&["a"], 1, 1))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    assert!(!world.log.lines().is_empty());
}
