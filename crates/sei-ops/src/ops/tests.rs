//! Scenarios of the use cases against the in-memory fakes (controller-rs style): each builds a
//! small fleet, prepares and runs an action, and checks what was changed, journaled and said.
use std::sync::Mutex;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;

use super::*;
use crate::actions::address::ExternalAddress;
use crate::actions::image_ref::ImageRef;
use crate::actions::node_key::NodeKey;
use crate::api::Phase;
use crate::api::sidecar::SidecarTaskType;
use crate::config::WaveDefaults;
use crate::executor::driver::Progress;
use crate::ops::actions::{address, rollout, seed};
use crate::ports::access::{AccessFuture, Verdict};
use crate::ports::{Clock, ClusterObject, FixedClock, HolderProbe};
use crate::tasks::testing::*;
mod canary;
mod lease_scenarios;
mod render_block;
mod resume;
mod rollout_gate;
mod seed_scenarios;
mod sidecar_credential_scenarios;

const SIDECAR_IMAGE: &str = "ghcr.io/sei-protocol/seictl:platform";
const V1: &str = "ghcr.io/sei-protocol/seid:v1";
const V2: &str = "ghcr.io/sei-protocol/seid:v2";

/// Allows everything except the listed `verb resource` pairs; counts reviews.
#[derive(Default)]
struct FakeAccess {
    denied: Vec<(&'static str, &'static str)>,
    asked: Mutex<usize>,
}

impl AccessReview for FakeAccess {
    fn review(&self, check: PermissionCheck) -> AccessFuture<'_> {
        *self.asked.lock().expect("lock") += 1;
        let deny = self
            .denied
            .iter()
            .any(|(verb, resource)| check.verb == *verb && check.resource == *resource);
        Box::pin(async move { Ok::<Verdict, AccessError>(deny.then(|| "RBAC: no rule".into())) })
    }
}

/// Lease holders the test declares gone (crashed consoles).
#[derive(Default)]
struct GoneHolders(Mutex<Vec<String>>);

impl HolderProbe for GoneHolders {
    fn is_gone(&self, holder: &str) -> bool {
        self.0.lock().expect("lock").iter().any(|h| h == holder)
    }
}

/// The journal in memory; `broken` makes every write fail as a full disk would.
#[derive(Default)]
struct MemoryLog(Mutex<Vec<JournalEntry>>, std::sync::atomic::AtomicBool);

impl MemoryLog {
    fn broken_error(&self) -> Result<(), crate::journal::JournalError> {
        if self.1.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(crate::journal::JournalError::Write {
                path: "/state/sei-console/journal.jsonl".into(),
                source: std::io::Error::other("No space left on device"),
            });
        }
        Ok(())
    }

    fn break_it(&self) {
        self.1.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

impl ActionLog for MemoryLog {
    fn append(&self, entry: &JournalEntry) -> Result<(), crate::journal::JournalError> {
        self.broken_error()?;
        self.0.lock().expect("lock").push(entry.clone());
        Ok(())
    }

    fn ready(&self) -> Result<(), crate::journal::JournalError> {
        self.broken_error()
    }
}

impl MemoryLog {
    /// `node outcome` per line, in order.
    fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .expect("lock")
            .iter()
            .map(|e| format!("{} {}", e.nodes.join(","), e.outcome.name()))
            .collect()
    }
}

#[derive(Default)]
struct Recording(Mutex<Vec<String>>);

impl Report for Recording {
    fn note(&self, note: &Note) {
        self.0.lock().expect("lock").push(note.to_string());
    }

    fn progress(&self, node: &str, progress: &Progress, total: usize) {
        let line = format!("{node}: {}", follow::progress_text(progress, total));
        self.0.lock().expect("lock").push(line);
    }
}

impl Recording {
    fn waves(&self) -> Vec<String> {
        let lines = self.0.lock().expect("lock");
        lines
            .iter()
            .filter(|l| l.starts_with("wave "))
            .cloned()
            .collect()
    }
}

struct World {
    h: Harness,
    clock: FixedClock,
    access: FakeAccess,
    log: MemoryLog,
    holders: GoneHolders,
    prober: crate::ports::probe::fake::FakeProber,
    rpc: crate::ports::node_rpc::fake::FakeNodeRpc,
    notified: Notified,
    registry: crate::ports::registry::fake::FakeRegistry,
    settings: Settings,
}

