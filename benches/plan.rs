//! Benchmark: plan 10,000 varied SeiNodes (every mode; init, bootstrap, genesis, update,
//! mark-ready and steady-state cases) with the planner's `resolve_plan`, as the controller's
//! planning step does. Target: at most 50 ms in total. Run with `cargo bench --bench plan`.
use std::hint::black_box;
use std::time::{Duration, Instant};

use sei_console::api::*;
use sei_console::planner::{PlanContext, Resolution, resolve_plan};

const NODES: usize = 10_000;
const ROUNDS: usize = 7;
const TARGET: Duration = Duration::from_millis(50);

fn secret(name: String) -> SecretNameRef {
    SecretNameRef {
        secret_name: name,
        ..Default::default()
    }
}

fn snapshot(i: usize) -> Option<SnapshotSource> {
    match i % 4 {
        0 => None,
        1 => Some(SnapshotSource {
            state_sync: Some(StateSyncSource::default()),
            ..Default::default()
        }),
        2 => Some(SnapshotSource {
            s3: Some(S3SnapshotSource {
                target_height: 1_000 + i as i64,
                ..Default::default()
            }),
            trust_period: Some("168h0m0s".into()),
            ..Default::default()
        }),
        _ => Some(SnapshotSource {
            s3: Some(S3SnapshotSource {
                target_height: 1_000 + i as i64,
                ..Default::default()
            }),
            bootstrap_image: Some("ghcr.io/sei-protocol/sei:v6.2.0".into()),
            ..Default::default()
        }),
    }
}

fn node(i: usize) -> SeiNode {
    let mut spec = SeiNodeSpec {
        chain_id: "pacific-1".into(),
        image: "ghcr.io/sei-protocol/sei:v6.3.0".into(),
        external_address: i
            .is_multiple_of(3)
            .then(|| format!("10.0.{}.{}:26656", i / 256 % 256, i % 256)),
        overrides: i
            .is_multiple_of(7)
            .then(|| [("mempool.size".to_owned(), "0".to_owned())].into()),
        peers: Some(vec![PeerSource {
            static_: Some(StaticPeerSource {
                addresses: vec!["id@peer:26656".into()],
                ..Default::default()
            }),
            ..Default::default()
        }]),
        ..Default::default()
    };
    let variant = i / 5;
    match i % 5 {
        0 => {
            spec.full_node = Some(Box::new(FullNodeSpec {
                snapshot: snapshot(variant),
                ..Default::default()
            }))
        }
        1 => {
            let tendermint = TendermintSnapshotGenerationConfig {
                keep_recent: 5,
                ..Default::default()
            };
            let generation = SnapshotGenerationConfig {
                tendermint: Some(tendermint),
                ..Default::default()
            };
            spec.archive = Some(Box::new(ArchiveSpec {
                snapshot_generation: variant.is_multiple_of(2).then_some(generation),
                ..Default::default()
            }))
        }
        2 => {
            let snap = snapshot(2 + variant % 2).unwrap_or_default();
            spec.replayer = Some(Box::new(ReplayerSpec {
                snapshot: snap,
                ..Default::default()
            }))
        }
        3 => {
            let mut validator = ValidatorSpec {
                snapshot: snapshot(variant),
                ..Default::default()
            };
            if variant % 3 == 1 {
                validator.signing_key = Some(SigningKeySource {
                    secret: Some(secret(format!("v{i}-key"))),
                    ..Default::default()
                });
                validator.node_key = Some(NodeKeySource {
                    secret: Some(secret(format!("v{i}-nodekey"))),
                    ..Default::default()
                });
            } else if variant % 3 == 2 {
                validator.snapshot = None;
                validator.genesis_ceremony = Some(GenesisCeremonyNodeConfig {
                    chain_id: "arctic-1".into(),
                    staking_amount: "1usei".into(),
                    account_balance: "2usei".into(),
                    index: (i % 100) as i32,
                    ..Default::default()
                });
            }
            spec.validator = Some(Box::new(validator));
        }
        _ => {
            spec.seed = Some(Box::new(SeedSpec {
                node_key: NodeKeySource {
                    secret: Some(secret(format!("s{i}-nodekey"))),
                    ..Default::default()
                },
                ..Default::default()
            }))
        }
    }
    let mut node = SeiNode::new("fleet", &format!("node-{i}"), spec);
    // Half init, half running: drift, sidecar drift, steady, lost readiness.
    if (i / 5) % 2 == 1 {
        let status = node.status_mut();
        status.phase = Some(Phase::Running);
        status.resolved_peers = Some(vec!["a@h1:26656".into(), "b@h2:26656".into()]);
        match (i / 10) % 4 {
            0 => status.current_image = Some("ghcr.io/sei-protocol/sei:v6.2.0".into()),
            1 => {
                status.current_image = Some("ghcr.io/sei-protocol/sei:v6.3.0".into());
                status.current_sidecar_image = Some("ghcr.io/sei-protocol/seictl:old".into());
            }
            2 => status.current_image = Some("ghcr.io/sei-protocol/sei:v6.3.0".into()),
            _ => {
                status.current_image = Some("ghcr.io/sei-protocol/sei:v6.3.0".into());
                status.conditions = Some(vec![
                    k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition {
                        type_: "SidecarReady".into(),
                        status: "False".into(),
                        reason: "NotReady".into(),
                        message: "sidecar returned 503, re-issuing mark-ready".into(),
                        observed_generation: Some(1),
                        last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                            jiff::Timestamp::UNIX_EPOCH,
                        ),
                    },
                ]);
            }
        }
    }
    node
}

