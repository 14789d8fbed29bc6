//! The doctor's checks of what runs a node: its pods (crash loops, image pulls, unschedulable),
//! its PVCs, and the Warning events of its StatefulSet and pods that nothing else explains.
use k8s_openapi::api::core::v1::{Event, Pod};

use super::node::{NodeCtx, one_line};
use super::render::is_recent;
use super::{Evidence, Finding, FindingClass, Fix, FixAction, Severity, scope_args};
use crate::fleet::events::{is_warning, last_seen};

/// Container waiting reasons of a failed image pull.
const PULL_REASONS: [&str; 3] = ["ImagePullBackOff", "ErrImagePull", "InvalidImageName"];

pub(super) fn check(at: &NodeCtx<'_, '_>, out: &mut Vec<Finding>) {
    let before = out.len();
    for pod in &at.snapshot.pods {
        pod_state(at, pod, out);
    }
    pvcs(at, out);
    let explained: Vec<FindingClass> = out[before..].iter().map(|f| f.class).collect();
    warnings(at, &explained, out);
}

fn pod_name(pod: &Pod) -> &str {
    pod.metadata.name.as_deref().unwrap_or("?")
}

/// The newest Warning event about `kind/name` with one of `reasons`, as evidence.
fn event_evidence(at: &NodeCtx<'_, '_>, kind: &str, name: &str, reasons: &[&str]) -> Vec<Evidence> {
    at.snapshot
        .events
        .iter()
        .filter(|e| is_warning(e) && about(e, kind, name))
        .filter(|e| reasons.contains(&e.reason.as_deref().unwrap_or("")))
        .max_by_key(|e| last_seen(e))
        .map(|e| evidence_of(kind, name, e))
        .into_iter()
        .collect()
}

fn about(event: &Event, kind: &str, name: &str) -> bool {
    event.involved_object.kind.as_deref() == Some(kind)
        && event.involved_object.name.as_deref() == Some(name)
}

fn evidence_of(kind: &str, name: &str, event: &Event) -> Evidence {
    let count = event
        .count
        .filter(|c| *c > 1)
        .map_or(String::new(), |c| format!(" ×{c}"));
    Evidence::new(
        format!(
            "Event {kind}/{name} {}",
            event.reason.as_deref().unwrap_or("")
        ),
        format!(
            "{}{count}",
            one_line(event.message.as_deref().unwrap_or(""))
        ),
    )
    .at(last_seen(event))
}