/// The notifications queued, in order.
#[derive(Default)]
struct Notified(std::sync::Mutex<Vec<crate::ports::notify::Notification>>);

impl crate::ports::notify::Notifier for Notified {
    fn notify(&self, notification: crate::ports::notify::Notification) {
        self.0.lock().expect("lock").push(notification);
    }
}

impl Notified {
    fn taken(&self) -> Vec<crate::ports::notify::Notification> {
        std::mem::take(&mut *self.0.lock().expect("lock"))
    }
}

impl World {
    fn new() -> World {
        let h = Harness::new();
        let clock = FixedClock(h.now);
        let mut platform = PlatformConfig::default();
        platform.images.sidecar = SIDECAR_IMAGE.into();
        World {
            h,
            clock,
            access: FakeAccess::default(),
            log: MemoryLog::default(),
            holders: GoneHolders::default(),
            prober: Default::default(),
            rpc: Default::default(),
            notified: Notified::default(),
            registry: Default::default(),
            settings: Settings {
                namespace: "ns".into(),
                operator: "alice (context test)".into(),
                context: "test".into(),
                executor: ExecutorMode::Embedded,
                controller_namespace: "ctl".into(),
                platform,
                platform_source: PlatformSource::File("platform.yaml".into()),
                platform_note: None,
                sidecar_reach: crate::ports::SidecarReach::Direct,
                sidecar_credential: crate::ports::SidecarCredential::Usable,
                driver: DriverConfig {
                    holder: "test-console".into(),
                    max_wait: Duration::from_millis(1),
                    deadline: Duration::from_secs(10),
                    halt_on_render_failure: true,
                    ..DriverConfig::default()
                },
                read_only: None,
                require_journal: false,
                allow_unknown_fields: false,
            },
        }
    }

    /// A seed's node key in Secret `secret` of namespace `ns` (`node_key.json`, as seid writes it).
    fn put_seed_key(&self, secret: &str) -> NodeKey {
        let key = NodeKey::from_seed(&[7; 32]);
        self.h.cluster.put_secret(
            "ns",
            secret,
            &[("node_key.json", key.to_node_key_json().expose())],
        );
        key
    }

    fn ops(&self) -> Ops<'_> {
        Ops::new(
            Ports {
                cluster: &self.h.cluster,
                access: &self.access,
                sidecar: &self.h.sidecar,
                renderer: &self.h.renderer,
                clock: &self.clock,
                log: &self.log,
                holders: &self.holders,
                prober: &self.prober,
                node_rpc: &self.rpc,
                notifier: &self.notified,
                registry: &self.registry,
            },
            &self.settings,
        )
    }

    /// Full nodes Running on v1 (init plan, then the reconcile that backfills currentImage),
    /// each with a Ready pod; the call log starts empty after this.
    async fn running_fleet(&self, names: &[&str]) {
        let driver = self.ops().driver();
        for name in names {
            self.h.cluster.put_node(full_node("ns", name));
            for _ in 0..2 {
                driver
                    .persist("ns", name, SIDECAR_IMAGE)
                    .await
                    .expect("persist");
                driver.drive("ns", name, &mut |_| {}).await.expect("drive");
            }
            self.h.cluster.put(ClusterObject::Pod(ready_pod(name)));
        }
        self.h.cluster.state.lock().expect("lock").calls.clear();
    }

    fn image_of(&self, name: &str) -> (String, String) {
        let node = self.h.cluster.node("ns", name).expect("node");
        let current = node
            .status
            .as_ref()
            .map(|s| s.current_image().to_owned())
            .unwrap_or_default();
        (node.spec.image, current)
    }

    fn patches_of(&self, name: &str) -> usize {
        self.h
            .cluster
            .count_calls(&format!("patch seinodes {name}"))
    }
}

fn ready_pod(node: &str) -> Pod {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": format!("{node}-0"), "namespace": "ns",
                     "labels": {"sei.io/node": node}},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    }))
    .expect("pod")
}

fn rollout_input(names: &[&str], canary: u32, batch: u32) -> rollout::RolloutInput {
    rollout::RolloutInput {
        selection: rollout::Selection::Named(names.iter().map(|n| (*n).to_owned()).collect()),
        image: ImageRef::parse(V2).expect("image"),
        waves: WaveDefaults { canary, batch },
        canary_nodes: Vec::new(),
        wait: true,
        dry_run: false,
        // The health gate has its own tests (`rollout_gate_tests`).
        health_gate: None,
        allow_unusual_tag: false,
        undo_of: None,
        hold_after: None,
        resolve_digest: false,
    }
}

