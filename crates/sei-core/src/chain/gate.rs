//! The health gate of a rollout wave, pure: readings of one node's RPC in, a verdict out.
//!
//! A node passes when it is caught up (sei-k8s-controller's `WaitCaughtUp`: height above 1 and
//! not catching up; and its own `/lag_status` not over its threshold) and its height advanced
//! through the soak time since it was first seen so. It halts the rollout when its height stands
//! still for longer than the stall threshold (`health::STALL_AFTER`), or when the
//! timeout passes first, naming what was seen last. The clock is passed in: the driver
//! (`ops::actions::rollout`) reads the RPC and the clock through the ports.
use std::fmt;
use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use super::health::{BLOCK_SYNC_PEERS, Reading, Snapshot};
use super::rpc::RpcFailure;

/// How long a node must stay caught up with its height advancing, unless asked otherwise.
pub const DEFAULT_SOAK: Duration = Duration::from_secs(60);
/// How long a node may take to pass, unless asked otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The gate's two durations (`--soak`, `--health-timeout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GateSettings {
    #[serde(serialize_with = "seconds")]
    pub soak: Duration,
    #[serde(serialize_with = "seconds")]
    pub timeout: Duration,
}

fn seconds<S: serde::Serializer>(duration: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(duration.as_secs())
}

impl Default for GateSettings {
    fn default() -> Self {
        GateSettings {
            soak: DEFAULT_SOAK,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// Why the gate's settings or their words were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateSettingsError {
    #[error("the health timeout ({timeout}) must be longer than the soak ({soak})")]
    TimeoutNotLonger { timeout: String, soak: String },
    #[error("{0:?}: write soak D, timeout D (or off)")]
    Words(String),
    #[error("{0:?}: soak or timeout")]
    UnknownPart(String),
    #[error(transparent)]
    Duration(#[from] DurationError),
}

/// Why a duration's words were refused (the one grammar's).
pub use crate::duration::DurationError;

impl GateSettings {
    /// The settings, refused when the timeout leaves no room for the soak.
    pub fn new(soak: Duration, timeout: Duration) -> Result<GateSettings, GateSettingsError> {
        if timeout <= soak {
            return Err(GateSettingsError::TimeoutNotLonger {
                timeout: words(timeout),
                soak: words(soak),
            });
        }
        Ok(GateSettings { soak, timeout })
    }

    /// `soak 60s, timeout 10m`: the console form's words, read back by [`GateSettings::parse`].
    pub fn form_text(&self) -> String {
        format!("soak {}, timeout {}", words(self.soak), words(self.timeout))
    }

    /// The form's words: `off` (no gate), or `soak D, timeout D` (either part may be left out).
    pub fn parse(text: &str) -> Result<Option<GateSettings>, GateSettingsError> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("off") || text.eq_ignore_ascii_case("none") {
            return Ok(None);
        }
        let mut settings = GateSettings::default();
        let parts: Vec<&str> = text
            .split([',', ' '])
            .filter(|part| !part.is_empty())
            .collect();
        let mut parts = parts.chunks(2);
        for pair in parts.by_ref() {
            let [word, value] = pair else {
                return Err(GateSettingsError::Words(text.to_owned()));
            };
            let value = parse_duration(value)?;
            match *word {
                "soak" => settings.soak = value,
                "timeout" => settings.timeout = value,
                other => return Err(GateSettingsError::UnknownPart(other.to_owned())),
            }
        }
        GateSettings::new(settings.soak, settings.timeout).map(Some)
    }
}

/// `30s`, `5m`, `1h`, `1m30s`, or plain seconds (the one grammar, `crate::duration`): at
/// least 1 s, at most a day.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    crate::duration::within(text, Duration::from_secs(1), Duration::from_secs(86_400))
}

/// `90s` as `1m30s`, whole minutes as `10m`.
pub fn words(duration: Duration) -> String {
    let secs = duration.as_secs();
    match (secs / 60, secs % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m{s}s"),
    }
}

/// What keeps a node from passing, as the halt and the dialog name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "seen", rename_all = "kebab-case")]
pub enum Unhealthy {
    /// Nothing answered yet.
    NotRead,
    Unreachable {
        failure: RpcFailure,
    },
    /// The height has not moved since `since`.
    Stuck {
        height: u64,
        since: Timestamp,
    },
    /// Its own `/lag_status` is over its threshold.
    #[serde(rename_all = "camelCase")]
    Lagging {
        lag: u64,
        http_status: u16,
    },
    /// Catching up with fewer than two peers: blocksync never calls it caught up.
    OneBlockSyncPeer {
        height: u64,
    },
    CatchingUp {
        height: u64,
        behind: Option<u64>,
    },
    /// Caught up, but not for the whole soak before the timeout.
    #[serde(rename_all = "camelCase")]
    SoakShort {
        caught_up_seconds: u64,
    },
}

impl fmt::Display for Unhealthy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unhealthy::NotRead => f.write_str("RPC not read yet"),
            Unhealthy::Unreachable { failure } => write!(f, "RPC unreachable: {failure}"),
            Unhealthy::Stuck { height, since } => {
                write!(f, "height stuck at {height} since {since:.0}")
            }
            Unhealthy::Lagging { lag, http_status } => {
                write!(f, "lagging (lag {lag}, /lag_status {http_status})")
            }
            Unhealthy::OneBlockSyncPeer { height } => write!(
                f,
                "one block-sync peer (catching up at height {height}; blocksync needs {BLOCK_SYNC_PEERS} to call it caught up)"
            ),
            Unhealthy::CatchingUp {
                height,
                behind: Some(behind),
            } => write!(f, "catching up (height {height}, {behind} behind)"),
            Unhealthy::CatchingUp { height, .. } => write!(f, "catching up (height {height})"),
            Unhealthy::SoakShort { caught_up_seconds } => {
                write!(f, "caught up for only {caught_up_seconds}s of the soak")
            }
        }
    }
}

