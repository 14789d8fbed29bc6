//! What the 1 Hz tick and a watch event cost at 10,000 nodes, part by part (issue 38): the
//! doctor (one judgement, and its tick as the loop runs it with the view closed), the seed
//! probes' schedule, chain health (every node read once: judged again, and the reads due
//! picked), the runners' schedule, the whole tick with chain health off and on, and 1,000
//! watch deltas with chain health on. Thread-CPU time of the loop's thread, per tick.
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use sei_console::app::model::{Model, Msg};
use sei_console::app::update::update;
use sei_console::app::{chain_health, doctor, probes, runners};
use sei_console::chain::Reading;
use sei_console::chain::rpc::RpcFailure;
use sei_console::fleet::FleetDelta;
use sei_console::fleet::sample;
use sei_console::fleet::store::{Delta, ObjectKey};
use serde_json::json;

use super::Clock;

const TICKS: i64 = 60;

/// CPU per call of `f` over [`TICKS`] calls, the clock moving a second between calls and on
/// from where the last measure left it (what a part judged last is never in the future).
fn per_tick(model: &mut Model, mut f: impl FnMut(&mut Model)) -> Duration {
    let mut cpu = Duration::ZERO;
    for _ in 0..TICKS {
        model.now = model
            .now
            .checked_add(SignedDuration::from_secs(1))
            .expect("time");
        let start = Clock::start();
        f(model);
        cpu += start.elapsed().1;
    }
    cpu / u32::try_from(TICKS).unwrap_or(1)
}

fn line(what: &str, cpu: Duration) {
    println!(
        "  {what:<62} {:>9.3?} cpu per tick = {:>6.2} ms per second",
        cpu,
        cpu.as_secs_f64() * 1000.0
    );
}

/// Every node answered its first read, with a failure (as on a control plane without pods).
fn read_every_node(model: &mut Model, at: Timestamp) {
    let keys: Vec<ObjectKey> = model
        .fleet
        .iter()
        .flat_map(|fleet| fleet.nodes.iter().map(|(key, _)| key.clone()))
        .collect();
    for key in keys {
        model.fleet.health_reading(&key);
        let reading = Reading {
            at,
            outcome: Err(RpcFailure::NoPod("no pod".to_owned())),
        };
        update(model, Msg::HealthRead { key, reading });
    }
}

pub fn run(model: &mut Model) {
    println!(
        "per tick and per event (issue 38), {} nodes:",
        model.fleet.len()
    );
    // Later than every tick the bench ran before.
    model.now = sample::now()
        .checked_add(SignedDuration::from_secs(10_000))
        .expect("time");
    model.settings.chain_health = false;
    line(
        "doctor: one judgement of the fleet (refresh)",
        per_tick(model, doctor::refresh),
    );
    line(
        "doctor: its tick, view closed (as the loop runs it)",
        per_tick(model, |m| {
            doctor::on_tick(m);
        }),
    );
    line(
        "seed probes: the reads due (probes::due)",
        per_tick(model, |m| {
            probes::due(m);
        }),
    );
    line(
        "runners: the reads due, orphans judged (runners::due)",
        per_tick(model, |m| {
            runners::due(m);
        }),
    );
    line(
        "whole tick, chain health off",
        per_tick(model, |m| {
            let now = m.now;
            update(m, Msg::Tick(now));
        }),
    );
    model.settings.chain_health = true;
    let start = Clock::start();
    let now = model.now;
    read_every_node(model, now);
    let (_, cpu) = start.elapsed();
    println!(
        "  {:<62} {:>9.3?} cpu ({:.2} µs per reading)",
        "chain health: every node's first reading taken in",
        cpu,
        cpu.as_secs_f64() * 1e6 / model.fleet.len().max(1) as f64
    );
    line(
        "chain health: judge all, pick the reads due (chain_health::due)",
        per_tick(model, |m| {
            chain_health::due(m);
        }),
    );
    line(
        "whole tick, chain health on",
        per_tick(model, |m| {
            let now = m.now;
            update(m, Msg::Tick(now));
        }),
    );
    let epoch = model.scope_epoch;
    let batch: Vec<Msg> = sample::large_fleet(1000)
        .into_iter()
        .map(|node| Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::applied(sample::patched(
                node,
                json!({"status": {"plan": sample::plan(&sample::UPDATE_TASKS, 5, None)}}),
            ))),
        })
        .collect();
    let start = Clock::start();
    for msg in batch {
        update(model, msg);
    }
    model.refresh_views();
    let (_, cpu) = start.elapsed();
    println!(
        "  {:<62} {:>9.3?} cpu ({:.2} µs per delta)",
        "1,000 watch deltas + listing, chain health on",
        cpu,
        cpu.as_secs_f64() * 1000.0
    );
}
