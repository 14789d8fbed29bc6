//! Integration tests against the real local control plane (etcd, kube-apiserver,
//! kube-controller-manager, kube-scheduler, kwok). One test binary, so all tests share one
//! control plane; see `tests/common/mod.rs` for how it is found or started.

#[path = "../common/mod.rs"]
mod common;
#[path = "../pty/mod.rs"]
mod pty;
#[path = "../tendermint_net/mod.rs"]
mod tendermint_net;

// A `mod` line for every other file of this directory (written by `build.rs`).
include!(concat!(env!("OUT_DIR"), "/integration_tests.rs"));
