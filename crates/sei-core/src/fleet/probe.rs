//! The last outside probe of each seed as the screens show it: a mark for the fleet row and one
//! line for the node screen and `describe`. Pure; the console's effects run the probes and the
//! app turns their outcome into a [`ProbeRecord`].
use jiff::Timestamp;

use super::text::age;

/// What one probe found, in the words the screens show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeRecord {
    pub at: Timestamp,
    pub ok: bool,
    /// `NODEID@HOST:PORT` as dialled (`HOST:PORT` when the NodeID was unknown).
    pub peer: String,
    /// The check that failed and why; `None` when every check passed.
    pub problem: Option<String>,
    /// `dialled IP:PORT from IP:PORT`: the resolved address and this end of the connection.
    pub route: String,
    /// The TCP dial reached it.
    pub reachable: bool,
    /// The peers it handed out through PEX besides itself, when the Handshake got that far.
    pub pex_peers: Option<u32>,
    /// The first check that did not pass, in a word or two (`node ID`, `handshake`).
    pub failed_check: Option<&'static str>,
}

/// A seed's HEIGHT/LAG cell: it serves no RPC, its health is the P2P probe (issue 24): ready
/// when reachable as its published NodeID and knowing at least one peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedCell {
    /// The first probe is running.
    Probing,
    Ready {
        peers: u32,
    },
    NotReady {
        reachable: bool,
        peers: Option<u32>,
        failed_check: Option<&'static str>,
    },
}

impl SeedCell {
    /// `✓ 3 peers`, `✗ 0 peers`, `✗ unreachable`, `✗ node ID`, `…`.
    pub fn cell(self) -> String {
        use super::symbols::{PROBE_FAILED, PROBE_OK, PROBE_RUNNING};
        let peers = |n: u32| {
            if n == 1 {
                "1 peer".to_owned()
            } else {
                format!("{n} peers")
            }
        };
        match self {
            SeedCell::Probing => PROBE_RUNNING.to_owned(),
            SeedCell::Ready { peers: n } => format!("{PROBE_OK} {}", peers(n)),
            SeedCell::NotReady {
                reachable: false,
                failed_check: None | Some("reachable"),
                ..
            } => format!("{PROBE_FAILED} unreachable"),
            SeedCell::NotReady {
                peers: Some(n),
                failed_check: None | Some("PEX addresses"),
                ..
            } => format!("{PROBE_FAILED} {}", peers(n)),
            SeedCell::NotReady { failed_check, .. } => {
                format!("{PROBE_FAILED} {}", failed_check.unwrap_or("not ready"))
            }
        }
    }

    /// The mark alone (80 columns).
    pub fn mark(self) -> &'static str {
        use super::symbols::{PROBE_FAILED, PROBE_OK, PROBE_RUNNING};
        match self {
            SeedCell::Probing => PROBE_RUNNING,
            SeedCell::Ready { .. } => PROBE_OK,
            SeedCell::NotReady { .. } => PROBE_FAILED,
        }
    }
}

/// A seed's last probe in `get -o json` and `describe -o json` (`seedProbe`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SeedProbeJson {
    /// Reachable as its published NodeID and knowing at least one peer (every check passed).
    pub ready: bool,
    pub reachable: bool,
    /// Peers it handed out through PEX besides itself (`null`: the Handshake did not get there).
    pub pex_peers: Option<u32>,
    pub peer: String,
    pub problem: Option<String>,
    pub probed_at: Timestamp,
    pub summary: String,
}

impl SeedProbeJson {
    pub fn of(record: &ProbeRecord) -> SeedProbeJson {
        SeedProbeJson {
            ready: record.ok,
            reachable: record.reachable,
            pex_peers: record.pex_peers,
            peer: record.peer.clone(),
            problem: record.problem.clone(),
            probed_at: record.at,
            summary: record.cell().cell(),
        }
    }
}

/// Characters of a NodeID kept where space is short (the node screen).
const SHORT_ID: usize = 8;

impl ProbeRecord {
    /// Its HEIGHT/LAG cell.
    pub fn cell(&self) -> SeedCell {
        if self.ok {
            SeedCell::Ready {
                peers: self.pex_peers.unwrap_or(0),
            }
        } else {
            SeedCell::NotReady {
                reachable: self.reachable,
                peers: self.pex_peers,
                failed_check: self.failed_check,
            }
        }
    }

    /// `reachable as NODEID@HOST:PORT` (the NodeID cut to 8 characters when `short`), or the
    /// problem.
    pub fn summary(&self, short: bool) -> String {
        if let Some(problem) = &self.problem {
            return problem.clone();
        }
        match self.peer.split_once('@') {
            Some((id, address)) if short && id.len() > SHORT_ID => {
                format!("reachable as {}…@{address}", &id[..SHORT_ID])
            }
            _ => format!("reachable as {}", self.peer),
        }
    }
}

