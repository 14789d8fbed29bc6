//! sei-adapters: the adapters behind sei-ops's ports. `kube` (kube-rs: client, watches,
//! `ClusterApi`, access reviews, logs, read-only guard), `sidecar` (the sidecar's HTTP API through
//! the pod proxy, a port-forward or directly), `p2p` (the seed probe's P2P handshake), `rpc`
//! (node and reference RPC), `registry` (image tags to digests) and `webhook` (the POSTs of
//! `[notify]`).
//!
//! They implement the ports and feed the fleet store; they never know the console (`sei-tui`) or
//! the commands (`sei-console`).
pub mod kube;
pub mod p2p;
pub mod registry;
pub mod rpc;
pub mod sidecar;
pub mod webhook;
pub mod wiring;

// The lower crates' modules under their own names, so a path reads `crate::api::…` in every crate.
use sei_core::{api, chain, config, fleet, limits, platform};
use sei_ops::{actions, executor, ops, ports, tasks};
