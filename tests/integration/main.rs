//! Integration tests against the real local control plane (etcd, kube-apiserver,
//! kube-controller-manager, kube-scheduler, kwok). One test binary, so all tests share one
//! control plane; see `common/mod.rs` for how it is found or started. Each file of this folder
//! is a module declared below (a test fails when one is missing); `common/` and `pty/` are the
//! harness.
mod common;
mod pty;

mod action_annotation;
mod action_safety;
mod address_cli;
mod address_e2e;
mod address_live;
mod certificate_identity;
mod chain_health;
mod chain_health_reference;
mod chain_verdicts;
mod console;
mod console_actions;
mod console_probe;
mod control_plane;
mod crash_resume;
mod crash_resume_actions;
mod crd_skew;
mod crd_skew_console;
mod crd_validation;
mod demo_fleet;
mod demo_script;
mod describe_render;
mod doctor;
mod events;
mod exec;
mod get_conventions;
mod handoff;
mod image_refs;
mod kubectl_plugin;
mod logs_cli;
mod logs_triage;
mod logs_tui;
mod multi_cluster;
mod multi_cluster_console;
mod multi_cluster_rollout;
mod names;
mod notify_webhook;
mod orphans;
mod pause;
mod peers;
mod platform_sidecar;
mod pod_warning;
mod port_forward;
mod preview_runs;
mod preview_statefulset;
mod pty_console;
mod pty_copy;
mod pty_logs;
mod pty_plugins;
mod real_seictl;
mod registry_digest;
mod render_dry_run;
mod resilience;
mod restart;
mod rollout_cli;
mod rollout_console;
mod rollout_control;
mod rollout_control_live;
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
mod user_agents;
mod verdict;

/// Every file of this folder is a module of this binary (a file without its `mod` line above
/// would never run). Runs without the control plane.
#[test]
fn every_file_of_the_folder_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/integration");
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("main.rs");
    for entry in std::fs::read_dir(&dir).expect("the folder") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let stem = path.file_stem().and_then(|s| s.to_str()).expect("a name");
        if stem == "main" {
            continue;
        }
        assert!(
            main.lines().any(|line| line == format!("mod {stem};")),
            "{}: no `mod {stem};` line in tests/integration/main.rs",
            path.display()
        );
    }
}
