//! The bench's load, run in a child process of its own so that neither its memory nor its CPU
//! counts as the console's: creates SeiNodes with a status like a real fleet's (create, then
//! patch the status subresource), and later patches their status in a bounded loop (churn).
use std::path::Path;
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use sei_console::api::SeiNode;
use sei_console::fleet::sample;
use sei_console::kube::client::connect;
use serde_json::json;

/// Requests in flight per cluster.
const CONCURRENCY: usize = 16;
/// The longest a load or churn may take per cluster.
const DEADLINE: Duration = Duration::from_secs(900);
/// The namespaces nodes are spread over (as `sample::large_fleet_node` does).
const NAMESPACES: usize = 20;

/// Node `i` of the bench fleet: `sample::large_fleet_node`'s spec and status (Running with
/// healthy conditions, Initializing, Failed; 30% with an active or failed plan), where every
/// Running node also keeps its finished init plan, as a real fleet's do.
fn fleet_node(i: usize) -> SeiNode {
    let mut node = sample::large_fleet_node(i);
    if node.status.as_ref().is_some_and(|s| s.plan.is_none()) {
        node = sample::patched(
            node,
            json!({"status": {"plan": sample::plan(&sample::FULL_INIT_TASKS, 7, None)}}),
        );
    }
    node.metadata.creation_timestamp = None;
    node.metadata.uid = None;
    node
}

async fn client(kubeconfig: &Path, context: &str) -> Result<kube::Client, String> {
    connect(Some(kubeconfig), Some(context))
        .await
        .map(|c| c.client)
        .map_err(|e| format!("{context}: {e}"))
}

/// Creates nodes `0..count` in `context` (those already there are kept), each with its status.
async fn fill(kubeconfig: &Path, context: &str, count: usize) -> Result<String, String> {
    let client = client(kubeconfig, context).await?;
    let namespaces: Api<Namespace> = Api::all(client.clone());
    for n in 0..NAMESPACES {
        let ns: Namespace =
            serde_json::from_value(json!({"metadata": {"name": format!("chain-{n}")}}))
                .map_err(|e| e.to_string())?;
        match namespaces.create(&PostParams::default(), &ns).await {
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.code == 409 => {}
            Err(e) => return Err(format!("{context}: namespace: {e}")),
        }
    }
    let all: Api<SeiNode> = Api::all(client.clone());
    let existing = all
        .list_metadata(&ListParams::default())
        .await
        .map_err(|e| format!("{context}: {e}"))?
        .items
        .len();
    let start = Instant::now();
    let results: Vec<Result<(), String>> = futures::stream::iter(existing..count)
        .map(|i| {
            let client = client.clone();
            async move {
                if start.elapsed() > DEADLINE {
                    return Err("deadline passed".to_owned());
                }
                let node = fleet_node(i);
                let ns = node.metadata.namespace.clone().unwrap_or_default();
                let name = node.metadata.name.clone().unwrap_or_default();
                let api: Api<SeiNode> = Api::namespaced(client, &ns);
                let status = serde_json::to_value(&node)
                    .map_err(|e| e.to_string())?
                    .get("status")
                    .cloned();
                match api.create(&PostParams::default(), &node).await {
                    Ok(_) => {}
                    Err(kube::Error::Api(s)) if s.code == 409 => {}
                    Err(e) => return Err(e.to_string()),
                }
                let patch = json!({ "status": status });
                merge_status(&api, &name, &patch).await
            }
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    first_failure(context, &results)?;
    Ok(format!(
        "{context}: {} SeiNodes created with status in {:.1?}",
        count - existing.min(count),
        start.elapsed()
    ))
}

/// `SEI_BENCH_RATE`: status patches per second per cluster in the churn (none or 0: as fast as
/// [`CONCURRENCY`] requests in flight allow).
fn churn_rate() -> Option<f64> {
    std::env::var("SEI_BENCH_RATE")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|rate| *rate > 0.0)
}

/// Patches the status of `updates` nodes of `0..count` in `context`, round robin, each patch
/// a real change (plan progress and a condition message carrying the update's number); paced
/// at [`churn_rate`] when set.
async fn churn(
    kubeconfig: &Path,
    context: &str,
    count: usize,
    updates: usize,
    round: usize,
) -> Result<String, String> {
    let client = client(kubeconfig, context).await?;
    let start = Instant::now();
    let rate = churn_rate();
    let results: Vec<Result<(), String>> = futures::stream::iter(0..updates)
        .map(|k| {
            let client = client.clone();
            async move {
                if let Some(rate) = rate {
                    let at = start + Duration::from_secs_f64(k as f64 / rate);
                    tokio::time::sleep_until(at.into()).await;
                }
                if start.elapsed() > DEADLINE {
                    return Err("deadline passed".to_owned());
                }
                let i = k % count.max(1);
                let ns = format!("chain-{}", i % NAMESPACES);
                let name = format!("node-{i:05}");
                let api: Api<SeiNode> = Api::namespaced(client, &ns);
                let message = format!("sidecar returned 200 (round {round}, update {k})");
                let patch = json!({"status": {
                    "plan": sample::plan(&sample::UPDATE_TASKS, (k + round) % 7, None),
                    "conditions": [
                        sample::condition("SidecarReady", "True", "Ready", &message, 30),
                        sample::condition("Paused", "False", "NotPaused", "spec.paused is unset or false", 7200),
                    ],
                }});
                merge_status(&api, &name, &patch).await
            }
        })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    first_failure(context, &results)?;
    Ok(format!(
        "{context}: {updates} status patches in {:.1?}",
        start.elapsed()
    ))
}

/// The child's entry: `load KUBECONFIG fill|churn ROUND CONTEXT=COUNT[:UPDATES]…`; every
/// cluster is loaded at once; one line per cluster, an error exits non-zero.
pub fn main(args: &[String]) -> i32 {
    let [kubeconfig, what, round, targets @ ..] = args else {
        eprintln!("usage: load KUBECONFIG fill|churn ROUND CONTEXT=COUNT[:UPDATES]…");
        return 2;
    };
    let round: usize = round.parse().unwrap_or(0);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("runtime: {e}");
            return 1;
        }
    };
    let kubeconfig = Path::new(kubeconfig);
    let jobs = targets.iter().map(|target| async move {
        let (context, sizes) = target.split_once('=').ok_or("CONTEXT=COUNT")?;
        let (count, updates) = sizes.split_once(':').unwrap_or((sizes, "0"));
        let count: usize = count.parse().map_err(|_| "COUNT is a number".to_owned())?;
        let updates: usize = updates
            .parse()
            .map_err(|_| "UPDATES is a number".to_owned())?;
        if what == "churn" {
            churn(kubeconfig, context, count, updates, round).await
        } else {
            fill(kubeconfig, context, count).await
        }
    });
    let results = runtime.block_on(futures::future::join_all(jobs));
    let mut code = 0;
    for result in results {
        match result {
            Ok(line) => println!("{line}"),
            Err(e) => {
                eprintln!("load: {e}");
                code = 1;
            }
        }
    }
    code
}

/// `Err` naming how many requests of `context` failed and the first failure, when any did.
fn first_failure(context: &str, results: &[Result<(), String>]) -> Result<(), String> {
    let failed: Vec<&String> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    match failed.first() {
        Some(first) => Err(format!(
            "{context}: {} failed, first: {first}",
            failed.len()
        )),
        None => Ok(()),
    }
}

/// A merge patch of one SeiNode's status.
async fn merge_status(
    api: &Api<SeiNode>,
    name: &str,
    patch: &serde_json::Value,
) -> Result<(), String> {
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}
