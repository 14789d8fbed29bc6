//! Why a wait is not progressing: the Warning events of the node's StatefulSet `<node>` and pod
//! `<node>-0` (FailedCreate for a missing ServiceAccount, FailedScheduling, BackOff, ...), one
//! line each, for the progress lines and the final message of rollout and seed waits. A Warning
//! the object's present state has outlived (`superseded`) is not offered as the reason.
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Event, Pod};

use super::Ops;
use crate::fleet::pod_warnings;
use crate::ports::ObjectKind;
use crate::render::NODE_LABEL;

/// Warning events named at most, newest first.
const MAX_WARNINGS: usize = 3;
/// An event message longer than this is cut (a kubelet's can be kilobytes).
const MAX_MESSAGE_CHARS: usize = 300;

/// When the event last happened: `lastTimestamp`, the series' last observation, `eventTime`,
/// or its creation.
fn last_seen(event: &Event) -> Option<jiff::Timestamp> {
    event
        .last_timestamp
        .as_ref()
        .map(|t| t.0)
        .or_else(|| {
            event
                .series
                .as_ref()
                .and_then(|s| s.last_observed_time.as_ref())
                .map(|t| t.0)
        })
        .or_else(|| event.event_time.as_ref().map(|t| t.0))
        .or_else(|| event.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

fn line(kind: ObjectKind, name: &str, event: &Event) -> String {
    let count = event
        .series
        .as_ref()
        .and_then(|s| s.count)
        .or(event.count)
        .filter(|c| *c > 1)
        .map(|c| format!(" ×{c}"))
        .unwrap_or_default();
    let message = event.message.as_deref().unwrap_or("").trim();
    let message: String = if message.chars().count() > MAX_MESSAGE_CHARS {
        let cut: String = message.chars().take(MAX_MESSAGE_CHARS).collect();
        format!("{cut}…")
    } else {
        message.to_owned()
    };
    format!(
        "{} {name}: {}{count}: {message}",
        kind.kind_name(),
        event.reason.as_deref().unwrap_or("(no reason)")
    )
}

/// Whether the present state of the node's pod (`pod`: `<node>-0` as it is now, if it exists)
/// has outlived a Warning `event` of the pod or of its StatefulSet, so offering it as the reason
/// a wait does not progress would mislead: the fleet's judgement of pod Warnings
/// (`fleet::pod_warnings`), which the fleet's WARNING column and verdict read too.
pub fn superseded(kind: ObjectKind, event: &Event, pod: Option<&Pod>) -> bool {
    let Some(pod) = pod else {
        return false;
    };
    match kind {
        ObjectKind::Pod => pod_warnings::pod_warning_superseded(event, pod),
        ObjectKind::StatefulSet => pod_warnings::statefulset_warning_superseded(event, pod),
        _ => false,
    }
}

/// The Warning events of the node's StatefulSet and pod (last seen at or after `since`, when
/// given, and not `superseded` by the pod's present state), one line per object and reason (the
/// newest), newest first. Best effort: events that cannot be listed are said so, never an error
/// of the wait.
pub async fn warnings(ops: &Ops<'_>, node: &str, since: Option<jiff::Timestamp>) -> Vec<String> {
    let namespace = ops.namespace();
    let pod = format!("{node}-0");
    // The pod as it is now; when it cannot be read, no event is judged stale.
    let selector = BTreeMap::from([(NODE_LABEL.to_owned(), node.to_owned())]);
    let present = ops
        .ports
        .cluster
        .list_pods(namespace, &selector)
        .await
        .ok()
        .and_then(|pods| {
            pods.into_iter()
                .find(|p| p.metadata.name.as_deref() == Some(pod.as_str()))
        });
    let mut seen: Vec<(Option<jiff::Timestamp>, String, String)> = Vec::new();
    for (kind, name) in [
        (ObjectKind::StatefulSet, node),
        (ObjectKind::Pod, pod.as_str()),
    ] {
        let events = match ops
            .ports
            .cluster
            .list_events_for(namespace, kind, name)
            .await
        {
            Ok(events) => events,
            Err(err) => {
                return vec![format!(
                    "the events of {} {name} cannot be read: {err}",
                    kind.kind_name()
                )];
            }
        };
        for event in events
            .iter()
            .filter(|e| e.type_.as_deref() == Some("Warning"))
        {
            let key = format!(
                "{}/{name}/{}",
                kind.kind_name(),
                event.reason.as_deref().unwrap_or("")
            );
            let at = last_seen(event);
            if since.is_some_and(|since| at.is_some_and(|at| at < since))
                || superseded(kind, event, present.as_ref())
            {
                continue;
            }
            match seen.iter_mut().find(|(_, k, _)| *k == key) {
                Some(entry) if entry.0 < at => *entry = (at, key, line(kind, name, event)),
                Some(_) => {}
                None => seen.push((at, key, line(kind, name, event))),
            }
        }
    }
    seen.sort_by_key(|entry| std::cmp::Reverse(entry.0));
    seen.into_iter()
        .take(MAX_WARNINGS)
        .map(|(_, _, line)| line)
        .collect()
}

/// Runs `work`, and every `period` while it runs names the node's Warning events not said yet
/// (since the work started), so a wait that does not progress says why while it waits.
pub async fn naming_warnings<T>(
    ops: &Ops<'_>,
    node: &str,
    period: std::time::Duration,
    report: &dyn super::Report,
    mut work: impl std::future::Future<Output = T> + Unpin,
) -> T {
    let since = ops.ports.clock.now();
    let mut said: Vec<String> = Vec::new();
    loop {
        tokio::select! {
            out = &mut work => return out,
            () = tokio::time::sleep(period) => {
                let new: Vec<String> = warnings(ops, node, Some(since))
                    .await
                    .into_iter()
                    .filter(|w| !said.contains(w))
                    .collect();
                if !new.is_empty() {
                    report.note(&super::Note::Warning(format!(
                        "{node}: not progressing? Warning events: {}",
                        new.join("; ")
                    )));
                    said.extend(new);
                }
            }
        }
    }
}

/// `; Warning events: A; B` to append to a reason, or nothing.
pub fn because(warnings: &[String]) -> String {
    if warnings.is_empty() {
        String::new()
    } else {
        format!("; Warning events: {}", warnings.join("; "))
    }
}
