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
}

/// Characters of a NodeID kept where space is short (the node screen).
const SHORT_ID: usize = 8;

impl ProbeRecord {
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
        });
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
            last.ok = true;
            last.problem = None;
        }
        assert_eq!(probe.mark(), Some("✓"));
        assert_eq!(
            probe.line(now, true),
            "✓ reachable as 6c8f8607…@127.0.0.1:9 · 3m ago"
        );
    }
}
