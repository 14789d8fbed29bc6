//! Time to refuse a nesting bomb: a 100,000-level manifest (about 200 KB) through the path
//! `plan -f` and `render -f` take (read, size and depth check, refusal), and the same for the
//! platform config. Target: under 50 ms (it used to cost a minute of CPU in the YAML decoder).
//! `cargo bench --bench limits`; prints figures, asserts nothing.
use std::time::{Duration, Instant};

const LEVELS: usize = 100_000;
const RUNS: usize = 20;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn measure(name: &str, text: &str, refuse: impl Fn(&std::path::Path) -> bool) {
    let dir = std::env::temp_dir().join(format!("sei-console-bench-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, text).expect("write");
    let samples: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            assert!(refuse(&path), "{name} was not refused");
            started.elapsed()
        })
        .collect();
    let worst = samples.iter().max().copied().unwrap_or_default();
    println!(
        "{name:<28} {:>7} bytes  median {:>8.3} ms  worst {:>8.3} ms  (target < 50 ms)",
        text.len(),
        median(samples).as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3,
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    let flow = format!("{}{}", "[".repeat(LEVELS), "]".repeat(LEVELS));
    let block = format!("{}x\n", "- ".repeat(LEVELS));
    let json = format!("{}1{}", "{\"a\":".repeat(LEVELS), "}".repeat(LEVELS));
    let manifest = |path: &std::path::Path| sei_console::cli::manifest::read_seinode(path).is_err();
    measure("manifest, flow [[[…", &flow, manifest);
    measure("manifest, block - - -…", &block, manifest);
    measure("manifest, JSON {\"a\":…", &json, manifest);
    let platform =
        |path: &std::path::Path| sei_console::platform::PlatformConfig::read_file(path).is_err();
    measure(
        "platform config, flow",
        &format!("images: {flow}"),
        platform,
    );
}
