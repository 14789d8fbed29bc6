//! One judgement of chain health for every surface (issue 33): on a real sei-tendermint
//! network, the command line (`get -o json`, `get --filter …`, `doctor -o json --fail-on
//! warning`) reaches the verdicts the live console's model reaches (its rows, its `/` filter,
//! its doctor), for an in-sync, a lagging, a stalled and an unreachable node; then again with
//! the machine busy (two `yes` beside it, bounded in time), where the verdicts stay the same.
//!
//! Nodes: `cv-sync` is the validator of a fast chain (20 ms blocks: the fleet's top), in sync;
//! `cv-lag` the validator of a chain at the default pace, following its chain but more than
//! 300 blocks behind the top (its SeiNode names the same chain ID), lagging; `cv-stall` a full
//! node whose one peer, its validator, stopped: its last block ages past 30 s, stalled — the
//! demo's `pacific-1-full-1`, which the command line called "catching up"; `cv-dark` has
//! nothing behind its pod's RPC port, unreachable.
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use sei_console::app::model::Model;
use sei_console::fleet::filter::Filter;

use crate::chain_health::{annotate_rpc, console_as_operator};
use crate::common::TestNamespace;
use crate::common::console::{production_env, running_full_nodes};
use crate::console::Console;
use tendermint_net::{Mode, Network, NetworkSpec, Peering};

const IMAGE: &str = "ghcr.io/sei-protocol/sei:v6.3.0";

fn expected() -> BTreeMap<String, String> {
    [
        ("cv-sync", "in-sync"),
        ("cv-lag", "lagging"),
        ("cv-stall", "stalled"),
        ("cv-dark", "unreachable"),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_owned(), s.to_owned()))
    .collect()
}

