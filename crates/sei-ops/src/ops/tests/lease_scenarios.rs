//! The node's Lease: a live holder refused before any change, a crashed console of this
//! machine taken over at once, a holder that stopped renewing waited out with a countdown.
use super::*;

/// A node Lease as another executor left it, renewed `age` ago.
fn foreign_lease(world: &World, node: &str, holder: &str, age_seconds: i64) {
    use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
    let renewed = world
        .clock
        .now()
        .checked_sub(jiff::SignedDuration::from_secs(age_seconds))
        .expect("time");
    let lease = Lease {
        metadata: ObjectMeta {
            name: Some(crate::executor::lease::node_lease_name(node)),
            namespace: Some("ns".into()),
            resource_version: Some("1".into()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some(holder.into()),
            lease_duration_seconds: Some(30),
            acquire_time: Some(MicroTime(renewed)),
            renew_time: Some(MicroTime(renewed)),
            ..LeaseSpec::default()
        }),
    };
    world.h.cluster.state.lock().expect("lock").leases.insert(
        ("ns".into(), crate::executor::lease::node_lease_name(node)),
        lease,
    );
}

#[tokio::test]
async fn a_node_another_live_executor_holds_is_refused_before_any_change() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    foreign_lease(&world, "a", "sei-console-other-host-7", 3);
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(!end.ok);
    assert!(
        end.message.contains(
            "is being changed by sei-console-other-host-7 (it renewed the Lease 3 s ago \
             (renewals are due every 10 s"
        ) && end.message.contains("nothing was changed"),
        "{}",
        end.message
    );
    assert_eq!(world.patches_of("a"), 0, "no spec patch");
    assert_eq!(
        world.h.cluster.count_calls("patch seinodes/status a"),
        0,
        "no plan"
    );
    assert!(
        world
            .h
            .cluster
            .state
            .lock()
            .expect("lock")
            .recorded_events
            .is_empty(),
        "no Event"
    );
    assert_eq!(
        world.log.lines(),
        ["ns/a refused"],
        "only the refusal is journaled"
    );
    assert_eq!(world.image_of("a"), (V1.into(), V1.into()));
}

/// A clock that moves with real time from a fixed start (Lease expiry needs time to pass).
struct TickingClock {
    base: jiff::Timestamp,
    started: std::time::Instant,
}

impl Clock for TickingClock {
    fn now(&self) -> jiff::Timestamp {
        let elapsed = jiff::SignedDuration::try_from(self.started.elapsed()).unwrap_or_default();
        self.base.checked_add(elapsed).unwrap_or(self.base)
    }
}

#[tokio::test]
async fn a_crashed_consoles_lease_is_taken_over_at_once_then_the_rollout_runs() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    // Renewed 3 s ago by a console of this machine that is gone: nothing to wait for.
    foreign_lease(&world, "a", "sei-console-here-4242", 3);
    world
        .holders
        .0
        .lock()
        .expect("lock")
        .push("sei-console-here-4242".into());
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let report = Recording::default();
    let started = std::time::Instant::now();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "no wait"
    );
    let lines = report.0.lock().expect("lock").clone();
    assert!(
        lines.iter().any(|l| l
            == "a: took over the Lease of sei-console-here-4242 at once: its process on this \
                machine has exited; resuming"),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("waiting for the Lease")),
        "{lines:?}"
    );
    assert_eq!(world.image_of("a"), (V2.into(), V2.into()));
}

#[tokio::test]
async fn a_holder_that_stopped_renewing_is_waited_out_with_a_countdown_then_the_rollout_runs() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    // Another machine's console, last renewed 29 s ago (renewals are due every 10 s): 1 s left.
    foreign_lease(&world, "a", "sei-console-elsewhere-77", 29);
    let clock = TickingClock {
        base: world.clock.now(),
        started: std::time::Instant::now(),
    };
    let ops = Ops::new(
        Ports {
            clock: &clock,
            ..world.ops().ports
        },
        &world.settings,
    );
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    let lines = report.0.lock().expect("lock").clone();
    assert!(
        lines.iter().any(|l| l
            == "a: waiting for the Lease of sei-console-elsewhere-77 to expire: not renewed for \
                29 s (renewals are due every 10 s), so its holder is judged gone: 1 s left"),
        "{lines:?}"
    );
    assert_eq!(world.image_of("a"), (V2.into(), V2.into()));
}

#[tokio::test]
async fn a_holder_within_its_renew_interval_is_live_wherever_it_runs() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    // 14 s: past the 10 s interval but within its grace.
    foreign_lease(&world, "a", "sei-console-elsewhere-77", 14);
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a"], 1, 3))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(!end.ok);
    assert!(
        end.message.contains(
            "is being changed by sei-console-elsewhere-77 (it renewed the Lease 14 s ago"
        ),
        "{}",
        end.message
    );
    assert_eq!(world.image_of("a"), (V1.into(), V1.into()));
}

#[test]
fn only_this_machines_console_processes_that_are_gone_count_as_gone() {
    let probe = crate::ports::LocalProcesses {
        prefix: "sei-console-here-".into(),
    };
    assert!(!probe.is_gone(&format!("sei-console-here-{}", std::process::id())));
    assert!(probe.is_gone(&format!("sei-console-here-{}", u32::MAX - 1)));
    assert!(!probe.is_gone(&format!("sei-console-elsewhere-{}", u32::MAX - 1)));
    assert!(!probe.is_gone("seinode-controller-abc"));
}

/// A console that exited but was not reaped yet (a zombie: its parent, say a shell script, is
/// still busy) is gone: its Lease is not renewed by anyone (issue 33).
#[test]
fn a_zombie_console_process_counts_as_gone() {
    let probe = crate::ports::LocalProcesses {
        prefix: "sei-console-here-".into(),
    };
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("spawn true");
    let holder = format!("sei-console-here-{}", child.id());
    let status = format!("/proc/{}/status", child.id());
    let zombie = |text: &str| {
        text.lines()
            .any(|l| l.starts_with("State:") && l.contains('Z'))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !std::fs::read_to_string(&status).is_ok_and(|s| zombie(&s)) {
        assert!(std::time::Instant::now() < deadline, "true never exited");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(probe.is_gone(&holder), "a zombie is gone");
    child.wait().expect("reap");
    assert!(probe.is_gone(&holder), "a reaped process is gone");
}

#[test]
fn a_killed_child_not_yet_reaped_is_a_zombie_and_gone_then_exited_once_reaped() {
    use crate::ports::{HolderProcess, process_state};
    let mut child = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("spawn sleep");
    let pid = child.id();
    assert_eq!(process_state(pid), HolderProcess::Running);
    child.kill().expect("SIGKILL");
    // Not reaped: the kernel keeps it as a zombie until `wait`.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while process_state(pid) != HolderProcess::Zombie {
        assert!(std::time::Instant::now() < deadline, "never a zombie");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let probe = crate::ports::LocalProcesses {
        prefix: "sei-console-here-".into(),
    };
    let holder = format!("sei-console-here-{pid}");
    assert_eq!(probe.process(&holder), HolderProcess::Zombie);
    assert!(probe.is_gone(&holder));
    child.wait().expect("reap");
    assert_eq!(probe.process(&holder), HolderProcess::Exited);
}
