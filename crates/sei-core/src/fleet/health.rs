//! Chain health as the screens, `get` and `describe` show it: the fleet row's HEIGHT/LAG cell
//! ([`HealthBrief`]), the node screen's and `describe`'s lines, and the JSON fields. The
//! verdict itself is `chain::health`; the fleet keeps each node's readings and judges them
//! against the highest height of its chain ID in the fleet (`Fleets::judge_health`).
use jiff::Timestamp;
use serde::Serialize;

use super::text::age;
use crate::chain::{
    ChainTop, LagSource, LagStatus, NodeHealth, Reference, RpcFailure, State, Verdict,
};

/// What the fleet row keeps of the verdict: small and `Copy`, so a new reading that changes
/// only numbers refreshes nothing but this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HealthBrief {
    pub state: State,
    pub height: Option<u64>,
    /// Blocks behind (lagging, catching up).
    pub behind: Option<u64>,
    /// Since when the height stands still (stalled).
    pub since: Option<Timestamp>,
    /// Why the RPC is unreachable, in a word.
    pub failure: Option<&'static str>,
    /// Catching up with fewer than two block-sync peers.
    pub one_peer: bool,
    /// Unreachable because the node has no pod.
    pub no_pod: bool,
    /// What the lag is measured against (the chain's top), shown after a lag figure.
    pub against: Option<LagSource>,
    /// When the verdict's reading was taken, if reads failed since (the verdict is held over
    /// them, `chain::health`): the cell shows its age.
    pub held_from: Option<Timestamp>,
}

impl HealthBrief {
    pub fn of(
        verdict: &Verdict,
        health: &NodeHealth,
        top: ChainTop,
        now: Timestamp,
    ) -> HealthBrief {
        let held_from = health
            .basis(now)
            .filter(|basis| basis.failed_since > 0)
            .map(|basis| basis.at);
        let mut brief = HealthBrief {
            state: verdict.state(),
            height: health.height(),
            behind: None,
            since: None,
            failure: None,
            one_peer: false,
            no_pod: false,
            against: top.source,
            held_from,
        };
        match verdict {
            Verdict::Pending | Verdict::InSync { .. } => {}
            Verdict::Unreachable { failure } => {
                brief.failure = Some(failure.word());
                brief.no_pod = matches!(failure, crate::chain::RpcFailure::NoPod(_));
            }
            Verdict::Stalled { since, .. } => brief.since = Some(*since),
            Verdict::CatchingUp {
                behind, one_peer, ..
            } => {
                brief.behind = behind.filter(|b| *b > 0);
                brief.one_peer = *one_peer;
            }
            Verdict::Lagging { behind, source, .. } => {
                brief.behind = Some(*behind);
                brief.against = Some(*source);
            }
        }
        brief
    }

    /// The full cell: `✓ 123456`, `⟳ 1200 -3400`, `⟳ 1200 1 peer`, `↓ 1200 -500`,
    /// `⏸ 1200 2m`, `✗ refused`, `…`; a lag figure measured against the chain's reference
    /// RPC ends in `ref` (`↓ 1200 -500 ref`), one measured against the fleet because the
    /// reference did not answer in `ref✗`. A verdict held over failed reads ends in the age of
    /// its reading (`✓ 123456 12s old`).
    pub fn cell(&self, now: Timestamp) -> String {
        let cell = self.verdict_cell(now);
        match self.held_from {
            Some(at) => format!("{cell} {} old", age(Some(at), now)),
            None => cell,
        }
    }

