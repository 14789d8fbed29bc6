//! A node's detail as `describe` text: shared by `sei-console describe` and the console's `d`.
use jiff::Timestamp;

use super::console_actions::{self, Recorded};
use super::detail::{NodeDetail, SeedPeer};
use super::text::{age, drift_text, phase_text, plan_symbol, task_symbol};

/// A related resource that could not be read, and why (forbidden, or another API error), so
/// an empty section is never mistaken for none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    pub resource: &'static str,
    pub reason: String,
}

/// Why a section could not be read, if it could not.
fn unreadable<'a>(unavailable: &'a [Unavailable], resource: &str) -> Option<&'a str> {
    unavailable
        .iter()
        .find(|u| u.resource == resource)
        .map(|u| u.reason.as_str())
}

/// The node's recorded console actions, oldest first as stored (newest last, as Events read),
/// one line each (`12m ago alice (context prod) rollout image a -> b`, then the plan ID when
/// `with_plan`); an unreadable record is one line saying so; none is `none recorded`.
pub fn console_action_lines(d: &NodeDetail, now: Timestamp, with_plan: bool) -> Vec<String> {
    match &d.console_actions {
        None => vec!["none recorded".to_owned()],
        Some(Recorded::Unreadable(why)) => vec![format!("✖ unreadable: {why}")],
        Some(Recorded::Actions { actions, dropped }) => {
            let mut lines: Vec<String> = actions
                .iter()
                .map(|action| {
                    let text = console_actions::line(action, now);
                    match (&action.plan, with_plan) {
                        (Some(plan), true) => format!("{text} (plan {plan})"),
                        _ => text,
                    }
                })
                .collect();
            if actions.is_empty() && *dropped == 0 {
                lines.push("none recorded".to_owned());
            }
            if *dropped > 0 {
                lines.push(format!(
                    "✖ {dropped} more entr{} did not decode (left out)",
                    if *dropped == 1 { "y" } else { "ies" }
                ));
            }
            lines
        }
    }
}

/// The detail as human-readable text, in the node screen's order.
/// `spec.maintenance (sei-console does not know them: actions are refused)` for a node with
/// fields outside the embedded schema (`describe` and the node screen).
pub fn unknown_fields_line(d: &NodeDetail) -> Option<String> {
    (!d.unknown_fields.is_empty()).then(|| {
        format!(
            "{} (sei-console does not know them: actions are refused)",
            d.unknown_fields.join(", ")
        )
    })
}

