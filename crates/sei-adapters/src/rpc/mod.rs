//! The nodes' sei-tendermint RPC through a port-forward: the API server opens a stream to pod
//! port 26657 of `<node>-0` with the operator's kubeconfig (RBAC: `create pods/portforward`),
//! the same path the sidecar takes to kube-rbac-proxy (`sidecar::portforward`'s forwards), and
//! the console speaks HTTP/1.1 over it. No bearer token is sent: the RPC has no authentication,
//! the API server's port-forward check is the gate.
//!
//! At most [`MAX_FORWARDS`] forwards are open and at most as many reads run at once; an idle
//! forward is reused while it works and the least recently used one is closed to make room.
//! Every read has a deadline and its answer is capped at `ports::node_rpc::MAX_ANSWER_BYTES`.
//!
//! `node_rpc_for` gives the actions' RPC adapter of a kubeconfig, or `NoNodeRpc`, which fails every
//! read saying why (`wiring::Wiring::node_rpc`).
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http::Request;
use http_body_util::{BodyExt, Full, Limited};
use tokio::time::Instant;

use crate::chain::{RpcAnswer, RpcFailure};
use crate::ports::node_rpc::{MAX_ANSWER_BYTES, NodeRpc, RPC_PORT, RpcFuture, RpcTarget};
use crate::sidecar::portforward::{Forward, OpenError, forward_error, open_forward};

pub mod reference;

/// Port-forwards open at once (and reads running at once).
pub const MAX_FORWARDS: usize = 8;

type Slot = Arc<tokio::sync::Mutex<Option<Forward>>>;

#[derive(Default)]
struct Pool {
    slots: HashMap<RpcTarget, (Slot, u64)>,
    uses: u64,
}

/// [`NodeRpc`] over port-forwards to the nodes' pods.
pub struct KubeNodeRpc {
    client: kube::Client,
    port: u16,
    pool: Mutex<Pool>,
    permits: tokio::sync::Semaphore,
}

impl std::fmt::Debug for KubeNodeRpc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KubeNodeRpc {{ port: {} }}", self.port)
    }
}

impl KubeNodeRpc {
    /// Reads through a client built from `config` (the operator's kubeconfig).
    pub fn new(config: kube::Config) -> Result<KubeNodeRpc, kube::Error> {
        let mut config = config;
        // A read that fails is the reading; the next poll tries again.
        config.default_retry = false;
        Ok(KubeNodeRpc {
            client: kube::Client::try_from(config)?,
            port: RPC_PORT,
            pool: Mutex::new(Pool::default()),
            permits: tokio::sync::Semaphore::new(MAX_FORWARDS),
        })
    }

    /// How many forwards are kept (open or being opened).
    pub fn open_forwards(&self) -> usize {
        self.pool.lock().map(|p| p.slots.len()).unwrap_or(0)
    }

    /// The slot of `target`, made room for by closing the least recently used idle forward.
    fn slot(&self, target: &RpcTarget) -> Slot {
        let mut pool = match self.pool.lock() {
            Ok(pool) => pool,
            Err(poisoned) => poisoned.into_inner(),
        };
        pool.uses += 1;
        let uses = pool.uses;
        if let Some((slot, used)) = pool.slots.get_mut(target) {
            *used = uses;
            return slot.clone();
        }
        if pool.slots.len() >= MAX_FORWARDS {
            // Only a slot no read holds (its `Arc` is ours alone) may go; the permits keep
            // at most MAX_FORWARDS held, so one is free once a new read got its permit.
            let idle = pool
                .slots
                .iter()
                .filter(|(_, (slot, _))| Arc::strong_count(slot) == 1)
                .min_by_key(|(_, (_, used))| *used)
                .map(|(key, _)| key.clone());
            if let Some(idle) = idle {
                pool.slots.remove(&idle);
            }
        }
        let slot = Slot::default();
        pool.slots.insert(target.clone(), (slot.clone(), uses));
        slot
    }