fn pod_state(at: &NodeCtx<'_, '_>, pod: &Pod, out: &mut Vec<Finding>) {
    let name = pod_name(pod);
    let Some(status) = pod.status.as_ref() else {
        return;
    };
    let kubectl = format!(
        "kubectl{} describe pod {name}",
        scope_args(&at.cluster.context, at.namespace())
    );
    for container in status.container_statuses.iter().flatten() {
        let Some(waiting) = container.state.as_ref().and_then(|s| s.waiting.as_ref()) else {
            continue;
        };
        let reason = waiting.reason.as_deref().unwrap_or("");
        let message = one_line(waiting.message.as_deref().unwrap_or(""));
        let field = format!("Pod {name} container {}", container.name);
        if reason == "CrashLoopBackOff" {
            let mut evidence = vec![Evidence::new(
                field,
                format!(
                    "waiting: CrashLoopBackOff, {} restarts; {message}",
                    container.restart_count
                ),
            )];
            evidence.extend(event_evidence(at, "Pod", name, &["BackOff"]));
            out.push(super::Finding {
                object: at.object("Pod", name),
                ..at.finding(
                    Severity::Critical,
                    FindingClass::PodCrashLoop,
                    format!("container {} of {name} is crash-looping", container.name),
                    evidence,
                    Fix::says("read the last run's log for why it exits").command(format!(
                        "sei-console logs {}{} -c {} --previous",
                        at.name(),
                        at.scope(),
                        container.name
                    )),
                )
            });
        } else if PULL_REASONS.contains(&reason) {
            let image = pod
                .spec
                .as_ref()
                .and_then(|s| s.containers.iter().find(|c| c.name == container.name))
                .and_then(|c| c.image.clone())
                .unwrap_or_else(|| container.image.clone());
            let mut evidence = vec![Evidence::new(
                field,
                format!("waiting: {reason} for {image}; {message}"),
            )];
            evidence.extend(event_evidence(at, "Pod", name, &["Failed", "BackOff"]));
            let running = at
                .node
                .status
                .as_ref()
                .map(|s| s.current_image())
                .filter(|i| !i.is_empty() && *i != image);
            let fix = match running {
                // The image it ran before still exists: rolling back brings the node up.
                Some(previous) if container.name == "seid" => Fix::says(format!(
                    "the image {image} cannot be pulled: fix the reference or the registry's \
                     credentials, or roll the node back to {previous}"
                ))
                .command(at.rollout_preview(previous))
                .action(FixAction::Rollout {
                    image: previous.to_owned(),
                }),
                _ => Fix::says(format!(
                    "the image {image} cannot be pulled: check the reference and the registry's \
                     credentials"
                ))
                .command(kubectl.clone()),
            };
            out.push(super::Finding {
                object: at.object("Pod", name),
                ..at.finding(
                    Severity::Critical,
                    FindingClass::PodImagePull,
                    format!("{name} cannot pull {image} ({reason})"),
                    evidence,
                    fix,
                )
            });
        }
    }
    if status.phase.as_deref() != Some("Pending") {
        return;
    }
    let unscheduled = status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "PodScheduled" && c.status == "False");
    let Some(unscheduled) = unscheduled else {
        return;
    };
    let reason = unscheduled.reason.as_deref().unwrap_or("NotScheduled");
    let message = one_line(unscheduled.message.as_deref().unwrap_or(""));
    let mut evidence = vec![
        Evidence::new(
            format!("Pod {name} PodScheduled"),
            format!("False {reason}: {message}"),
        )
        .at(unscheduled.last_transition_time.as_ref().map(|t| t.0)),
    ];
    evidence.extend(event_evidence(at, "Pod", name, &["FailedScheduling"]));
    out.push(super::Finding {
        object: at.object("Pod", name),
        ..at.finding(
            Severity::Critical,
            FindingClass::PodPending,
            format!("{name} is Pending: {reason}: {message}"),
            evidence,
            Fix::says(
                "give the scheduler a node that fits: the node pool named by the pod's node \
                 selector and tolerations (platform config scheduling.*), or its resources",
            )
            .command(kubectl),
        )
    });
}

fn pvcs(at: &NodeCtx<'_, '_>, out: &mut Vec<Finding>) {
    for pvc in &at.snapshot.pvcs {
        let phase = pvc.status.as_ref().and_then(|s| s.phase.as_deref());
        if phase != Some("Pending") {
            continue;
        }
        let name = pvc.metadata.name.as_deref().unwrap_or("?");
        let class = pvc
            .spec
            .as_ref()
            .and_then(|s| s.storage_class_name.as_deref())
            .unwrap_or("(default)");
        let mut evidence = vec![
            Evidence::new(
                format!("PersistentVolumeClaim {name}"),
                format!("Pending, storageClassName {class}"),
            )
            .at(pvc.metadata.creation_timestamp.as_ref().map(|t| t.0)),
        ];
        evidence.extend(event_evidence(
            at,
            "PersistentVolumeClaim",
            name,
            &["ProvisioningFailed", "FailedBinding"],
        ));
        out.push(super::Finding {
            object: at.object("PersistentVolumeClaim", name),
            ..at.finding(
                Severity::Warning,
                FindingClass::PvcPending,
                format!("PVC {name} is Pending (storage class {class})"),
                evidence,
                Fix::says(format!(
                    "check that storage class {class} exists and can provision (platform config \
                     storage.*)"
                ))
                .command(format!(
                    "kubectl{} describe pvc {name}",
                    scope_args(&at.cluster.context, at.namespace())
                )),
            )
        });
    }
}

