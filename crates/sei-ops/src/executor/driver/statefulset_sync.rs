//! The controller loop's StatefulSet sync on every pass of the embedded executor, and the
//! `StatefulSetRenderFailed` event when it fails. The failure stays typed up to the operator's
//! fix (`actions::render_fix`); only the event and the progress line turn it into text.
use serde::Serializer;

use super::Driver;
use crate::api::{SeiNode, StatefulSetRef};
use crate::planner;
use crate::ports::{EventType, NodeEvent};
use crate::render::RenderError;
use crate::tasks::apply_statefulset::{SyncStatefulSetError, sync_statefulset};

/// Reason of the Warning event when the controller-loop StatefulSet sync fails.
pub const RENDER_FAILED_REASON: &str = "StatefulSetRenderFailed";

/// The controller-loop StatefulSet sync failed; `Display` is the `StatefulSetRenderFailed`
/// event's message, the controller's wording.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Cannot render the StatefulSet: syncing statefulset: {0}")]
pub struct RenderFailure(pub SyncStatefulSetError);

impl RenderFailure {
    /// The renderer's error, when rendering (not the API server) failed.
    pub fn render_error(&self) -> Option<&RenderError> {
        self.0.render_error()
    }
}

/// Serializes a value as its `Display` text (a progress line's `message`).
pub(super) fn serialize_text<S: Serializer>(
    value: &impl std::fmt::Display,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

impl Driver<'_> {
    /// Runs `SyncStatefulSet` as the controller loop does (skipped while the state-sync gate
    /// holds the initial StatefulSet); records `status.statefulSet`; on error emits the event.
    pub(super) async fn sync_statefulset_pass(
        &self,
        node: &mut SeiNode,
    ) -> Result<(), RenderFailure> {
        if planner::state_sync_blocks_plan(node)
            && node
                .status
                .as_ref()
                .and_then(|s| s.stateful_set.as_ref())
                .is_none()
        {
            return Ok(());
        }
        let env = self.env();
        match sync_statefulset(&env, node).await {
            Ok(Some(live)) => {
                let tracked = StatefulSetRef {
                    name: live.metadata.name.clone().unwrap_or_default(),
                    uid: live.metadata.uid.clone().unwrap_or_default(),
                    ..StatefulSetRef::default()
                };
                let status = node.status_mut();
                let same = status
                    .stateful_set
                    .as_ref()
                    .is_some_and(|s| s.name == tracked.name && s.uid == tracked.uid);
                if !same {
                    status.stateful_set = Some(tracked);
                }
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(err) => {
                let failure = RenderFailure(err);
                let event = NodeEvent {
                    namespace: node.namespace().to_owned(),
                    node: node.name().to_owned(),
                    node_uid: node.metadata.uid.clone().unwrap_or_default(),
                    event_type: EventType::Warning,
                    reason: RENDER_FAILED_REASON.to_owned(),
                    message: failure.to_string(),
                };
                // An event that cannot be recorded must not stop the executor.
                let _ = self.cluster.create_event(&event).await;
                Err(failure)
            }
        }
    }
}