#[tokio::test]
async fn a_rollout_runs_the_canary_then_batches_and_every_node_reaches_the_image() {
    let world = World::new();
    let names = ["a", "b", "c", "d", "e"];
    world.running_fleet(&names).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&names, 1, 2))
        .await
        .expect("prepare");
    assert_eq!(prepared.waves, [vec!["a"], vec!["b", "c"], vec!["d", "e"]]);
    assert!(prepared.permissions.allowed(), "{:?}", prepared.permissions);
    let report = Recording::default();
    let end = crate::ops::action::execute(&ops, &prepared, &report)
        .await
        .expect("run");
    assert!(end.ok, "{end:?}");
    assert_eq!(
        report.waves(),
        ["wave 1 of 3: a", "wave 2 of 3: b, c", "wave 3 of 3: d, e"]
    );
    for name in names {
        assert_eq!(world.image_of(name), (V2.into(), V2.into()), "{name}");
    }
    let journal = world.log.lines();
    assert_eq!(journal.first().map(String::as_str), Some("ns/a started"));
    assert_eq!(
        journal.iter().filter(|l| l.ends_with("succeeded")).count(),
        5
    );
    let events = world
        .h
        .cluster
        .state
        .lock()
        .expect("lock")
        .recorded_events
        .clone();
    assert_eq!(events.len(), 5, "one Console Event per node");
    assert!(
        events
            .iter()
            .all(|e| e.reason.as_deref() == Some("ConsoleImageRollout")),
        "{events:?}"
    );
}

#[tokio::test]
async fn the_first_failure_halts_the_rollout_and_later_waves_are_untouched() {
    let world = World::new();
    let names = ["a", "b", "c", "d"];
    world.running_fleet(&names).await;
    world
        .h
        .sidecar
        .failing
        .lock()
        .expect("lock")
        .push(("b".into(), SidecarTaskType::ConfigPatch));
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&names, 1, 1))
        .await
        .expect("prepare");
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(!end.ok);
    assert_eq!(end.failed_node.as_deref(), Some("b"));
    assert!(
        end.message
            .starts_with("rollout halted at ns/b: task config-patch failed")
            && end.message.contains("2 node(s) not started"),
        "{}",
        end.message
    );
    assert_eq!(world.image_of("a"), (V2.into(), V2.into()));
    for untouched in ["c", "d"] {
        assert_eq!(world.patches_of(untouched), 0, "{untouched}");
        assert_eq!(world.image_of(untouched), (V1.into(), V1.into()));
    }
    assert!(world.log.lines().contains(&"ns/b failed".to_owned()));

    // The same rollout again, the fault gone: a is left alone; b, whose plan failed, is not
    // healthy and so not the automatic canary (issue 27): c goes first, then b gets a fresh
    // plan, then d.
    world.h.sidecar.failing.lock().expect("lock").clear();
    world.h.cluster.state.lock().expect("lock").calls.clear();
    let again = rollout::prepare(&ops, rollout_input(&names, 1, 1))
        .await
        .expect("prepare again");
    assert_eq!(
        again.already_rolled,
        [format!("a: already on {V2}; left alone")]
    );
    assert_eq!(again.names(), ["c", "b", "d"]);
    assert!(
        again.canary_notes[0].starts_with("canary: b passed over: not healthy (plan failed"),
        "{:?}",
        again.canary_notes
    );
    let end = crate::ops::action::execute(&ops, &again, &Recording::default())
        .await
        .expect("resume");
    assert!(end.ok, "{end:?}");
    assert_eq!(
        world.patches_of("a"),
        0,
        "a rolled node is not touched again"
    );
    for name in names {
        assert_eq!(world.image_of(name), (V2.into(), V2.into()), "{name}");
    }
}

