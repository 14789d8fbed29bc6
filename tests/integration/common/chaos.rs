//! Crash anywhere, resume at once (issue 39): the real `sei-console` binary run as a child
//! process, SIGKILLed as the node's plan crosses each task transition (watched in
//! `.status.plan`), and the same command run again at once, until one run ends by itself.
//!
//! The killed child is reaped at once ([`Parent::Reaps`]: its pid is gone) or held unreaped
//! while the command runs again ([`Parent::HoldsZombie`]: `/proc/<pid>/stat` says `Z`), the two
//! ways a console's death looks to the rerun on the same machine. Each rerun's wait (from its
//! start until the node's Lease names it) is measured and printed.
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::WatchEvent;
use kube::api::WatchParams;
use serde_json::Value;

use super::console::{Run, sidecar_home};
use super::{TestNamespace, control_plane};
use sei_console::ports::{HolderProcess, process_state};

/// What the killed console's parent does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parent {
    /// Reaps it at once: its pid is gone when the command runs again.
    Reaps,
    /// Holds it unreaped while the command runs again (a zombie), reaping at the chain's end.
    HoldsZombie,
}

/// Where a run is killed, besides the task transitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extra {
    None,
    /// Once, at its first `health gate:` line (the plan Complete, the wave gate running).
    WhileGating,
}

/// One chain of kills: a node, the command and its environment.
pub struct Chain<'a> {
    pub ns: &'a TestNamespace,
    pub node: &'a str,
    pub args: Vec<String>,
    pub env: HashMap<String, String>,
    pub state: &'a Path,
    pub parent: Parent,
    pub extra: Extra,
    /// The plan the kills follow has this many tasks or fewer (kills stop past it).
    pub max_tasks: usize,
}

/// One rerun after a kill.
#[derive(Debug, Clone)]
pub struct Resume {
    /// Where the run before it was killed.
    pub killed: String,
    /// From its start until the node's Lease named it.
    pub waited: Duration,
    /// Its Lease notes (taken over, waited out).
    pub lease_notes: Vec<String>,
}

/// How a chain ended.
#[derive(Debug)]
pub struct ChainEnd {
    pub resumes: Vec<Resume>,
    /// Every plan ID seen in `.status.plan` while the chain ran.
    pub plans: BTreeSet<String>,
    /// The tasks of those plans: ID -> type.
    pub tasks: BTreeMap<String, String>,
    /// The run that ended by itself.
    pub last: Run,
    /// Reruns started while the killed run was a zombie.
    pub zombie_reruns: usize,
    pub took: Duration,
}

fn spawn(chain: &Chain<'_>, out: &Path) -> Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(&chain.env)
        .env("XDG_STATE_HOME", chain.state)
        .env("XDG_CONFIG_HOME", chain.state)
        .args(&chain.args)
        .args(["--max-wait-ms", "300", "--timeout", "90", "-o", "json"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(out).expect("stdout file"))
        .stderr(std::fs::File::create(out.with_extension("err")).expect("stderr file"))
        .spawn()
        .expect("start sei-console")
}

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn notes(text: &str) -> Vec<String> {
    lines(text)
        .into_iter()
        .filter(|l| l["event"] == "note")
        .filter_map(|l| l["message"].as_str().map(str::to_owned))
        .collect()
}

/// `(plan id, tasks Complete, tasks, kind of the last Complete)` of the node's plan.
fn plan_of(node: &Value) -> Option<(String, usize, usize, String)> {
    let plan = &node["status"]["plan"];
    let tasks = plan["tasks"].as_array()?;
    let done: Vec<&Value> = tasks.iter().filter(|t| t["status"] == "Complete").collect();
    let last = done
        .last()
        .and_then(|t| t["type"].as_str())
        .unwrap_or("-")
        .to_owned();
    Some((
        plan["id"].as_str()?.to_owned(),
        done.len(),
        tasks.len(),
        last,
    ))
}

/// The holder of the node's Lease, if any.
async fn lease_holder(ns: &TestNamespace, node: &str) -> Option<String> {
    ns.api::<Lease>()
        .get_opt(&format!("sei-console-exec-{node}"))
        .await
        .ok()
        .flatten()
        .and_then(|l| l.spec)
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty())
}