/// Reasons a finding of `class` already explains, so their events are not said twice.
fn explained_reasons(class: FindingClass) -> &'static [&'static str] {
    match class {
        FindingClass::PodCrashLoop => &["BackOff"],
        FindingClass::PodImagePull => &["Failed", "BackOff", "ErrImagePull"],
        FindingClass::PodPending => &["FailedScheduling"],
        _ => &[],
    }
}

/// Whether the event's pod has got past it: scheduled now after a FailedScheduling (say before
/// its PVC bound), or Ready since the event (transition times have whole seconds). Such a
/// warning is from before, not a current finding.
fn pod_past_it(at: &NodeCtx<'_, '_>, event: &Event) -> bool {
    if event.involved_object.kind.as_deref() != Some("Pod") {
        return false;
    }
    let scheduling = event.reason.as_deref() == Some("FailedScheduling");
    let seen = last_seen(event).map(|t| t.as_second());
    let name = event.involved_object.name.as_deref();
    at.snapshot
        .pods
        .iter()
        .filter(|pod| pod.metadata.name.as_deref() == name)
        .flat_map(|pod| {
            pod.status
                .iter()
                .flat_map(|s| s.conditions.iter().flatten())
        })
        .any(|c| {
            let since = c.last_transition_time.as_ref().map(|t| t.0.as_second());
            c.status == "True"
                && ((scheduling && c.type_ == "PodScheduled")
                    || (c.type_ == "Ready" && since.is_some() && since >= seen))
        })
}

/// Recent Warning events of the node's StatefulSet and pods no other finding explains, one per
/// object and reason (a Running node with a pod warning is not healthy; issue 27).
fn warnings(at: &NodeCtx<'_, '_>, explained: &[FindingClass], out: &mut Vec<Finding>) {
    let skip: Vec<&str> = explained
        .iter()
        .flat_map(|class| explained_reasons(*class).iter().copied())
        .collect();
    let mut seen: Vec<(String, String, &Event)> = Vec::new();
    for event in &at.snapshot.events {
        let event: &Event = event;
        let kind = event.involved_object.kind.as_deref().unwrap_or("");
        if !is_warning(event) || !matches!(kind, "Pod" | "StatefulSet") {
            continue;
        }
        let reason = event.reason.as_deref().unwrap_or("");
        if skip.contains(&reason) {
            continue;
        }
        if !is_recent(at.now, last_seen(event)) || pod_past_it(at, event) {
            continue;
        }
        let object = format!(
            "{kind}/{}",
            event.involved_object.name.as_deref().unwrap_or("?")
        );
        match seen
            .iter_mut()
            .find(|(o, r, _)| *o == object && *r == reason)
        {
            Some(entry) if last_seen(entry.2) < last_seen(event) => entry.2 = event,
            Some(_) => {}
            None => seen.push((object, reason.to_owned(), event)),
        }
    }
    for (object, reason, event) in seen {
        let (kind, name) = object.split_once('/').unwrap_or(("Pod", "?"));
        let kind: &'static str = if kind == "StatefulSet" {
            "StatefulSet"
        } else {
            "Pod"
        };
        out.push(super::Finding {
            object: at.object(kind, name),
            ..at.finding(
                Severity::Warning,
                FindingClass::PodWarning,
                format!(
                    "{object}: {reason}: {}",
                    one_line(event.message.as_deref().unwrap_or(""))
                ),
                vec![evidence_of(kind, name, event)],
                Fix::says("see the node screen's events (enter) or describe").command(format!(
                    "sei-console describe {}{}",
                    at.name(),
                    at.scope()
                )),
            )
        });
    }
}
