//! One fleet across clusters (issue 17): the console's memory and CPU against real local API
//! servers holding SeiNodes with a status like a real fleet's (phase, conditions, a plan with
//! tasks), for 3 clusters × 3,000 watched at once beside 1 cluster × 9,000 and 1 × 10,000.
//! Prints figures; asserts nothing.
//!
//!     cargo bench --bench clusters                        # the full sizes (about 10 minutes)
//!     SEI_BENCH_NODES=1000 cargo bench --bench clusters   # a quick trial: 1,000, 900, 3 × 300
//!
//! The one command starts three bare control planes (`tests/control-plane/start DIR --owner
//! PID` with `SEI_CP_NO_ADDONS=1`, on 127.0.0.1, under `target/sei-console-bench/`) and stops
//! them on every exit: when done or failed (`Drop`), on SIGINT/SIGTERM (a signal thread), and
//! through each control plane's watchdog if this process dies outright. Then, in child
//! processes of this same binary (`SEI_BENCH_ROLE`), so that each figure is one process's own:
//! - `load`: creates the SeiNodes and patches their status (16 requests in flight per cluster,
//!   15 min deadline), later the churn: N status patches in a bounded loop;
//! - `console`: the console's real watch path (`Effects`, `update`, `Fleets`, the app loop
//!   drawing into a `TestBackend`), printing first row, full sync, RSS over the connected but
//!   empty console, CPU over an idle window, and CPU until it has seen every churn update;
//! - beside it, `kubectl get seinodes -A -w -o json` per cluster (the control planes' own
//!   kubectl), its CPU read from /proc over the same updates.
//!
//! Cluster A grows from 3,000 to 9,000 to 10,000 nodes between the runs; B and C hold 3,000.
//! `SEI_BENCH_BUDGET=1`: the budget of issue 38 instead, one cluster, as ratios against kubectl,
//! other builds of this binary beside this one (`clusters/budget.rs`).
//! Env: SEI_BENCH_NODES (default 10000; the others are 90% and 3 × 30% of it),
//! SEI_BENCH_UPDATES (status patches per run, default 3000, split over the watched clusters),
//! SEI_BENCH_IDLE_SECS (idle window, default 10), SEI_BENCH_WORKERS (the console's runtime
//! worker threads; default the binary's, `cli::RUNTIME_WORKERS`).
// CPU and RSS are read through libc (getrusage, sysconf), which is `unsafe` by nature.
#![allow(
    unsafe_code,
    reason = "getrusage and sysconf through libc are unsafe by nature"
)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mimalloc::MiMalloc;

#[path = "clusters/budget.rs"]
mod budget;
#[path = "clusters/console.rs"]
mod console;
#[path = "clusters/load.rs"]
mod load;
#[path = "clusters/planes.rs"]
mod planes;
#[path = "clusters/procs.rs"]
mod procs;

use planes::ControlPlanes;
use procs::{KUBECTL_DEADLINE, KubectlWatch, Reaped, bound_to_us, raw_list_secs, wait_printed};

// The binary's allocator (src/main.rs), so the console child's RSS is the shipped one's.
#[global_allocator]
static ALLOCATOR: MiMalloc = MiMalloc;

const CONTEXTS: [&str; 3] = ["cluster-a", "cluster-b", "cluster-c"];

fn env_number(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn load_average() -> String {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    load.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// This binary again, in `role`.
fn child(role: &str, args: &[String]) -> Command {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("/proc/self/exe"));
    child_of(&exe, role, args)
}

/// The churn's pace handed to the `load` child (`SEI_BENCH_RATE`), when the run sets one.
static CHURN_RATE: std::sync::OnceLock<f64> = std::sync::OnceLock::new();

/// `exe` (this bench binary or another build of it) in `role`.
fn child_of(exe: &Path, role: &str, args: &[String]) -> Command {
    let mut command = bound_to_us(exe);
    if let Some(rate) = CHURN_RATE.get() {
        command.env("SEI_BENCH_RATE", rate.to_string());
    }
    command.env("SEI_BENCH_ROLE", role).args(args);
    command
}

/// Runs the `load` child to completion, echoing its lines.
fn run_load(kubeconfig: &Path, what: &str, round: usize, targets: &[String]) -> Result<(), String> {
    let mut args = vec![
        kubeconfig.display().to_string(),
        what.to_owned(),
        round.to_string(),
    ];
    args.extend_from_slice(targets);
    let out = child("load", &args)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("load child: {e}"))?;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        println!("  {line}");
    }
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("load {what} failed ({})", out.status))
    }
}

