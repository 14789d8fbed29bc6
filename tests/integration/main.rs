//! Integration tests against the real local control plane (etcd, kube-apiserver,
//! kube-controller-manager, kube-scheduler, kwok). One test binary, so all tests share one
//! control plane; see `tests/common/mod.rs` for how it is found or started.

#[path = "../common/mod.rs"]
mod common;
#[path = "../pty/mod.rs"]
mod pty;
#[path = "../tendermint_net/mod.rs"]
mod tendermint_net;

mod action_annotation;
mod action_safety;
mod address_cli;
mod address_e2e;
mod certificate_identity;
mod chain_health;
mod chain_health_reference;
mod console;
mod console_actions;
mod console_probe;
mod control_plane;
mod crd_validation;
mod demo_fleet;
mod demo_script;
mod describe_render;
mod doctor;
mod events;
mod exec;
mod handoff;
mod logs_cli;
mod logs_tui;
mod multi_cluster;
mod multi_cluster_console;
mod multi_cluster_rollout;
mod pause;
mod peers;
mod platform_sidecar;
mod port_forward;
mod preview_statefulset;
mod pty_console;
mod real_seictl;
mod render_dry_run;
mod resilience;
mod restart;
mod rollout_cli;
mod rollout_e2e;
mod rollout_health_gate;
mod rollout_waves;
mod safety;
mod seed_cli;
mod seed_e2e;
mod seed_peer;
mod seed_probe;
mod seed_readiness;
mod seinode_workload;
mod sidecar_standins;
mod statefulset_rollout;
mod verdict;
