//! A node's sei-tendermint RPC as a port: one bounded `GET` on pod port 26657 of the node's pod
//! `<node>-0`. The adapter (`rpc::KubeNodeRpc`) reaches it through a port-forward with the
//! operator's kubeconfig, the path the sidecar takes to kube-rbac-proxy; the answer's HTTP
//! status and body come back unparsed (`chain::rpc` reads them), a failure says why.
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use crate::chain::{RpcAnswer, RpcFailure};

/// seid serves sei-tendermint's RPC on this pod port (seeds bind none).
pub const RPC_PORT: u16 = 26657;
/// The largest answer read; `/status`, `/lag_status` and `/net_info` of a node with a few
/// hundred peers stay far below.
pub const MAX_ANSWER_BYTES: usize = 4 << 20;

/// The node whose RPC to read: its pod is `<node>-0` in `namespace`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RpcTarget {
    pub namespace: String,
    pub node: String,
}

impl RpcTarget {
    pub fn new(namespace: &str, node: &str) -> RpcTarget {
        RpcTarget {
            namespace: namespace.to_owned(),
            node: node.to_owned(),
        }
    }

    /// The StatefulSet's one pod.
    pub fn pod_name(&self) -> String {
        format!("{}-0", self.node)
    }
}

pub type RpcFuture<'a> = Pin<Box<dyn Future<Output = Result<RpcAnswer, RpcFailure>> + Send + 'a>>;

/// `GET path` on the node's RPC within `timeout`, the answer capped at [`MAX_ANSWER_BYTES`].
pub trait NodeRpc: Send + Sync {
    fn get<'a>(&'a self, target: &'a RpcTarget, path: &'a str, timeout: Duration) -> RpcFuture<'a>;
}

impl std::fmt::Debug for dyn NodeRpc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NodeRpc")
    }
}

/// In-memory [`NodeRpc`] for tests: answers per node and path, a failure per node; the reads
/// asked for are counted. Never dials.
#[cfg(any(test, feature = "testing"))]
pub mod fake {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    pub struct FakeNodeRpc {
        pub answers: Mutex<BTreeMap<(String, String), RpcAnswer>>,
        pub failures: Mutex<BTreeMap<String, RpcFailure>>,
        pub reads: Mutex<Vec<(String, String)>>,
    }

    impl FakeNodeRpc {
        /// `node` answers `path` with `status` and `body`.
        pub fn answer(&self, node: &str, path: &str, status: u16, body: &str) {
            if let Ok(mut answers) = self.answers.lock() {
                answers.insert(
                    (node.to_owned(), path.to_owned()),
                    RpcAnswer {
                        status,
                        body: body.as_bytes().to_vec(),
                    },
                );
            }
        }

        /// Every read of `node` fails with `failure`.
        pub fn fail(&self, node: &str, failure: RpcFailure) {
            if let Ok(mut failures) = self.failures.lock() {
                failures.insert(node.to_owned(), failure);
            }
        }

        pub fn read_count(&self) -> usize {
            self.reads.lock().map(|r| r.len()).unwrap_or(0)
        }
    }

    impl NodeRpc for FakeNodeRpc {
        fn get<'a>(
            &'a self,
            target: &'a RpcTarget,
            path: &'a str,
            _timeout: Duration,
        ) -> RpcFuture<'a> {
            if let Ok(mut reads) = self.reads.lock() {
                reads.push((target.node.clone(), path.to_owned()));
            }
            let failure = self
                .failures
                .lock()
                .ok()
                .and_then(|f| f.get(&target.node).cloned());
            let answer = self
                .answers
                .lock()
                .ok()
                .and_then(|a| a.get(&(target.node.clone(), path.to_owned())).cloned());
            Box::pin(async move {
                if let Some(failure) = failure {
                    return Err(failure);
                }
                answer.ok_or_else(|| RpcFailure::Refused(format!("fake: nothing at {path}")))
            })
        }
    }
}