/// CPU time of this thread in nanoseconds (`/proc/thread-self/schedstat`, Linux), so the figure
/// means something on a shared, overloaded machine where wall time mostly measures waiting.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn main() {
    let nodes: Vec<SeiNode> = (0..NODES).map(node).collect();
    let ctx = PlanContext::new(
        "ghcr.io/sei-protocol/seictl:v0.0.68",
        jiff::Timestamp::now(),
    );
    let mut best = Duration::MAX;
    let mut best_cpu = Duration::MAX;
    let mut totals = (0usize, 0usize, 0usize);
    for round in 0..ROUNDS {
        // Planning mutates the node (conditions, plan, phase): plan fresh copies each round,
        // copied outside the timed section.
        let mut batch = nodes.clone();
        let cpu_started = thread_cpu_ns();
        let started = Instant::now();
        let mut built = 0usize;
        let mut tasks = 0usize;
        let mut none = 0usize;
        for node in &mut batch {
            match resolve_plan(node, &ctx) {
                Ok(Resolution::Built) => {
                    built += 1;
                    tasks += node
                        .status
                        .as_ref()
                        .and_then(|s| s.plan.as_ref())
                        .map_or(0, |p| p.tasks.len());
                }
                Ok(_) => none += 1,
                Err(err) => panic!("node {} did not plan: {err}", node.name()),
            }
        }
        let elapsed = started.elapsed();
        let cpu = match (cpu_started, thread_cpu_ns()) {
            (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
            _ => elapsed,
        };
        black_box(&batch);
        println!(
            "round {round}: wall {:>7.2} ms, cpu {:>7.2} ms",
            elapsed.as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e3
        );
        best = best.min(elapsed);
        best_cpu = best_cpu.min(cpu);
        totals = (built, tasks, none);
    }
    let (built, tasks, none) = totals;
    println!(
        "planned {NODES} SeiNodes ({built} plans, {tasks} tasks, {none} without a plan), best of {ROUNDS}: wall {:.2} ms, cpu {:.2} ms total ({:.2} us/node)",
        best.as_secs_f64() * 1e3,
        best_cpu.as_secs_f64() * 1e3,
        best_cpu.as_secs_f64() * 1e6 / NODES as f64
    );
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "machine load average: {}",
        load.split_whitespace().next().unwrap_or("?")
    );
    let verdict = |d: Duration| if d <= TARGET { "within" } else { "OVER" };
    println!(
        "target <= {} ms: cpu {}, wall {}",
        TARGET.as_millis(),
        verdict(best_cpu),
        verdict(best)
    );
}
