//! `sei-console describe NODE`: the node screen as text, or as JSON/YAML.
use std::io::Write;

use clap::{Args, ValueEnum};
use jiff::Timestamp;
use serde_json::{Value, json};

use super::fetch::Unavailable;
use super::{CliError, GlobalArgs, fetch};
use crate::fleet::detail::{NodeDetail, SeedPeer};
use crate::fleet::store::ObjectKey;
use crate::fleet::text::{age, drift_text, phase_text, plan_symbol, task_symbol};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum DescribeOutput {
    #[default]
    Text,
    Json,
    Yaml,
}

/// Arguments of `describe`.
#[derive(Debug, Clone, Args)]
pub struct DescribeArgs {
    /// Name of the SeiNode.
    pub node: String,
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = DescribeOutput::Text)]
    pub output: DescribeOutput,
}

fn ts(t: Option<Timestamp>) -> Value {
    t.map_or(Value::Null, |t| Value::String(t.to_string()))
}

/// Why a section could not be read, if it could not.
fn unreadable<'a>(unavailable: &'a [Unavailable], resource: &str) -> Option<&'a str> {
    unavailable
        .iter()
        .find(|u| u.resource == resource)
        .map(|u| u.reason.as_str())
}

/// The detail as JSON (field names follow the CRD's camelCase). `unavailable` lists the
/// related resources that could not be read, so an empty section is never mistaken for none.
pub fn to_json(d: &NodeDetail, unavailable: &[Unavailable]) -> Value {
    json!({
        "namespace": d.key.namespace.as_ref(),
        "name": d.key.name.as_ref(),
        "spec": {
            "mode": d.spec.mode.map(|m| m.as_str()),
            "chainId": d.spec.chain_id,
            "image": d.spec.image,
            "sidecarImage": d.spec.sidecar_image,
            "externalAddress": d.spec.external_address,
            "peers": d.spec.peers,
            "overrides": d.spec.overrides.iter().cloned().collect::<std::collections::BTreeMap<_, _>>(),
            "paused": d.spec.paused,
            "dataVolume": d.spec.data_volume,
        },
        "phase": d.phase.map(|p| p.as_str()),
        "currentImage": d.current_image,
        "currentSidecarImage": d.current_sidecar_image,
        "drift": {"image": d.drift.image, "sidecar": d.drift.sidecar},
        "conditions": d.conditions.iter().map(|c| json!({
            "type": c.kind, "status": c.status, "reason": c.reason, "message": c.message,
            "lastTransitionTime": ts(c.since),
        })).collect::<Vec<_>>(),
        "plan": d.plan.as_ref().map(|p| json!({
            "id": p.id,
            "phase": p.phase.as_str(),
            "done": p.done(),
            "total": p.tasks.len(),
            "targetPhase": p.target_phase.map(|x| x.as_str()),
            "failedPhase": p.failed_phase.map(|x| x.as_str()),
            "tasks": p.tasks.iter().map(|t| json!({
                "type": t.kind, "status": t.status.as_str(), "retryCount": t.retries,
                "maxRetries": t.max_retries, "submittedAt": ts(t.submitted_at), "error": t.error,
            })).collect::<Vec<_>>(),
            "failedTask": p.failed.as_ref().map(|f| json!({
                "index": f.index, "type": f.kind, "id": f.id, "error": f.error,
                "retryCount": f.retries, "maxRetries": f.max_retries,
            })),
        })),
        "events": d.events.iter().map(|e| json!({
            "type": if e.warning { "Warning" } else { "Normal" }, "reason": e.reason,
            "message": e.message, "count": e.count, "lastSeen": ts(e.last_seen), "object": e.object,
        })).collect::<Vec<_>>(),
        "statefulSet": d.statefulset.as_ref().map(|s| json!({
            "name": s.name, "replicas": s.replicas, "ready": s.ready,
            "currentRevision": s.current_revision, "updateRevision": s.update_revision,
        })),
        "pods": d.pods.iter().map(|p| json!({
            "name": p.name, "phase": p.phase, "revision": p.revision,
            "containers": p.containers.iter().map(|c| json!({
                "name": c.name, "image": c.image, "ready": c.ready, "restarts": c.restarts,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "seedPeer": match &d.seed_peer {
            None => Value::Null,
            Some(SeedPeer::Known { peer, source }) => json!({"peer": peer, "source": source}),
            Some(SeedPeer::Unknown(why)) => json!({"peer": null, "reason": why}),
        },
        "created": ts(d.created),
        "unavailable": unavailable.iter().map(|u| json!({
            "resource": u.resource, "reason": u.reason,
        })).collect::<Vec<_>>(),
    })
}

/// The detail as human-readable text, in the node screen's order.
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
    line(format!("Image:            {}", d.spec.image));
    let drift = if d.drift.any() {
        drift_text(d.drift)
    } else {
        "= in sync"
    };
    line(format!(
        "Current image:    {}  {drift}",
        d.current_image
            .clone()
            .unwrap_or_else(|| "(not observed yet)".to_owned())
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
            for t in &p.tasks {
                let submitted = t
                    .submitted_at
                    .map_or("-".to_owned(), |s| format!("{} ago", age(Some(s), now)));
                line(format!(
                    "  {} {:<28} {:>5} {:>9}  {}",
                    task_symbol(t.status, t.current),
                    t.kind,
                    format!("{}/{}", t.retries, t.max_retries),
                    submitted,
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
            "✖"
        } else if e.warning {
            "⚠"
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
    }
    out
}

pub async fn run(global: &GlobalArgs, args: &DescribeArgs) -> Result<(), CliError> {
    let conn = fetch::connection(global).await?;
    let sidecar = super::platform_image::resolve_default_sidecar_image(&conn.client).await?;
    let namespace = global
        .namespace
        .clone()
        .unwrap_or_else(|| conn.default_namespace.clone());
    let key = ObjectKey::new(namespace, args.node.clone());
    let fetched = fetch::node(&conn, &key, sidecar.clone()).await?;
    fetch::report_skipped(&fetched.fleet, args.output != DescribeOutput::Text);
    let detail = NodeDetail::build(&fetched.fleet, &key, sidecar.as_deref())
        .ok_or_else(|| CliError::BadInput(format!("SeiNode {key} not found")))?;
    let out = match args.output {
        DescribeOutput::Text => to_text(&detail, &fetched.unavailable, Timestamp::now()),
        DescribeOutput::Json => {
            let mut text = serde_json::to_string_pretty(&to_json(&detail, &fetched.unavailable))
                .map_err(|e| CliError::Failed(e.to_string()))?;
            text.push('\n');
            text
        }
        DescribeOutput::Yaml => serde_yaml_ng::to_string(&to_json(&detail, &fetched.unavailable))
            .map_err(|e| CliError::Failed(e.to_string()))?,
    };
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| CliError::Failed(format!("cannot write output: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::NodeMode;
    use crate::fleet::store::Delta;
    use crate::fleet::{Fleet, FleetDelta, sample};

    fn detail() -> NodeDetail {
        let mut fleet = Fleet::new(None);
        let node = sample::running(sample::node("sei", "rpc-0", NodeMode::Full, 600));
        fleet.apply(FleetDelta::Node(Delta::applied(node)));
        NodeDetail::build(&fleet, &ObjectKey::new("sei", "rpc-0"), None).expect("detail")
    }

    fn forbidden(resource: &'static str) -> Unavailable {
        Unavailable {
            resource,
            reason: format!("forbidden: cannot list {resource}: denied"),
        }
    }

    #[test]
    fn readable_but_empty_sections_say_none() {
        let text = to_text(&detail(), &[], sample::now());
        assert!(text.contains("  no StatefulSet\n"), "{text}");
        assert!(text.contains("Events:\n  none\n"), "{text}");
        assert_eq!(to_json(&detail(), &[])["unavailable"], json!([]));
    }

    #[test]
    fn forbidden_sections_are_reported_not_shown_as_empty() {
        let unavailable = [
            forbidden("statefulsets"),
            forbidden("pods"),
            forbidden("events (StatefulSet)"),
        ];
        let text = to_text(&detail(), &unavailable, sample::now());
        assert!(!text.contains("no StatefulSet"), "{text}");
        assert!(!text.contains("Events:\n  none"), "{text}");
        assert!(
            text.contains("  StatefulSet: unknown, forbidden: cannot list statefulsets: denied"),
            "{text}"
        );
        assert!(
            text.contains("  Pods: unknown, forbidden: cannot list pods"),
            "{text}"
        );
        assert!(
            text.contains("  ✖ events (StatefulSet): forbidden: cannot list events (StatefulSet)"),
            "{text}"
        );
        let json = to_json(&detail(), &unavailable);
        assert_eq!(json["unavailable"][0]["resource"], "statefulsets");
        assert_eq!(json["unavailable"].as_array().map(Vec::len), Some(3));
    }
}
