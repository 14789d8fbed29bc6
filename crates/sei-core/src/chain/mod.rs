//! Chain health of the nodes, pure: typed readings of a node's sei-tendermint RPC (`rpc`:
//! `/status`, `/lag_status`, `/net_info`, and why a read failed) and the verdict over
//! successive readings (`health`: in sync, catching up, lagging, stalled, unreachable — the
//! one judgement every surface uses, each reading judged alone), a chain's
//! reference RPC from the config file (`reference`), and a
//! rollout wave's health gate over one node's readings (`gate`). The
//! transport is a port (`ports::node_rpc`), the screens' words are in `fleet::health`.
pub mod gate;
pub mod health;
pub mod reference;
pub mod rpc;

#[cfg(test)]
mod tests;

pub use health::{
    Basis, ChainTop, Concern, LagSource, LastRead, NodeHealth, Reading, Snapshot, State, Verdict,
    judge,
};
pub use reference::{Reference, ReferenceRead, ReferenceUrl, References};
pub use rpc::{LagStatus, NetInfo, RpcAnswer, RpcFailure, Status};
