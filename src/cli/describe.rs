//! `sei-console describe NODE`: the node screen as text, or as JSON/YAML.
//!
//! It shows spec, conditions, the plan timeline, events (the node's, its StatefulSet's and its
//! pod's), StatefulSet and Pods, a seed's peer string, the console-action record and chain health
//! (its RPC read once; JSON `chainHealth`). A related list it could not read (forbidden or failed)
//! is named instead of shown empty. With several `--context`, the node of each cluster that has it
//! (a `Context:` line; a JSON list with `context`). A missing SeiNode exits 1, as kubectl does.
use std::io::Write;

use clap::{Args, ValueEnum};
use jiff::Timestamp;
use serde_json::{Value, json};

use super::{CliError, GlobalArgs, fetch};
pub use crate::fleet::describe::{Unavailable, to_text};
use crate::fleet::detail::{NodeDetail, SeedPeer};
use crate::fleet::store::ObjectKey;
use crate::fleet::text::render_event_line;

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

/// The detail as JSON (field names follow the CRD's camelCase). `unavailable` lists the
/// related resources that could not be read, so an empty section is never mistaken for none.
/// The record as stored (`null`: none), or `{"unreadable": why}`.
fn console_actions_json(d: &NodeDetail) -> Value {
    use crate::fleet::console_actions::Recorded;
    match &d.console_actions {
        None => Value::Null,
        Some(Recorded::Actions { actions, dropped }) => {
            json!({"actions": actions, "undecodable": dropped})
        }
        Some(Recorded::Unreadable(why)) => json!({"unreadable": why}),
    }
}

pub fn to_json(d: &NodeDetail, unavailable: &[Unavailable], now: Timestamp) -> Value {
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
        "running": d.running.as_ref().map(|r| json!({
            "image": r.image, "imageID": r.image_id, "since": ts(r.since),
        })),
        "drift": {
            "image": d.drift.image, "sidecar": d.drift.sidecar,
            "since": d.drift_since.as_ref().map(|s| json!({"at": ts(Some(s.at)), "source": s.source})),
        },
        "conditions": d.conditions.iter().map(|c| json!({
            "type": c.kind, "status": c.status, "reason": c.reason, "message": c.message,
            "lastTransitionTime": ts(c.since),
        })).collect::<Vec<_>>(),
        "orphaned": d.orphan.as_ref().map(|o| json!({"why": o.why, "resume": o.resume})),
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
                "tookSeconds": match t.took {
                    crate::fleet::running::TaskTook::Took(d) => Some(d.as_secs()),
                    _ => None,
                },
            })).collect::<Vec<_>>(),
            "failedTask": p.failed.as_ref().map(|f| json!({
                "index": f.index, "type": f.kind, "id": f.id, "error": f.error,
                "retryCount": f.retries, "maxRetries": f.max_retries,
            })),
        })),
        "consoleActions": console_actions_json(d),
        "events": d.events.iter().map(|e| {
            let mut event = json!({
                "type": if e.warning { "Warning" } else { "Normal" }, "reason": e.reason,
                "message": e.message, "count": e.count, "lastSeen": ts(e.last_seen),
                "object": e.object,
            });
            // A render failure: what it means with the platform config in use now.
            if let (true, Some(verdict), Value::Object(map)) =
                (e.is_render_failure(), d.render_now.as_ref(), &mut event)
            {
                map.insert("renderCheck".into(), json!({
                    "verdict": verdict.verdict(),
                    "line": render_event_line(verdict, e.last_seen, now),
                }));
            }
            event
        }).collect::<Vec<_>>(),
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

pub async fn run(global: &GlobalArgs, args: &DescribeArgs) -> Result<(), CliError> {
    let contexts = fetch::contexts(global);
    if contexts.len() == 1 {
        let out = describe_in(global, args, None).await?;
        return write(&out.text(args.output));
    }
    // Several contexts: the node as each cluster has it (a name is per cluster); a cluster
    // without it or unreachable is named on stderr.
    let reads = contexts
        .iter()
        .map(|context| describe_in(global, args, context.as_deref()));
    let mut found = Vec::new();
    for (context, read) in contexts.iter().zip(futures::future::join_all(reads).await) {
        match read {
            Ok(described) => found.push(described),
            Err(err) => eprintln!(
                "error: context {}: {err}",
                context.as_deref().unwrap_or_default()
            ),
        }
    }
    if found.is_empty() {
        return Err(CliError::Failed(format!(
            "SeiNode {} not found in any of the contexts {}",
            args.node,
            global.context.join(", ")
        )));
    }
    let out = match args.output {
        DescribeOutput::Text => found
            .iter()
            .map(|d| format!("Context:  {}\n{}", d.context, d.text(DescribeOutput::Text)))
            .collect::<Vec<_>>()
            .join("\n"),
        DescribeOutput::Json => {
            let items: Vec<Value> = found.into_iter().map(|d| d.json).collect();
            let mut text = serde_json::to_string_pretty(&items)
                .map_err(|e| CliError::Failed(e.to_string()))?;
            text.push('\n');
            text
        }
        DescribeOutput::Yaml => {
            let items: Vec<Value> = found.into_iter().map(|d| d.json).collect();
            serde_yaml_ng::to_string(&items).map_err(|e| CliError::Failed(e.to_string()))?
        }
    };
    write(&out)
}

