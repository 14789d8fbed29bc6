//! The embedded executor's own overhead per task: wall time of driving whole plans minus the time
//! spent inside the Kubernetes and sidecar ports (here in-memory fakes, timed separately), divided
//! by the number of steps. Prints figures; target ≤ 1 ms per task. `cargo bench --bench
//! executor_overhead` (release profile).
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{PersistentVolume, Pod};
use sei_console::api::SeiNode;
use sei_console::api::sidecar::{SidecarStatus, TaskRequest, TaskResult, TaskSubmitResponse};
use sei_console::executor::driver::{Driver, DriverConfig, Persisted, Progress};
use sei_console::ports::{
    ClusterApi, ClusterFuture, ClusterObject, DeleteOutcome, FixedClock, NodeEvent, ObjectKind,
    Propagation, SidecarApi, SidecarFuture, SidecarTarget, StatusPatch,
};
use sei_console::tasks::testing::{
    FakeCluster, FakeRenderer, FakeSidecar, SidecarBehaviour, full_node,
};

/// Nanoseconds spent inside port calls.
static PORT_NANOS: AtomicU64 = AtomicU64::new(0);

async fn timed<T>(f: impl std::future::Future<Output = T>) -> T {
    let start = Instant::now();
    let out = f.await;
    PORT_NANOS.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    out
}

struct TimedCluster(FakeCluster);
struct TimedSidecar(FakeSidecar);

impl ClusterApi for TimedCluster {
    fn get_seinode<'a>(&'a self, ns: &'a str, name: &'a str) -> ClusterFuture<'a, Option<SeiNode>> {
        Box::pin(timed(self.0.get_seinode(ns, name)))
    }
    fn patch_seinode_status<'a>(
        &'a self,
        ns: &'a str,
        name: &'a str,
        patch: &'a StatusPatch,
    ) -> ClusterFuture<'a, SeiNode> {
        Box::pin(timed(self.0.patch_seinode_status(ns, name, patch)))
    }
    fn apply<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject> {
        Box::pin(timed(self.0.apply(object)))
    }
    fn patch_seinode<'a>(
        &'a self,
        ns: &'a str,
        name: &'a str,
        patch: &'a serde_json::Value,
    ) -> ClusterFuture<'a, SeiNode> {
        Box::pin(timed(self.0.patch_seinode(ns, name, patch)))
    }
    fn create_seinode<'a>(&'a self, node: &'a SeiNode) -> ClusterFuture<'a, SeiNode> {
        Box::pin(timed(self.0.create_seinode(node)))
    }
    fn list_seinodes<'a>(
        &'a self,
        ns: &'a str,
        selector: Option<&'a str>,
    ) -> ClusterFuture<'a, Vec<SeiNode>> {
        Box::pin(timed(self.0.list_seinodes(ns, selector)))
    }
    fn record_event<'a>(
        &'a self,
        event: &'a k8s_openapi::api::core::v1::Event,
    ) -> ClusterFuture<'a, ()> {
        Box::pin(timed(self.0.record_event(event)))
    }
    fn create<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject> {
        Box::pin(timed(self.0.create(object)))
    }
    fn apply_dry_run<'a>(&'a self, object: &'a ClusterObject) -> ClusterFuture<'a, ClusterObject> {
        Box::pin(timed(self.0.apply_dry_run(object)))
    }
    fn get<'a>(
        &'a self,
        kind: ObjectKind,
        ns: &'a str,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<ClusterObject>> {
        Box::pin(timed(self.0.get(kind, ns, name)))
    }
    fn get_persistent_volume<'a>(
        &'a self,
        name: &'a str,
    ) -> ClusterFuture<'a, Option<PersistentVolume>> {
        Box::pin(timed(self.0.get_persistent_volume(name)))
    }
    fn list_pods<'a>(
        &'a self,
        ns: &'a str,
        selector: &'a BTreeMap<String, String>,
    ) -> ClusterFuture<'a, Vec<Pod>> {
        Box::pin(timed(self.0.list_pods(ns, selector)))
    }
    fn delete<'a>(
        &'a self,
        kind: ObjectKind,
        ns: &'a str,
        name: &'a str,
        p: Propagation,
    ) -> ClusterFuture<'a, bool> {
        Box::pin(timed(self.0.delete(kind, ns, name, p)))
    }
    fn service_account_exists<'a>(&'a self, ns: &'a str, name: &'a str) -> ClusterFuture<'a, bool> {
        Box::pin(timed(self.0.service_account_exists(ns, name)))
    }
    fn list_events_for<'a>(
        &'a self,
        ns: &'a str,
        kind: ObjectKind,
        name: &'a str,
    ) -> ClusterFuture<'a, Vec<k8s_openapi::api::core::v1::Event>> {
        Box::pin(timed(self.0.list_events_for(ns, kind, name)))
    }
    fn create_event<'a>(&'a self, event: &'a NodeEvent) -> ClusterFuture<'a, ()> {
        Box::pin(timed(self.0.create_event(event)))
    }
    fn get_lease<'a>(&'a self, ns: &'a str, name: &'a str) -> ClusterFuture<'a, Option<Lease>> {
        Box::pin(timed(self.0.get_lease(ns, name)))
    }
    fn create_lease<'a>(&'a self, lease: &'a Lease) -> ClusterFuture<'a, Lease> {
        Box::pin(timed(self.0.create_lease(lease)))
    }
    fn replace_lease<'a>(&'a self, lease: &'a Lease) -> ClusterFuture<'a, Lease> {
        Box::pin(timed(self.0.replace_lease(lease)))
    }
    fn list_leases<'a>(&'a self, ns: &'a str, selector: &'a str) -> ClusterFuture<'a, Vec<Lease>> {
        Box::pin(timed(self.0.list_leases(ns, selector)))
    }
    fn delete_lease<'a>(&'a self, ns: &'a str, name: &'a str) -> ClusterFuture<'a, bool> {
        Box::pin(timed(self.0.delete_lease(ns, name)))
    }
    fn get_seinode_crd(&self) -> ClusterFuture<'_, Option<serde_json::Value>> {
        Box::pin(timed(self.0.get_seinode_crd()))
    }
}

