//! Leader election as controller-runtime does it over a coordination.k8s.io Lease (client-go
//! `leaderelection` with the manager's defaults): the Lease is taken when absent, expired or
//! without a holder; a live holder is waited out; the leader renews every retry period and
//! gives up when it cannot renew within the renew deadline; on a clean stop it releases the
//! Lease (holder emptied, duration 1 s), as `LeaderElectionReleaseOnCancel` does.
use std::time::Duration;

use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use sei_console::executor::lease::{CONTROLLER_LEASE_NAME, lease_is_live};
use sei_console::ports::{ClusterApi, ClusterError};

/// controller-runtime's defaults: LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s.
pub const LEASE_DURATION_SECONDS: i32 = 15;
pub const RENEW_DEADLINE: Duration = Duration::from_secs(10);
pub const RETRY_PERIOD: Duration = Duration::from_secs(2);

/// What one acquire-or-renew attempt found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    /// This identity holds the Lease now.
    Leading,
    /// Another live holder has it.
    HeldBy(String),
}

#[derive(Debug, thiserror::Error)]
pub enum LeaderError {
    #[error("leader-election Lease {namespace}/{CONTROLLER_LEASE_NAME}: {source}")]
    Cluster {
        namespace: String,
        source: ClusterError,
    },
}

/// The elector of one identity in one namespace.
pub struct Elector<'a> {
    pub cluster: &'a dyn ClusterApi,
    pub namespace: String,
    pub identity: String,
}

fn micro(now: Timestamp) -> MicroTime {
    MicroTime(now)
}

impl Elector<'_> {
    fn error(&self, source: ClusterError) -> LeaderError {
        LeaderError::Cluster {
            namespace: self.namespace.clone(),
            source,
        }
    }

    /// One `tryAcquireOrRenew`: create when absent; take over when expired or released; renew
    /// when ours. A lost update race reads as held by the winner on the next attempt.
    pub async fn try_acquire_or_renew(&self, now: Timestamp) -> Result<Attempt, LeaderError> {
        let existing = self
            .cluster
            .get_lease(&self.namespace, CONTROLLER_LEASE_NAME)
            .await
            .map_err(|e| self.error(e))?;
        let Some(mut lease) = existing else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(CONTROLLER_LEASE_NAME.to_owned()),
                    namespace: Some(self.namespace.clone()),
                    ..ObjectMeta::default()
                },
                spec: Some(LeaseSpec {
                    holder_identity: Some(self.identity.clone()),
                    lease_duration_seconds: Some(LEASE_DURATION_SECONDS),
                    acquire_time: Some(micro(now)),
                    renew_time: Some(micro(now)),
                    lease_transitions: Some(0),
                    ..LeaseSpec::default()
                }),
            };
            return match self.cluster.create_lease(&lease).await {
                Ok(_) => Ok(Attempt::Leading),
                Err(e) if e.is_already_exists() => Ok(Attempt::HeldBy("(racing)".into())),
                Err(e) => Err(self.error(e)),
            };
        };
        if let Some(holder) = lease_is_live(&lease, now)
            && holder != self.identity
        {
            return Ok(Attempt::HeldBy(holder));
        }
        let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
        if spec.holder_identity.as_deref() != Some(self.identity.as_str()) {
            spec.acquire_time = Some(micro(now));
            spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
        }
        spec.holder_identity = Some(self.identity.clone());
        spec.lease_duration_seconds = Some(LEASE_DURATION_SECONDS);
        spec.renew_time = Some(micro(now));
        match self.cluster.replace_lease(&lease).await {
            Ok(_) => Ok(Attempt::Leading),
            Err(e) if e.is_conflict() => Ok(Attempt::HeldBy("(racing)".into())),
            Err(e) => Err(self.error(e)),
        }
    }

    /// Releases the Lease if this identity holds it (best effort).
    pub async fn release(&self, now: Timestamp) {
        let Ok(Some(mut lease)) = self
            .cluster
            .get_lease(&self.namespace, CONTROLLER_LEASE_NAME)
            .await
        else {
            return;
        };
        let Some(spec) = lease.spec.as_mut() else {
            return;
        };
        if spec.holder_identity.as_deref() != Some(self.identity.as_str()) {
            return;
        }
        spec.holder_identity = Some(String::new());
        spec.lease_duration_seconds = Some(1);
        spec.renew_time = Some(micro(now));
        spec.acquire_time = Some(micro(now));
        let _ = self.cluster.replace_lease(&lease).await;
    }
}
