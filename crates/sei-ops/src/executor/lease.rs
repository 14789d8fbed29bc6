//! Leases: the per-node Lease an embedded executor holds while it drives a plan (so two consoles
//! never drive the same node), and the controller's leader-election Lease that tells whether a
//! live sei-k8s-controller will execute persisted plans itself.
use std::time::Duration;

use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};

use crate::ports::{ClusterApi, ClusterError, HolderProcess};

/// The controller's leader-election Lease name (kubebuilder `LeaderElectionID`).
pub const CONTROLLER_LEASE_NAME: &str = "bc1f5b0a.sei.io";
/// How long a node Lease stays valid without renewal.
pub const NODE_LEASE_DURATION: Duration = Duration::from_secs(30);

/// How often a holder renews its node Lease: a third of its duration (`NodeLease::renew`).
pub const NODE_LEASE_RENEW_INTERVAL: Duration =
    Duration::from_secs(NODE_LEASE_DURATION.as_secs() / 3);
/// How much later than its renew interval a renewal may come (the renewing loop's tick, a slow
/// request, clock skew) before its holder is judged gone.
pub const NODE_LEASE_RENEW_GRACE: Duration = Duration::from_secs(5);

/// Name of the Lease an embedded executor holds for a node.
pub fn node_lease_name(node: &str) -> String {
    format!("sei-console-exec-{node}")
}

/// Whether a Lease is held (has a holder) and was renewed within its duration.
pub fn lease_is_live(lease: &Lease, now: Timestamp) -> Option<String> {
    let spec = lease.spec.as_ref()?;
    let holder = spec.holder_identity.clone().filter(|h| !h.is_empty())?;
    let renewed = spec.renew_time.as_ref().or(spec.acquire_time.as_ref())?.0;
    let duration = i64::from(spec.lease_duration_seconds.unwrap_or(15));
    let expires = renewed
        .checked_add(jiff::SignedDuration::from_secs(duration))
        .ok()?;
    (expires > now).then_some(holder)
}

/// How the holder of a node Lease stands, judged from its Lease and what this machine can tell
/// of its process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HolderVerdict {
    /// It renewed within its renew interval (and, when it is a console of this machine, its
    /// process runs): refused at once.
    Live {
        renewed_ago: u64,
        process: HolderProcess,
    },
    /// A console of this machine whose process exited or is a zombie: it runs no more code, so
    /// its Lease is taken over at once.
    Gone(HolderProcess),
    /// It has not renewed for longer than its renew interval allows (any machine): judged gone,
    /// its Lease is waited out (`expires_in` seconds, 0 when expired).
    Silent { renewed_ago: u64, expires_in: u64 },
}

/// Judges the holder of `lease` at `now`; `process` is what this machine knows of it
/// (`ports::HolderProbe::process`).
pub fn judge_holder(lease: &Lease, now: Timestamp, process: HolderProcess) -> HolderVerdict {
    if process.is_gone() {
        return HolderVerdict::Gone(process);
    }
    let spec = lease.spec.as_ref();
    let renewed = spec
        .and_then(|s| s.renew_time.as_ref().or(s.acquire_time.as_ref()))
        .map(|t| t.0);
    let duration = spec
        .and_then(|s| s.lease_duration_seconds)
        .map_or(NODE_LEASE_DURATION.as_secs(), |d| {
            u64::try_from(d).unwrap_or(0)
        });
    let renewed_ago = renewed.map_or(u64::MAX, |at| {
        u64::try_from(now.as_second() - at.as_second()).unwrap_or(0)
    });
    let allowed = duration / 3 + NODE_LEASE_RENEW_GRACE.as_secs();
    if renewed_ago <= allowed {
        return HolderVerdict::Live {
            renewed_ago,
            process,
        };
    }
    HolderVerdict::Silent {
        renewed_ago,
        expires_in: duration.saturating_sub(renewed_ago),
    }
}

/// What the controller's leader-election Lease says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControllerLiveness {
    /// Held by `holder` and renewed recently: the controller executes plans.
    Live { holder: String },
    /// No such Lease, no holder, or expired.
    NotLive { reason: String },
}

/// Reads `bc1f5b0a.sei.io` in `namespace` and decides liveness at `now`.
pub async fn controller_liveness(
    cluster: &dyn ClusterApi,
    namespace: &str,
    now: Timestamp,
) -> Result<ControllerLiveness, ClusterError> {
    let Some(lease) = cluster.get_lease(namespace, CONTROLLER_LEASE_NAME).await? else {
        return Ok(ControllerLiveness::NotLive {
            reason: format!("no Lease {CONTROLLER_LEASE_NAME} in namespace {namespace}"),
        });
    };
    Ok(match lease_is_live(&lease, now) {
        Some(holder) => ControllerLiveness::Live { holder },
        None => ControllerLiveness::NotLive {
            reason: format!("Lease {namespace}/{CONTROLLER_LEASE_NAME} is not held or has expired"),
        },
    })
}

