//! Console benchmarks (issue 4). Prints figures; never fails on a budget.
//!
//!     cargo bench --bench console                 # in-memory: frames, keys, deltas, memory
//!     SEI_BENCH_KUBECONFIG=/path/kubeconfig cargo bench --bench console
//!                                                 # also first paint / full sync on a real API server
//!
//! Env: SEI_BENCH_NODES (default 10000), SEI_BENCH_NAMESPACE (default `bench`),
//! KUBECTL (default `kubectl`) for the comparison with `kubectl get seinodes -A -o json`;
//! SEI_BENCH_PAGED_LIST=1 lists in pages instead of the streaming list, SEI_BENCH_PAGE_SIZE=N.
//!
//! The 1 Hz tick's and a watch event's costs part by part (issue 38) are printed last, before
//! the real API server's figures (`console/tick.rs`).
// The memory figures come from a counting global allocator, which is `unsafe` by nature.
#![allow(
    unsafe_code,
    reason = "a counting global allocator is unsafe by nature"
)]

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mimalloc::MiMalloc;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sei_console::app::model::{Model, Msg, Scope};
use sei_console::app::update::update;
use sei_console::fleet::FleetDelta;
use sei_console::fleet::filter::Filter;
use sei_console::fleet::sample;
use sei_console::fleet::sort::{Column, Sort};
use sei_console::fleet::store::Delta;
use sei_console::fleet::watches::WatchKind;
use sei_console::fleet::watches::WatchReport;
use sei_console::keymap::Key;
use sei_console::ui::theme::Theme;
use serde_json::json;

#[path = "console/real.rs"]
mod real;
#[path = "console/tick.rs"]
mod tick;

fn nodes_wanted() -> usize {
    std::env::var("SEI_BENCH_NODES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// Counts live heap bytes and allocations, so the store's memory is measured exactly rather
/// than through RSS, which also keeps whatever the allocator has not returned to the system.
struct CountingAllocator;

static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);
static LIVE_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded unchanged to mimalloc (the allocator the binary uses, see
// src/main.rs); only counters are added.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE_BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        LIVE_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { MiMalloc.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::Relaxed);
        LIVE_ALLOCATIONS.fetch_sub(1, Ordering::Relaxed);
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

/// Live heap bytes and allocations right now.
pub fn live_heap() -> (usize, usize) {
    (
        LIVE_BYTES.load(Ordering::Relaxed),
        LIVE_ALLOCATIONS.load(Ordering::Relaxed),
    )
}

/// Resident set size of this process, from /proc (Linux).
pub fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// CPU time this thread has used. On this shared 2-core machine other work steals the cores, so
/// wall-clock percentiles mostly measure the scheduler; CPU time measures the console's code.
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

/// Wall and thread-CPU time since `start`.
#[derive(Clone, Copy)]
pub struct Clock {
    wall: Instant,
    cpu: Duration,
}

impl Clock {
    pub fn start() -> Clock {
        Clock {
            wall: Instant::now(),
            cpu: thread_cpu(),
        }
    }

    pub fn elapsed(&self) -> (Duration, Duration) {
        (self.wall.elapsed(), thread_cpu().saturating_sub(self.cpu))
    }
}

struct Stats {
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
}

fn percentile(samples: &[Duration], p: f64) -> Duration {
    let mut s = samples.to_vec();
    s.sort();
    let i = ((s.len() as f64 - 1.0) * p).round() as usize;
    s.get(i).copied().unwrap_or_default()
}

impl Stats {
    fn new() -> Stats {
        Stats {
            wall: Vec::new(),
            cpu: Vec::new(),
        }
    }

    fn add(&mut self, (wall, cpu): (Duration, Duration)) {
        self.wall.push(wall);
        self.cpu.push(cpu);
    }

    fn line(&self, what: &str, budget: &str) -> String {
        format!(
            "{what:<44} n={:<4} cpu p50={:>8.3?} p99={:>8.3?} | wall p50={:>8.3?} p99={:>8.3?} max={:>8.3?}  budget {budget}",
            self.wall.len(),
            percentile(&self.cpu, 0.5),
            percentile(&self.cpu, 0.99),
            percentile(&self.wall, 0.5),
            percentile(&self.wall, 0.99),
            percentile(&self.wall, 1.0),
        )
    }
}

pub fn fleet_model(n: usize) -> (Model, (Duration, Duration)) {
    let scope = Scope::one("bench", None);
    let mut model = Model::new(scope, sample::now(), None);
    model.size = (200, 50);
    model.init();
    let epoch = model.scope_epoch;
    // Nodes are built one at a time, as a watch decodes them, and only the applying is timed.
    let mut applying = (Duration::ZERO, Duration::ZERO);
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::RelistStarted),
        },
    );
    for i in 0..n {
        let node = sample::large_fleet_node(i);
        let start = Clock::start();
        update(
            &mut model,
            Msg::Delta {
                epoch,
                delta: FleetDelta::Node(Delta::relist_item(node)),
            },
        );
        let (wall, cpu) = start.elapsed();
        applying = (applying.0 + wall, applying.1 + cpu);
    }
    let start = Clock::start();
    update(
        &mut model,
        Msg::Delta {
            epoch,
            delta: FleetDelta::Node(Delta::RelistDone),
        },
    );
    update(
        &mut model,
        Msg::Watch {
            epoch,
            kind: WatchKind::Nodes,
            report: WatchReport::Live,
        },
    );
    model.refresh_views();
    let (wall, cpu) = start.elapsed();
    (model, (applying.0 + wall, applying.1 + cpu))
}