/// One `key value key value …` line of the console child, by key.
struct Line(Vec<(String, String)>);

impl Line {
    fn parse(text: &str) -> Line {
        let words: Vec<&str> = text.split_whitespace().skip(1).collect();
        Line(
            words
                .chunks(2)
                .map(|kv| {
                    (
                        kv[0].to_owned(),
                        kv.get(1).copied().unwrap_or("").to_owned(),
                    )
                })
                .collect(),
        )
    }

    fn num(&self, key: &str) -> f64 {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(f64::NAN)
    }
}

/// The figures of one run.
struct Figures {
    label: String,
    nodes: f64,
    first_row_ms: f64,
    full_sync_ms: f64,
    /// Reading the same lists whole, decoding nothing (the API servers' part of a full sync).
    raw_list_ms: f64,
    sync_cpu_ms: f64,
    rss_mib: f64,
    rss_kib_per_node: f64,
    idle_ms_per_s: f64,
    churn_ms_per_1000: f64,
    churn_secs: f64,
    kubectl_ms_per_1000: f64,
    /// The console's peak RSS (`VmHWM`) after the churn.
    hwm_mib: f64,
    /// kubectl's initial list (`get -w`, every cluster at once): wall time and its CPU.
    kubectl_list_ms: f64,
    kubectl_list_cpu_ms: f64,
    /// kubectl's CPU while the console synced and idled.
    kubectl_idle_ms_per_s: f64,
    /// The console's and kubectl's CPU over the whole churn.
    churn_cpu_ms: f64,
    kubectl_churn_cpu_ms: f64,
}

const MIB: f64 = 1024.0 * 1024.0;

