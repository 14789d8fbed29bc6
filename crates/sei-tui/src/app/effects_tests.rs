//! The effects over an in-memory port (`MemoryPort`, below): what they ask of the port and what
//! comes back on the loop's channel, with no cluster (the integration tests run them over
//! `sei-console`'s `KubeBackend` on a real control plane).
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;

use super::action::ActionRequest;
use super::action_error::ActionError;
use super::effects::Effects;
use super::errors::NamespacesError;
use super::model::{Cmd, Msg};
use super::port::{ActionCluster, ActionJournal, ConsolePort, PortFuture};
use crate::chain::{ReferenceRead, ReferenceUrl, RpcFailure};
use crate::fleet::detail::NodeIdLookup;
use crate::fleet::runners::Runners;
use crate::fleet::store::ObjectKey;
use crate::fleet::watches::{WatchKind, WatchReport};
use crate::ports::ClusterApi;
use crate::ports::logs::PodLogs;
use crate::ports::node_rpc::NodeRpc;
use crate::ports::node_rpc::fake::FakeNodeRpc;
use crate::ports::probe::SeedProber;

/// Counts a watch's future dropped (the effects abort a replaced watch's task).
struct Dropped(Arc<AtomicUsize>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A port without clusters: each watch reports itself live and then waits until aborted, the
/// nodes' RPC refuses every read, there are no operator actions.
#[derive(Default)]
struct MemoryPort {
    dropped_watches: Arc<AtomicUsize>,
    /// The contexts a reader of the nodes' RPC was made for, in order.
    rpc_readers: Mutex<Vec<String>>,
}

impl MemoryPort {
    fn watch(&self, epoch: u64, tx: mpsc::Sender<Msg>) -> PortFuture<'static, ()> {
        let dropped = Dropped(self.dropped_watches.clone());
        Box::pin(async move {
            let _dropped = dropped;
            let live = Msg::Watch {
                epoch,
                kind: WatchKind::Nodes,
                report: WatchReport::Live,
            };
            if tx.send(live).await.is_ok() {
                std::future::pending::<()>().await;
            }
        })
    }
}

impl ConsolePort for MemoryPort {
    fn watch_scope(
        &self,
        _context: String,
        _namespace: Option<String>,
        epoch: u64,
        tx: mpsc::Sender<Msg>,
    ) -> PortFuture<'static, ()> {
        self.watch(epoch, tx)
    }

    fn watch_detail(
        &self,
        _node: ObjectKey,
        epoch: u64,
        tx: mpsc::Sender<Msg>,
    ) -> PortFuture<'static, ()> {
        self.watch(epoch, tx)
    }

    fn logs(&self, _context: &str) -> Option<Arc<dyn PodLogs>> {
        None
    }

    fn list_namespaces(
        &self,
        context: &str,
    ) -> Option<PortFuture<'static, Result<Vec<String>, NamespacesError>>> {
        let names = vec![format!("{context}-a"), format!("{context}-b")];
        Some(Box::pin(async move { Ok(names) }))
    }

    fn node_rpc(&self, context: &str) -> Result<Arc<dyn NodeRpc>, RpcFailure> {
        if let Ok(mut made) = self.rpc_readers.lock() {
            made.push(context.to_owned());
        }
        let rpc = FakeNodeRpc::default();
        rpc.fail("n", RpcFailure::Refused("no node here".into()));
        Ok(Arc::new(rpc))
    }

    fn read_reference(
        &self,
        _url: ReferenceUrl,
        timeout: Duration,
    ) -> PortFuture<'static, ReferenceRead> {
        let outcome = Err(RpcFailure::Timeout(timeout.as_secs()));
        Box::pin(async move {
            ReferenceRead {
                at: jiff::Timestamp::UNIX_EPOCH,
                outcome,
            }
        })
    }

    fn prober(&self) -> Option<Arc<dyn SeedProber>> {
        None
    }

    fn seed_node_id(&self, _key: &ObjectKey) -> Option<PortFuture<'static, Option<NodeIdLookup>>> {
        None
    }

    fn action_journal(&self) -> Option<ActionJournal> {
        None
    }

    fn action_cluster(&self, _context: &str) -> Result<Arc<dyn ActionCluster>, ActionError> {
        Err(ActionError::NotAvailable)
    }

    /// Cluster `a` has no Leases and no controller; every other is not connected.
    fn read_runners(
        &self,
        context: &str,
        _namespace: Option<String>,
        checked: BTreeSet<(String, String, String)>,
    ) -> Option<PortFuture<'static, Runners>> {
        (context == "a").then(|| {
            let runners: PortFuture<'static, Runners> = Box::pin(async move {
                crate::ops::runners::judge(
                    Ok(&[]),
                    Ok(None),
                    "sei-system",
                    checked,
                    &crate::ops::runners::local_holders(),
                    jiff::Timestamp::UNIX_EPOCH,
                )
            });
            runners
        })
    }

    fn read_rollouts(
        &self,
        _context: &str,
        _namespaces: Vec<String>,
    ) -> Option<
        PortFuture<
            'static,
            Result<Vec<crate::ops::rollout_view::RolloutView>, crate::ports::ClusterError>,
        >,
    > {
        None
    }

    fn clusters(&self) -> Vec<(String, Arc<dyn ClusterApi>)> {
        Vec::new()
    }
}

