//! A node's chain health, and the one judgement of it that every surface uses: the console's
//! fleet row and node screen, `get` (table, wide, JSON, `--filter`), `describe`, `doctor` and
//! the console's doctor all read [`NodeHealth::verdict`]. Pure: the clock is passed in.
//!
//! **One reading is enough.** A reading is judged alone ([`judge`]), at the time it was taken,
//! so the console (which reads a node every few seconds) and a one-shot command (which reads it
//! once) reach the same verdict from the same reading:
//! - **stalled** when its latest block is older than [`STALL_AFTER`] at the reading (the block
//!   time is the chain's own clock), unless the node is block-syncing from peers ahead of it
//!   (`catching_up` and a peer height more than one block above its own: old blocks are what a
//!   sync fetches);
//! - **lagging** when it is more than [`LAG_BLOCKS`] behind (its own `/lag_status` over its
//!   threshold, its block-sync peers, or the highest node of its chain in the fleet or the
//!   chain's reference RPC), a syncing node included;
//! - **catching up** when it is not caught up otherwise (with one block-sync peer: it may follow
//!   the chain, but blocksync never calls it caught up);
//! - **in sync** otherwise.
//!
//! **A failed reading is "unreachable", never "stalled"**, and one failed reading among good
//! ones does not flip a verdict: after a good reading, the verdict stays the one judged from it
//! until [`UNREACHABLE_AFTER`] reads in a row have failed, or the good reading is older than
//! [`STALE_AFTER`] (it is stale then: nothing recent to judge). A failure that is an answer
//! rather than a failed read (the API server says the node has no pod, or refuses the
//! port-forward) is unreachable at once. A one-shot command reads a node again, up to
//! [`UNREACHABLE_AFTER`] times in all, before it calls it unreachable, so it counts failures
//! as the console does. Every surface shows the age of the reading a verdict rests on
//! ([`NodeHealth::basis`]).
//!
//! One reading cannot tell a slow block-sync from a stuck one (both have old blocks and peers
//! ahead): that is "catching up" everywhere; the rollout's health gate (`gate`), which watches
//! the height over its soak, is what halts on a height that stops moving.
use jiff::{SignedDuration, Timestamp};
use serde::Serialize;

use super::rpc::{LagStatus, NetInfo, RpcFailure, Status};

/// A node whose latest block is older than this at a reading is stalled (Sei makes a block
/// every half second or so; 30 s is sixty blocks missed).
pub const STALL_AFTER: SignedDuration = SignedDuration::from_secs(30);
/// Blocks behind the highest height of its chain in the fleet (or the chain's reference) past
/// which a node is lagging: sei-tendermint's own default `lag-threshold`, so both sources agree.
pub const LAG_BLOCKS: u64 = 300;
/// Below this many peers blocksync never reports caught up (`internal/blocksync/pool.go`
/// `IsCaughtUp`: "Need at least 2 peers to be considered caught up").
pub const BLOCK_SYNC_PEERS: u32 = 2;
/// Failed reads in a row after which a node that answered before is unreachable (the console
/// reads a node on screen every 5 s: 10-15 s of silence; a one-shot command reads a failing
/// node this many times).
pub const UNREACHABLE_AFTER: u32 = 3;
/// A good reading older than this is stale: a failed read after it is unreachable at once.
/// Longer than the console's background sweep (every 60 s), so one failure of a node read in
/// the sweep does not flip it either.
pub const STALE_AFTER: SignedDuration = SignedDuration::from_secs(150);

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
    /// The highest height its own block-sync peers reported (`/status` `max_peer_block_height`
    /// or `/lag_status` `max_peer_height`), its `/lag_status` not saying it is lagging.
    Peers,
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

/// A failure that is an answer, not a failed read: the API server says the node has no pod,
/// or refuses the port-forward. Reading again changes nothing, so it is not waited out.
pub fn is_definitive(failure: &RpcFailure) -> bool {
    matches!(failure, RpcFailure::NoPod(_) | RpcFailure::Forbidden(_))
}