/// One run: kubectl watches first (their initial list done before the console starts, so
/// they idle while it syncs), then the console child, the churn once it is ready, and the
/// CPU of both over the same updates.
#[allow(
    clippy::too_many_arguments,
    reason = "one run's parameters, named at each call"
)]
fn measure(
    console_exe: Option<&Path>,
    kubeconfig: &Path,
    kubectl: &Path,
    label: &str,
    clusters: &[(&str, usize)],
    updates: usize,
    idle_secs: f64,
    round: usize,
) -> Result<Figures, String> {
    println!("{label}: load average {}", load_average());
    let per_cluster = updates / clusters.len();
    let updates = per_cluster * clusters.len();
    let listed = Instant::now();
    let watches = clusters
        .iter()
        .map(|(context, _)| KubectlWatch::start(kubectl, kubeconfig, context))
        .collect::<Result<Vec<_>, _>>()?;
    let counts: Vec<usize> = clusters.iter().map(|(_, n)| *n).collect();
    if !wait_printed(&watches, &counts) {
        return Err("kubectl did not print the initial list in time".into());
    }
    let kubectl_list_secs = listed.elapsed().as_secs_f64();
    let kubectl_list_cpu: Duration = watches.iter().map(KubectlWatch::cpu).sum();
    let contexts: Vec<&str> = clusters.iter().map(|(c, _)| *c).collect();
    let raw_list_ms = raw_list_secs(kubectl, kubeconfig, &contexts)? * 1000.0;

    let mut args = vec![
        kubeconfig.display().to_string(),
        updates.to_string(),
        idle_secs.to_string(),
    ];
    args.extend(clusters.iter().map(|(c, _)| (*c).to_owned()));
    let exe = console_exe.map_or_else(
        || std::env::current_exe().unwrap_or_else(|_| PathBuf::from("/proc/self/exe")),
        Path::to_path_buf,
    );
    let mut console = Reaped(
        child_of(&exe, "console", &args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("console child: {e}"))?,
    );
    let stdout = console.0.stdout.take().ok_or("console has no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let mut next = |want: &str| -> Result<Line, String> {
        for line in lines.by_ref() {
            let line = line.map_err(|e| format!("console output: {e}"))?;
            if line.starts_with("error") {
                return Err(format!("console: {line}"));
            }
            if line.split_whitespace().next() == Some(want) {
                return Ok(Line::parse(&line));
            }
        }
        Err(format!("console ended before `{want}`"))
    };
    let console_started = Instant::now();
    let sync = next("sync")?;
    let idle = next("idle")?;
    next("ready")?;
    let kubectl_before: Duration = watches.iter().map(KubectlWatch::cpu).sum();
    let kubectl_idle = kubectl_before
        .saturating_sub(kubectl_list_cpu)
        .as_secs_f64()
        * 1000.0
        / console_started.elapsed().as_secs_f64();
    let targets: Vec<String> = clusters
        .iter()
        .map(|(c, n)| format!("{c}={n}:{per_cluster}"))
        .collect();
    run_load(kubeconfig, "churn", round, &targets)?;
    let churn = next("churn")?;
    let wanted: Vec<usize> = counts.iter().map(|n| n + per_cluster).collect();
    if !wait_printed(&watches, &wanted) {
        println!("  kubectl did not print every update within {KUBECTL_DEADLINE:?}");
    }
    let kubectl_used = watches
        .iter()
        .map(KubectlWatch::cpu)
        .sum::<Duration>()
        .saturating_sub(kubectl_before);
    drop(watches);
    // Everything is read: the console is stopped (and reaped) here.
    drop(lines);
    drop(console);
    if churn.num("seen") < updates as f64 {
        println!(
            "  the console saw {} of {updates} updates",
            churn.num("seen")
        );
    }

    let nodes = sync.num("nodes");
    let thousands = updates as f64 / 1000.0;
    let figures = Figures {
        label: label.to_owned(),
        nodes,
        first_row_ms: sync.num("first_row_ms"),
        full_sync_ms: sync.num("full_sync_ms"),
        raw_list_ms,
        sync_cpu_ms: sync.num("cpu_ms"),
        rss_mib: sync.num("rss_synced") / MIB,
        rss_kib_per_node: (sync.num("rss_synced") - sync.num("rss_empty")) / 1024.0 / nodes,
        idle_ms_per_s: idle.num("cpu_ms") / idle.num("secs"),
        churn_ms_per_1000: churn.num("cpu_ms") / thousands,
        churn_secs: churn.num("secs"),
        kubectl_ms_per_1000: kubectl_used.as_secs_f64() * 1000.0 / thousands,
        hwm_mib: churn.num("hwm") / MIB,
        kubectl_list_ms: kubectl_list_secs * 1000.0,
        kubectl_list_cpu_ms: kubectl_list_cpu.as_secs_f64() * 1000.0,
        kubectl_idle_ms_per_s: kubectl_idle,
        churn_cpu_ms: churn.num("cpu_ms"),
        kubectl_churn_cpu_ms: kubectl_used.as_secs_f64() * 1000.0,
    };
    println!(
        "  {nodes} nodes: first row {:.1} ms, full sync {:.1} ms ({} frames, {:.0} ms cpu), RSS {:.1} MiB \
         ({:.1} MiB empty, {:.2} KiB/node), peak {:.1} MiB; idle {:.2} ms cpu/s; churn {updates} updates \
         in {:.2} s: console {:.0} ms cpu ({} frames drawn), kubectl {:.0} ms cpu (its initial list {:.1} s); the lists read raw {:.0} ms",
        figures.first_row_ms,
        figures.full_sync_ms,
        sync.num("frames"),
        figures.sync_cpu_ms,
        figures.rss_mib,
        sync.num("rss_empty") / MIB,
        figures.rss_kib_per_node,
        churn.num("hwm") / MIB,
        figures.idle_ms_per_s,
        figures.churn_secs,
        churn.num("cpu_ms"),
        churn.num("frames"),
        kubectl_used.as_secs_f64() * 1000.0,
        kubectl_list_secs,
        figures.raw_list_ms,
    );
    Ok(figures)
}

