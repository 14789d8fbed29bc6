//! Chain-health polling at fleet scale (issue 24). Prints figures; never fails on a budget.
//!
//!     cargo bench --bench chain_health
//!
//! The console's own side of polling every SeiNode's RPC: the schedule (`app::chain_health`),
//! the reads' parsing (`ops::chain_health::read` over an in-memory `NodeRpc` answering real
//! sei-tendermint bodies), the readings taken in and judged, and a frame drawn whenever
//! something changed (at most one per 100 ms, the console's pace), in simulated time: each read
//! takes 100 ms, ticks every second. The port-forwards and HTTP of the real adapter are not in
//! these figures (they are the API server's and the kubelet's work as much as ours).
//!
//! Budget: with 1,000 SeiNodes polled, the console's CPU under 5% of one core; its memory grows
//! under 1 KiB per node once every node was read.
//!
//! Env: SEI_BENCH_NODES (default 1000), SEI_BENCH_SECONDS (simulated, default 600).
#![allow(
    unsafe_code,
    reason = "a counting global allocator and clock_gettime are unsafe by nature"
)]

use std::alloc::{GlobalAlloc, Layout};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use mimalloc::MiMalloc;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sei_console::api::NodeMode;
use sei_console::app::model::{Cmd, Model, Msg, Scope};
use sei_console::app::update::update;
use sei_console::chain::{Reading, RpcAnswer};
use sei_console::fleet::FleetDelta;
use sei_console::fleet::sample;
use sei_console::fleet::store::{Delta, ObjectKey};
use sei_console::ops::chain_health::{READ_TIMEOUT, read};
use sei_console::ports::node_rpc::{NodeRpc, RpcFuture, RpcTarget};
use sei_console::ui::theme::Theme;