fn write(out: &str) -> Result<(), CliError> {
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| CliError::Failed(format!("cannot write output: {e}")))
}

/// One cluster's description of the node: its text and its JSON (with `context`).
struct Described {
    context: String,
    text: String,
    json: Value,
}

impl Described {
    fn text(&self, output: DescribeOutput) -> String {
        match output {
            DescribeOutput::Text => self.text.clone(),
            DescribeOutput::Json => {
                let mut text = serde_json::to_string_pretty(&self.json).unwrap_or_default();
                text.push('\n');
                text
            }
            DescribeOutput::Yaml => serde_yaml_ng::to_string(&self.json).unwrap_or_default(),
        }
    }
}

async fn describe_in(
    global: &GlobalArgs,
    args: &DescribeArgs,
    context: Option<&str>,
) -> Result<Described, CliError> {
    let conn = fetch::connection_to(global, context).await?;
    let sidecar = super::platform_image::resolve_default_sidecar_image(&conn.client).await?;
    let namespace = global
        .namespace
        .clone()
        .unwrap_or_else(|| conn.default_namespace.clone());
    let key = ObjectKey::new(namespace, args.node.clone());
    let mut fetched = fetch::node(&conn, &key, sidecar.clone()).await?;
    // A render failure is judged against the platform config in use now.
    fetched
        .fleet
        .set_platform_in_use(super::platform_image::platform_in_use(&conn.client).await?);
    fetch::report_skipped(&fetched.fleet, args.output != DescribeOutput::Text);
    let key = key.in_context(fetched.fleet.context());
    // Its RPC read once (nothing for a seed: it serves none).
    super::chain_health::read_into(&conn, &mut fetched.fleet, Some(&key)).await;
    // A seed's health is its P2P probe, made once (nothing for other modes).
    super::chain_health::probe_seeds_into(&conn, &mut fetched.fleet, Some(&key)).await;
    let detail = NodeDetail::build(&fetched.fleet, &key, sidecar.as_deref())
        // kubectl exits 1 for a missing object (NotFound), 2 only for bad usage.
        .ok_or_else(|| CliError::Failed(format!("SeiNode {key} not found")))?;
    let now = Timestamp::now();
    let references = match fetched.fleet.row(&key) {
        Some(row) if fetched.fleet.health(&key).is_some() => {
            let chain = std::iter::once(row.chain_id.as_str());
            super::chain_health::references(global.config.as_deref(), chain).await
        }
        _ => Default::default(),
    };
    let (health_text, health_json) = chain_health(&fetched.fleet, &key, &references, now);
    let mut json = to_json(&detail, &fetched.unavailable, now);
    // The cluster's CRD against the embedded one: what the node's actions face.
    let crd =
        crate::ops::skew::read_crd(&crate::kube::cluster::KubeCluster::new(conn.client.clone()))
            .await;
    if let Value::Object(map) = &mut json {
        map.insert("context".into(), Value::String(conn.context.clone()));
        map.insert("crd".into(), super::version::crd_json(&crd));
        if !detail.unknown_fields.is_empty() {
            map.insert("unknownFields".into(), json!(detail.unknown_fields));
        }
        map.insert("chainHealth".into(), health_json);
        let probe = fetched
            .fleet
            .seed_probe(&key)
            .and_then(|p| p.last.as_ref())
            .map(crate::fleet::probe::SeedProbeJson::of)
            .and_then(|json| serde_json::to_value(json).ok());
        map.insert("seedProbe".into(), probe.unwrap_or(Value::Null));
    }
    let mut text = to_text(&detail, &fetched.unavailable, now);
    text.push('\n');
    text.push_str(&health_text);
    text.push_str(&format!("\nCRD:              {}\n", crd.line()));
    Ok(Described {
        context: conn.context.clone(),
        text,
        json,
    })
}