    fn verdict_cell(&self, now: Timestamp) -> String {
        let mark = self.state.mark();
        let height = self.height.map(|h| h.to_string());
        match (self.state, height) {
            (State::Pending, _) => mark.to_owned(),
            (State::Unreachable, _) => format!("{mark} {}", self.failure.unwrap_or("unreachable")),
            (State::Stalled, Some(h)) => format!("{mark} {h} {}", age(self.since, now)),
            (State::CatchingUp, Some(h)) if self.one_peer => format!("{mark} {h} 1 peer"),
            (State::CatchingUp | State::Lagging, Some(h)) => match self.behind {
                Some(behind) => format!("{mark} {h} -{behind}{}", self.against_suffix()),
                None => format!("{mark} {h}"),
            },
            (_, Some(h)) => format!("{mark} {h}"),
            (_, None) => mark.to_owned(),
        }
    }

    /// After a lag figure: what it is measured against when that is not the fleet.
    fn against_suffix(&self) -> String {
        match self.against {
            Some(LagSource::Reference) => format!(" {}", super::symbols::LAG_REFERENCE),
            Some(LagSource::FleetReferenceUnreachable) => {
                format!(" {}", super::symbols::LAG_REFERENCE_DOWN)
            }
            _ => String::new(),
        }
    }

    /// How much this verdict matters (`chain::concern`, the doctor's judgement too).
    pub fn concern(&self) -> Option<crate::chain::Concern> {
        crate::chain::health::concern(self.state, self.one_peer, self.no_pod)
    }

    /// The widest the stalled age may become (`3h59m` against the `0s` measured).
    pub const AGE_RESERVE: usize = 3;
}

/// The chain-health lines of the node screen and `describe`: label and value, in order.
pub fn lines(
    health: Option<&NodeHealth>,
    verdict: &Verdict,
    known_node_id: Option<&str>,
    now: Timestamp,
    against: Against<'_>,
) -> Vec<(&'static str, String)> {
    let mut sync = verdict_line(verdict, now);
    if let Some(basis) = health
        .and_then(|h| h.basis(now))
        .filter(|b| b.failed_since > 0)
    {
        sync.push_str(&held_words(basis, now));
    }
    let mut out = vec![("sync", sync)];
    if let Some(line) = against.reference_line(now) {
        out.push(("reference", line));
    }
    let Some(health) = health else {
        return out;
    };
    if let Some(good) = &health.last_good {
        let (at, snapshot) = &**good;
        let status = &snapshot.status;
        let read_then = match &health.last {
            Some(last) if last.at != *at => format!(" (last answer, {} ago)", age(Some(*at), now)),
            _ => String::new(),
        };
        out.push((
            "height",
            format!("{}{read_then}", status.latest_block_height),
        ));
        out.push((
            "block time",
            match status.latest_block_time {
                Some(time) => format!(
                    "{} ({} old)",
                    time.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    age(Some(time), now)
                ),
                None => "-".to_owned(),
            },
        ));
        out.push(("catching up", yes_no(status.catching_up).to_owned()));
        out.push((
            "max peer height",
            status
                .max_peer_block_height
                .map_or("-".to_owned(), |h| h.to_string()),
        ));
        out.push((
            "lag",
            lag_line(status.latest_block_height, &snapshot.lag, against),
        ));
        out.push((
            "peers",
            match &snapshot.net {
                Ok(net) if net.n_peers < crate::chain::health::BLOCK_SYNC_PEERS => format!(
                    "{} (blocksync needs 2 to call itself caught up)",
                    net.n_peers
                ),
                Ok(net) => net.n_peers.to_string(),
                Err(failure) => format!("unknown: /net_info: {failure}"),
            },
        ));
        out.push(("moniker", or_dash(&status.moniker)));
        out.push(("version", or_dash(&status.version)));
        out.push(("node ID", node_id_line(&status.node_id, known_node_id)));
    }
    if let Some(last) = &health.last {
        let interval = health
            .block_interval()
            .map(|i| format!(", block every {:.2} s", i.as_secs_f64()))
            .unwrap_or_default();
        out.push((
            "read",
            format!(
                "{} ({} ago{interval})",
                last.at.strftime("%H:%M:%SZ"),
                age(Some(last.at), now)
            ),
        ));
    }
    out
}