/// Runs the chain: kill after 1, 2, … tasks of the node's plan are Complete (and at the extra
/// point), each run only once it holds the node's Lease, the same command again at once each
/// time, until a run ends by itself (at most 60 s per run). A run that crosses two transitions
/// before its kill lands covers both with one kill. Panics when a run fails to end or the chain
/// does not end.
pub async fn run_chain(chain: &Chain<'_>) -> ChainEnd {
    let chain_started = Instant::now();
    let mut kill_at = 1;
    let mut extra_pending = chain.extra != Extra::None;
    let mut zombies: Vec<Child> = Vec::new();
    let mut plans = BTreeSet::new();
    let mut tasks = BTreeMap::new();
    let mut resumes = Vec::new();
    let mut killed: Option<String> = None;
    let mut zombie_reruns = 0;
    let api = chain.ns.seinodes();
    let params = WatchParams::default().fields(&format!("metadata.name={}", chain.node));
    for attempt in 0..(chain.max_tasks + 4) {
        if let Some(last) = zombies.last() {
            assert_eq!(
                process_state(last.id()),
                HolderProcess::Zombie,
                "the killed console is held unreaped"
            );
            zombie_reruns += 1;
        }
        // The kill that ended the run before this one.
        let previous = killed.take();
        let out = chain
            .state
            .join(format!("{}-run-{attempt}.jsonl", chain.node));
        let started = Instant::now();
        let mut child = spawn(chain, &out);
        let pid = child.id();
        let mut waited = None;
        let mut events = api
            .watch(&params, "0")
            .await
            .expect("watch the node")
            .boxed();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        let mut tick = tokio::time::interval(Duration::from_millis(40));
        let end = loop {
            let node = tokio::select! {
                event = events.try_next() => match event {
                    Ok(Some(WatchEvent::Added(o) | WatchEvent::Modified(o))) => Some(o.data),
                    Ok(Some(_)) => None,
                    // The watch ended (timeout, error): open it again.
                    Ok(None) | Err(_) => {
                        events = api.watch(&params, "0").await.expect("watch").boxed();
                        None
                    }
                },
                _ = tick.tick() => None,
            };
            assert!(
                tokio::time::Instant::now() < deadline,
                "run {attempt} of {} did not end within 60 s: {}",
                chain.node,
                std::fs::read_to_string(&out).unwrap_or_default()
            );
            if waited.is_none()
                && lease_holder(chain.ns, chain.node)
                    .await
                    .is_some_and(|h| h.ends_with(&format!("-{pid}")))
            {
                waited = Some(started.elapsed());
            }
            if let Some(status) = child.try_wait().expect("try_wait") {
                break Some(status);
            }
            let text = std::fs::read_to_string(&out).unwrap_or_default();
            if let Some(listed) = node
                .as_ref()
                .and_then(|n| n["status"]["plan"]["tasks"].as_array())
            {
                for task in listed {
                    if let (Some(id), Some(kind)) = (task["id"].as_str(), task["type"].as_str()) {
                        tasks.insert(id.to_owned(), kind.to_owned());
                    }
                }
            }
            let at = node.as_ref().and_then(plan_of);
            if let Some((id, ..)) = &at {
                plans.insert(id.clone());
            }
            // Killed only once it holds the node's Lease: every rerun shows its resume.
            let resumed = waited.is_some();
            let task_kill = at.as_ref().filter(|(_, done, total, _)| {
                resumed && *done >= kill_at && kill_at <= (*total).min(chain.max_tasks)
            });
            let gate_kill = resumed && extra_pending && text.contains("health gate: ");
            if task_kill.is_none() && !gate_kill {
                continue;
            }
            child.kill().expect("SIGKILL");
            killed = Some(match task_kill {
                Some((id, done, total, last)) => {
                    kill_at = done + 1;
                    format!("{done} of {total} tasks of plan {id} Complete (last {last})")
                }
                None => {
                    extra_pending = false;
                    "the health gate running".to_owned()
                }
            });
            match chain.parent {
                Parent::Reaps => {
                    child.wait().expect("reap");
                }
                Parent::HoldsZombie => {
                    // The kernel makes it a zombie a moment after the signal.
                    let until = Instant::now() + Duration::from_secs(5);
                    while process_state(child.id()) != HolderProcess::Zombie
                        && Instant::now() < until
                    {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                    zombies.push(child);
                }
            }
            break None;
        };
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        if let Some(previous) = previous {
            resumes.push(resume(previous, waited, &text));
        }
        let Some(status) = end else {
            continue;
        };
        for mut zombie in zombies.drain(..) {
            zombie.wait().expect("reap the zombie");
        }
        let stderr = std::fs::read_to_string(out.with_extension("err")).unwrap_or_default();
        return ChainEnd {
            resumes,
            plans,
            tasks,
            last: Run {
                ok: status.success(),
                lines: lines(&text),
                stderr,
            },
            zombie_reruns,
            took: chain_started.elapsed(),
        };
    }
    panic!("the chain of {} did not end", chain.node);
}

fn resume(killed: String, waited: Option<Duration>, text: &str) -> Resume {
    Resume {
        killed,
        waited: waited.unwrap_or_default(),
        lease_notes: notes(text)
            .into_iter()
            .filter(|n| n.contains("Lease of"))
            .collect(),
    }
}

/// The chain's figures on stderr (`--nocapture` shows them): each resume's wait.
pub fn print_resumes(what: &str, end: &ChainEnd) {
    eprintln!(
        "{what}: {} kills, {} reruns held a zombie, {:.1} s in all",
        end.resumes.len(),
        end.zombie_reruns,
        end.took.as_secs_f64()
    );
    for resume in &end.resumes {
        eprintln!(
            "  killed at {}: the rerun waited {:.2} s for the Lease ({})",
            resume.killed,
            resume.waited.as_secs_f64(),
            resume.lease_notes.join("; ")
        );
    }
}

/// What the sidecar's own task log says: `task ID -> runs` from the real seictl's
/// `task submitted` lines (`<home>/logs/seictl-serve.log`), one per handler start.
pub fn seictl_runs(namespace: &str, node: &str) -> BTreeMap<String, usize> {
    let log = sidecar_home(namespace, node)
        .join("logs")
        .join("seictl-serve.log");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let mut runs = BTreeMap::new();
    for line in text.lines().filter(|l| l.contains("task submitted")) {
        let id = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix("id="))
            .map(|w| w.trim_matches('"').to_owned())
            .or_else(|| {
                serde_json::from_str::<Value>(line)
                    .ok()
                    .and_then(|v| v["id"].as_str().map(str::to_owned))
            });
        if let Some(id) = id {
            *runs.entry(id).or_insert(0) += 1;
        }
    }
    runs
}

