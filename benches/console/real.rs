//! First paint and full sync against a real API server holding many SeiNodes, printed beside
//! the wall time of `kubectl get seinodes -A -o json` in the same run.
use std::path::Path;
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ListParams, PostParams};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sei_console::api::{NodeMode, SeiNode};
use sei_console::app::model::{Model, Msg, Scope};
use sei_console::app::update::update;
use sei_console::fleet::store::Delta;
use sei_console::fleet::watches::WatchKind;
use sei_console::fleet::{FleetDelta, sample};
use sei_console::kube::client::connect;
use sei_console::kube::watch::{run_watch, watch_config};
use sei_console::ui::theme::Theme;

const CREATE_CONCURRENCY: usize = 16;
/// The app loop's frame interval and batch bound (src/app/run.rs).
const FRAME: Duration = Duration::from_millis(33);
const MAX_BATCH: usize = 4096;
const CREATE_DEADLINE: Duration = Duration::from_secs(900);

async fn ensure_fleet(client: kube::Client, namespace: &str, n: usize) -> Result<(), String> {
    let namespaces: Api<Namespace> = Api::all(client.clone());
    if namespaces
        .get_opt(namespace)
        .await
        .map_err(|e| e.to_string())?
        .is_none()
    {
        let ns: Namespace =
            serde_json::from_value(serde_json::json!({"metadata": {"name": namespace}}))
                .map_err(|e| e.to_string())?;
        namespaces
            .create(&PostParams::default(), &ns)
            .await
            .map_err(|e| e.to_string())?;
    }
    let api: Api<SeiNode> = Api::namespaced(client, namespace);
    let existing = api
        .list_metadata(&ListParams::default())
        .await
        .map_err(|e| e.to_string())?
        .items
        .len();
    if existing >= n {
        return Ok(());
    }
    println!(
        "creating {} SeiNodes in namespace {namespace} …",
        n - existing
    );
    let start = Instant::now();
    let results: Vec<Result<(), String>> = futures::stream::iter(existing..n)
        .map(|i| {
            let api = api.clone();
            async move {
                if start.elapsed() > CREATE_DEADLINE {
                    return Err("creation deadline passed".to_owned());
                }
                let mode = NodeMode::ALL[i % NodeMode::ALL.len()];
                let mut node = sample::node(namespace, &format!("bench-{i:05}"), mode, 0);
                node.metadata.creation_timestamp = None;
                node.metadata.uid = None;
                match api.create(&PostParams::default(), &node).await {
                    Ok(_) => Ok(()),
                    Err(kube::Error::Api(s)) if s.code == 409 => Ok(()),
                    Err(e) => Err(e.to_string()),
                }
            }
        })
        .buffer_unordered(CREATE_CONCURRENCY)
        .collect()
        .await;
    let failed = results.iter().filter(|r| r.is_err()).count();
    println!("created in {:.1?} ({failed} failed)", start.elapsed());
    if failed > 0 {
        Err(format!("{failed} creates failed"))
    } else {
        Ok(())
    }
}

