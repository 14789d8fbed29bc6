//! The probe report as text for operators. Pure.
use std::fmt::Write;

use super::judge::Verdict;
use super::probe::ProbeReport;
use crate::actions::address::Host;

fn glyph(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Pass => "✓",
        Verdict::Fail => "✗",
        Verdict::Unknown => "?",
    }
}

fn ms(value: Option<f64>) -> String {
    value.map_or("-".to_owned(), |v| format!("{v} ms"))
}

pub fn to_text(report: &ProbeReport) -> String {
    let mut out = String::new();
    let e = &report.expected;
    let _ = writeln!(
        out,
        "Seed probe of {} (chain {})",
        report.target, e.chain_id
    );
    let origin = &report.origin;
    let place = if origin.in_cluster {
        "inside a pod: the cluster network's view, not an outside one"
    } else {
        "this machine, not a pod"
    };
    let resolved = match (&e.address.host, &origin.remote_address) {
        (Host::Name(_), Some(remote)) => format!(" (resolved to {remote})"),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "  dialled {}{resolved} from {} ({place})",
        e.address,
        origin.local_address.as_deref().unwrap_or("-"),
    );
    for check in &report.checks {
        let _ = writeln!(
            out,
            "  {} {:<15} {}",
            glyph(check.verdict),
            check.check.label(),
            check.detail
        );
    }
    let t = &report.timings;
    let _ = writeln!(
        out,
        "  timings: connect {} · secret connection {} · Handshake {} · NodeInfo {} · total {} ms",
        ms(t.connect_ms),
        ms(t.secret_connection_ms),
        ms(t.handshake_ms),
        ms(t.node_info_ms),
        t.total_ms
    );
    if let Some(info) = &report.observed.node_info {
        let _ = writeln!(
            out,
            "  seed: moniker {:?}, version {:?}, channels {}, protocols p2p {} / block {} / app {}",
            info.moniker,
            info.version,
            if info.channels.is_empty() {
                "-"
            } else {
                &info.channels
            },
            info.p2p_protocol,
            info.block_protocol,
            info.app_protocol
        );
    }
    let pex = &report.observed.pex_addresses;
    if !pex.is_empty() {
        let _ = writeln!(out, "  PEX addresses ({}):", pex.len());
        for address in pex {
            let _ = writeln!(out, "    {address}");
        }
    }
    let counts = &report.counts;
    if report.ok {
        let _ = writeln!(out, "result: OK, every check passed");
    } else {
        // Failed apart from not reached: one failed step leaves the checks after it unread.
        let mut parts = vec![format!("{} failed", counts.failed)];
        if counts.not_reached > 0 {
            parts.push(format!(
                "{} not reached (an earlier step failed)",
                counts.not_reached
            ));
        }
        if counts.undecided > 0 {
            parts.push(format!("{} undecided", counts.undecided));
        }
        let _ = writeln!(
            out,
            "result: FAILED, of {} checks: {}, {} passed",
            report.checks.len(),
            parts.join(", "),
            counts.passed
        );
    }
    out
}