/// Sidecar task types (spec/planner.md: the tasks the seictl sidecar runs).
const SIDECAR_TASKS: [&str; 7] = [
    "config-apply",
    "config-patch",
    "config-validate",
    "configure-genesis",
    "configure-state-sync",
    "snapshot-restore",
    "mark-ready",
];

/// The chain's sidecar tasks ran once each, as the real seictl logged its handler runs, and
/// seictl ran nothing else since `before` (`seictl_runs` then). Returns how many there were.
pub fn assert_sidecar_tasks_ran_once(
    ns: &TestNamespace,
    node: &str,
    end: &ChainEnd,
    before: &BTreeMap<String, usize>,
) -> usize {
    let ours: BTreeMap<&String, &String> = end
        .tasks
        .iter()
        .filter(|(_, kind)| SIDECAR_TASKS.contains(&kind.as_str()))
        .collect();
    let after = seictl_runs(&ns.name, node);
    let ran: BTreeMap<&String, usize> = after
        .iter()
        .map(|(id, runs)| (id, runs - before.get(id).copied().unwrap_or(0)))
        .filter(|(_, runs)| *runs > 0)
        .collect();
    for (id, kind) in &ours {
        assert_eq!(
            ran.get(id).copied(),
            Some(1),
            "{node}: seictl ran {kind} {id}: {ran:?}"
        );
    }
    assert_eq!(
        ran.len(),
        ours.len(),
        "{node}: seictl ran others: {ran:?} {ours:?}"
    );
    ours.len()
}

/// Requests of a program (its User-Agent starts with `agent`: `sei-console/`,
/// `controller-standin/`) in the API server's audit log that `verb` `resource` `name` in
/// `namespace` (completed ones): e.g. how often replace-pod deleted the node's pod (kwok's own
/// deletes of a terminating pod are not the executor's).
pub fn audited(agent: &str, verb: &str, resource: &str, namespace: &str, name: &str) -> usize {
    let path = control_plane().dir.join("logs").join("audit.log");
    std::fs::read_to_string(&path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(namespace) && l.contains(name))
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| {
            e["stage"] == "ResponseComplete"
                && e["verb"] == verb
                && e["objectRef"]["resource"] == resource
                && e["objectRef"]["namespace"] == namespace
                && e["objectRef"]["name"] == name
                && e["objectRef"]["subresource"].is_null()
                && e["userAgent"]
                    .as_str()
                    .is_some_and(|a| a.starts_with(agent))
        })
        .count()
}

/// The node's Lease is free: absent, or released (no holder).
pub async fn assert_no_lease_left(ns: &TestNamespace, node: &str) {
    let holder = lease_holder(ns, node).await;
    assert_eq!(holder, None, "{node}: a Lease left behind");
}