fn effects() -> (Arc<MemoryPort>, Effects, mpsc::Receiver<Msg>) {
    let port = Arc::new(MemoryPort::default());
    let (tx, rx) = mpsc::channel(64);
    let effects = Effects::new(port.clone(), tx);
    (port, effects, rx)
}

async fn next(rx: &mut mpsc::Receiver<Msg>) -> Msg {
    tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .expect("a message within 5 s")
        .expect("the channel is open")
}

#[tokio::test]
async fn a_replaced_scope_watch_is_stopped_and_the_new_one_reports() {
    let (port, mut effects, mut rx) = effects();
    for epoch in [1, 2] {
        effects.run(Cmd::WatchCluster {
            context: "a".into(),
            namespace: Some("sei".into()),
            epoch,
        });
        assert!(matches!(next(&mut rx).await, Msg::Watch { epoch: e, .. } if e == epoch));
    }
    for _ in 0..100 {
        if port.dropped_watches.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(port.dropped_watches.load(Ordering::SeqCst), 1);
    drop(effects);
    for _ in 0..100 {
        if port.dropped_watches.load(Ordering::SeqCst) == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        port.dropped_watches.load(Ordering::SeqCst),
        2,
        "the console's end stops the watches"
    );
}

#[tokio::test]
async fn health_reads_make_one_rpc_reader_per_cluster_and_come_back_per_node() {
    let (port, mut effects, mut rx) = effects();
    let key = |context: &str| ObjectKey::new("sei", "n").in_context(&Arc::from(context));
    for _ in 0..2 {
        effects.run(Cmd::ReadHealth {
            keys: vec![key("a"), key("b")],
        });
        for _ in 0..2 {
            let Msg::HealthRead { key, reading } = next(&mut rx).await else {
                panic!("a health reading");
            };
            assert_eq!(&*key.name, "n");
            assert!(reading.outcome.is_err(), "{reading:?}");
        }
    }
    assert_eq!(
        *port.rpc_readers.lock().expect("readers"),
        ["a", "b"],
        "one reader per cluster, kept"
    );
}

#[tokio::test]
async fn without_operator_actions_a_preview_and_a_run_are_refused() {
    let (_port, mut effects, mut rx) = effects();
    let request = ActionRequest::one(
        "a",
        "sei",
        crate::ops::action::SomeOperation::new(crate::ops::actions::restart::RestartInput {
            node: "n".into(),
            wait: true,
            dry_run: false,
        }),
    );
    effects.run(Cmd::PrepareAction {
        id: 7,
        request: request.clone(),
        executor: crate::config::ExecutorMode::Embedded,
    });
    let Msg::ActionPrepared { id: 7, result } = next(&mut rx).await else {
        panic!("the preview's answer");
    };
    assert!(matches!(result, Err(ActionError::NotAvailable)));
    effects.run(Cmd::RunAction {
        id: 8,
        request,
        executor: crate::config::ExecutorMode::Embedded,
    });
    let Msg::ActionFinished { id: 8, finished } = next(&mut rx).await else {
        panic!("the run's end");
    };
    assert!(!finished.ok);
    assert_eq!(
        finished.message,
        "operator actions are not available in this console"
    );
}

#[tokio::test]
async fn namespaces_and_reference_reads_come_back_from_the_port() {
    let (_port, mut effects, mut rx) = effects();
    effects.run(Cmd::ListNamespaces {
        context: "a".into(),
    });
    let Msg::Namespaces(Ok(names)) = next(&mut rx).await else {
        panic!("the namespaces");
    };
    assert_eq!(names, ["a-a", "a-b"]);
    let url = ReferenceUrl::parse("https://rpc.example").expect("url");
    effects.run(Cmd::ReadReference {
        chain: "pacific-1".into(),
        url,
    });
    let Msg::ReferenceRead { chain, read } = next(&mut rx).await else {
        panic!("the reference read");
    };
    assert_eq!(chain, "pacific-1");
    assert!(matches!(read.outcome, Err(RpcFailure::Timeout(_))));
}

#[tokio::test]
async fn runners_are_read_through_the_port_and_an_unconnected_cluster_is_not_read() {
    let (_port, mut effects, mut rx) = effects();
    effects.run(Cmd::ReadRunners {
        context: "elsewhere".into(),
        namespace: None,
        checked: BTreeSet::new(),
    });
    effects.run(Cmd::ReadRunners {
        context: "a".into(),
        namespace: Some("ns".into()),
        checked: BTreeSet::new(),
    });
    let Msg::Runners { context, runners } = next(&mut rx).await else {
        panic!("the runners of cluster a");
    };
    assert_eq!(context, "a");
    assert_eq!(runners.controller_namespace, "sei-system");
    assert_eq!(runners.read_at, jiff::Timestamp::UNIX_EPOCH);
    assert!(
        rx.try_recv().is_err(),
        "nothing read for an unconnected cluster"
    );
}
