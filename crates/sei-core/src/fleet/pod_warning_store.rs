//! The fleet's side of the pods' Warnings (`pod_warnings`): the Warning events of the SeiNodes'
//! pods and the pods themselves as deltas bring them, and each node's row told its pod's live
//! Warning and the image its pod runs (`fleet::running`) when either changes.
use k8s_openapi::api::core::v1::{Event, Pod};

use super::Fleet;
use super::events::{self, EventIndex, involved_key};
use super::pod_warnings;
use super::store::{Change, Delta, ObjectKey, Store};

impl Fleet {
    /// A delta of the SeiNodes' pods: slimmed, stored, and the rows of their nodes judged again.
    pub(super) fn apply_node_pod(&mut self, mut delta: Delta<Pod>) {
        if let Delta::Applied(pod) | Delta::RelistItem(pod) = &mut delta {
            pod_warnings::slim_pod(pod);
        }
        let dropped = match self.node_pods.apply(delta) {
            Change::Nothing => return,
            Change::One(key) => vec![key],
            Change::Dropped(keys) => {
                self.bump();
                keys
            }
        };
        for pod in dropped {
            if let Some(node) = pod_warnings::node_of_pod(&pod.name) {
                let node = ObjectKey::new(pod.namespace.clone(), node);
                self.refresh_pod_warning(&node.in_context(&self.context));
            }
        }
    }

    /// A delta of the pods' Warning events: kept (slimmed) when it is about a pod named as a
    /// SeiNode's, and the rows of the nodes it is about judged again.
    pub(super) fn apply_pod_warning(&mut self, mut delta: Delta<Event>) {
        let mut about = None;
        if let Delta::Applied(event) | Delta::RelistItem(event) = &mut delta {
            let pod = involved_key(event);
            // Only the Warnings of a pod named `<name>-0` (a StatefulSet's first, as every
            // SeiNode's pod) are kept: the namespace's other pods cost no memory here (a relist
            // drops what it did not keep).
            let Some(node) = pod_warnings::node_of_pod(&pod.name)
                .filter(|_| events::is_warning(event))
                .map(|node| ObjectKey::new(pod.namespace.clone(), node).in_context(&self.context))
            else {
                return;
            };
            pod_warnings::slim_pod_event(event);
            about = Some(node);
        }
        let Some(change) = self
            .pod_warning_index
            .apply_delta(&mut self.pod_warnings, delta, about)
        else {
            return;
        };
        if change.relist_ended {
            self.bump();
        }
        for key in change.touched {
            self.refresh_pod_warning(&key);
        }
    }

    /// Judges the pod Warnings and the running image of the node `key` again (its pod or their
    /// events changed).
    fn refresh_pod_warning(&mut self, key: &ObjectKey) {
        let Some(row) = self.rows.get_mut(key) else {
            return;
        };
        let event = live_pod_warning_of(
            key,
            &self.pod_warning_index,
            &self.pod_warnings,
            &self.node_pods,
        );
        let pod_key = ObjectKey {
            name: pod_warnings::pod_of_node(&key.name).into(),
            ..key.clone()
        };
        let running = self
            .node_pods
            .get(&pod_key)
            .and_then(super::running::RunningImage::of);
        // Counted out as it was, in again as it is (the same counts when nothing changed).
        self.counts.remove(row);
        let changed = row.set_pod_warning(event) | row.set_running(running);
        self.counts.add(row);
        if changed {
            self.widths.grow(row);
            let row_key = row.key.clone();
            self.log_row_change(row_key);
        }
    }
}

/// The live Warning of the pod of node `key` among the pod Warnings `index` files under it,
/// judged against that pod as `pods` hold it now.
pub(super) fn live_pod_warning_of<'a>(
    key: &ObjectKey,
    index: &EventIndex,
    warnings: &'a Store<Event>,
    pods: &Store<Pod>,
) -> Option<&'a Event> {
    // Most nodes' pods have no Warning: their row refreshes (every status delta) allocate
    // nothing here.
    index.events_of(key).next()?;
    let pod_key = ObjectKey {
        name: pod_warnings::pod_of_node(&key.name).into(),
        ..key.clone()
    };
    let events = index
        .events_of(key)
        .filter_map(|event_key| warnings.get(event_key));
    pod_warnings::live_pod_warning(events, pods.get(&pod_key))
}