fn print_table(runs: &[Figures]) {
    println!();
    println!(
        "{:<12} {:>6} {:>10} {:>10} {:>10} {:>9} {:>9} {:>9} {:>10} {:>12} {:>12} {:>7}",
        "run",
        "nodes",
        "first row",
        "full sync",
        "raw list",
        "sync cpu",
        "RSS",
        "KiB/node",
        "idle ms/s",
        "cpu/1k upd",
        "kubectl/1k",
        "ratio"
    );
    for f in runs {
        println!(
            "{:<12} {:>6} {:>7.1} ms {:>7.0} ms {:>7.0} ms {:>6.0} ms {:>5.1} MiB {:>9.2} {:>10.2} {:>9.0} ms {:>9.0} ms {:>6.2}x",
            f.label,
            f.nodes,
            f.first_row_ms,
            f.full_sync_ms,
            f.raw_list_ms,
            f.sync_cpu_ms,
            f.rss_mib,
            f.rss_kib_per_node,
            f.idle_ms_per_s,
            f.churn_ms_per_1000,
            f.kubectl_ms_per_1000,
            f.churn_ms_per_1000 / f.kubectl_ms_per_1000
        );
    }
}

fn print_targets(big: &Figures, nine: &Figures, three: &Figures) {
    let met = |ok: bool| if ok { "met" } else { "MISSED" };
    let budget_mib = 30.0 + 8.0 * big.nodes / 1024.0;
    println!();
    println!("targets for {} nodes with status:", big.nodes);
    println!(
        "  first row {:.1} ms <= 100 ms: {}",
        big.first_row_ms,
        met(big.first_row_ms <= 100.0)
    );
    println!(
        "  full sync {:.0} ms <= 500 ms: {} (the API server's answer alone, read raw: {:.0} ms)",
        big.full_sync_ms,
        met(big.full_sync_ms <= 500.0),
        big.raw_list_ms
    );
    println!(
        "  RSS {:.1} MiB <= {budget_mib:.1} MiB (30 MiB + 8 KiB/node): {}; {:.2} KiB/node over the empty console",
        big.rss_mib,
        met(big.rss_mib <= budget_mib),
        big.rss_kib_per_node
    );
    println!(
        "  churn cpu {:.0} ms per 1,000 updates <= kubectl's {:.0} ms: {} ({:.2}x)",
        big.churn_ms_per_1000,
        big.kubectl_ms_per_1000,
        met(big.churn_ms_per_1000 <= big.kubectl_ms_per_1000),
        big.churn_ms_per_1000 / big.kubectl_ms_per_1000
    );
    println!("{} vs {} (within 10%?):", three.label, nine.label);
    let ratio = |what: &str, a: f64, b: f64| {
        let r = a / b;
        println!(
            "  {what:<28} {a:>9.2} / {b:>9.2} = {r:.2}  {}",
            met((r - 1.0).abs() <= 0.10 || a <= b)
        );
    };
    ratio("first row (ms)", three.first_row_ms, nine.first_row_ms);
    ratio("full sync (ms)", three.full_sync_ms, nine.full_sync_ms);
    ratio("sync cpu (ms)", three.sync_cpu_ms, nine.sync_cpu_ms);
    ratio("RSS (MiB)", three.rss_mib, nine.rss_mib);
    ratio(
        "RSS per node (KiB)",
        three.rss_kib_per_node,
        nine.rss_kib_per_node,
    );
    ratio("idle cpu (ms/s)", three.idle_ms_per_s, nine.idle_ms_per_s);
    ratio(
        "churn cpu per 1,000 (ms)",
        three.churn_ms_per_1000,
        nine.churn_ms_per_1000,
    );
}