/// `sei-console ARGS` as the token operator: exit code and stdout.
async fn cli(args: &[&str], state: &Path) -> (Option<i32>, String, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(production_env())
        .env("XDG_STATE_HOME", state)
        .env("XDG_CONFIG_HOME", state)
        .args(args)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run sei-console");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `get -o json [--filter F]`: each node's JSON item.
async fn cli_items(ns: &str, filter: Option<&str>, state: &Path) -> Vec<Value> {
    let mut args = vec!["get", "-n", ns, "-o", "json"];
    if let Some(filter) = filter {
        args.extend(["--filter", filter]);
    }
    let (code, out, err) = cli(&args, state).await;
    assert_eq!(code, Some(0), "get {args:?}: {err}");
    serde_json::from_str(&out).expect("get -o json")
}

/// `get -o json [--filter F]`: each node's chain-health state.
async fn cli_states(ns: &str, filter: Option<&str>, state: &Path) -> BTreeMap<String, String> {
    cli_items(ns, filter, state)
        .await
        .iter()
        .map(|item| {
            let name = item["name"].as_str().unwrap_or_default().to_owned();
            let state = item["chainHealth"]["state"].as_str().unwrap_or("-");
            (name, state.to_owned())
        })
        .collect()
}

/// The console's rows: each node's chain-health state, as its HEIGHT/LAG column judges it.
fn console_states(model: &Model) -> BTreeMap<String, String> {
    model
        .fleet
        .iter()
        .flat_map(|fleet| fleet.rows())
        .filter_map(|row| {
            let health = row.health?;
            let state = serde_json::to_value(health.state).ok()?;
            Some((row.key.name.to_string(), state.as_str()?.to_owned()))
        })
        .collect()
}

/// The console's row of `name`: its verdict's summary and chain health.
fn console_row(model: &Model, name: &str) -> Option<String> {
    model
        .fleet
        .iter()
        .flat_map(|fleet| fleet.rows())
        .find(|row| &*row.key.name == name)
        .map(|row| format!("{}; {:?}", row.verdict.summary(), row.health))
}

/// The names the console's `/` filter keeps.
fn console_filtered(model: &Model, filter: &str) -> BTreeSet<String> {
    let filter = Filter::parse(filter).expect("filter");
    model
        .fleet
        .iter()
        .flat_map(|fleet| fleet.rows())
        .filter(|row| filter.matches(row))
        .map(|row| row.key.name.to_string())
        .collect()
}

/// The chain findings of the console's doctor: (class, node, severity).
fn console_doctor(model: &mut Model) -> BTreeSet<(String, String, String)> {
    sei_console::app::doctor::refresh(model);
    model
        .doctor
        .findings
        .iter()
        .filter(|f| f.class.as_str().starts_with("chain-"))
        .map(|f| {
            (
                f.class.as_str().to_owned(),
                f.object.name.clone(),
                f.severity.as_str().to_owned(),
            )
        })
        .collect()
}

/// `doctor -o json --fail-on warning`: its exit code and chain findings.
async fn cli_doctor(ns: &str, state: &Path) -> (Option<i32>, BTreeSet<(String, String, String)>) {
    let (code, out, err) = cli(
        &["doctor", "-n", ns, "-o", "json", "--fail-on", "warning"],
        state,
    )
    .await;
    let doctor: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {err}"));
    let findings = doctor["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["class"].as_str().is_some_and(|c| c.starts_with("chain-")))
        .map(|f| {
            let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
            (
                text(&f["class"]),
                text(&f["object"]["name"]),
                text(&f["severity"]),
            )
        })
        .collect();
    (code, findings)
}

/// Pumps the console until its rows show `expected`; then for `steady` more it must not leave
/// them (a verdict that flickers fails here).
async fn console_steady(tui: &mut Console, steady: Duration) {
    let want = expected();
    tui.until_within("every verdict", Duration::from_secs(90), |model, _| {
        console_states(model) == want
    })
    .await;
    let from = Instant::now();
    tui.until_within(
        "the verdicts held steady",
        steady + Duration::from_secs(30),
        |model, _| {
            let states = console_states(model);
            assert_eq!(states, want, "the console's verdicts moved");
            from.elapsed() >= steady
        },
    )
    .await;
}

/// One comparison: the command line's verdicts, filters and doctor against the console's.
async fn compare(ns: &TestNamespace, state: &Path, tui: &mut Console) {
    console_steady(tui, Duration::from_secs(5)).await;
    assert_eq!(cli_states(&ns.name, None, state).await, expected());
    for filter in [
        "stalled",
        "lagging",
        "unreachable",
        "in-sync",
        "catching-up",
        "sick",
        "healthy",
        "failed",
        "warning",
        "!in-sync mode:full",
    ] {
        let items = cli_items(&ns.name, Some(filter), state).await;
        let cli: BTreeSet<String> = items
            .iter()
            .filter_map(|item| item["name"].as_str().map(str::to_owned))
            .collect();
        let console = console_filtered(&tui.model, filter);
        if cli != console {
            // Say why each side judged as it did: the verdicts, readings and their ages.
            let everything = cli_items(&ns.name, None, state).await;
            let told: Vec<String> = cli
                .symmetric_difference(&console)
                .map(|name| {
                    let item = everything.iter().find(|i| i["name"] == name.as_str());
                    let cli = item.map(|i| (i["verdict"].clone(), i["chainHealth"].clone()));
                    format!(
                        "{name}: command line now {cli:?}; console {:?}",
                        console_row(&tui.model, name)
                    )
                })
                .collect();
            panic!("--filter {filter}: command line {cli:?}, console {console:?}\n{told:#?}");
        }
    }
    // Issue 33: `get --filter stalled` printed `[]` while the console showed ⏸.
    let stalled: Vec<String> = cli_states(&ns.name, Some("stalled"), state)
        .await
        .into_keys()
        .collect();
    assert_eq!(stalled, ["cv-stall"]);
    let (code, cli_findings) = cli_doctor(&ns.name, state).await;
    assert_eq!(code, Some(1), "--fail-on warning fails on a stalled chain");
    let want: BTreeSet<(String, String, String)> = [
        ("chain-stalled", "cv-stall", "critical"),
        ("chain-lagging", "cv-lag", "warning"),
        ("chain-rpc-unreachable", "cv-dark", "warning"),
    ]
    .into_iter()
    .map(|(c, n, s)| (c.to_owned(), n.to_owned(), s.to_owned()))
    .collect();
    assert_eq!(cli_findings, want);
    assert_eq!(console_doctor(&mut tui.model), want);
}

/// Two `yes > /dev/null`, each bounded by `timeout` and stopped when dropped: SIGTERM to
/// `timeout`, which passes it on to `yes` (a SIGKILL would leave `yes` running on its own).
struct Busy(Vec<std::process::Child>);

impl Busy {
    fn start() -> Busy {
        Busy(
            (0..2)
                .map(|_| {
                    std::process::Command::new("timeout")
                        .args(["180", "yes"])
                        .stdout(Stdio::null())
                        .spawn()
                        .expect("spawn yes")
                })
                .collect(),
        )
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let _ = child.wait();
        }
    }
}

#[tokio::test]
async fn the_command_line_and_the_console_judge_chain_health_alike_idle_and_under_load() {
    let spec = || NetworkSpec {
        chain_id: "pacific-1".into(),
        full_nodes: 0,
        seed: false,
    };
    let fast = Network::start_with_block_interval(spec(), Some(Duration::from_millis(20))).await;
    let slow = Network::start(spec()).await;
    let mut halted = Network::start(spec()).await;
    let follower = halted.add_node(
        "follower",
        Mode::Full,
        Peering {
            to_validator: true,
            advertise_self: false,
            pex: false,
        },
    );
    follower
        .wait_for_height_above(1, Duration::from_secs(90))
        .await;
    // Its one peer gone, the follower keeps answering at a height that no longer moves.
    halted.validator.stop();
    let stopped = Instant::now();

    let ns = TestNamespace::new("chain-verdicts").await;
    let state = tempfile::tempdir().expect("state");
    let names: Vec<String> = expected().into_keys().collect();
    running_full_nodes(&ns, &names, IMAGE, &BTreeMap::new(), state.path()).await;
    annotate_rpc(&ns, "cv-sync", fast.validator.rpc.expect("RPC")).await;
    annotate_rpc(&ns, "cv-lag", slow.validator.rpc.expect("RPC")).await;
    annotate_rpc(&ns, "cv-stall", follower.rpc.expect("RPC")).await;

    // The fast chain runs 300 blocks ahead; the follower's last block ages past 30 s.
    let started = Instant::now();
    loop {
        let ahead = fast.validator.height().await.unwrap_or(0);
        let behind = slow.validator.height().await.unwrap_or(0);
        if ahead > behind + 400 && stopped.elapsed() > Duration::from_secs(35) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "fast {ahead}, slow {behind} after 180 s"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    // The add-on applies the RPC forwards within a few seconds.
    let started = Instant::now();
    loop {
        let states = cli_states(&ns.name, None, state.path()).await;
        if states == expected() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "get -o json after 60 s: {states:?}"
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    }

    let mut tui = console_as_operator(&ns).await;
    compare(&ns, state.path(), &mut tui).await;

    // The machine busy: the same verdicts on both sides, and no flicker in the console.
    let busy = Busy::start();
    for _ in 0..2 {
        compare(&ns, state.path(), &mut tui).await;
    }
    console_steady(&mut tui, Duration::from_secs(20)).await;
    drop(busy);
}
