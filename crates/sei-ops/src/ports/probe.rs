//! The seed probe as a port: what to dial and what came of it. `ops` and the console reach the
//! network only through [`SeedProber`]; `p2p::prober` is the adapter speaking sei-tendermint's
//! handshake. Plain data (strings, no parsed addresses): the layers below `actions` can hold it.
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use serde::Serialize;

/// The published identity a probe checks the seed against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeTarget {
    /// The published NodeID, when known.
    pub node_id: Option<String>,
    /// Where the NodeID came from (`argument`, `node-key Secret NAME`, `sidecar`), or why it
    /// is unknown.
    pub node_id_source: String,
    /// The published `HOST:PORT` (`spec.externalAddress`); the probe dials it.
    pub address: String,
    pub chain_id: String,
    /// Why no pod can answer, when the console knows it (a seed never rendered): the probe's
    /// hint for a refused dial, instead of the generic one.
    pub no_pod: Option<String>,
}

impl ProbeTarget {
    /// `NODEID@HOST:PORT` when the NodeID is known, else `HOST:PORT`.
    pub fn peer(&self) -> String {
        match &self.node_id {
            Some(id) => format!("{id}@{}", self.address),
            None => self.address.clone(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckName {
    Reachable,
    Handshake,
    NodeId,
    SelfAddress,
    Network,
    ListenAddress,
    PexAddresses,
}

impl CheckName {
    /// Every check, in the order a probe makes them.
    pub const ALL: [CheckName; 7] = [
        CheckName::Reachable,
        CheckName::Handshake,
        CheckName::NodeId,
        CheckName::SelfAddress,
        CheckName::Network,
        CheckName::ListenAddress,
        CheckName::PexAddresses,
    ];

    pub fn label(self) -> &'static str {
        match self {
            CheckName::Reachable => "reachable",
            CheckName::Handshake => "handshake",
            CheckName::NodeId => "node ID",
            CheckName::SelfAddress => "self address",
            CheckName::Network => "network",
            CheckName::ListenAddress => "listen address",
            CheckName::PexAddresses => "PEX addresses",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Pass,
    Fail,
    /// Not reached (an earlier phase failed) or nothing to compare with.
    Unknown,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    pub check: CheckName,
    pub verdict: Verdict,
    pub detail: String,
}

impl Check {
    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Pass
    }
}

/// From where the probe dialled and to which IP.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    pub local_address: Option<String>,
    pub remote_address: Option<String>,
    /// The probe ran in a pod (inside the cluster network), not outside it.
    pub in_cluster: bool,
}

/// What came of one probe; `ok` only when every check passed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeOutcome {
    /// `NODEID@HOST:PORT` as dialled.
    pub target: String,
    pub ok: bool,
    /// The NodeID the seed authenticated as, when the Handshake got that far.
    pub authenticated_node_id: Option<String>,
    pub origin: Origin,
    /// The seven checks in a fixed order.
    pub checks: Vec<Check>,
    pub total_ms: f64,
    /// The PEX addresses its Handshake handed out besides its own: the peers it knows now (a
    /// seed is ready with at least one). `None` when the Handshake did not get that far.
    pub pex_peers: Option<u32>,
}

impl ProbeOutcome {
    /// The TCP dial reached it.
    pub fn reachable(&self) -> bool {
        self.checks
            .iter()
            .any(|c| c.check == CheckName::Reachable && c.passed())
    }

    /// The first check that did not pass (the one line to show when space is short).
    pub fn first_problem(&self) -> Option<&Check> {
        self.checks.iter().find(|c| !c.passed())
    }
}

pub type ProbeFuture<'a> = Pin<Box<dyn Future<Output = ProbeOutcome> + Send + 'a>>;

/// Dials `target.address` as a peer would and judges what it shows, within `timeout`. Never
/// fails: an unreachable seed is an outcome.
pub trait SeedProber: Send + Sync {
    fn probe<'a>(&'a self, target: &'a ProbeTarget, timeout: Duration) -> ProbeFuture<'a>;
}

impl std::fmt::Debug for dyn SeedProber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeedProber")
    }
}

/// In-memory [`SeedProber`] for tests: every check passes unless a failing check is set; the
/// targets asked for are recorded. Never dials.
#[cfg(any(test, feature = "testing"))]
pub mod fake {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    pub struct FakeProber {
        /// The check that fails (its detail given), the others before it passing.
        pub failing: Mutex<Option<(CheckName, String)>>,
        pub targets: Mutex<Vec<ProbeTarget>>,
    }

    impl FakeProber {
        pub fn failing(check: CheckName, detail: &str) -> FakeProber {
            FakeProber {
                failing: Mutex::new(Some((check, detail.to_owned()))),
                ..FakeProber::default()
            }
        }

        /// What the fake answers for `target`.
        pub fn outcome(&self, target: &ProbeTarget) -> ProbeOutcome {
            let failing = self.failing.lock().map(|f| f.clone()).unwrap_or_default();
            let checks = CheckName::ALL
                .into_iter()
                .map(|check| match &failing {
                    Some((name, detail)) if *name == check => Check {
                        check,
                        verdict: Verdict::Fail,
                        detail: detail.clone(),
                    },
                    Some((name, _)) if *name < check && *name <= CheckName::Handshake => Check {
                        check,
                        verdict: Verdict::Unknown,
                        detail: "not reached".into(),
                    },
                    _ => Check {
                        check,
                        verdict: Verdict::Pass,
                        detail: "ok".into(),
                    },
                })
                .collect::<Vec<_>>();
            let reached = checks
                .iter()
                .any(|c| c.check == CheckName::NodeId && c.verdict != Verdict::Unknown);
            ProbeOutcome {
                target: target.peer(),
                ok: checks.iter().all(Check::passed),
                authenticated_node_id: reached.then(|| target.node_id.clone()).flatten(),
                origin: Origin {
                    local_address: Some("127.0.0.1:50000".into()),
                    remote_address: Some(target.address.clone()),
                    in_cluster: false,
                },
                pex_peers: reached.then_some(3),
                checks,
                total_ms: 1.5,
            }
        }
    }

    impl SeedProber for FakeProber {
        fn probe<'a>(&'a self, target: &'a ProbeTarget, _timeout: Duration) -> ProbeFuture<'a> {
            if let Ok(mut targets) = self.targets.lock() {
                targets.push(target.clone());
            }
            let outcome = self.outcome(target);
            Box::pin(async move { outcome })
        }
    }
}
