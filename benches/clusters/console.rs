//! The console under test, alone in a child process (so its RSS and CPU are the console's):
//! the TUI's own watch path (`Effects` running the `Cmd::WatchCluster` of `Model::init`, one
//! scope watch per context: SeiNodes, Events, server probe), `update`, `Fleets`, and the loop
//! of src/app/run.rs (batches of at most 4,096 messages, drawn when `app::pacing::Pacer` says:
//! new data at most every 100 ms, the first rows at once; a 1 Hz tick) drawing into a 200×50
//! `TestBackend` instead of a terminal; as the binary, with chain health on (the nodes' RPC read
//! through port-forwards) and the doctor's reads (`cli::doctor_fetch`).
//!
//! Prints `key value` lines the parent reads: `sync …` once every context's initial list is
//! drawn, `idle …` after the idle window, then `ready`, and `churn …` once it has seen (and
//! drawn) the number of SeiNode updates it was told to expect.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sei_console::app::effects::Effects;
use sei_console::app::model::{Model, Msg, Scope};
use sei_console::app::pacing::{
    CHANNEL_CAPACITY, Next, Pacer, TICK, handle_batch, holds_data, next,
};
use sei_console::app::update::update;
use sei_console::backend::KubeBackend;
use sei_console::cli::doctor_fetch::ConsoleDoctorReader;
use sei_console::fleet::FleetDelta;
use sei_console::fleet::store::Delta;
use sei_console::kube::client::connect;
use sei_console::kube::platform_config::DEFAULT_CONTROLLER_NAMESPACE;
use sei_console::ui::theme::Theme;
use tokio::sync::mpsc;

/// The longest the initial sync or the churn may take before the child gives up.
const DEADLINE: Duration = Duration::from_secs(300);

/// What the loop has seen so far.
#[derive(Default)]
struct Seen {
    /// Epochs (one per context) whose SeiNode list is complete.
    listed: BTreeSet<u64>,
    /// SeiNode updates (watch `MODIFIED`/`ADDED` after the list) handled.
    updates: usize,
    frames: usize,
    first_row: Option<Instant>,
    full_sync: Option<Instant>,
    /// The first frame drawn once `updates` reached `expected`.
    churn_drawn: Option<Instant>,
    expected: usize,
}

struct Console {
    model: Model,
    effects: Effects,
    rx: mpsc::Receiver<Msg>,
    /// The operator's input: nobody types here, so it is closed from the start.
    input: mpsc::Receiver<Msg>,
    terminal: Terminal<TestBackend>,
    theme: Theme,
    pacer: Pacer,
    seen: Seen,
    contexts: usize,
}

impl Console {
    fn draw(&mut self) {
        self.model.refresh_views();
        let (model, theme) = (&self.model, &self.theme);
        if let Err(e) = self
            .terminal
            .draw(|f| sei_console::ui::view(model, theme, f))
        {
            println!("error draw: {e}");
        }
        self.model.dirty = false;
        let now = Instant::now();
        self.pacer.drawn(now);
        let seen = &mut self.seen;
        seen.frames += 1;
        if seen.first_row.is_none() && !self.model.listing.keys.is_empty() {
            seen.first_row = Some(now);
        }
        if seen.full_sync.is_none() && seen.listed.len() >= self.contexts {
            seen.full_sync = Some(now);
        }
        if seen.expected > 0 && seen.churn_drawn.is_none() && seen.updates >= seen.expected {
            seen.churn_drawn = Some(now);
        }
    }

    /// Handles `first` and what waits behind it as the app loop does, counting what it saw.
    fn handle_batch(&mut self, first: Option<Msg>) {
        let (seen, effects) = (&mut self.seen, &mut self.effects);
        handle_batch(
            &mut self.model,
            &mut self.pacer,
            first,
            &mut self.input,
            &mut self.rx,
            |model, msg| {
                if let Msg::Delta {
                    epoch,
                    delta: FleetDelta::Node(delta),
                } = &msg
                {
                    match delta {
                        Delta::RelistDone => {
                            seen.listed.insert(*epoch);
                        }
                        Delta::Applied(_) => seen.updates += 1,
                        _ => {}
                    }
                }
                for cmd in update(model, msg) {
                    effects.run(cmd);
                }
            },
        );
    }

    /// Runs the app loop until `done` holds (true) or `until` passes (false).
    async fn pump(&mut self, until: Instant, done: impl Fn(&Seen) -> bool) -> bool {
        loop {
            if done(&self.seen) {
                return true;
            }
            let now = Instant::now();
            if now >= until {
                return false;
            }
            if self.model.dirty && self.pacer.due(now) {
                self.handle_batch(None);
                self.draw();
                continue;
            }
            let held = holds_data(&self.model);
            let waiting = next(
                &self.pacer,
                self.model.dirty,
                held,
                &mut self.input,
                &mut self.rx,
            );
            let first = match tokio::time::timeout(until - now, waiting).await {
                Ok(Next::Handle(msg)) => msg,
                Ok(Next::Closed) => return false,
                Ok(Next::Draw) | Err(_) => continue,
            };
            self.handle_batch(Some(first));
        }
    }
}