/// Where a gated node is, for the live line: height, blocks gained since the gate began,
/// caught up, how much of the soak is done, and what holds it back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GateLine {
    pub height: Option<u64>,
    pub gained: u64,
    pub caught_up: bool,
    pub soaked_seconds: u64,
    pub soak_seconds: u64,
    pub problem: Option<Unhealthy>,
}

impl fmt::Display for GateLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.height {
            Some(height) => write!(f, "height {height} (+{})", self.gained)?,
            None => f.write_str("height ?")?,
        }
        let state = if self.caught_up {
            "caught up"
        } else {
            "not caught up"
        };
        write!(
            f,
            ", {state}, soak {}/{}s",
            self.soaked_seconds, self.soak_seconds
        )?;
        if let Some(problem) = &self.problem {
            write!(f, ": {problem}")?;
        }
        Ok(())
    }
}

/// The gate's verdict on one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateVerdict {
    Waiting,
    /// Caught up and advancing through the soak: `from` → `to` over `soaked`.
    Passed {
        from: u64,
        to: u64,
        soaked_seconds: u64,
    },
    Halted(Unhealthy),
}

impl GateVerdict {
    /// The journal's and the Event's words for an ended gate.
    pub fn words(&self) -> Option<String> {
        match self {
            GateVerdict::Waiting => None,
            GateVerdict::Passed {
                from,
                to,
                soaked_seconds,
            } => Some(format!(
                "health gate passed after {soaked_seconds}s soak (caught up, height {from} -> {to})"
            )),
            GateVerdict::Halted(why) => Some(format!("health gate halted: {why}")),
        }
    }
}

/// One node's gate: the readings taken since `started`.
#[derive(Debug, Clone)]
pub struct HealthGate {
    settings: GateSettings,
    started: Timestamp,
    first_height: Option<u64>,
    /// The height last seen and when this gate first saw it.
    standing: Option<(u64, Timestamp)>,
    /// Caught up since then, at that height.
    soak_from: Option<(Timestamp, u64)>,
    last_height: Option<u64>,
    /// What held it back at the last reading; `None` when it found nothing wrong.
    problem: Option<Unhealthy>,
    caught_up: bool,
}

impl HealthGate {
    pub fn new(settings: GateSettings, started: Timestamp) -> HealthGate {
        HealthGate {
            settings,
            started,
            first_height: None,
            standing: None,
            soak_from: None,
            last_height: None,
            problem: Some(Unhealthy::NotRead),
            caught_up: false,
        }
    }

    /// Takes one reading in (in the order taken).
    pub fn observe(&mut self, reading: Reading) {
        let at = reading.at;
        match &reading.outcome {
            // A failed read says nothing of the node's sync (a port-forward hiccup): the soak
            // goes on, but the gate passes only on an answered reading.
            Err(failure) => {
                self.problem = Some(Unhealthy::Unreachable {
                    failure: failure.clone(),
                });
            }
            Ok(snapshot) => self.answered(at, snapshot),
        }
    }