pub async fn run(kubeconfig: &str, n: usize) {
    let namespace = std::env::var("SEI_BENCH_NAMESPACE").unwrap_or_else(|_| "bench".to_owned());
    let conn = match connect(Some(Path::new(kubeconfig)), None).await {
        Ok(conn) => conn,
        Err(e) => return println!("real control plane: {e}"),
    };
    if let Err(e) = ensure_fleet(conn.client.clone(), &namespace, n).await {
        return println!("real control plane: cannot prepare the fleet: {e}");
    }

    let kubectl = std::env::var("KUBECTL").unwrap_or_else(|_| "kubectl".to_owned());
    let start = Instant::now();
    let status = std::process::Command::new(&kubectl)
        .args([
            "--kubeconfig",
            kubeconfig,
            "get",
            "seinodes",
            "-A",
            "-o",
            "json",
        ])
        .stdout(std::process::Stdio::null())
        .status();
    let kubectl_time = start.elapsed();

    let scope = Scope::one(conn.context.clone(), None);
    // The app's watch configuration, unless the run asks to compare another initial list.
    let mut config = watch_config();
    if let Some(size) = std::env::var("SEI_BENCH_PAGE_SIZE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        config = config.page_size(size);
    }
    if std::env::var("SEI_BENCH_PAGED_LIST").is_ok_and(|v| v == "1") {
        config.initial_list_strategy = kube::runtime::watcher::InitialListStrategy::ListWatch;
    }
    let heap_before = super::live_heap();
    let rss_before = super::rss_bytes();
    let mut model = Model::new(scope, jiff::Timestamp::now(), None);
    model.size = (200, 50);
    model.init();
    let epoch = model.scope_epoch;
    let theme = Theme::dark();
    let mut terminal = Terminal::new(TestBackend::new(200, 50)).expect("terminal");
    let (tx, mut rx) = tokio::sync::mpsc::channel(8192);
    let start = Instant::now();
    let watch = tokio::spawn(run_watch(
        Api::<sei_console::kube::lenient::Lenient<SeiNode>>::all(conn.client.clone()),
        config.clone(),
        WatchKind::Nodes,
        epoch,
        tx,
        FleetDelta::Node,
    ));
    // Paced like the app loop (src/app/run.rs): a dirty model draws at most once per frame.
    let mut first_paint = None;
    let mut full_sync = None;
    let mut synced = false;
    let mut last_draw: Option<Instant> = None;
    let mut frames = 0;
    let deadline = Instant::now() + Duration::from_secs(120);
    while full_sync.is_none() && Instant::now() < deadline {
        let due = last_draw.is_none_or(|at| at.elapsed() >= FRAME);
        if model.dirty && due {
            model.refresh_views();
            terminal
                .draw(|f| sei_console::ui::view(&model, &theme, f))
                .expect("draw");
            model.dirty = false;
            last_draw = Some(Instant::now());
            frames += 1;
            if first_paint.is_none() && !model.listing.keys.is_empty() {
                first_paint = Some(start.elapsed());
            }
            if synced {
                full_sync = Some(start.elapsed());
            }
            continue;
        }
        let wait = if model.dirty {
            last_draw.map_or(Duration::ZERO, |at| FRAME.saturating_sub(at.elapsed()))
        } else {
            Duration::from_secs(5)
        };
        let msg = match tokio::time::timeout(wait, rx.recv()).await {
            Ok(Some(msg)) => msg,
            Ok(None) => break,
            Err(_) if model.dirty => continue,
            Err(_) => break,
        };
        let mut next = Some(msg);
        let mut handled = 0;
        while let Some(msg) = next {
            synced |= matches!(
                &msg,
                Msg::Delta {
                    delta: FleetDelta::Node(Delta::RelistDone),
                    ..
                }
            );
            update(&mut model, msg);
            handled += 1;
            next = if handled < MAX_BATCH {
                rx.try_recv().ok()
            } else {
                None
            };
        }
    }
    watch.abort();
    println!(
        "real control plane, {} SeiNodes listed ({:?}, page size {:?}):",
        model.fleet.len(),
        config.initial_list_strategy,
        config.page_size
    );
    println!(
        "  first rows painted          {:>9.1?}   budget <= 300 ms",
        first_paint.unwrap_or_default()
    );
    println!(
        "  full sync painted           {:>9.1?}   budget <= 1.5 s ({frames} frames drawn)",
        full_sync.unwrap_or_default()
    );
    let held = super::live_heap().0.saturating_sub(heap_before.0);
    println!(
        "  live heap after sync        {:>7.1} MiB, {:.2} KiB/node",
        held as f64 / 1048576.0,
        held as f64 / 1024.0 / model.fleet.len().max(1) as f64
    );
    if let (Some(before), Some(after)) = (rss_before, super::rss_bytes()) {
        println!(
            "  RSS growth after sync       {:>7.1} MiB",
            after.saturating_sub(before) as f64 / 1048576.0
        );
    }
    match status {
        Ok(s) if s.success() => {
            println!("  kubectl get seinodes -A -o json  {kubectl_time:>9.1?} (same run)")
        }
        Ok(s) => println!("  kubectl get failed: {s}"),
        Err(e) => println!("  kubectl not run ({kubectl}): {e}"),
    }
}