/// CPU time of the whole process (every thread: the loop and the runtime's workers).
pub fn process_cpu() -> Duration {
    // SAFETY: an all-zero rusage is a valid value for getrusage to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid and writable; RUSAGE_SELF is a constant the kernel knows.
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return Duration::ZERO;
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap_or(0))
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap_or(0))
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// `VmRSS` and `VmHWM` (peak) of this process, in bytes.
fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .map_or(0, |kib| kib * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

async fn run(kubeconfig: PathBuf, updates: usize, idle: Duration, contexts: Vec<String>) -> i32 {
    let conn = match connect(Some(&kubeconfig), contexts.first().map(String::as_str)).await {
        Ok(conn) => conn,
        Err(e) => {
            println!("error connect: {e}");
            return 1;
        }
    };
    let scope = Scope {
        contexts: contexts.clone(),
        namespace: None,
    };
    let mut model = Model::new(scope, Timestamp::now(), None);
    model.size = (200, 50);
    // As the binary runs it (`app::run`, `cli::tui`): the nodes' RPC read for chain health, the
    // doctor's reads of what the console does not watch.
    model.settings.chain_health = true;
    let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
    let reader = ConsoleDoctorReader::new(
        Some(kubeconfig.clone()),
        DEFAULT_CONTROLLER_NAMESPACE.to_owned(),
        None,
        model.settings.doctor.clone(),
    );
    let effects = KubeBackend::new(conn, Some(kubeconfig.clone()))
        .effects(tx.clone())
        .with_doctor_reader(std::sync::Arc::new(reader));
    let ticker = tokio::spawn(async move {
        let mut interval = tokio::time::interval(TICK);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            interval.tick().await;
            if tx.send(Msg::Tick(Timestamp::now())).await.is_err() {
                return;
            }
        }
    });
    let terminal = match Terminal::new(TestBackend::new(200, 50)) {
        Ok(terminal) => terminal,
        Err(e) => {
            println!("error terminal: {e}");
            return 1;
        }
    };
    let mut console = Console {
        model,
        effects,
        rx,
        input: mpsc::channel(1).1,
        terminal,
        theme: Theme::dark(),
        pacer: Pacer::new(),
        seen: Seen::default(),
        contexts: contexts.len(),
    };
    // The empty console: connected, nothing listed yet.
    let (rss_empty, _) = rss();
    let cpu_start = process_cpu();
    let start = Instant::now();
    for cmd in console.model.init() {
        console.effects.run(cmd);
    }
    console.model.refresh_views();
    if !console
        .pump(start + DEADLINE, |seen| seen.full_sync.is_some())
        .await
    {
        println!("error sync: not every context listed within {DEADLINE:?}");
        return 1;
    }
    let sync_cpu = process_cpu().saturating_sub(cpu_start);
    let (rss_synced, _) = rss();
    let since = |at: Option<Instant>| at.map_or(0.0, |at| (at - start).as_secs_f64() * 1000.0);
    println!(
        "sync nodes {} first_row_ms {:.1} full_sync_ms {:.1} frames {} cpu_ms {:.1} rss_empty {rss_empty} rss_synced {rss_synced}",
        console.model.fleet.len(),
        since(console.seen.first_row),
        since(console.seen.full_sync),
        console.seen.frames,
        sync_cpu.as_secs_f64() * 1000.0,
    );

    let idle_start = Instant::now();
    let idle_cpu = process_cpu();
    console.pump(idle_start + idle, |_| false).await;
    let idle_used = process_cpu().saturating_sub(idle_cpu);
    let (rss_idle, _) = rss();
    println!(
        "idle secs {:.2} cpu_ms {:.2} rss {rss_idle}",
        idle_start.elapsed().as_secs_f64(),
        idle_used.as_secs_f64() * 1000.0
    );

    // Updates counted from here on; the parent starts the churn when it reads `ready`.
    console.seen.updates = 0;
    console.seen.expected = updates;
    let frames_before = console.seen.frames;
    let churn_cpu = process_cpu();
    let churn_start = Instant::now();
    println!("ready");
    let all_seen = console
        .pump(churn_start + DEADLINE, |seen| seen.churn_drawn.is_some())
        .await;
    let churn_used = process_cpu().saturating_sub(churn_cpu);
    let (rss_churned, hwm) = rss();
    println!(
        "churn seen {} of {updates} complete {all_seen} secs {:.2} cpu_ms {:.1} rss {rss_churned} hwm {hwm} frames {}",
        console.seen.updates,
        churn_start.elapsed().as_secs_f64(),
        churn_used.as_secs_f64() * 1000.0,
        console.seen.frames - frames_before,
    );
    ticker.abort();
    drop(console);
    0
}

/// The child's entry: `console KUBECONFIG UPDATES IDLE_SECS CONTEXT…`.
pub fn main(args: &[String]) -> i32 {
    let [kubeconfig, updates, idle, contexts @ ..] = args else {
        eprintln!("usage: console KUBECONFIG UPDATES IDLE_SECS CONTEXT…");
        return 2;
    };
    let (Ok(updates), Ok(idle)) = (updates.parse::<usize>(), idle.parse::<f64>()) else {
        eprintln!("UPDATES and IDLE_SECS are numbers");
        return 2;
    };
    // SEI_BENCH_WORKERS: the runtime's worker threads (default: the binary's).
    let workers = std::env::var("SEI_BENCH_WORKERS")
        .ok()
        .and_then(|w| w.parse::<usize>().ok())
        .unwrap_or(sei_console::cli::RUNTIME_WORKERS);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("runtime: {e}");
            return 1;
        }
    };
    runtime.block_on(run(
        Path::new(kubeconfig).to_owned(),
        updates,
        Duration::from_secs_f64(idle),
        contexts.to_vec(),
    ))
}