pub fn to_text(d: &NodeDetail, unavailable: &[Unavailable], now: Timestamp) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(s.trim_end());
        out.push('\n');
    };
    let dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".to_owned());
    line(format!("Name:             {}", d.key.name));
    line(format!("Namespace:        {}", d.key.namespace));
    line(format!(
        "Mode:             {}",
        d.spec
            .mode
            .map_or("? (not exactly one mode set)", |m| m.as_str())
    ));
    line(format!("Chain:            {}", d.spec.chain_id));
    line(format!("Phase:            {}", phase_text(d.phase)));
    if let Some(unknown) = unknown_fields_line(d) {
        line(format!("Unknown fields:   {unknown}"));
    }
    line(format!("Image:            {}", d.spec.image));
    let drift = if d.drift.any() {
        format!(
            "{}{}",
            drift_text(d.drift),
            super::running::since_text(d.drift_since.as_ref(), now)
        )
    } else {
        "= in sync".to_owned()
    };
    line(format!(
        "Current image:    {}  {drift}",
        d.current_image
            .clone()
            .unwrap_or_else(|| "(not observed yet)".to_owned())
    ));
    line(format!(
        "Runs:             {}",
        super::running::runs_text(d.running.as_ref(), now)
    ));
    line(format!(
        "Sidecar image:    {}",
        d.spec
            .sidecar_image
            .clone()
            .unwrap_or_else(|| "(platform default)".to_owned())
    ));
    line(format!(
        "Current sidecar:  {}",
        dash(&d.current_sidecar_image)
    ));
    line(format!(
        "External address: {}",
        dash(&d.spec.external_address)
    ));
    line(format!(
        "Peers:            {}",
        if d.spec.peers.is_empty() {
            "-".to_owned()
        } else {
            d.spec.peers.join("; ")
        }
    ));
    let overrides: Vec<String> = d
        .spec
        .overrides
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    line(format!(
        "Overrides:        {}",
        if overrides.is_empty() {
            "-".to_owned()
        } else {
            overrides.join(" ")
        }
    ));
    line(format!(
        "Paused:           {}",
        if d.spec.paused {
            "yes (reconcile frozen)"
        } else {
            "no"
        }
    ));
    line(format!("Data volume:      {}", d.spec.data_volume));
    line(format!("Age:              {}", age(d.created, now)));
    match &d.seed_peer {
        Some(SeedPeer::Known { peer, source }) => {
            line(format!("Seed peer:        {peer} (from {source})"))
        }
        Some(SeedPeer::Unknown(why)) => line(format!("Seed peer:        {why}")),
        None => {}
    }
    if let Some((probe, route)) = super::probe::detail_lines(d, now, false) {
        line(format!("Outside probe:    {probe}"));
        if let Some(route) = route {
            line(format!("                  {route}"));
        }
    }
    line(String::new());
    line("Conditions:".to_owned());
    if d.conditions.is_empty() {
        line("  none".to_owned());
    }
    for c in &d.conditions {
        line(format!(
            "  {:<22} {:<8} {:<22} {:>6}  {}",
            c.kind,
            c.status,
            c.reason,
            age(c.since, now),
            c.message
        ));
    }
    line(String::new());
    match &d.plan {
        None => line("Plan:             steady state: no plan".to_owned()),
        Some(p) => {
            line(format!(
                "Plan:             {} {} {}/{} (target {}, on failure {}, id {})",
                plan_symbol(p.phase),
                p.phase,
                p.done(),
                p.tasks.len(),
                p.target_phase.map_or("-", |x| x.as_str()),
                p.failed_phase.map_or("-", |x| x.as_str()),
                if p.id.is_empty() { "-" } else { &p.id }
            ));
            if let Some(orphan) = &d.orphan {
                line(format!("  Orphaned:       {}", orphan.why));
                line(format!("  Resume it:      {}", orphan.resume));
            }
            for t in &p.tasks {
                let submitted = t
                    .submitted_at
                    .map_or("-".to_owned(), |s| format!("{} ago", age(Some(s), now)));
                line(format!(
                    "  {} {:<28} {:>5} {:>9} {:>13}  {}",
                    task_symbol(t.status, t.current),
                    t.kind,
                    format!("{}/{}", t.retries, t.max_retries),
                    submitted,
                    super::running::took_text(t.took, now),
                    t.error
                ));
            }
            if let Some(f) = &p.failed {
                line(format!(
                    "  Failed task:    {} ({}) after {}/{} retries: {}",
                    f.kind, f.id, f.retries, f.max_retries, f.error
                ));
            }
        }
    }
    line(String::new());
    line("StatefulSet and Pods:".to_owned());
    match (&d.statefulset, unreadable(unavailable, "statefulsets")) {
        (Some(s), _) => line(format!(
            "  StatefulSet {} ready {}/{} revision {} (update {})",
            s.name, s.ready, s.replicas, s.current_revision, s.update_revision
        )),
        (None, Some(why)) => line(format!("  StatefulSet: unknown, {why}")),
        (None, None) => line("  no StatefulSet".to_owned()),
    }
    if let Some(why) = unreadable(unavailable, "pods") {
        line(format!("  Pods: unknown, {why}"));
    }
    for p in &d.pods {
        let (ready, total) = p.ready_count();
        line(format!(
            "  Pod {} {} ready {ready}/{total} revision {}",
            p.name, p.phase, p.revision
        ));
        for c in &p.containers {
            line(format!(
                "    {} {} restarts {} {}",
                if c.ready { "✓" } else { "✗" },
                c.name,
                c.restarts,
                c.image
            ));
        }
    }
    line(String::new());
    line(format!(
        "Console actions ({}):",
        console_actions::ANNOTATION
    ));
    for text in console_action_lines(d, now, true) {
        line(format!("  {text}"));
    }
    line(String::new());
    line("Events:".to_owned());
    let unread_events: Vec<&Unavailable> = unavailable
        .iter()
        .filter(|u| u.resource.starts_with("events"))
        .collect();
    for u in &unread_events {
        line(format!("  ✖ {}: {}", u.resource, u.reason));
    }
    if d.events.is_empty() && unread_events.is_empty() {
        line("  none".to_owned());
    }
    for e in &d.events {
        let kind = if e.warning { "Warning" } else { "Normal" };
        let mark = if e.is_render_failure() {
            super::symbols::RENDER_FAILED
        } else if e.warning {
            super::symbols::WARNING
        } else {
            " "
        };
        line(format!(
            "  {mark} {kind:<7} {:<26} x{:<3} {:>6}  {}: {}",
            e.reason,
            e.count,
            age(e.last_seen, now),
            e.object,
            e.message
        ));
        // The fix, or that the platform config in use renders the node now.
        if e.is_render_failure()
            && let Some(now_line) = d
                .render_now
                .as_ref()
                .and_then(|verdict| super::text::render_event_line(verdict, e.last_seen, now))
        {
            line(format!("      {now_line}"));
        }
    }
    out
}