/// The verdict of one answered reading taken at `at`, `top` being the highest height of its
/// chain known elsewhere: the judgement of the module doc.
pub fn judge(snapshot: &Snapshot, at: Timestamp, top: ChainTop) -> Verdict {
    let status = &snapshot.status;
    let height = status.latest_block_height;
    let own_lag = snapshot.lag.as_ref().ok();
    let max_peer = status
        .max_peer_block_height
        .into_iter()
        .chain(own_lag.map(|l| l.max_peer_height))
        .max()
        .unwrap_or(0);
    // More than one block: a node following the chain sees its peers one block ahead at times.
    let syncing = status.catching_up && max_peer > height + 1;
    if !syncing
        && height > 0
        && let Some(block) = status.latest_block_time
        && at.duration_since(block) > STALL_AFTER
    {
        return Verdict::Stalled {
            height,
            since: block,
            threshold_seconds: STALL_AFTER.as_secs(),
        };
    }
    if let Some(lag) = own_lag.filter(|l| l.lagging) {
        return Verdict::Lagging {
            height,
            behind: lag.lag,
            source: LagSource::LagStatus,
        };
    }
    let fleet_behind = top.height.saturating_sub(height);
    if fleet_behind > LAG_BLOCKS {
        return Verdict::Lagging {
            height,
            behind: fleet_behind,
            source: top.source.unwrap_or(LagSource::Fleet),
        };
    }
    let peers_behind = max_peer.saturating_sub(height);
    if peers_behind > LAG_BLOCKS {
        return Verdict::Lagging {
            height,
            behind: peers_behind,
            source: LagSource::Peers,
        };
    }
    if !status.caught_up() {
        let peers = snapshot.net.as_ref().ok().map(|n| n.n_peers);
        return Verdict::CatchingUp {
            height,
            behind: max_peer.max(top.height).checked_sub(height),
            one_peer: status.catching_up && peers.is_some_and(|p| p < BLOCK_SYNC_PEERS),
        };
    }
    Verdict::InSync { height }
}

/// One node's readings over time: the last one, the last good one, the failed reads since,
/// and how its height moved (for the block interval shown).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeHealth {
    pub last: Option<LastRead>,
    /// The last reading that answered `/status` (kept while the RPC is unreachable); boxed, so
    /// a node never read costs a pointer.
    pub last_good: Option<Box<(Timestamp, Snapshot)>>,
    /// Failed reads in a row since the last good one.
    failures: u32,
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
                self.failures = 0;
                None
            }
            Err(failure) => {
                self.failures = self.failures.saturating_add(1);
                Some(failure)
            }
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

    /// The observed time per block, if the height was seen advancing (shown, not judged).
    pub fn block_interval(&self) -> Option<SignedDuration> {
        self.interval
    }

    /// Failed reads in a row since the last good one.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// The last height seen, if any.
    pub fn height(&self) -> Option<u64> {
        self.last_good
            .as_ref()
            .map(|good| good.1.status.latest_block_height)
    }

    /// The good reading the verdict at `now` is judged from while the last reads failed (not
    /// yet [`UNREACHABLE_AFTER`] of them, the good one not [`STALE_AFTER`] old, no definitive
    /// failure); `None` when the last read answered or the node is unreachable.
    fn held(&self, now: Timestamp) -> Option<(Timestamp, &Snapshot)> {
        let failure = self.last.as_ref()?.failure.as_ref()?;
        let (at, snapshot) = self.last_good.as_deref()?;
        (!is_definitive(failure)
            && self.failures < UNREACHABLE_AFTER
            && now.duration_since(*at) <= STALE_AFTER)
            .then_some((*at, snapshot))
    }

    /// When the reading the verdict at `now` rests on was taken, and whether reads failed
    /// since (the verdict is held over them): what every surface shows beside the verdict.
    pub fn basis(&self, now: Timestamp) -> Option<Basis> {
        let last = self.last.as_ref()?;
        Some(match self.held(now) {
            Some((at, _)) => Basis {
                at,
                failed_since: self.failures,
            },
            None => Basis {
                at: last.at,
                failed_since: 0,
            },
        })
    }

    /// The verdict at `now`, `top` being the highest height of its chain known elsewhere.
    pub fn verdict(&self, now: Timestamp, top: ChainTop) -> Verdict {
        let Some(last) = &self.last else {
            return Verdict::Pending;
        };
        if let Some(failure) = &last.failure {
            return match self.held(now) {
                Some((at, snapshot)) => judge(snapshot, at, top),
                None => Verdict::Unreachable {
                    failure: failure.clone(),
                },
            };
        }
        match self.last_good.as_deref() {
            Some((at, snapshot)) => judge(snapshot, *at, top),
            None => Verdict::Pending,
        }
    }
}

/// The reading a verdict rests on: when it was taken, and how many reads failed after it (the
/// verdict is held over them; 0 when it is the last read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Basis {
    pub at: Timestamp,
    pub failed_since: u32,
}
