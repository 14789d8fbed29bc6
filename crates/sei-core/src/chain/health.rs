//! A node's chain health over successive readings of its RPC, and the verdict: in sync,
//! catching up, lagging, stalled or unreachable. Pure: the clock is passed in.
//!
//! Stalled means the height stood still past 20 observed block intervals, 30 s at least (the
//! block's own time when that is older); lagging means its `/lag_status` says so, or `LAG_BLOCKS`
//! behind its chain's top (the fleet's highest node or the chain's reference RPC); catching up with
//! one block-sync peer is said apart (blocksync needs two to report caught up). `concern` is how
//! much a verdict matters (critical, warning, info), read by the fleet's verdict and the doctor's
//! chain findings.
use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use super::rpc::{LagStatus, NetInfo, RpcFailure, Status};

/// A height not advancing for this long is a stall, whatever the block interval.
pub const STALL_FLOOR: SignedDuration = SignedDuration::from_secs(30);
/// A height not advancing for this many observed block intervals is a stall (when that is
/// longer than [`STALL_FLOOR`]).
pub const STALL_BLOCKS: i64 = 20;
/// Blocks behind the highest height of its chain in the fleet (or the chain's reference) past
/// which a node is lagging: sei-tendermint's own default `lag-threshold`, so both sources agree.
pub const LAG_BLOCKS: u64 = 300;
/// Below this many peers blocksync never reports caught up (`internal/blocksync/pool.go`
/// `IsCaughtUp`: "Need at least 2 peers to be considered caught up").
pub const BLOCK_SYNC_PEERS: u32 = 2;

/// Everything one read of the node's RPC brought back: `/status` decides reachability;
/// `/lag_status` and `/net_info` are read beside it and may fail alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    pub status: Status,
    pub lag: Result<LagStatus, RpcFailure>,
    pub net: Result<NetInfo, RpcFailure>,
}

/// One read, when it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    pub at: Timestamp,
    pub outcome: Result<Snapshot, RpcFailure>,
}

/// Where a lag was measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LagSource {
    /// The node's own `/lag_status` said it is over its threshold.
    LagStatus,
    /// The highest height of its chain ID among the fleet's nodes.
    Fleet,
    /// The chain's reference RPC from the config file.
    Reference,
    /// The highest height of its chain ID in the fleet, because the chain's reference RPC did
    /// not answer its last read.
    FleetReferenceUnreachable,
}

/// The verdict on one node, worst first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum Verdict {
    /// Not read yet.
    Pending,
    Unreachable {
        failure: RpcFailure,
    },
    /// The height has not advanced since `since` for longer than the threshold.
    #[serde(rename_all = "camelCase")]
    Stalled {
        height: u64,
        since: Timestamp,
        threshold_seconds: i64,
    },
    /// `catching_up`; `one_peer` when it has fewer than two peers, so blocksync can never call
    /// it caught up even when it follows the chain.
    #[serde(rename_all = "camelCase")]
    CatchingUp {
        height: u64,
        behind: Option<u64>,
        one_peer: bool,
    },
    #[serde(rename_all = "camelCase")]
    Lagging {
        height: u64,
        behind: u64,
        source: LagSource,
    },
    InSync {
        height: u64,
    },
}

/// The verdict's kind, for marks, filters and sorting (worst first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    Unreachable,
    Stalled,
    Lagging,
    CatchingUp,
    Pending,
    InSync,
}

impl State {
    /// The mark the fleet and the node screen show.
    pub fn mark(self) -> &'static str {
        match self {
            State::InSync => "✓",
            State::CatchingUp => "⟳",
            State::Lagging => "↓",
            State::Stalled => "⏸",
            State::Unreachable => "✗",
            State::Pending => "…",
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            State::InSync => "in sync",
            State::CatchingUp => "catching up",
            State::Lagging => "lagging",
            State::Stalled => "stalled",
            State::Unreachable => "RPC unreachable",
            State::Pending => "not read yet",
        }
    }
}

impl Verdict {
    pub fn state(&self) -> State {
        match self {
            Verdict::Pending => State::Pending,
            Verdict::Unreachable { .. } => State::Unreachable,
            Verdict::Stalled { .. } => State::Stalled,
            Verdict::CatchingUp { .. } => State::CatchingUp,
            Verdict::Lagging { .. } => State::Lagging,
            Verdict::InSync { .. } => State::InSync,
        }
    }
}

/// How much a chain verdict matters, worst first: the one judgement the fleet's health verdict
/// (`fleet::verdict`) and the doctor's chain findings both read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Concern {
    /// The node does not follow its chain (stalled).
    Critical,
    /// It works, but not as it should (lagging, RPC unreachable, one block-sync peer).
    Warning,
    /// Worth knowing, nothing wrong yet (catching up).
    Info,
}

/// The concern of a chain verdict: `None` for in sync, not read yet, or no pod (a node with no
/// pod cannot answer; the findings about its workload say why).
pub fn concern(state: State, one_peer: bool, no_pod: bool) -> Option<Concern> {
    match state {
        State::InSync | State::Pending => None,
        State::Unreachable if no_pod => None,
        State::Stalled => Some(Concern::Critical),
        State::Lagging | State::Unreachable => Some(Concern::Warning),
        State::CatchingUp if one_peer => Some(Concern::Warning),
        State::CatchingUp => Some(Concern::Info),
    }
}

impl Verdict {
    /// [`concern`] of this verdict.
    pub fn concern(&self) -> Option<Concern> {
        let one_peer = matches!(self, Verdict::CatchingUp { one_peer: true, .. });
        let no_pod = matches!(
            self,
            Verdict::Unreachable {
                failure: RpcFailure::NoPod(_)
            }
        );
        concern(self.state(), one_peer, no_pod)
    }
}