    async fn exchange(
        &self,
        target: &RpcTarget,
        path: &str,
        timeout: Duration,
    ) -> Result<RpcAnswer, RpcFailure> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| RpcFailure::Unreachable("the RPC reader was shut down".into()))?;
        let deadline = Instant::now() + timeout;
        let timed_out = || RpcFailure::Timeout(timeout.as_secs().max(1));
        let pod = target.pod_name();
        let slot = self.slot(target);
        let mut open = slot.lock().await;
        for attempt in 0..2 {
            let reusable = open.as_ref().is_some_and(|f| !f.sender.is_closed());
            // A kept forward may have broken since its last use: it gets one more try on a
            // fresh one; a fresh one that fails is the answer.
            let retry = reusable && attempt == 0;
            if !reusable {
                let opened = tokio::time::timeout_at(
                    deadline,
                    open_forward(&self.client, &target.namespace, &pod, self.port),
                )
                .await
                .map_err(|_| timed_out())?;
                *open = Some(opened.map_err(|err| open_failure(&pod, err))?);
            }
            let Some(forward) = open.as_mut() else {
                continue;
            };
            let request = Request::get(path)
                .header(http::header::HOST, format!("localhost:{}", self.port))
                .body(Full::new(Bytes::new()))
                .map_err(|err| RpcFailure::BadAnswer(format!("bad RPC path {path:?}: {err}")))?;
            let sent = tokio::time::timeout_at(deadline, async {
                forward.sender.ready().await.map_err(|_| None)?;
                forward
                    .sender
                    .try_send_request(request)
                    .await
                    .map_err(|failed| Some(failed.into_error().to_string()))
            })
            .await;
            let response = match sent {
                Err(_) => {
                    // A request left mid-way leaves the connection unusable.
                    open.take();
                    return Err(timed_out());
                }
                Ok(Ok(response)) => response,
                Ok(Err(detail)) => {
                    let reason = forward_error(open.take()).await.or(detail);
                    if retry {
                        continue;
                    }
                    return Err(broken(&pod, reason));
                }
            };
            let (parts, body) = response.into_parts();
            let collected =
                tokio::time::timeout_at(deadline, Limited::new(body, MAX_ANSWER_BYTES).collect())
                    .await;
            return match collected {
                Err(_) => {
                    open.take();
                    Err(timed_out())
                }
                Ok(Err(err)) if err.is::<http_body_util::LengthLimitError>() => {
                    open.take();
                    Err(RpcFailure::TooLarge(MAX_ANSWER_BYTES))
                }
                Ok(Err(err)) => {
                    open.take();
                    Err(broken(&pod, Some(format!("answer cut short: {err}"))))
                }
                Ok(Ok(body)) => Ok(RpcAnswer {
                    status: parts.status.as_u16(),
                    body: body.to_bytes().to_vec(),
                }),
            };
        }
        Err(broken(&pod, None))
    }
}

fn open_failure(pod: &str, err: OpenError) -> RpcFailure {
    match err {
        OpenError::Refused { message, .. } => RpcFailure::Forbidden(format!(
            "the API server refused the port-forward to pod {pod} (needs create \
             pods/portforward): {message}"
        )),
        OpenError::NoPod(message) => {
            RpcFailure::NoPod(format!("pod {pod} not found by the API server: {message}"))
        }
        OpenError::Failed(detail) => RpcFailure::Unreachable(detail),
    }
}

/// A forward that broke: refused when the kubelet says nothing listens on the port.
fn broken(pod: &str, reason: Option<String>) -> RpcFailure {
    let reason = reason.unwrap_or_else(|| "connection closed".to_owned());
    let detail = format!("port {RPC_PORT} of pod {pod}: {reason}");
    if reason.contains("refused") {
        RpcFailure::Refused(detail)
    } else {
        RpcFailure::Unreachable(detail)
    }
}

impl NodeRpc for KubeNodeRpc {
    fn get<'a>(&'a self, target: &'a RpcTarget, path: &'a str, timeout: Duration) -> RpcFuture<'a> {
        Box::pin(self.exchange(target, path, timeout))
    }
}

/// The RPC when no client could be made for it: every read fails saying why, so a rollout's
/// health gate halts naming it instead of the action failing to open.
#[derive(Debug)]
pub struct NoNodeRpc(pub String);

impl NodeRpc for NoNodeRpc {
    fn get<'a>(&'a self, _: &'a RpcTarget, _: &'a str, _: Duration) -> RpcFuture<'a> {
        let why = self.0.clone();
        Box::pin(async move { Err(RpcFailure::Unreachable(why)) })
    }
}

/// The actions' RPC adapter for a kubeconfig (`KubeNodeRpc`), or a [`NoNodeRpc`] saying why
/// there is none.
pub fn node_rpc_for(config: Option<kube::Config>) -> Arc<dyn NodeRpc> {
    match config.map(KubeNodeRpc::new) {
        Some(Ok(rpc)) => Arc::new(rpc),
        Some(Err(err)) => Arc::new(NoNodeRpc(format!(
            "cannot create a client for the RPC: {}",
            crate::kube::errors::describe(&err)
        ))),
        None => Arc::new(NoNodeRpc("no kubeconfig to reach the RPC with".to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rpc() -> KubeNodeRpc {
        KubeNodeRpc::new(kube::Config::new(
            "https://127.0.0.1:1".parse().expect("uri"),
        ))
        .expect("client")
    }

    #[tokio::test]
    async fn at_most_max_forwards_are_kept_and_the_least_recently_used_idle_one_goes() {
        let rpc = rpc();
        let targets: Vec<RpcTarget> = (0..MAX_FORWARDS + 3)
            .map(|i| RpcTarget::new("ns", &format!("n{i}")))
            .collect();
        let held = rpc.slot(&targets[0]);
        for target in &targets[1..] {
            rpc.slot(target);
        }
        assert_eq!(rpc.open_forwards(), MAX_FORWARDS);
        let pool = rpc.pool.lock().expect("pool");
        assert!(pool.slots.contains_key(&targets[0]), "a held slot stays");
        assert!(pool.slots.contains_key(&targets[MAX_FORWARDS + 2]));
        assert!(!pool.slots.contains_key(&targets[1]), "least recently used");
        drop(held);
    }

    #[tokio::test]
    async fn an_unreachable_api_server_is_a_failure_within_the_deadline() {
        let rpc = rpc();
        let started = std::time::Instant::now();
        let result = rpc
            .get(
                &RpcTarget::new("ns", "a"),
                "/status",
                Duration::from_secs(3),
            )
            .await;
        assert!(
            matches!(
                result,
                Err(RpcFailure::Unreachable(_) | RpcFailure::Timeout(_))
            ),
            "{result:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