/// Why the node Lease could not be taken or kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LeaseError {
    #[error("node {node} is being executed by {holder} (Lease {namespace}/{lease})")]
    HeldByOther {
        namespace: String,
        node: String,
        lease: String,
        holder: String,
    },
    #[error("Lease for node {node}: {source}")]
    Api { node: String, source: ClusterError },
}

/// The per-node Lease while held.
pub struct NodeLease {
    pub namespace: String,
    pub node: String,
    pub holder: String,
    lease: Lease,
    renewed_at: Timestamp,
}

fn lease_body(namespace: &str, node: &str, holder: &str, now: Timestamp) -> Lease {
    Lease {
        metadata: ObjectMeta {
            name: Some(node_lease_name(node)),
            namespace: Some(namespace.to_owned()),
            ..ObjectMeta::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some(holder.to_owned()),
            lease_duration_seconds: Some(NODE_LEASE_DURATION.as_secs() as i32),
            acquire_time: Some(MicroTime(now)),
            renew_time: Some(MicroTime(now)),
            ..LeaseSpec::default()
        }),
    }
}

/// The refusal of a taker that lost the race for the node's Lease, naming the winner as the
/// Lease now says (`another executor` only when it cannot be read).
async fn lost_race(cluster: &dyn ClusterApi, namespace: &str, node: &str) -> LeaseError {
    let lease = node_lease_name(node);
    let holder = match cluster.get_lease(namespace, &lease).await {
        Ok(Some(current)) => current
            .spec
            .and_then(|spec| spec.holder_identity)
            .filter(|h| !h.is_empty()),
        _ => None,
    };
    LeaseError::HeldByOther {
        namespace: namespace.to_owned(),
        node: node.to_owned(),
        lease,
        holder: holder.unwrap_or_else(|| "another executor".into()),
    }
}

impl NodeLease {
    /// Takes the node's Lease: creates it, or takes it over when it is free or expired (under
    /// its resourceVersion, so two takers cannot both win).
    pub async fn acquire(
        cluster: &dyn ClusterApi,
        namespace: &str,
        node: &str,
        holder: &str,
        now: Timestamp,
    ) -> Result<NodeLease, LeaseError> {
        Self::take(cluster, namespace, node, holder, now, None).await
    }

    /// [`NodeLease::acquire`], also taking the Lease over while it is still held by `gone`, a
    /// holder judged gone ([`HolderVerdict::Gone`]); held by anyone else, it is refused.
    pub async fn take_over(
        cluster: &dyn ClusterApi,
        namespace: &str,
        node: &str,
        holder: &str,
        now: Timestamp,
        gone: &str,
    ) -> Result<NodeLease, LeaseError> {
        Self::take(cluster, namespace, node, holder, now, Some(gone)).await
    }

    async fn take(
        cluster: &dyn ClusterApi,
        namespace: &str,
        node: &str,
        holder: &str,
        now: Timestamp,
        gone: Option<&str>,
    ) -> Result<NodeLease, LeaseError> {
        let name = node_lease_name(node);
        let api = |source| LeaseError::Api {
            node: node.to_owned(),
            source,
        };
        let existing = cluster.get_lease(namespace, &name).await.map_err(api)?;
        let lease = match existing {
            None => match cluster
                .create_lease(&lease_body(namespace, node, holder, now))
                .await
            {
                Ok(lease) => lease,
                // Another taker was first: name it, from the Lease it wrote.
                Err(err) if err.is_already_exists() => {
                    return Err(lost_race(cluster, namespace, node).await);
                }
                Err(err) => return Err(api(err)),
            },
            Some(current) => {
                if let Some(other) =
                    lease_is_live(&current, now).filter(|h| h != holder && Some(h.as_str()) != gone)
                {
                    return Err(LeaseError::HeldByOther {
                        namespace: namespace.to_owned(),
                        node: node.to_owned(),
                        lease: name,
                        holder: other,
                    });
                }
                let mut body = lease_body(namespace, node, holder, now);
                body.metadata.resource_version = current.metadata.resource_version.clone();
                match cluster.replace_lease(&body).await {
                    Ok(lease) => lease,
                    Err(err) if err.is_conflict() => {
                        return Err(lost_race(cluster, namespace, node).await);
                    }
                    Err(err) => return Err(api(err)),
                }
            }
        };
        Ok(NodeLease {
            namespace: namespace.to_owned(),
            node: node.to_owned(),
            holder: holder.to_owned(),
            lease,
            renewed_at: now,
        })
    }

