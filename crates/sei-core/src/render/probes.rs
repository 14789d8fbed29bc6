//! Probes of the rendered containers and the fail-closed probe guards (upstream `probe_guard.go`).
use k8s_openapi::api::core::v1::{Container, HTTPGetAction, Probe, TCPSocketAction};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::{PORT_GRPC, PORT_P2P, PORT_RPC, RBAC_PROXY_PORT, RenderError};
use crate::platform::go_quote;

pub(super) fn http_probe(path: &str, port: i32) -> Probe {
    Probe {
        http_get: Some(HTTPGetAction {
            path: Some(path.into()),
            port: IntOrString::Int(port),
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub(super) fn tcp_probe(port: i32) -> Probe {
    Probe {
        tcp_socket: Some(TCPSocketAction {
            port: IntOrString::Int(port),
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub(super) fn timing(mut probe: Probe, initial: i32, period: i32, failure: i32) -> Probe {
    probe.initial_delay_seconds = (initial != 0).then_some(initial);
    probe.period_seconds = Some(period);
    probe.failure_threshold = Some(failure);
    probe
}

/// seid startup: `/v0/healthz` through the proxy port (a bypass path), 5/5/86400, all modes.
pub(super) fn seid_startup_probe() -> Probe {
    timing(http_probe("/v0/healthz", RBAC_PROXY_PORT), 5, 5, 86400)
}

/// seid readiness: `/lag_status` on 26657, or TCP 26656 for a seed (it binds no RPC).
pub(super) fn seid_readiness_probe(serves_rpc: bool) -> Probe {
    let probe = if serves_rpc {
        http_probe("/lag_status", PORT_RPC)
    } else {
        tcp_probe(PORT_P2P)
    };
    let mut probe = timing(probe, 30, 10, 3);
    probe.timeout_seconds = Some(5);
    probe
}

fn int_port(port: &IntOrString) -> i32 {
    // Named ports compare as 0, as upstream reads `IntVal`.
    match port {
        IntOrString::Int(p) => *p,
        IntOrString::String(_) => 0,
    }
}

fn targets_seid_rpc(probe: Option<&Probe>) -> bool {
    let Some(probe) = probe else { return false };
    let port = if let Some(http) = &probe.http_get {
        int_port(&http.port)
    } else if let Some(tcp) = &probe.tcp_socket {
        int_port(&tcp.port)
    } else {
        return false;
    };
    port == PORT_RPC || port == PORT_GRPC
}

/// Upstream `ValidateGatedSeidProbes`: no liveness probe, and no startup probe on 26657/9090 (a
/// held seid answers neither, so such a probe would let the kubelet kill the held pod).
pub fn validate_gated_seid_probes(c: &Container) -> Result<(), RenderError> {
    if c.liveness_probe.is_some() {
        return Err(RenderError::ProbeGuard(format!(
            "gated seid container {} must not carry a liveness probe",
            go_quote(&c.name)
        )));
    }
    if targets_seid_rpc(c.startup_probe.as_ref()) {
        return Err(RenderError::ProbeGuard(format!(
            "gated seid container {} startup probe must not target seid's RPC/gRPC port",
            go_quote(&c.name)
        )));
    }
    Ok(())
}

/// Upstream `ValidateSeedProbes`: on a seed, no readiness, liveness or startup probe (checked in
/// that order) may target 26657 or 9090. A no-op for other modes (`serves_rpc`).
pub fn validate_seed_probes(serves_rpc: bool, c: &Container) -> Result<(), RenderError> {
    if serves_rpc {
        return Ok(());
    }
    let probes = [
        ("readiness", c.readiness_probe.as_ref()),
        ("liveness", c.liveness_probe.as_ref()),
        ("startup", c.startup_probe.as_ref()),
    ];
    for (kind, probe) in probes {
        if targets_seid_rpc(probe) {
            return Err(RenderError::ProbeGuard(format!(
                "seed seid container {} {kind} probe must not target seid's RPC/gRPC port; seed mode binds neither",
                go_quote(&c.name)
            )));
        }
    }
    Ok(())
}