#[tokio::test]
async fn a_node_no_plan_can_take_to_the_image_is_blocked_and_never_mutated() {
    let world = World::new();
    world.running_fleet(&["a", "failed"]).await;
    world.h.cluster.mutate_node("ns", "failed", |n| {
        if let Some(status) = n.status.as_mut() {
            status.phase = Some(Phase::Failed);
        }
    });
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["failed", "a"], 1, 3))
        .await
        .expect("prepare");
    assert_eq!(prepared.names(), ["a"]);
    assert_eq!(prepared.blocked.len(), 1);
    assert_eq!(prepared.blocked[0].node, "failed");
    assert!(
        prepared
            .text()
            .contains("failed: skipped, nothing will be changed")
    );
    let end = crate::ops::action::execute(&ops, &prepared, &Recording::default())
        .await
        .expect("run");
    assert!(!end.ok, "a skipped node makes the end a failure");
    assert!(
        end.message.contains("skipped, nothing changed: failed"),
        "{}",
        end.message
    );
    assert_eq!(world.patches_of("failed"), 0);
    assert_eq!(world.image_of("failed").0, V1);
    assert_eq!(world.image_of("a"), (V2.into(), V2.into()));

    // Only blocked nodes: refused before any change.
    let only = rollout::prepare(&ops, rollout_input(&["failed"], 1, 3))
        .await
        .expect("prepare");
    let refused = crate::ops::action::execute(&ops, &only, &Recording::default()).await;
    assert!(matches!(refused, Err(OpsError::Step(_))), "{refused:?}");
    assert_eq!(world.patches_of("failed"), 0);
}

#[tokio::test]
async fn read_only_refuses_before_any_call_and_journals_the_refusal() {
    let mut world = World::new();
    world.settings.read_only = Some("started with --read-only");
    world.h.cluster.put_node(full_node("ns", "a"));
    let ops = world.ops();
    let refused = crate::ops::action::prepare(&ops, &rollout_input(&["a"], 1, 3)).await;
    assert!(
        matches!(&refused, Err(OpsError::ReadOnly { .. })),
        "{refused:?}"
    );
    assert!(
        world.h.cluster.calls().is_empty(),
        "{:?}",
        world.h.cluster.calls()
    );
    assert_eq!(*world.access.asked.lock().expect("lock"), 0);
    assert_eq!(world.log.lines(), ["ns/a refused"]);
    let address = crate::ops::action::prepare(
        &ops,
        &address::AddressInput {
            node: "a".into(),
            address: ExternalAddress::parse("203.0.113.7:26656").expect("address"),
            wait: true,
            dry_run: false,
            restart: false,
        },
    )
    .await;
    assert!(matches!(address, Err(OpsError::ReadOnly { .. })));
    assert!(world.h.cluster.calls().is_empty());
}

#[tokio::test]
async fn a_denied_permission_refuses_the_rollout_before_any_change() {
    let mut world = World::new();
    world.access.denied = vec![("patch", "seinodes")];
    world.running_fleet(&["a", "b"]).await;
    let ops = world.ops();
    let prepared = rollout::prepare(&ops, rollout_input(&["a", "b"], 1, 3))
        .await
        .expect("prepare");
    assert!(!prepared.permissions.allowed());
    let refused = crate::ops::action::execute(&ops, &prepared, &Recording::default()).await;
    let Err(OpsError::Access(AccessError::Denied(denials))) = refused else {
        panic!("denied expected: {refused:?}");
    };
    assert!(denials.iter().all(|d| d.check.verb == "patch"));
    assert_eq!(world.patches_of("a") + world.patches_of("b"), 0);
    assert!(world.log.lines().contains(&"ns/a,ns/b refused".to_owned()));
}

#[tokio::test]
async fn a_dry_run_asks_no_permission_and_changes_nothing() {
    let world = World::new();
    world.running_fleet(&["a"]).await;
    let ops = world.ops();
    let mut input = rollout_input(&["a"], 1, 3);
    input.dry_run = true;
    let prepared = rollout::prepare(&ops, input).await.expect("prepare");
    assert_eq!(prepared.permissions.outcome, None);
    assert_eq!(*world.access.asked.lock().expect("lock"), 0);
    assert!(prepared.text().contains("Image pin"), "{}", prepared.text());
    assert_eq!(world.patches_of("a"), 0);
}

fn seed_input(name: &str, secret: Option<&str>) -> seed::SeedInput {
    seed::SeedInput {
        name: name.into(),
        chain_id: "pacific-1".into(),
        image: ImageRef::parse(V1).expect("image"),
        external_address: Some(
            ExternalAddress::parse(&format!("{name}.example.net:26656")).expect("address"),
        ),
        node_key_secret: secret.map(str::to_owned),
        wait: true,
        dry_run: false,
    }
}
mod exec_tests;
mod plan_handoff;
mod pod_needs_tests;
mod record_loss_tests;
mod record_tests;
mod restart_tests;
mod skew_tests;
mod waiting_tests;