/// After a verdict held over failed reads: how old its reading is and how many failed since.
pub fn held_words(basis: crate::chain::health::Basis, now: Timestamp) -> String {
    let failed = basis.failed_since;
    format!(
        " (from the reading of {} ago; {failed} read{} failed since, unreachable after {})",
        age(Some(basis.at), now),
        if failed == 1 { "" } else { "s" },
        crate::chain::health::UNREACHABLE_AFTER
    )
}

fn yes_no(flag: bool) -> &'static str {
    if flag { "yes" } else { "no" }
}

fn or_dash(text: &str) -> String {
    if text.is_empty() {
        "-".to_owned()
    } else {
        text.to_owned()
    }
}

/// One line for the verdict: the mark, the words and why.
pub fn verdict_line(verdict: &Verdict, now: Timestamp) -> String {
    let state = verdict.state();
    let head = format!("{} {}", state.mark(), state.word());
    match verdict {
        Verdict::Pending => format!("{head} (the RPC is read every few seconds)"),
        Verdict::InSync { height } => format!("{head} at {height}"),
        // "RPC unreachable: unreachable: …" says it twice.
        Verdict::Unreachable {
            failure: RpcFailure::Unreachable(detail),
        } => format!("{head}: {detail}"),
        Verdict::Unreachable { failure } => format!("{head}: {failure}"),
        Verdict::Stalled {
            height,
            since,
            threshold_seconds,
        } => format!(
            "{head}: height stuck at {height} since {}, its last block ({} ago; threshold {threshold_seconds} s)",
            since.strftime("%H:%M:%SZ"),
            age(Some(*since), now)
        ),
        Verdict::CatchingUp {
            height,
            behind,
            one_peer,
        } => {
            let behind = behind
                .filter(|b| *b > 0)
                .map(|b| format!(", {} behind", blocks(b)))
                .unwrap_or_default();
            let peer = if *one_peer {
                "; one block-sync peer: blocksync needs 2 to report caught up, so it follows \
                 the chain but says catching_up until it has another peer"
            } else {
                ""
            };
            format!("{head} at {height}{behind}{peer}")
        }
        Verdict::Lagging {
            height,
            behind,
            source,
        } => format!(
            "{head} at {height}: {} behind {}",
            blocks(*behind),
            source_words(*source)
        ),
    }
}

/// `1 block`, `N blocks`.
pub fn blocks(count: u64) -> String {
    if count == 1 {
        "1 block".to_owned()
    } else {
        format!("{count} blocks")
    }
}

/// What a lag was measured against, in words (the node screen, `describe`, the doctor).
pub fn source_words(source: LagSource) -> &'static str {
    match source {
        LagSource::LagStatus => "its peers (/lag_status over its lag-threshold)",
        LagSource::Fleet => "the fleet top (the highest node of its chain in the fleet)",
        LagSource::Reference => "the chain's reference RPC",
        LagSource::FleetReferenceUnreachable => {
            "the fleet top (the chain's reference RPC is unreachable)"
        }
        LagSource::Peers => "its block-sync peers (their highest height)",
    }
}

/// What a node's lag is measured against: its chain's top at the last judgement and the
/// chain's reference RPC, when the config names one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Against<'a> {
    pub top: ChainTop,
    pub reference: Option<&'a Reference>,
}

impl Against<'_> {
    /// `behind reference URL (at H)`, `behind fleet top (H)`, or why the reference is not it.
    fn behind_words(&self) -> String {
        let height = self.top.height;
        match (self.top.source, self.reference) {
            (Some(LagSource::Reference), Some(reference)) => {
                format!("behind reference {} (at {height})", reference.url)
            }
            (Some(LagSource::FleetReferenceUnreachable), Some(reference)) => format!(
                "behind fleet top ({height}; reference {} unreachable)",
                reference.url
            ),
            _ => format!("behind fleet top ({height})"),
        }
    }

    /// The reference line: its URL, its height or why it did not answer, and when.
    fn reference_line(&self, now: Timestamp) -> Option<String> {
        let reference = self.reference?;
        let url = &reference.url;
        Some(match &reference.last {
            None => format!("{url}: not read yet (read every few seconds)"),
            Some(read) => match &read.outcome {
                Ok(height) => format!("{url} at {height} ({} ago)", age(Some(read.at), now)),
                Err(failure) => format!(
                    "{url} unreachable: {failure} ({} ago); lag measured against the fleet top",
                    age(Some(read.at), now)
                ),
            },
        })
    }
}

