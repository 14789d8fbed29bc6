//! [`SeedProber`] over the handshake: the adapter `ops` and the console probe seeds through.
use std::time::Duration;

use super::probe::{Expected, ProbeReport, probe};
use crate::actions::address::ExternalAddress;
use crate::ports::PeerDialer;
use crate::ports::probe::{
    Check, CheckName, Origin, ProbeFuture, ProbeOutcome, ProbeTarget, SeedProber, Verdict,
};

/// Whether this process runs in a pod (the service-account variables are set): its probe sees
/// the cluster network, not what a peer outside sees.
pub fn in_cluster() -> bool {
    std::env::var_os("KUBERNETES_SERVICE_HOST").is_some()
}

/// The handshake probe over `dialer` (the TCP dialer in production).
pub struct P2pProber<D> {
    pub dialer: D,
    pub in_cluster: bool,
}

impl<D: PeerDialer> P2pProber<D> {
    pub fn new(dialer: D) -> Self {
        P2pProber {
            dialer,
            in_cluster: in_cluster(),
        }
    }
}

impl Expected {
    /// The probe's expectation from the port's plain target.
    pub fn from_target(
        target: &ProbeTarget,
    ) -> Result<Expected, crate::actions::address::AddressError> {
        Ok(Expected {
            node_id: target.node_id.clone(),
            node_id_source: target.node_id_source.clone(),
            address: ExternalAddress::parse(&target.address)?,
            chain_id: target.chain_id.clone(),
            no_pod: target.no_pod.clone(),
        })
    }
}

impl ProbeReport {
    /// The port's view of this report.
    pub fn outcome(&self) -> ProbeOutcome {
        ProbeOutcome {
            target: self.target.clone(),
            ok: self.ok,
            authenticated_node_id: self.observed.node_id.clone(),
            origin: self.origin.clone(),
            checks: self.checks.clone(),
            total_ms: self.timings.total_ms,
            pex_peers: super::judge::pex_peers(&self.observed),
        }
    }
}

impl<D: PeerDialer> SeedProber for P2pProber<D> {
    fn probe<'a>(&'a self, target: &'a ProbeTarget, timeout: Duration) -> ProbeFuture<'a> {
        Box::pin(async move {
            let expected = match Expected::from_target(target) {
                Ok(expected) => expected,
                Err(error) => return not_dialled(target, &error.to_string(), self.in_cluster),
            };
            let mut report = probe(&self.dialer, &expected, timeout).await;
            report.origin.in_cluster = self.in_cluster;
            report.outcome()
        })
    }
}

/// An address that does not parse is never dialled.
fn not_dialled(target: &ProbeTarget, why: &str, in_cluster: bool) -> ProbeOutcome {
    let mut checks = vec![Check {
        check: CheckName::Reachable,
        verdict: Verdict::Fail,
        detail: format!("not dialled: {why}"),
    }];
    checks.extend(
        CheckName::ALL
            .into_iter()
            .filter(|check| *check != CheckName::Reachable)
            .map(|check| Check {
                check,
                verdict: Verdict::Unknown,
                detail: "not reached".to_owned(),
            }),
    );
    ProbeOutcome {
        target: target.peer(),
        ok: false,
        authenticated_node_id: None,
        origin: Origin {
            in_cluster,
            ..Origin::default()
        },
        checks,
        total_ms: 0.0,
        pex_peers: None,
    }
}