    fn answered(&mut self, at: Timestamp, snapshot: &Snapshot) {
        let status = &snapshot.status;
        let height = status.latest_block_height;
        self.first_height.get_or_insert(height);
        self.last_height = Some(height);
        match self.standing {
            Some((seen, _)) if seen == height => {}
            _ => self.standing = Some((height, at)),
        }
        let lagging = snapshot.lag.as_ref().ok().filter(|lag| lag.lagging);
        self.caught_up = status.caught_up();
        let problem = if !status.caught_up() {
            let peers = snapshot.net.as_ref().ok().map(|net| net.n_peers);
            if status.catching_up && peers.is_some_and(|p| p < BLOCK_SYNC_PEERS) {
                Some(Unhealthy::OneBlockSyncPeer { height })
            } else {
                let top = status.max_peer_block_height.unwrap_or(0);
                Some(Unhealthy::CatchingUp {
                    height,
                    behind: top.checked_sub(height).filter(|b| *b > 0),
                })
            }
        } else {
            lagging.map(|lag| Unhealthy::Lagging {
                lag: lag.lag,
                http_status: lag.http_status,
            })
        };
        if problem.is_some() {
            self.soak_from = None;
        } else {
            self.soak_from.get_or_insert((at, height));
        }
        self.problem = problem;
    }

    /// Whether the last reading answered and found nothing wrong.
    fn healthy_now(&self) -> bool {
        self.problem.is_none()
    }

    fn soaked(&self, now: Timestamp) -> SignedDuration {
        match self.soak_from {
            Some((from, _)) => now.duration_since(from).max(SignedDuration::ZERO),
            None => SignedDuration::ZERO,
        }
    }

    /// The height stood still past the stall threshold.
    fn stuck(&self, now: Timestamp) -> Option<Unhealthy> {
        let (height, since) = self.standing?;
        (now.duration_since(since) > super::health::STALL_AFTER)
            .then_some(Unhealthy::Stuck { height, since })
    }

    /// The verdict at `now`.
    pub fn verdict(&self, now: Timestamp) -> GateVerdict {
        let soak = signed(self.settings.soak);
        if self.healthy_now()
            && let (Some((_, from)), Some(to)) = (self.soak_from, self.last_height)
            && self.soaked(now) >= soak
            && to > from
        {
            return GateVerdict::Passed {
                from,
                to,
                soaked_seconds: self.soaked(now).as_secs().unsigned_abs(),
            };
        }
        if !matches!(self.problem, Some(Unhealthy::Unreachable { .. }))
            && let Some(stuck) = self.stuck(now)
        {
            return GateVerdict::Halted(stuck);
        }
        if now.duration_since(self.started) >= signed(self.settings.timeout) {
            return GateVerdict::Halted(self.at_timeout(now));
        }
        GateVerdict::Waiting
    }

    /// What the halt at the timeout names: an unreachable RPC, a height that never moved in
    /// the gate, what held it back last, else a soak cut short.
    fn at_timeout(&self, now: Timestamp) -> Unhealthy {
        match (&self.problem, self.standing) {
            (Some(problem @ (Unhealthy::Unreachable { .. } | Unhealthy::NotRead)), _) => {
                problem.clone()
            }
            (_, Some((height, since))) if self.first_height == Some(height) => {
                Unhealthy::Stuck { height, since }
            }
            (Some(problem), _) => problem.clone(),
            (None, _) => Unhealthy::SoakShort {
                caught_up_seconds: self.soaked(now).as_secs().unsigned_abs(),
            },
        }
    }

    /// The live line at `now`.
    pub fn line(&self, now: Timestamp) -> GateLine {
        let gained = match (self.first_height, self.last_height) {
            (Some(first), Some(last)) => last.saturating_sub(first),
            _ => 0,
        };
        let soak = self.settings.soak.as_secs();
        GateLine {
            height: self.last_height,
            gained,
            caught_up: self.caught_up,
            soaked_seconds: self.soaked(now).as_secs().unsigned_abs().min(soak),
            soak_seconds: soak,
            problem: self.problem.clone(),
        }
    }
}

fn signed(duration: Duration) -> SignedDuration {
    SignedDuration::try_from(duration).unwrap_or(SignedDuration::MAX)
}

#[cfg(test)]
mod tests;
