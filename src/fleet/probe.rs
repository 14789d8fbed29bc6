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
    /// `reachable as NODEID@HOST:PORT; dialled IP:PORT from IP:PORT`, or what failed.
    pub line: String,
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
            Some(record) if record.ok => Some("✓"),
            Some(_) => Some("✗"),
            None if self.running => Some("…"),
            None => None,
        }
    }

    /// One line: `✓ reachable as … · 12:04:05Z (3m ago)`; `re-probing` while a new one runs.
    pub fn line(&self, now: Timestamp) -> String {
        let Some(record) = &self.last else {
            return if self.running {
                "… probing".to_owned()
            } else {
                "not probed yet (P probes)".to_owned()
            };
        };
        let glyph = if record.ok { "✓" } else { "✗" };
        let again = if self.running { ", re-probing" } else { "" };
        format!(
            "{glyph} {} · {} ({} ago{again})",
            record.line,
            record.at.strftime("%H:%M:%SZ"),
            age(Some(record.at), now)
        )
    }
}

/// The probe line of a seed's detail (`None` for other modes).
pub fn detail_line(detail: &super::detail::NodeDetail, now: Timestamp) -> Option<String> {
    detail.seed_peer.as_ref()?;
    Some(match &detail.probe {
        _ if detail.spec.external_address.is_none() => {
            "- (no spec.externalAddress to dial)".to_owned()
        }
        Some(probe) if probe.running || probe.last.is_some() => probe.line(now),
        _ => format!(
            "not probed yet (P in the console; `sei-console seed probe {}` from a shell)",
            detail.key.name
        ),
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
        assert_eq!(probe.line(now), "not probed yet (P probes)");
        probe.running = true;
        assert_eq!(probe.mark(), Some("…"));
        probe.last = Some(ProbeRecord {
            at,
            ok: false,
            line: "reachable: connection refused".into(),
        });
        assert_eq!(probe.mark(), Some("✗"));
        assert_eq!(
            probe.line(now),
            "✗ reachable: connection refused · 12:00:00Z (3m ago, re-probing)"
        );
        probe.running = false;
        if let Some(last) = probe.last.as_mut() {
            last.ok = true;
        }
        assert_eq!(probe.mark(), Some("✓"));
    }
}
