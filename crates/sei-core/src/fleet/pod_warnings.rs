//! The Warning events of the SeiNodes' pods, fleet-wide (issue 27: a FailedScheduling showed
//! only on the node screen of the one node open). A node is a StatefulSet of one, so its pod is
//! `<node>-0`; the fleet keeps the Warning events of such pods and each pod slimmed to what
//! [`pod_warning_superseded`] reads, so a Warning the pod's present state has outlived (a
//! FailedScheduling of a pod scheduled since) marks nothing. The same judgement names the
//! reason a wait does not progress (`ops::waiting`).
use k8s_openapi::api::core::v1::{Event, Pod, PodCondition, PodSpec, PodStatus};

use super::events::{is_warning, last_seen};

/// The pod of the SeiNode `node`: its StatefulSet of one names it `<node>-0`.
pub fn pod_of_node(node: &str) -> String {
    format!("{node}-0")
}

/// The SeiNode whose pod is `pod`, by the StatefulSet's naming (`<node>-0`).
pub fn node_of_pod(pod: &str) -> Option<&str> {
    pod.strip_suffix("-0").filter(|node| !node.is_empty())
}

/// A pod reduced to what [`pod_warning_superseded`] reads: its uid, creation, node, phase and
/// conditions (types, statuses, reasons, transition times), and what `fleet::running` reads: its
/// main container's image, image ID and start. A fleet of pods costs a few hundred bytes each
/// instead of their specs' kilobytes.
pub fn slim_pod(pod: &mut Pod) {
    let meta = &mut pod.metadata;
    meta.managed_fields = None;
    meta.annotations = None;
    meta.labels = None;
    meta.owner_references = None;
    meta.finalizers = None;
    let node_name = pod.spec.as_mut().and_then(|s| s.node_name.take());
    pod.spec = Some(PodSpec {
        node_name,
        ..PodSpec::default()
    });
    let status = pod.status.take().unwrap_or_default();
    pod.status = Some(PodStatus {
        phase: status.phase,
        // The main container's image (what runs, `fleet::running`).
        container_statuses: super::running::slim_container_statuses(status.container_statuses),
        conditions: status.conditions.map(|conditions| {
            conditions
                .into_iter()
                .map(|c| PodCondition {
                    type_: c.type_,
                    status: c.status,
                    reason: c.reason,
                    last_transition_time: c.last_transition_time,
                    ..PodCondition::default()
                })
                .collect()
        }),
        ..PodStatus::default()
    });
}

/// The longest message a pod Warning keeps (a kubelet's can be kilobytes).
pub const MAX_MESSAGE_CHARS: usize = 300;

/// A pod's Warning event reduced to what the fleet shows: its labels, annotations and managed
/// fields dropped, its message cut at [`MAX_MESSAGE_CHARS`] with `…`.
pub fn slim_pod_event(event: &mut Event) {
    let meta = &mut event.metadata;
    meta.managed_fields = None;
    meta.annotations = None;
    meta.labels = None;
    if let Some(message) = event.message.as_mut()
        && let Some((cut, _)) = message.char_indices().nth(MAX_MESSAGE_CHARS)
    {
        message.truncate(cut);
        message.push('…');
    }
}

/// When `pod`'s condition `type_` last became True, if it is True now.
fn true_since(pod: &Pod, type_: &str) -> Option<Option<jiff::Timestamp>> {
    let condition = pod
        .status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == type_ && c.status == "True")?;
    Some(condition.last_transition_time.as_ref().map(|t| t.0))
}

/// Whether `event` was last seen before `at` (unknown times: no).
fn seen_before(event: &Event, at: Option<jiff::Timestamp>) -> bool {
    last_seen(event).zip(at).is_some_and(|(seen, at)| seen < at)
}

/// Whether the present state of `pod` (as it is now) has outlived a Warning `event` of a pod of
/// its name (issue 28: a FailedScheduling about an unbound PVC named while the PVC was Bound and
/// the pod Running):
/// - an event of another pod of the same name (StatefulSets reuse it): the uids differ;
/// - FailedScheduling of a pod that is scheduled now;
/// - any pod Warning last seen before the pod became Ready (it recovered since).
pub fn pod_warning_superseded(event: &Event, pod: &Pod) -> bool {
    let other_pod = event
        .involved_object
        .uid
        .as_deref()
        .zip(pod.metadata.uid.as_deref())
        .is_some_and(|(of_event, of_pod)| of_event != of_pod);
    let scheduled = pod
        .spec
        .as_ref()
        .and_then(|s| s.node_name.as_ref())
        .is_some()
        || true_since(pod, "PodScheduled").is_some();
    other_pod
        || (event.reason.as_deref() == Some("FailedScheduling") && scheduled)
        || true_since(pod, "Ready").is_some_and(|at| seen_before(event, at))
}

/// Whether a Warning `event` of the node's StatefulSet (FailedCreate, …) was last seen before
/// the pod now there was created.
pub fn statefulset_warning_superseded(event: &Event, pod: &Pod) -> bool {
    seen_before(event, pod.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// The newest Warning among `events` (the events of one pod name) that `pod` (that pod as it is
/// now, if known) has not outlived. Without the pod nothing is judged stale.
pub fn live_pod_warning<'a>(
    events: impl IntoIterator<Item = &'a Event>,
    pod: Option<&Pod>,
) -> Option<&'a Event> {
    events
        .into_iter()
        .filter(|event| is_warning(event))
        .filter(|event| !pod.is_some_and(|pod| pod_warning_superseded(event, pod)))
        .max_by_key(|event| last_seen(event))
}