struct CountingAllocator;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to mimalloc (the binary's allocator); only a
// counter is added.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { MiMalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE_BYTES.fetch_add(new_size, Ordering::Relaxed);
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { MiMalloc.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn thread_cpu() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec; the clock id is a constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        u64::try_from(now.tv_sec).unwrap_or(0),
        u32::try_from(now.tv_nsec).unwrap_or(0),
    )
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Answers like a healthy sei-tendermint node at the simulated height (2 blocks a second):
/// the bodies are made once per simulated second and shared.
#[derive(Default)]
struct SimulatedNodes {
    bodies: Mutex<Vec<RpcAnswer>>,
}

fn answer(body: String) -> RpcAnswer {
    RpcAnswer {
        status: 200,
        body: body.into_bytes(),
    }
}

impl SimulatedNodes {
    fn at(&self, height: u64, time: Timestamp) {
        let status = format!(
            r#"{{"node_info":{{"protocol_version":{{"p2p":"8","block":"11","app":"0"}},"id":"8e0ce6da7bc451e8bea1ceadcb71ca14ce79776c","listen_addr":"tcp://0.0.0.0:26656","network":"pacific-1","version":"0.38.17","channels":"40202122233038606162630070717273","moniker":"node","other":{{"tx_index":"on","rpc_address":"tcp://0.0.0.0:26657"}}}},"application_info":{{"version":"9"}},"sync_info":{{"latest_block_hash":"6A1B2C","latest_app_hash":"9F8E7D","latest_block_height":"{height}","latest_block_time":"{time}","earliest_block_hash":"00","earliest_app_hash":"00","earliest_block_height":"1","earliest_block_time":"2024-01-01T00:00:00Z","max_peer_block_height":"{height}","catching_up":false,"total_synced_time":"0","remaining_time":"0","total_snapshots":"0","chunk_process_avg_time":"0","snapshot_height":"0","snapshot_chunks_count":"0","snapshot_chunks_total":"0","backfilled_blocks":"0","backfill_blocks_total":"0"}},"validator_info":{{"address":"AB","pub_key":{{"type":"tendermint/PubKeyEd25519","value":"AA=="}},"voting_power":"0"}}}}"#
        );
        let lag =
            format!(r#"{{"current_height":"{height}","max_peer_height":"{height}","lag":"0"}}"#);
        let peers: Vec<String> = (0..12)
            .map(|i| {
                format!(r#"{{"node_id":"{i:040x}","url":"mconn://{i:040x}@10.0.0.{i}:26656"}}"#)
            })
            .collect();
        let net = format!(
            r#"{{"listening":true,"listeners":["Listener(@)"],"n_peers":"12","peers":[{}]}}"#,
            peers.join(",")
        );
        if let Ok(mut bodies) = self.bodies.lock() {
            *bodies = vec![answer(status), answer(lag), answer(net)];
        }
    }
}

impl NodeRpc for SimulatedNodes {
    fn get<'a>(&'a self, _target: &'a RpcTarget, path: &'a str, _: Duration) -> RpcFuture<'a> {
        let index = match path {
            "/status" => 0,
            "/lag_status" => 1,
            _ => 2,
        };
        let answer = self.bodies.lock().ok().and_then(|b| b.get(index).cloned());
        Box::pin(async move {
            answer.ok_or_else(|| sei_console::chain::RpcFailure::Unreachable("no body".into()))
        })
    }
}

fn fleet_model(n: usize) -> Model {
    let scope = Scope::one("bench", Some("bench".into()));
    let mut model = Model::new(scope, sample::now(), None);
    model.size = (200, 50);
    model.init();
    let epoch = model.scope_epoch;
    for i in 0..n {
        let node = sample::running(sample::node(
            "bench",
            &format!("node-{i:05}"),
            NodeMode::Full,
            3600,
        ));
        update(
            &mut model,
            Msg::Delta {
                epoch,
                delta: FleetDelta::Node(Delta::Applied(Box::new(node))),
            },
        );
    }
    model.refresh_views();
    model
}

fn asked(cmds: Vec<Cmd>, into: &mut Vec<ObjectKey>) {
    for cmd in cmds {
        if let Cmd::ReadHealth { keys } = cmd {
            into.extend(keys);
        }
    }
}

fn main() {
    let n = usize::try_from(env_or("SEI_BENCH_NODES", 1000)).unwrap_or(1000);
    let seconds = env_or("SEI_BENCH_SECONDS", 600);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "chain-health polling, {n} SeiNodes, {seconds} s simulated, load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let mut model = fleet_model(n);
    let theme = Theme::dark();
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
    let nodes = SimulatedNodes::default();
    let start = model.now;
    let heap_before = LIVE_BYTES.load(Ordering::Relaxed);
    model.settings.chain_health = true;

    let mut pending: Vec<ObjectKey> = Vec::new();
    let (mut reads, mut frames) = (0u64, 0u64);
    let mut cpu_polling = Duration::ZERO;
    let mut cpu_drawing = Duration::ZERO;
    let warm_up = 60 * 10; // slots of 100 ms: the first sweep is not measured
    let mut heap_after_first_sweep = None;
    let mut measured = (0u64, Duration::ZERO, Duration::ZERO, 0u64, 0u64);
    for slot in 0..seconds * 10 {
        if slot == warm_up {
            heap_after_first_sweep = Some(LIVE_BYTES.load(Ordering::Relaxed));
            measured = (slot, cpu_polling, cpu_drawing, reads, frames);
        }
        let now = start + SignedDuration::from_millis(i64::try_from(slot * 100).unwrap_or(0));
        let second = slot / 10;
        let cpu = thread_cpu();
        if slot % 10 == 0 {
            nodes.at(1_000_000 + second * 2, now);
        }
        let mut next = Vec::new();
        // The reads asked for in the last slot end now.
        for key in std::mem::take(&mut pending) {
            let target = RpcTarget::new(&key.namespace, &key.name);
            let outcome = runtime.block_on(read(&nodes, &target, READ_TIMEOUT));
            reads += 1;
            let reading = Reading { at: now, outcome };
            asked(
                update(&mut model, Msg::HealthRead { key, reading }),
                &mut next,
            );
        }
        if slot % 10 == 0 {
            asked(update(&mut model, Msg::Tick(now)), &mut next);
        }
        pending = next;
        cpu_polling += thread_cpu().saturating_sub(cpu);
        if model.dirty {
            let cpu = thread_cpu();
            model.refresh_views();
            terminal
                .draw(|f| sei_console::ui::view(&model, &theme, f))
                .expect("draw");
            model.dirty = false;
            frames += 1;
            cpu_drawing += thread_cpu().saturating_sub(cpu);
        }
    }
    let heap_end = LIVE_BYTES.load(Ordering::Relaxed);
    let simulated = (seconds * 10 - measured.0) as f64 / 10.0;
    let polling = (cpu_polling - measured.1).as_secs_f64();
    let drawing = (cpu_drawing - measured.2).as_secs_f64();
    let percent = |cpu: f64| 100.0 * cpu / simulated;
    println!(
        "  after the first sweep, over {simulated:.0} s: {} reads ({:.1}/s), {} frames",
        reads - measured.3,
        (reads - measured.3) as f64 / simulated,
        frames - measured.4
    );
    println!(
        "  console CPU, polling (schedule, parse, judge): {:.3} s = {:.2}% of one core",
        polling,
        percent(polling)
    );
    println!(
        "  console CPU, with the frames drawn:            {:.3} s = {:.2}% of one core   budget < 5%",
        polling + drawing,
        percent(polling + drawing)
    );
    let per_node = |bytes: usize| bytes.saturating_sub(heap_before) as f64 / n as f64;
    if let Some(first) = heap_after_first_sweep {
        println!(
            "  heap growth per node: {:.0} B after the first sweep, {:.0} B at the end   budget < 1024 B",
            per_node(first),
            per_node(heap_end)
        );
    }
    let read_nodes = model
        .fleet
        .iter()
        .map(|fleet| fleet.health_entries().count())
        .sum::<usize>();
    println!("  nodes read at least once: {read_nodes} of {n}");
}