/// The node's chain-health section and JSON (`null` for a node not read: a seed).
fn chain_health(
    fleet: &crate::fleet::Fleet,
    key: &ObjectKey,
    references: &crate::chain::References,
    now: Timestamp,
) -> (String, Value) {
    use crate::fleet::detail::NodeIdLookup;
    use crate::fleet::health::{Against, HealthJson, describe_section};
    let tops = crate::fleet::chain_tops(std::iter::once(fleet), references);
    let chain = fleet
        .row(key)
        .map(|r| r.chain_id.as_str())
        .unwrap_or_default();
    let against = Against {
        top: tops.get(chain).copied().unwrap_or_default(),
        reference: references.get(chain),
    };
    let verdict = fleet.health_verdict(key, now, &tops);
    let health = fleet.health(key);
    let known = match fleet.node_ids.get(key) {
        Some(NodeIdLookup::Found { node_id, .. }) => Some(node_id.as_str()),
        _ => None,
    };
    let text = describe_section(health, verdict.as_ref(), known, now, against);
    let json = verdict
        .map(|verdict| HealthJson::of(health, &verdict, known, now).against(against))
        .and_then(|json| serde_json::to_value(json).ok())
        .unwrap_or(Value::Null);
    (text, json)
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
        assert_eq!(
            to_json(&detail(), &[], sample::now())["unavailable"],
            json!([])
        );
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
        let json = to_json(&detail(), &unavailable, sample::now());
        assert_eq!(json["unavailable"][0]["resource"], "statefulsets");
        assert_eq!(json["unavailable"].as_array().map(Vec::len), Some(3));
    }

    fn detail_with_record(value: &str) -> NodeDetail {
        let mut fleet = Fleet::new(None);
        let mut node = sample::running(sample::node("sei", "rpc-0", NodeMode::Full, 600));
        node.metadata.annotations = Some(std::collections::BTreeMap::from([(
            crate::fleet::console_actions::ANNOTATION.to_owned(),
            value.to_owned(),
        )]));
        fleet.apply(FleetDelta::Node(Delta::applied(node)));
        NodeDetail::build(&fleet, &ObjectKey::new("sei", "rpc-0"), None).expect("detail")
    }

    #[test]
    fn console_actions_are_listed_newest_last_with_their_plan() {
        use crate::fleet::console_actions::{ConsoleAction, append};
        let ago = |s: i64| {
            sample::now()
                .checked_sub(jiff::SignedDuration::from_secs(s))
                .expect("time")
        };
        let first = ConsoleAction {
            at: ago(7200),
            by: "bob (context prod)".into(),
            action: "address".into(),
            detail: "external address (unset) -> 203.0.113.7:26656".into(),
            plan: None,
        };
        let second = ConsoleAction {
            at: ago(720),
            by: "alice (context prod)".into(),
            action: "rollout".into(),
            detail: "image a:v1 -> a:v2".into(),
            plan: Some("p-1".into()),
        };
        let value = append(Some(&append(None, &first).value), &second).value;
        let d = detail_with_record(&value);
        let text = to_text(&d, &[], sample::now());
        assert!(
            text.contains(
                "Console actions (sei.io/console-actions):\n  \
                 2h ago bob (context prod) address external address (unset) -> 203.0.113.7:26656\n  \
                 12m ago alice (context prod) rollout image a:v1 -> a:v2 (plan p-1)\n\nEvents:"
            ),
            "{text}"
        );
        let json = to_json(&d, &[], sample::now());
        assert_eq!(json["consoleActions"]["actions"][1]["plan"], "p-1");
        assert_eq!(
            json["consoleActions"]["actions"][1]["by"],
            "alice (context prod)"
        );
    }

    #[test]
    fn an_unreadable_record_is_one_line_and_none_says_none() {
        let text = to_text(&detail_with_record("{garbage"), &[], sample::now());
        assert!(
            text.contains(
                "Console actions (sei.io/console-actions):\n  ✖ unreadable: not a console action list: '{garbage'\n\n"
            ),
            "{text}"
        );
        let none = to_text(&detail(), &[], sample::now());
        assert!(
            none.contains("Console actions (sei.io/console-actions):\n  none recorded\n"),
            "{none}"
        );
        assert_eq!(
            to_json(&detail(), &[], sample::now())["consoleActions"],
            json!(null)
        );
    }
}