fn lag_line(height: u64, lag: &Result<LagStatus, RpcFailure>, against: Against<'_>) -> String {
    let own = match lag {
        Ok(lag) => format!(
            "/lag_status {} blocks, HTTP {}{}",
            lag.lag,
            lag.http_status,
            if lag.lagging {
                " (over its lag-threshold)"
            } else {
                ""
            }
        ),
        Err(failure) => format!("/lag_status unknown: {failure}"),
    };
    if against.top.source.is_none() {
        return own;
    }
    let behind = against.top.height.saturating_sub(height);
    format!("{} {}; {own}", blocks(behind), against.behind_words())
}

fn node_id_line(reported: &str, known: Option<&str>) -> String {
    match known {
        Some(known) if known == reported => format!("{reported} (as the console knows it)"),
        Some(known) => format!("{reported} ≠ {known} the console knows (another key?)"),
        None => format!("{} (the console knows none to compare)", or_dash(reported)),
    }
}

/// The chain-health fields of `describe -o json` and `get -o json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthJson {
    pub state: State,
    pub verdict: Verdict,
    pub summary: String,
    pub height: Option<u64>,
    pub block_time: Option<Timestamp>,
    pub block_age_seconds: Option<i64>,
    pub catching_up: Option<bool>,
    pub max_peer_height: Option<u64>,
    /// Blocks behind (the verdict's measure: lag status, fleet or reference).
    pub lag: Option<u64>,
    pub lag_status: Option<LagStatus>,
    pub lag_status_error: Option<RpcFailure>,
    pub peers: Option<u32>,
    pub moniker: Option<String>,
    pub version: Option<String>,
    pub node_id: Option<String>,
    pub known_node_id: Option<String>,
    pub node_id_matches: Option<bool>,
    pub read_at: Option<Timestamp>,
    pub answered_at: Option<Timestamp>,
    /// When the reading the verdict rests on was taken (the last read, or the last good one
    /// while the verdict is held over failed reads), and its age in seconds.
    pub verdict_read_at: Option<Timestamp>,
    pub verdict_read_age_seconds: Option<i64>,
    /// Failed reads in a row since the last good one.
    pub failed_reads: u32,
    pub error: Option<RpcFailure>,
    /// What the lag is measured against: the chain's reference RPC or the fleet top.
    pub lag_against: Option<LagAgainstJson>,
}

/// `lagAgainst` of the JSON: the chain's top, where it came from, and the reference's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LagAgainstJson {
    /// `reference`, `fleet`, or `fleet-reference-unreachable` (the fallback).
    pub source: LagSource,
    pub top_height: u64,
    /// Blocks this node is behind the top (0 at or above it).
    pub behind: u64,
    pub reference_url: Option<String>,
    pub reference_height: Option<u64>,
    pub reference_read_at: Option<Timestamp>,
    pub reference_error: Option<RpcFailure>,
}