    /// Renews when a third of the duration has passed. A conflict means someone took it.
    pub async fn renew(
        &mut self,
        cluster: &dyn ClusterApi,
        now: Timestamp,
    ) -> Result<(), LeaseError> {
        let due = self
            .renewed_at
            .checked_add(jiff::SignedDuration::from_secs(
                NODE_LEASE_RENEW_INTERVAL.as_secs() as i64,
            ))
            .map_or(true, |at| now >= at);
        if !due {
            return Ok(());
        }
        let mut body = self.lease.clone();
        if let Some(spec) = body.spec.as_mut() {
            spec.renew_time = Some(MicroTime(now));
        }
        self.lease = cluster.replace_lease(&body).await.map_err(|err| {
            if err.is_conflict() {
                LeaseError::HeldByOther {
                    namespace: self.namespace.clone(),
                    node: self.node.clone(),
                    lease: node_lease_name(&self.node),
                    holder: "another executor".into(),
                }
            } else {
                LeaseError::Api {
                    node: self.node.clone(),
                    source: err,
                }
            }
        })?;
        self.renewed_at = now;
        Ok(())
    }

    /// Gives the Lease up (clears the holder) so the next executor need not wait for expiry.
    pub async fn release(mut self, cluster: &dyn ClusterApi) -> Result<(), LeaseError> {
        if let Some(spec) = self.lease.spec.as_mut() {
            spec.holder_identity = None;
        }
        cluster
            .replace_lease(&self.lease)
            .await
            .map(|_| ())
            .map_err(|source| LeaseError::Api {
                node: self.node.clone(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::testing::FakeCluster;

    fn t(secs: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + secs).expect("ts")
    }

    #[tokio::test]
    async fn a_second_executor_cannot_take_a_live_node_lease_but_can_after_expiry_or_release() {
        let cluster = FakeCluster::new();
        let lease = NodeLease::acquire(&cluster, "ns", "a", "me", t(0))
            .await
            .expect("acquire");
        let err = NodeLease::acquire(&cluster, "ns", "a", "other", t(5))
            .await
            .err();
        assert!(matches!(err, Some(LeaseError::HeldByOther { holder, .. }) if holder == "me"));
        assert!(
            NodeLease::acquire(&cluster, "ns", "a", "other", t(31))
                .await
                .is_ok()
        );
        // The original holder's renewal now conflicts.
        let mut stale = lease;
        assert!(matches!(
            stale.renew(&cluster, t(40)).await,
            Err(LeaseError::HeldByOther { .. })
        ));
        let cluster = FakeCluster::new();
        let lease = NodeLease::acquire(&cluster, "ns", "b", "me", t(0))
            .await
            .expect("acquire");
        lease.release(&cluster).await.expect("release");
        assert!(
            NodeLease::acquire(&cluster, "ns", "b", "other", t(1))
                .await
                .is_ok()
        );
    }

    #[test]
    fn a_holder_is_live_within_its_renew_interval_gone_when_its_process_is_silent_after() {
        let lease = lease_body("ns", "a", "x", t(0));
        let live = |at, process| judge_holder(&lease, t(at), process);
        assert_eq!(
            live(15, HolderProcess::Unknown),
            HolderVerdict::Live {
                renewed_ago: 15,
                process: HolderProcess::Unknown
            }
        );
        assert_eq!(
            live(16, HolderProcess::Unknown),
            HolderVerdict::Silent {
                renewed_ago: 16,
                expires_in: 14
            }
        );
        assert_eq!(
            live(40, HolderProcess::Running),
            HolderVerdict::Silent {
                renewed_ago: 40,
                expires_in: 0
            }
        );
        for gone in [HolderProcess::Exited, HolderProcess::Zombie] {
            assert_eq!(live(1, gone), HolderVerdict::Gone(gone));
        }
    }

    #[tokio::test]
    async fn a_live_lease_is_taken_over_only_from_the_holder_judged_gone() {
        let cluster = FakeCluster::new();
        NodeLease::acquire(&cluster, "ns", "a", "dead", t(0))
            .await
            .expect("acquire");
        let err = NodeLease::take_over(&cluster, "ns", "a", "me", t(1), "someone-else")
            .await
            .err();
        assert!(matches!(err, Some(LeaseError::HeldByOther { holder, .. }) if holder == "dead"));
        let lease = NodeLease::take_over(&cluster, "ns", "a", "me", t(1), "dead")
            .await
            .expect("take over");
        assert_eq!(lease.holder, "me");
    }

    #[tokio::test]
    async fn controller_liveness_reads_holder_and_renew_time() {
        let cluster = FakeCluster::new();
        let ns = "sei-k8s-controller-system";
        assert!(matches!(
            controller_liveness(&cluster, ns, t(0)).await,
            Ok(ControllerLiveness::NotLive { .. })
        ));
        let mut lease = lease_body(ns, "x", "controller-pod_1234", t(0));
        lease.metadata.name = Some(CONTROLLER_LEASE_NAME.into());
        if let Some(spec) = lease.spec.as_mut() {
            spec.lease_duration_seconds = Some(15);
        }
        cluster.create_lease(&lease).await.expect("create");
        assert_eq!(
            controller_liveness(&cluster, ns, t(10)).await,
            Ok(ControllerLiveness::Live {
                holder: "controller-pod_1234".into()
            })
        );
        assert!(matches!(
            controller_liveness(&cluster, ns, t(16)).await,
            Ok(ControllerLiveness::NotLive { .. })
        ));
    }
}
