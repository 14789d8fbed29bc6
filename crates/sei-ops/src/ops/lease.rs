//! The node's Lease, taken before any change of the node (spec patch, plan, Event, journal) and
//! held while the console follows its plan, so two consoles never act on one node and a refused
//! action has changed nothing. Its holder is judged (`executor::lease::judge_holder`):
//!
//! - a console of this machine whose process exited, or is a zombie its parent has not reaped
//!   yet: gone, its Lease taken over at once (`Note::TookOverLease`), the rerun resumes the
//!   Active plan without waiting;
//! - a holder (any machine) that has not renewed for longer than its renew interval allows:
//!   gone, its Lease waited out with a countdown (`Note::WaitingForLease`), then the rerun
//!   resumes;
//! - a live holder (renewed within its interval; on this machine, its process runs): refused at
//!   once (`OpsError::Busy`, naming why it counts as live).
use std::future::Future;
use std::time::Duration;

use super::{Note, Ops, OpsError, Report};
use crate::executor::lease::{
    HolderVerdict, LeaseError, NODE_LEASE_DURATION, NODE_LEASE_RENEW_INTERVAL, NodeLease,
    judge_holder, node_lease_name,
};
use crate::ports::HolderProcess;

/// How often a held Lease is renewed (renewal itself happens every third of its duration).
const RENEW_EVERY: Duration = Duration::from_secs(2);
/// How often a wait for a silent holder's Lease says how long is left.
const COUNTDOWN_EVERY: Duration = Duration::from_secs(5);
const WAIT_POLL: Duration = Duration::from_millis(500);

impl Ops<'_> {
    /// Takes the node's Lease: at once when free or when its holder is a console of this
    /// machine that is gone (exited, or a zombie); after a countdown when its holder stopped
    /// renewing; refuses (`OpsError::Busy`) when a live holder has it.
    pub async fn take_node_lease(
        &self,
        node: &str,
        report: &dyn Report,
    ) -> Result<NodeLease, OpsError> {
        let namespace = self.namespace();
        let holder = &self.settings.driver.holder;
        let cluster = self.ports.cluster;
        // A silent holder's Lease expires within its duration; a little more for clock skew.
        let deadline = tokio::time::Instant::now() + NODE_LEASE_DURATION + Duration::from_secs(5);
        let mut last_countdown: Option<tokio::time::Instant> = None;
        let mut gone: Option<(String, HolderProcess)> = None;
        loop {
            let now = self.ports.clock.now();
            let taken = match &gone {
                Some((other, _)) => {
                    NodeLease::take_over(cluster, namespace, node, holder, now, other).await
                }
                None => NodeLease::acquire(cluster, namespace, node, holder, now).await,
            };
            let other = match taken {
                Ok(lease) => {
                    if let Some((other, process)) = gone {
                        report.note(&Note::TookOverLease {
                            node: node.to_owned(),
                            holder: other,
                            zombie: process == HolderProcess::Zombie,
                        });
                    }
                    return Ok(lease);
                }
                Err(LeaseError::HeldByOther { holder: other, .. }) => other,
                Err(err) => return Err(OpsError::Step(err.to_string())),
            };
            let busy = |why: String| OpsError::Busy {
                node: format!("{namespace}/{node}"),
                holder: other.clone(),
                lease: node_lease_name(node),
                why,
            };
            if tokio::time::Instant::now() >= deadline {
                return Err(busy(format!(
                    "it still held the Lease after {} s of waiting",
                    (NODE_LEASE_DURATION + Duration::from_secs(5)).as_secs()
                )));
            }
            let lease = cluster
                .get_lease(namespace, &node_lease_name(node))
                .await
                .map_err(|e| OpsError::Step(format!("reading the Lease of {node}: {e}")))?;
            // Gone between the two reads: take it again.
            let Some(lease) = lease else { continue };
            match judge_holder(&lease, now, self.ports.holders.process(&other)) {
                HolderVerdict::Gone(process) => gone = Some((other, process)),
                HolderVerdict::Live {
                    renewed_ago,
                    process,
                } => return Err(busy(live_why(renewed_ago, process))),
                HolderVerdict::Silent {
                    renewed_ago,
                    expires_in,
                } => {
                    let due = last_countdown.is_none_or(|at| at.elapsed() >= COUNTDOWN_EVERY);
                    if due {
                        last_countdown = Some(tokio::time::Instant::now());
                        report.note(&Note::WaitingForLease {
                            node: node.to_owned(),
                            holder: other,
                            renewed_ago,
                            seconds_left: expires_in,
                        });
                    }
                    tokio::time::sleep(WAIT_POLL).await;
                }
            }
        }
    }

    /// The holder of the node's Lease when that holder stopped before releasing it (a console
    /// of this machine that exited or is a zombie, a holder that stopped renewing, a Lease
    /// expired with its holder still named): the action it ran on the node was interrupted,
    /// and the same command resumes it. `None` when the Lease is free, released, live or ours,
    /// or cannot be read.
    pub async fn interrupted_by(&self, node: &str) -> Option<String> {
        let lease = self
            .ports
            .cluster
            .get_lease(self.namespace(), &node_lease_name(node))
            .await
            .ok()??;
        let holder = lease
            .spec
            .as_ref()?
            .holder_identity
            .clone()
            .filter(|h| !h.is_empty() && *h != self.settings.driver.holder)?;
        let now = self.ports.clock.now();
        if crate::executor::lease::lease_is_live(&lease, now).is_none() {
            return Some(holder);
        }
        match judge_holder(&lease, now, self.ports.holders.process(&holder)) {
            HolderVerdict::Live { .. } => None,
            HolderVerdict::Gone(_) | HolderVerdict::Silent { .. } => Some(holder),
        }
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

/// Why a holder counts as live, in the operator's words.
fn live_why(renewed_ago: u64, process: HolderProcess) -> String {
    let interval = NODE_LEASE_RENEW_INTERVAL.as_secs();
    match process {
        HolderProcess::Running => {
            format!("its process runs on this machine and renewed the Lease {renewed_ago} s ago")
        }
        _ => format!(
            "it renewed the Lease {renewed_ago} s ago (renewals are due every {interval} s; \
             once it stops renewing, the same command waits it out and resumes)"
        ),
    }
}
