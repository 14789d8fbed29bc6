//! The node's Lease, taken before any change of the node (spec patch, plan, Event, journal) and
//! held while the console follows its plan, so two consoles never act on one node and a refused
//! action has changed nothing. A Lease left by a crashed console of this machine is waited out
//! with a countdown (the rerun then resumes the Active plan); one held by a live executor
//! refuses at once.
use std::future::Future;
use std::time::Duration;

use super::{Note, Ops, OpsError, Report};
use crate::executor::lease::{LeaseError, NODE_LEASE_DURATION, NodeLease, node_lease_name};

/// How often a held Lease is renewed (renewal itself happens every third of its duration).
const RENEW_EVERY: Duration = Duration::from_secs(2);
/// How often a wait for a crashed holder's Lease says how long is left.
const COUNTDOWN_EVERY: Duration = Duration::from_secs(5);
const WAIT_POLL: Duration = Duration::from_millis(500);

impl Ops<'_> {
    /// Takes the node's Lease: at once when free, after a countdown when its holder is a console
    /// of this machine that is gone; refuses (`OpsError::Busy`) when a live executor holds it.
    pub async fn take_node_lease(
        &self,
        node: &str,
        report: &dyn Report,
    ) -> Result<NodeLease, OpsError> {
        let namespace = self.namespace();
        let holder = &self.settings.driver.holder;
        // A gone holder's Lease expires within its duration; a little more for clock skew.
        let deadline = tokio::time::Instant::now() + NODE_LEASE_DURATION + Duration::from_secs(5);
        let mut last_countdown: Option<tokio::time::Instant> = None;
        loop {
            let now = self.ports.clock.now();
            match NodeLease::acquire(self.ports.cluster, namespace, node, holder, now).await {
                Ok(lease) => return Ok(lease),
                Err(LeaseError::HeldByOther { holder: other, .. })
                    if self.ports.holders.is_gone(&other)
                        && tokio::time::Instant::now() < deadline =>
                {
                    let due = last_countdown.is_none_or(|at| at.elapsed() >= COUNTDOWN_EVERY);
                    if due {
                        last_countdown = Some(tokio::time::Instant::now());
                        let left = self.lease_left(node).await;
                        report.note(&Note::WaitingForLease {
                            node: node.to_owned(),
                            holder: other,
                            seconds_left: left,
                        });
                    }
                    tokio::time::sleep(WAIT_POLL).await;
                }
                Err(LeaseError::HeldByOther { holder: other, .. }) => {
                    return Err(OpsError::Busy {
                        node: format!("{namespace}/{node}"),
                        holder: other,
                        lease: node_lease_name(node),
                    });
                }
                Err(err) => return Err(OpsError::Step(err.to_string())),
            }
        }
    }

    /// Seconds until the node's Lease expires (0 when unknown).
    async fn lease_left(&self, node: &str) -> u64 {
        let Ok(Some(lease)) = self
            .ports
            .cluster
            .get_lease(self.namespace(), &node_lease_name(node))
            .await
        else {
            return 0;
        };
        let Some(spec) = lease.spec else { return 0 };
        let renewed = spec.renew_time.or(spec.acquire_time).map(|t| t.0);
        let duration = i64::from(spec.lease_duration_seconds.unwrap_or(30));
        renewed
            .and_then(|at| {
                at.checked_add(jiff::SignedDuration::from_secs(duration))
                    .ok()
            })
            .map_or(0, |expires| {
                let left = expires.as_second() - self.ports.clock.now().as_second();
                u64::try_from(left).unwrap_or(0)
            })
    }

    /// Runs `work` while keeping `lease` renewed, then releases it. A lost Lease stops the work
    /// (another executor took the node): it is dropped between steps, and resumable.
    pub async fn under_lease<T>(
        &self,
        mut lease: NodeLease,
        work: impl Future<Output = Result<T, OpsError>>,
    ) -> Result<T, OpsError> {
        let cluster = self.ports.cluster;
        let clock = self.ports.clock;
        let outcome = {
            let renew = async {
                loop {
                    tokio::time::sleep(RENEW_EVERY).await;
                    if let Err(err) = lease.renew(cluster, clock.now()).await {
                        return err;
                    }
                }
            };
            tokio::select! {
                out = work => out,
                lost = renew => Err(OpsError::Step(format!("lost the node's Lease: {lost}"))),
            }
        };
        // Releasing is best effort: an unreleased Lease simply expires.
        let _ = lease.release(cluster).await;
        outcome
    }
}
