use super::*;
use crate::ports::HolderProcess;

fn t(secs: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + secs).expect("ts")
}

/// Holders whose process state the test names.
struct Holders(HolderProcess);

impl HolderProbe for Holders {
    fn is_gone(&self, _: &str) -> bool {
        self.0.is_gone()
    }
    fn process(&self, _: &str) -> HolderProcess {
        self.0
    }
}

fn stored(view: &RolloutView, renewed: Timestamp) -> StoredRecord {
    let lease = rec::to_lease(&view.record, view.holder.as_deref(), renewed, None);
    rec::from_lease(&lease).expect("read")
}

#[test]
fn a_held_rollout_reads_held_in_the_header_and_on_its_nodes_rows() {
    let view = sample(RolloutState::Holding, 5, t(0));
    assert_eq!(view.word(), "held");
    assert_eq!(
        view.header(),
        "⟳ rollout 20270115-080000-0000 1/5 held",
        "short enough for an 80-column header"
    );
    assert_eq!(view.node_mark("seid-3"), Some("held"));
    assert_eq!(view.node_mark("other"), None);
    let text = view.text();
    assert!(
        text.contains(
            "held after wave 1: `sei-console -n sei rollout promote 20270115-080000-0000`"
        ),
        "{text}"
    );
    assert!(text.contains("last: seid-0: healthy"), "{text}");
    assert!(text.contains("seid-1: ghcr.io/sei/seid:v1 -> ghcr.io/sei/seid:v2: not started"));
}

#[test]
fn a_running_rollout_marks_no_row_and_an_abort_requested_reads_aborting() {
    let mut view = sample(RolloutState::Running, 2, t(0));
    assert_eq!(view.word(), "running");
    assert_eq!(view.node_mark("seid-1"), None);
    view.record.abort = Some(rec::Request {
        by: "other".into(),
        at: t(1),
    });
    assert_eq!(view.word(), "aborting");
    assert!(view.text().contains("abort requested by other"));
}

#[test]
fn a_runner_silent_past_its_heartbeat_or_gone_is_orphaned_with_the_resume_command() {
    let view = sample(RolloutState::Running, 2, t(0));
    let fresh = RolloutView::judge(&stored(&view, t(0)), t(5), &Holders(HolderProcess::Unknown));
    assert_eq!(fresh.word(), "running");
    assert_eq!(fresh.runner_words(), "live (sei-console-host-4242)");
    let silent = RolloutView::judge(
        &stored(&view, t(0)),
        t(120),
        &Holders(HolderProcess::Unknown),
    );
    assert_eq!(silent.word(), "orphaned");
    assert_eq!(
        silent.runner_words(),
        "orphaned: its runner sei-console-host-4242 stopped heartbeating; resume: \
         sei-console -n sei rollout seid-0 seid-1 --image ghcr.io/sei/seid:v2"
    );
    assert_eq!(silent.node_mark("seid-0"), Some("orphaned"));
    let gone = RolloutView::judge(&stored(&view, t(0)), t(5), &Holders(HolderProcess::Exited));
    assert!(gone.is_orphaned());
}

#[test]
fn a_listing_keeps_the_unfinished_and_the_recently_finished() {
    let open = stored(&sample(RolloutState::Running, 1, t(0)), t(0));
    let mut old = stored(&sample(RolloutState::Done, 1, t(0)), t(0));
    old.record.id = "old".into();
    let mut fresh = stored(&sample(RolloutState::Aborted, 1, t(0)), t(0));
    fresh.record.updated = t(RECENT.as_secs() as i64);
    let all = [open, old, fresh];
    let now = t(RECENT.as_secs() as i64 + 10);
    let kept: Vec<RolloutState> = recent(&all, now).iter().map(|r| r.record.state).collect();
    assert_eq!(kept, [RolloutState::Running, RolloutState::Aborted]);
}
