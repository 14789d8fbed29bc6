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
}

impl ProbeOutcome {
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