/// On SIGINT or SIGTERM: stops the control planes in `dirs`, then exits.
fn stop_on_signal(dirs: Vec<PathBuf>) {
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        runtime.block_on(async {
            use tokio::signal::unix::{SignalKind, signal};
            let (Ok(mut int), Ok(mut term)) = (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) else {
                return;
            };
            tokio::select! {
                _ = int.recv() => {}
                _ = term.recv() => {}
            }
            eprintln!("interrupted: stopping the control planes");
            for dir in &dirs {
                ControlPlanes::stop(dir);
                let _ = std::fs::remove_dir_all(dir);
            }
            std::process::exit(130);
        });
    });
}

fn orchestrate() -> Result<(), String> {
    let n = env_number("SEI_BENCH_NODES", 10_000.0).max(10.0) as usize;
    let updates = env_number("SEI_BENCH_UPDATES", 3_000.0).max(3.0) as usize;
    let idle_secs = env_number("SEI_BENCH_IDLE_SECS", 10.0).max(1.0);
    let (nine, third) = (n * 9 / 10, n * 3 / 10);
    println!(
        "sei-console clusters bench: 1 x {n}, 1 x {nine}, 3 x {third} SeiNodes with status, \
         {updates} status updates per run, release={}, load average {}",
        !cfg!(debug_assertions),
        load_average()
    );
    stop_on_signal(ControlPlanes::dirs(CONTEXTS.len()));
    let started = Instant::now();
    let planes = ControlPlanes::start(CONTEXTS.len())?;
    println!("3 control planes ready in {:.1?}", started.elapsed());
    let kubeconfig = planes.dirs[0].join("bench-kubeconfig");
    planes.merged_kubeconfig(&CONTEXTS, &kubeconfig)?;
    let kubectl = planes.kubectl();
    let [a, b, c] = CONTEXTS;

    run_load(
        &kubeconfig,
        "fill",
        0,
        &[
            format!("{a}={third}"),
            format!("{b}={third}"),
            format!("{c}={third}"),
        ],
    )?;
    let label = |clusters: usize, n: usize| format!("{clusters} x {n}");
    let three = measure(
        None,
        &kubeconfig,
        &kubectl,
        &label(3, third),
        &[(a, third), (b, third), (c, third)],
        updates,
        idle_secs,
        1,
    )?;
    run_load(&kubeconfig, "fill", 0, &[format!("{a}={nine}")])?;
    let nine_run = measure(
        None,
        &kubeconfig,
        &kubectl,
        &label(1, nine),
        &[(a, nine)],
        updates,
        idle_secs,
        2,
    )?;
    run_load(&kubeconfig, "fill", 0, &[format!("{a}={n}")])?;
    let big = measure(
        None,
        &kubeconfig,
        &kubectl,
        &label(1, n),
        &[(a, n)],
        updates,
        idle_secs,
        3,
    )?;
    let runs = [big, nine_run, three];
    print_table(&runs);
    print_targets(&runs[0], &runs[1], &runs[2]);
    println!(
        "\ndone in {:.1?}, load average {}",
        started.elapsed(),
        load_average()
    );
    drop(planes);
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match std::env::var("SEI_BENCH_ROLE").as_deref() {
        Ok("console") => console::main(&args),
        Ok("load") => load::main(&args),
        _ if std::env::var("SEI_BENCH_BUDGET").is_ok_and(|v| v == "1") => {
            match budget::orchestrate() {
                Ok(()) => 0,
                Err(e) => {
                    println!("budget bench: {e}");
                    1
                }
            }
        }
        _ => match orchestrate() {
            Ok(()) => 0,
            Err(e) => {
                println!("clusters bench: {e}");
                1
            }
        },
    };
    std::process::exit(code);
}