/// A seed's probes: the last result and whether one is running now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeedProbe {
    pub last: Option<ProbeRecord>,
    pub running: bool,
}

impl SeedProbe {
    /// The fleet row's mark after the seed's name: `✓` reachable, `✗` the probe failed, `…`
    /// the first probe is running.
    pub fn mark(&self) -> Option<&'static str> {
        match &self.last {
            Some(record) if record.ok => Some(super::symbols::PROBE_OK),
            Some(_) => Some(super::symbols::PROBE_FAILED),
            None if self.running => Some(super::symbols::PROBE_RUNNING),
            None => None,
        }
    }

    /// The seed's HEIGHT/LAG cell, once probed or while the first probe runs.
    pub fn cell(&self) -> Option<SeedCell> {
        match &self.last {
            Some(record) => Some(record.cell()),
            None if self.running => Some(SeedCell::Probing),
            None => None,
        }
    }

    /// One line: `✓ reachable as NODEID@HOST:PORT · 3m ago`; `re-probing` while a new one
    /// runs. `short` cuts the NodeID (the node screen, where the seed peer line has it whole).
    pub fn line(&self, now: Timestamp, short: bool) -> String {
        let Some(record) = &self.last else {
            return if self.running {
                "… probing".to_owned()
            } else {
                NOT_PROBED.to_owned()
            };
        };
        let glyph = if record.ok { "✓" } else { "✗" };
        let again = if self.running { ", re-probing" } else { "" };
        format!(
            "{glyph} {} · {} ago{again}",
            record.summary(short),
            age(Some(record.at), now)
        )
    }

    /// When the last probe ran, from where it dialled and to which IP.
    pub fn route(&self) -> Option<String> {
        self.last
            .as_ref()
            .map(|r| format!("probed {}: {}", r.at.strftime("%H:%M:%SZ"), r.route))
    }
}

const NOT_PROBED: &str = "not probed yet (P, or sei-console seed probe)";

/// The probe line of a seed's detail and the route of its last probe (`None` for other modes).
pub fn detail_lines(
    detail: &super::detail::NodeDetail,
    now: Timestamp,
    short: bool,
) -> Option<(String, Option<String>)> {
    detail.seed_peer.as_ref()?;
    Some(match &detail.probe {
        _ if detail.spec.external_address.is_none() => {
            ("- (no spec.externalAddress to dial)".to_owned(), None)
        }
        Some(probe) => (probe.line(now, short), probe.route()),
        None => (NOT_PROBED.to_owned(), None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_lines() {
        let at: Timestamp = "2026-12-01T12:00:00Z".parse().expect("time");
        let now: Timestamp = "2026-12-01T12:03:00Z".parse().expect("time");
        let mut probe = SeedProbe::default();
        assert_eq!(probe.mark(), None);
        assert_eq!(probe.line(now, false), NOT_PROBED);
        probe.running = true;
        assert_eq!(probe.mark(), Some("…"));
        probe.last = Some(ProbeRecord {
            at,
            ok: false,
            peer: "6c8f8607dbe87077a62a2990ce07d94aaf749df7@127.0.0.1:9".into(),
            problem: Some("reachable: connection refused".into()),
            route: "no address dialled, from this machine".into(),
            reachable: false,
            pex_peers: None,
            failed_check: Some("reachable"),
        });
        assert_eq!(
            probe.cell().map(SeedCell::cell).as_deref(),
            Some("✗ unreachable")
        );
        assert_eq!(probe.mark(), Some("✗"));
        assert_eq!(
            probe.line(now, false),
            "✗ reachable: connection refused · 3m ago, re-probing"
        );
        assert_eq!(
            probe.route().as_deref(),
            Some("probed 12:00:00Z: no address dialled, from this machine")
        );
        probe.running = false;
        if let Some(last) = probe.last.as_mut() {
            last.reachable = true;
            last.pex_peers = Some(0);
            last.failed_check = Some("PEX addresses");
        }
        assert_eq!(
            probe.cell().map(SeedCell::cell).as_deref(),
            Some("✗ 0 peers")
        );
        if let Some(last) = probe.last.as_mut() {
            last.pex_peers = Some(3);
            last.failed_check = Some("node ID");
        }
        assert_eq!(
            probe.cell().map(SeedCell::cell).as_deref(),
            Some("✗ node ID")
        );
        if let Some(last) = probe.last.as_mut() {
            last.ok = true;
            last.problem = None;
            last.failed_check = None;
        }
        assert_eq!(
            probe.cell().map(SeedCell::cell).as_deref(),
            Some("✓ 3 peers")
        );
        assert_eq!(probe.mark(), Some("✓"));
        assert_eq!(
            probe.line(now, true),
            "✓ reachable as 6c8f8607…@127.0.0.1:9 · 3m ago"
        );
    }
}