fn main() {
    let n = nodes_wanted();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "sei-console benchmarks, {n} SeiNodes, release={}, load average {}",
        !cfg!(debug_assertions),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );

    let rss_before = rss_bytes();
    let heap_before = live_heap();
    let (mut model, sync) = fleet_model(n);
    let heap_after = live_heap();
    let rss_after = rss_bytes();
    println!(
        "{:<48} cpu {:>9.3?} | wall {:>9.3?}",
        format!("apply initial list of {n} nodes + first listing"),
        sync.1,
        sync.0
    );
    let held = heap_after.0.saturating_sub(heap_before.0);
    let allocations = heap_after.1.saturating_sub(heap_before.1);
    println!(
        "{:<48} {:>7.1} MiB total, {:.2} KiB/node in {:.1} allocations/node   budget {:.1} MiB (30 MiB + 8 KiB/node)",
        "live heap held by the model (store, rows, listing)",
        held as f64 / 1048576.0,
        held as f64 / 1024.0 / n as f64,
        allocations as f64 / n as f64,
        (30.0 * 1024.0 * 1024.0 + 8.0 * 1024.0 * n as f64) / 1048576.0
    );
    if let (Some(before), Some(after)) = (rss_before, rss_after) {
        let grown = after.saturating_sub(before);
        let budget = 30.0 * 1024.0 * 1024.0 + 8.0 * 1024.0 * n as f64;
        println!(
            "{:<48} {:>7.1} MiB total, {:.2} KiB/node   budget {:.1} MiB (30 MiB + 8 KiB/node)",
            "resident memory growth (RSS, with allocator slack)",
            grown as f64 / 1048576.0,
            grown as f64 / 1024.0 / n as f64,
            budget / 1048576.0
        );
    }

    let theme = Theme::dark();
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
    let mut frames = Stats::new();
    let mut ticks = Stats::new();
    for i in 0..1000 {
        // A tick changes the clock, so every frame really differs in its age cells; it also
        // re-judges the fleet doctor's findings (the header's critical count), once a second.
        let start = Clock::start();
        update(
            &mut model,
            Msg::Tick(
                sample::now()
                    .checked_add(jiff::SignedDuration::from_secs(i))
                    .expect("time"),
            ),
        );
        ticks.add(start.elapsed());
        let start = Clock::start();
        model.refresh_views();
        terminal
            .draw(|f| sei_console::ui::view(&model, &theme, f))
            .expect("draw");
        frames.add(start.elapsed());
    }
    println!(
        "{}",
        frames.line("frame build+draw 200x50 (TestBackend)", "<= 2 ms p99")
    );
    println!(
        "{}",
        ticks.line(
            "1 Hz tick (ages, doctor re-judges the fleet)",
            "<= 10 ms p99 (1% of a core)"
        )
    );

    let mut keys = Stats::new();
    for i in 0..1000 {
        let key = if (i / 50) % 2 == 0 { 'j' } else { 'k' };
        let start = Clock::start();
        update(&mut model, Msg::Key(Key::char(key)));
        model.refresh_views();
        terminal
            .draw(|f| sei_console::ui::view(&model, &theme, f))
            .expect("draw");
        keys.add(start.elapsed());
    }
    println!("{}", keys.line("keystroke -> frame (j/k)", "<= 16 ms p99"));

    let mut sort_keys = Stats::new();
    let mut slowest_sort = (Duration::ZERO, Column::Namespace, 0);
    for press in 1..=40 {
        let start = Clock::start();
        update(&mut model, Msg::Key(Key::char('>')));
        model.refresh_views();
        terminal
            .draw(|f| sei_console::ui::view(&model, &theme, f))
            .expect("draw");
        let elapsed = start.elapsed();
        if elapsed.1 > slowest_sort.0 {
            slowest_sort = (elapsed.1, model.sort.column, press);
        }
        sort_keys.add(elapsed);
    }
    println!(
        "{}",
        sort_keys.line(
            "keystroke -> frame (> sorts by next column)",
            "<= 16 ms p99"
        )
    );
    println!(
        "{:<48} {}, press {} of 40 ({:.3?} cpu)",
        "  slowest press: column",
        slowest_sort.1.title(),
        slowest_sort.2,
        slowest_sort.0
    );

    let mut filter_keys = Stats::new();
    update(&mut model, Msg::Key(Key::char('/')));
    // Type a filter with free text and terms, then clear it with ctrl-u; ten times.
    let clear = Key {
        code: sei_console::keymap::KeyCode::Char('u'),
        ctrl: true,
    };
    for _ in 0..10 {
        let keys = "node-0 drift !phase:failed"
            .chars()
            .map(Key::char)
            .chain([clear]);
        for key in keys {
            let start = Clock::start();
            update(&mut model, Msg::Key(key));
            model.refresh_views();
            terminal
                .draw(|f| sei_console::ui::view(&model, &theme, f))
                .expect("draw");
            filter_keys.add(start.elapsed());
        }
    }
    update(
        &mut model,
        Msg::Key(Key::plain(sei_console::keymap::KeyCode::Esc)),
    );
    println!(
        "{}",
        filter_keys.line("keystroke -> frame while typing a filter", "<= 16 ms p99")
    );

    let mut apply = Stats::new();
    let mut apply_and_list = Stats::new();
    let epoch = model.scope_epoch;
    for round in 0..20 {
        // The watch task decodes and boxes each object before it reaches the model (see
        // kube::watch); only what the UI thread does with the message is timed.
        let batch: Vec<Msg> = sample::large_fleet(1000)
            .into_iter()
            .map(|node| Msg::Delta {
                epoch,
                delta: FleetDelta::Node(Delta::applied(sample::patched(
                    node,
                    json!({"status": {"plan": sample::plan(&sample::UPDATE_TASKS, round % 7, None)}}),
                ))),
            })
            .collect();
        let start = Clock::start();
        for msg in batch {
            update(&mut model, msg);
        }
        apply.add(start.elapsed());
        model.refresh_views();
        apply_and_list.add(start.elapsed());
    }
    println!("{}", apply.line("apply 1,000 watch deltas", "<= 10 ms"));
    println!(
        "{}",
        apply_and_list.line("apply 1,000 deltas + refilter/sort listing", "-")
    );

    let mut sorts = Stats::new();
    let filter = Filter::parse("drift !phase:Running").expect("filter");
    for column in Column::ALL {
        let start = Clock::start();
        let listed = model.fleet.listing(
            &filter,
            Sort {
                column,
                descending: false,
            },
        );
        sorts.add(start.elapsed());
        std::hint::black_box(listed);
    }
    println!(
        "{}",
        sorts.line("filter + sort 10k rows (each column)", "<= 50 ms")
    );
    // Messages that change nothing visible (repeated health reports, unbound keys) must not
    // mark the model dirty; the loop draws only dirty models, so these cause no frame.
    let mut redraws = 0;
    for i in 0..1000 {
        model.dirty = false;
        let msg = if i % 2 == 0 {
            Msg::Watch {
                epoch,
                kind: WatchKind::Nodes,
                report: WatchReport::Live,
            }
        } else {
            Msg::Key(Key::char('x'))
        };
        update(&mut model, msg);
        redraws += usize::from(model.dirty);
    }
    println!(
        "{:<48} {redraws} of 1000 (only the 1 Hz tick redraws an idle screen)",
        "redraws caused by no-change messages"
    );

    tick::run(&mut model);

    if let Ok(kubeconfig) = std::env::var("SEI_BENCH_KUBECONFIG") {
        let runtime = tokio::runtime::Runtime::new().expect("runtime");
        runtime.block_on(real::run(&kubeconfig, n));
    }
}