/// What the fleet knows of a node's chain: the highest height among the other readings of its
/// chain ID, or its reference's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChainTop {
    pub height: u64,
    pub source: Option<LagSource>,
}

/// When the last read ended and, if it failed, why (its snapshot, when it answered, is
/// `NodeHealth::last_good`: kept once, not twice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastRead {
    pub at: Timestamp,
    pub failure: Option<RpcFailure>,
}

/// One node's readings over time: the last one, the last good one, and how its height moved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeHealth {
    pub last: Option<LastRead>,
    /// The last reading that answered `/status` (kept while the RPC is unreachable); boxed, so
    /// a node never read costs a pointer.
    pub last_good: Option<Box<(Timestamp, Snapshot)>>,
    /// The height seen and when it was first seen at it.
    height_since: Option<(u64, Timestamp)>,
    /// Smoothed time per block, from the heights seen advancing between readings.
    interval: Option<SignedDuration>,
    /// A read is in flight.
    pub reading: bool,
}

impl NodeHealth {
    /// Takes one reading in. Readings older than the last are ignored.
    pub fn record(&mut self, reading: Reading) {
        if self.last.as_ref().is_some_and(|last| last.at > reading.at) {
            return;
        }
        let failure = match reading.outcome {
            Ok(snapshot) => {
                self.took(reading.at, snapshot);
                None
            }
            Err(failure) => Some(failure),
        };
        self.last = Some(LastRead {
            at: reading.at,
            failure,
        });
        self.reading = false;
    }

    /// An answered read: how the height moved, and the snapshot kept.
    fn took(&mut self, at: Timestamp, snapshot: Snapshot) {
        let height = snapshot.status.latest_block_height;
        match self.height_since {
            Some((seen, since)) if height > seen => {
                let elapsed = at.duration_since(since);
                let blocks = i32::try_from(height - seen).unwrap_or(i32::MAX);
                // The height moved somewhere between the last reading and this one: the
                // sample is coarse but unbiased over several readings.
                let sample = elapsed / blocks;
                self.interval = Some(match self.interval {
                    Some(old) => (old * 7 + sample * 3) / 10,
                    None => sample,
                });
                self.height_since = Some((height, at));
            }
            Some((seen, _)) if height == seen => {}
            // First reading, or the node went back (restored from a snapshot).
            _ => self.height_since = Some((height, at)),
        }
        self.last_good = Some(Box::new((at, snapshot)));
    }

    /// The observed time per block, if the height was seen advancing.
    pub fn block_interval(&self) -> Option<SignedDuration> {
        self.interval
    }

    /// How long the height may stand still before it is a stall.
    pub fn stall_threshold(&self) -> SignedDuration {
        match self.interval {
            Some(interval) => (interval * STALL_BLOCKS as i32).max(STALL_FLOOR),
            None => STALL_FLOOR,
        }
    }

    /// The last height seen, if any.
    pub fn height(&self) -> Option<u64> {
        self.last_good
            .as_ref()
            .map(|good| good.1.status.latest_block_height)
    }

    /// Since when the height stood still: when this console first saw it, or the block's own
    /// time when older (a node stalled before the console started) unless the node is
    /// block-syncing old blocks.
    fn standing_since(&self, snapshot: &Snapshot) -> Option<Timestamp> {
        let (_, seen) = self.height_since?;
        let block_time = snapshot
            .status
            .latest_block_time
            .filter(|_| !snapshot.status.catching_up);
        Some(match block_time {
            Some(block) if block < seen => block,
            _ => seen,
        })
    }

    /// The verdict at `now`, `top` being the highest height of its chain known elsewhere.
    pub fn verdict(&self, now: Timestamp, top: ChainTop) -> Verdict {
        let Some(last) = &self.last else {
            return Verdict::Pending;
        };
        if let Some(failure) = &last.failure {
            return Verdict::Unreachable {
                failure: failure.clone(),
            };
        }
        let Some(good) = &self.last_good else {
            return Verdict::Pending;
        };
        let snapshot = &good.1;
        let status = &snapshot.status;
        let height = status.latest_block_height;
        let threshold = self.stall_threshold();
        if let Some(since) = self.standing_since(snapshot)
            && now.duration_since(since) > threshold
        {
            return Verdict::Stalled {
                height,
                since,
                threshold_seconds: threshold.as_secs(),
            };
        }
        let own_lag = snapshot.lag.as_ref().ok();
        let max_peer = status
            .max_peer_block_height
            .or(own_lag.map(|l| l.max_peer_height))
            .unwrap_or(0);
        let fleet_behind = top.height.saturating_sub(height);
        if !status.caught_up() {
            let peers = snapshot.net.as_ref().ok().map(|n| n.n_peers);
            let behind = max_peer.max(top.height).checked_sub(height);
            return Verdict::CatchingUp {
                height,
                behind,
                one_peer: status.catching_up && peers.is_some_and(|p| p < BLOCK_SYNC_PEERS),
            };
        }
        if let Some(lag) = own_lag.filter(|l| l.lagging) {
            return Verdict::Lagging {
                height,
                behind: lag.lag,
                source: LagSource::LagStatus,
            };
        }
        if fleet_behind > LAG_BLOCKS {
            return Verdict::Lagging {
                height,
                behind: fleet_behind,
                source: top.source.unwrap_or(LagSource::Fleet),
            };
        }
        Verdict::InSync { height }
    }
}