impl SidecarApi for TimedSidecar {
    fn submit_task<'a>(
        &'a self,
        t: &'a SidecarTarget,
        r: &'a TaskRequest,
    ) -> SidecarFuture<'a, TaskSubmitResponse> {
        Box::pin(timed(self.0.submit_task(t, r)))
    }
    fn get_task<'a>(
        &'a self,
        t: &'a SidecarTarget,
        id: uuid::Uuid,
    ) -> SidecarFuture<'a, Option<TaskResult>> {
        Box::pin(timed(self.0.get_task(t, id)))
    }
    fn list_tasks<'a>(&'a self, t: &'a SidecarTarget) -> SidecarFuture<'a, Vec<TaskResult>> {
        Box::pin(timed(self.0.list_tasks(t)))
    }
    fn delete_task<'a>(
        &'a self,
        t: &'a SidecarTarget,
        id: uuid::Uuid,
    ) -> SidecarFuture<'a, DeleteOutcome> {
        Box::pin(timed(self.0.delete_task(t, id)))
    }
    fn healthz<'a>(&'a self, t: &'a SidecarTarget) -> SidecarFuture<'a, bool> {
        Box::pin(timed(self.0.healthz(t)))
    }
    fn status<'a>(&'a self, t: &'a SidecarTarget) -> SidecarFuture<'a, SidecarStatus> {
        Box::pin(timed(self.0.status(t)))
    }
    fn node_id<'a>(&'a self, t: &'a SidecarTarget) -> SidecarFuture<'a, String> {
        Box::pin(timed(self.0.node_id(t)))
    }
}

fn main() {
    const NODES: usize = 200;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let cluster = TimedCluster(FakeCluster::new());
    let sidecar = TimedSidecar(FakeSidecar::new(SidecarBehaviour::CompleteAtOnce));
    let renderer = FakeRenderer::default();
    let clock = FixedClock(jiff::Timestamp::now());
    let driver = Driver {
        cluster: &cluster,
        sidecar: &sidecar,
        renderer: &renderer,
        clock: &clock,
        config: DriverConfig {
            holder: "bench".into(),
            max_wait: Duration::ZERO,
            ..DriverConfig::default()
        },
    };
    for i in 0..NODES {
        cluster.0.put_node(full_node("bench", &format!("n{i}")));
    }
    let (steps, wall) = runtime.block_on(async {
        PORT_NANOS.store(0, Ordering::Relaxed);
        let start = Instant::now();
        let mut steps = 0u64;
        for i in 0..NODES {
            let name = format!("n{i}");
            let persisted = driver
                .persist("bench", &name, "sidecar:1")
                .await
                .expect("persist");
            assert!(matches!(persisted, Persisted::Built(_)));
            let report = driver
                .drive("bench", &name, &mut |_: &Progress| {})
                .await
                .expect("drive");
            steps += u64::from(report.steps);
        }
        (steps, start.elapsed())
    });
    let port = Duration::from_nanos(PORT_NANOS.load(Ordering::Relaxed));
    let own = wall.saturating_sub(port);
    let per_task = own / steps.max(1) as u32;
    println!("executor overhead: {NODES} init plans, {steps} task steps");
    println!("  wall {wall:?}, inside ports (fake API server + sidecar) {port:?}");
    println!("  executor's own time per task: {per_task:?} (target <= 1 ms)");
}