impl HealthJson {
    pub fn of(
        health: Option<&NodeHealth>,
        verdict: &Verdict,
        known_node_id: Option<&str>,
        now: Timestamp,
    ) -> HealthJson {
        let good = health
            .and_then(|h| h.last_good.as_deref())
            .map(|(at, snapshot)| (at, snapshot));
        let status = good.map(|(_, s)| &s.status);
        let basis = health.and_then(|h| h.basis(now));
        let node_id = status
            .map(|s| s.node_id.clone())
            .filter(|id| !id.is_empty());
        let lag = match verdict {
            Verdict::Lagging { behind, .. } => Some(*behind),
            Verdict::CatchingUp { behind, .. } => *behind,
            _ => good.and_then(|(_, s)| s.lag.as_ref().ok()).map(|l| l.lag),
        };
        HealthJson {
            state: verdict.state(),
            verdict: verdict.clone(),
            summary: verdict_line(verdict, now),
            height: status.map(|s| s.latest_block_height),
            block_time: status.and_then(|s| s.latest_block_time),
            block_age_seconds: status
                .and_then(|s| s.latest_block_time)
                .map(|t| now.duration_since(t).as_secs()),
            catching_up: status.map(|s| s.catching_up),
            max_peer_height: status.and_then(|s| s.max_peer_block_height),
            lag,
            lag_status: good.and_then(|(_, s)| s.lag.as_ref().ok().copied()),
            lag_status_error: good.and_then(|(_, s)| s.lag.as_ref().err().cloned()),
            peers: good
                .and_then(|(_, s)| s.net.as_ref().ok())
                .map(|n| n.n_peers),
            moniker: status.map(|s| s.moniker.clone()),
            version: status.map(|s| s.version.clone()),
            node_id_matches: match (&node_id, known_node_id) {
                (Some(reported), Some(known)) => Some(reported == known),
                _ => None,
            },
            node_id,
            known_node_id: known_node_id.map(str::to_owned),
            read_at: health.and_then(|h| h.last.as_ref()).map(|r| r.at),
            answered_at: good.map(|(at, _)| *at),
            verdict_read_at: basis.map(|b| b.at),
            verdict_read_age_seconds: basis.map(|b| now.duration_since(b.at).as_secs()),
            failed_reads: health.map_or(0, NodeHealth::failures),
            error: health
                .and_then(|h| h.last.as_ref())
                .and_then(|r| r.failure.clone()),
            lag_against: None,
        }
    }

    /// With `lagAgainst`: what the lag is measured against (nothing before any height is known).
    pub fn against(mut self, against: Against<'_>) -> HealthJson {
        let Some(source) = against.top.source else {
            return self;
        };
        let reference = against.reference;
        self.lag_against = Some(LagAgainstJson {
            source,
            top_height: against.top.height,
            behind: self
                .height
                .map_or(0, |h| against.top.height.saturating_sub(h)),
            reference_url: reference.map(|r| r.url.to_string()),
            reference_height: reference.and_then(Reference::height),
            reference_read_at: reference.and_then(|r| r.last.as_ref()).map(|r| r.at),
            reference_error: reference.and_then(Reference::failure).cloned(),
        });
        self
    }
}

/// `describe`'s chain-health section: a title and the [`lines`], or why there is none.
pub fn describe_section(
    health: Option<&NodeHealth>,
    verdict: Option<&Verdict>,
    known_node_id: Option<&str>,
    now: Timestamp,
    against: Against<'_>,
) -> String {
    let mut out = String::from("Chain health:\n");
    match verdict {
        Some(verdict) => {
            for (label, value) in lines(health, verdict, known_node_id, now, against) {
                out.push_str(&format!("  {label:<17}{value}\n"));
            }
        }
        None => out.push_str("  - (seeds serve no RPC: their health is the P2P probe)\n"),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_verdict_names_why_once() {
        let now: Timestamp = "2026-12-01T12:00:00Z".parse().expect("time");
        let forbidden = Verdict::Unreachable {
            failure: RpcFailure::Forbidden("needs create pods/portforward".into()),
        };
        assert_eq!(
            verdict_line(&forbidden, now),
            "✗ RPC unreachable: forbidden: needs create pods/portforward"
        );
        let broken = Verdict::Unreachable {
            failure: RpcFailure::Unreachable("forward not found for port 26657".into()),
        };
        assert_eq!(
            verdict_line(&broken, now),
            "✗ RPC unreachable: forward not found for port 26657"
        );
    }
}
