//! The budget at 10,000 nodes (issue 38) in one run, as ratios against kubectl:
//!
//!     SEI_BENCH_BUDGET=1 cargo bench --bench clusters
//!     SEI_BENCH_BUDGET=1 SEI_BENCH_CONSOLES=before=/tmp/clusters-before cargo bench --bench clusters
//!
//! One bare control plane (as the rest of this bench), `SEI_BENCH_NODES` SeiNodes with status
//! (default 10,000), then for each round and each console: `kubectl get seinodes -A -w -o json`
//! started and its initial list printed, the console child (the app loop with chain health on,
//! as the binary runs it) synced, idle for `SEI_BENCH_IDLE_SECS` (default 20), then a churn of
//! `SEI_BENCH_RATE` status patches a second (default 100) for `SEI_BENCH_CHURN_SECS` (default
//! 30). `SEI_BENCH_CONSOLES` adds other builds of this bench binary (`label=path`, separated by
//! `,`; they must speak the same child protocol), measured beside this one against the same
//! control plane, alternating, `SEI_BENCH_ROUNDS` rounds (default 1). Every loop is bounded:
//! the load's deadline, the console child's 300 s, kubectl's 300 s.
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::planes::ControlPlanes;
use super::{
    CHURN_RATE, CONTEXTS, Figures, env_number, load_average, measure, run_load, stop_on_signal,
};

/// The consoles to compare: this binary first, then `SEI_BENCH_CONSOLES`.
fn consoles() -> Result<Vec<(String, Option<PathBuf>)>, String> {
    let mut consoles = vec![("this".to_owned(), None)];
    let Ok(others) = std::env::var("SEI_BENCH_CONSOLES") else {
        return Ok(consoles);
    };
    for other in others.split(',').filter(|o| !o.is_empty()) {
        let (label, path) = other
            .split_once('=')
            .ok_or_else(|| format!("SEI_BENCH_CONSOLES: `{other}` is not label=path"))?;
        if !Path::new(path).is_file() {
            return Err(format!("SEI_BENCH_CONSOLES: {path} is not a file"));
        }
        consoles.push((label.to_owned(), Some(PathBuf::from(path))));
    }
    Ok(consoles)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The table for one console: medians over its runs, kubectl's from the same runs.
fn print_table(label: &str, runs: &[Figures], idle_secs: f64) {
    let m = |f: fn(&Figures) -> f64| median(runs.iter().map(f).collect());
    let nodes = m(|f| f.nodes);
    let budget_mib = 30.0 + 8.0 * nodes / 1024.0;
    let ratio = |a: f64, b: f64| {
        if b > 0.0 {
            format!("{:.2}x", a / b)
        } else {
            "-".to_owned()
        }
    };
    let per_window = idle_secs;
    println!();
    println!("{label}: {nodes} nodes, median of {} run(s)", runs.len());
    println!(
        "  {:<34} {:>12} {:>14} {:>8}  goal",
        "measure", "console", "kubectl -w", "ratio"
    );
    let row = |what: &str, console: f64, kubectl: f64, unit: &str, goal: &str| {
        println!(
            "  {what:<34} {:>9.3} {unit:<2} {:>11.3} {unit:<2} {:>8}  {goal}",
            console,
            kubectl,
            ratio(console, kubectl)
        );
    };
    let first_row = m(|f| f.first_row_ms) / 1000.0;
    let all_rows = m(|f| f.full_sync_ms) / 1000.0;
    let list = m(|f| f.kubectl_list_ms) / 1000.0;
    row("start -> first row", first_row, list, "s", "no worse");
    row("start -> all rows", all_rows, list, "s", "no worse");
    row(
        "CPU start -> loaded",
        m(|f| f.sync_cpu_ms) / 1000.0,
        m(|f| f.kubectl_list_cpu_ms) / 1000.0,
        "s",
        "-",
    );
    let idle = m(|f| f.idle_ms_per_s) * per_window / 1000.0;
    row(
        &format!("idle CPU per {per_window:.0} s"),
        idle,
        m(|f| f.kubectl_idle_ms_per_s) * per_window / 1000.0,
        "s",
        &format!(
            "<= 0.1 s per 20 s: {}",
            met(m(|f| f.idle_ms_per_s) * 20.0 / 1000.0 <= 0.1)
        ),
    );
    let churn = m(|f| f.churn_cpu_ms);
    let kubectl_churn = m(|f| f.kubectl_churn_cpu_ms);
    row(
        &format!("churn CPU, {:.0} s", m(|f| f.churn_secs)),
        churn / 1000.0,
        kubectl_churn / 1000.0,
        "s",
        &format!("<= 0.5x: {}", met(churn <= 0.5 * kubectl_churn)),
    );
    let hwm = m(|f| f.hwm_mib);
    println!(
        "  {:<34} {:>9.1} MiB {:>14} {:>8}  <= {budget_mib:.1} MiB: {}",
        "peak RSS after churn (VmHWM)",
        hwm,
        "-",
        "-",
        met(hwm <= budget_mib)
    );
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}

pub fn orchestrate() -> Result<(), String> {
    let n = env_number("SEI_BENCH_NODES", 10_000.0).max(10.0) as usize;
    let idle_secs = env_number("SEI_BENCH_IDLE_SECS", 20.0).max(1.0);
    let rate = env_number("SEI_BENCH_RATE", 100.0).max(1.0);
    let churn_secs = env_number("SEI_BENCH_CHURN_SECS", 30.0).max(1.0);
    let rounds = env_number("SEI_BENCH_ROUNDS", 1.0).clamp(1.0, 5.0) as usize;
    let updates = (rate * churn_secs).round() as usize;
    // The load child reads the pace from its environment (`child_of`).
    let _ = CHURN_RATE.set(rate);
    let consoles = consoles()?;
    println!(
        "sei-console budget bench (issue 38): 1 x {n} SeiNodes with status, idle {idle_secs} s, \
         churn {updates} status patches at {rate}/s, {rounds} round(s) of {} console(s), \
         release={}, load average {}",
        consoles.len(),
        !cfg!(debug_assertions),
        load_average()
    );
    stop_on_signal(ControlPlanes::dirs(1));
    let started = Instant::now();
    let planes = ControlPlanes::start(1)?;
    let kubeconfig = planes.dirs[0].join("bench-kubeconfig");
    planes.merged_kubeconfig(&CONTEXTS[..1], &kubeconfig)?;
    let kubectl = planes.kubectl();
    let context = CONTEXTS[0];
    run_load(&kubeconfig, "fill", 0, &[format!("{context}={n}")])?;
    let mut figures: Vec<Vec<Figures>> = consoles.iter().map(|_| Vec::new()).collect();
    let mut loads = Vec::new();
    for round in 0..rounds {
        for (i, (label, exe)) in consoles.iter().enumerate() {
            loads.push(load_average());
            let run = measure(
                exe.as_deref(),
                &kubeconfig,
                &kubectl,
                &format!("{label}, round {}", round + 1),
                &[(context, n)],
                updates,
                idle_secs,
                1 + round * consoles.len() + i,
            )?;
            figures[i].push(run);
        }
    }
    for ((label, _), runs) in consoles.iter().zip(&figures) {
        print_table(label, runs, idle_secs);
    }
    println!(
        "\ndone in {:.1?}; load average at each run's start: {}; at the end: {}",
        started.elapsed(),
        loads.join(" | "),
        load_average()
    );
    drop(planes);
    Ok(())
}
