//! The Kubernetes Event every operator action records on each SeiNode it touches: reason
//! `Console...`, message naming the operator and the action, source component `sei-console`.
use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};

use crate::ports::Clock;

/// Source component of the console's Events (the controller's are `seinode-controller`).
pub const CONSOLE_COMPONENT: &str = "sei-console";

/// The operator actions, as journal and Events name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ActionKind {
    /// Image pin rollout (`sei-console rollout`).
    Rollout,
    /// External address propagation (`sei-console address`).
    Address,
    /// Seed bring-up (`sei-console seed create`).
    SeedCreate,
    /// The node's pod deleted for its StatefulSet to recreate it (`sei-console restart`).
    Restart,
}

impl ActionKind {
    /// The Event reason; every console reason starts with `Console`.
    pub fn event_reason(self) -> &'static str {
        match self {
            ActionKind::Rollout => "ConsoleImageRollout",
            ActionKind::Address => "ConsoleExternalAddress",
            ActionKind::SeedCreate => "ConsoleSeedCreate",
            ActionKind::Restart => "ConsolePodRestart",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ActionKind::Rollout => "rollout",
            ActionKind::Address => "address",
            ActionKind::SeedCreate => "seed-create",
            ActionKind::Restart => "restart",
        }
    }

    pub const ALL: [ActionKind; 4] = [
        ActionKind::Rollout,
        ActionKind::Address,
        ActionKind::SeedCreate,
        ActionKind::Restart,
    ];

    /// The kind named `name` (as the journal writes it), or the names there are.
    pub fn from_name(name: &str) -> Result<ActionKind, String> {
        ActionKind::ALL
            .into_iter()
            .find(|kind| kind.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = ActionKind::ALL.iter().map(|k| k.name()).collect();
                format!("no action {name:?}; actions: {}", names.join(", "))
            })
    }
}

/// The SeiNode an Event is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventTarget<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    /// Empty when unknown (e.g. before a create returned).
    pub uid: &'a str,
}

/// A Normal Event `"<operator> via sei-console: <what>"`, named like the recorder names them
/// (`<object>.<hex nanoseconds>`).
pub fn console_event(
    kind: ActionKind,
    target: &EventTarget<'_>,
    operator: &str,
    what: &str,
    clock: &dyn Clock,
) -> Event {
    let now = clock.now();
    Event {
        metadata: ObjectMeta {
            name: Some(format!("{}.{:x}", target.name, now.as_nanosecond())),
            namespace: Some(target.namespace.to_owned()),
            ..ObjectMeta::default()
        },
        involved_object: ObjectReference {
            api_version: Some(crate::api::API_VERSION.into()),
            kind: Some(crate::api::KIND.into()),
            name: Some(target.name.to_owned()),
            namespace: Some(target.namespace.to_owned()),
            uid: Some(target.uid.to_owned()).filter(|u| !u.is_empty()),
            ..ObjectReference::default()
        },
        reason: Some(kind.event_reason().to_owned()),
        message: Some(format!("{operator} via sei-console: {what}")),
        type_: Some("Normal".to_owned()),
        source: Some(EventSource {
            component: Some(CONSOLE_COMPONENT.to_owned()),
            host: None,
        }),
        reporting_component: Some(CONSOLE_COMPONENT.to_owned()),
        first_timestamp: Some(Time(now)),
        last_timestamp: Some(Time(now)),
        count: Some(1),
        ..Event::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::FixedClock;

    #[test]
    fn event_names_operator_action_and_node() {
        let clock = FixedClock("2026-11-30T04:00:00Z".parse().expect("time"));
        let target = EventTarget {
            namespace: "sei",
            name: "rpc-0",
            uid: "u-1",
        };
        let event = console_event(
            ActionKind::Rollout,
            &target,
            "alice@example (context prod)",
            "image ghcr.io/sei/seid:v1 -> ghcr.io/sei/seid:v2",
            &clock,
        );
        assert_eq!(event.reason.as_deref(), Some("ConsoleImageRollout"));
        assert_eq!(
            event.message.as_deref(),
            Some(
                "alice@example (context prod) via sei-console: image ghcr.io/sei/seid:v1 -> ghcr.io/sei/seid:v2"
            )
        );
        assert_eq!(event.involved_object.kind.as_deref(), Some("SeiNode"));
        assert_eq!(event.involved_object.uid.as_deref(), Some("u-1"));
        assert_eq!(event.metadata.namespace.as_deref(), Some("sei"));
        assert!(
            event
                .metadata
                .name
                .as_deref()
                .is_some_and(|n| n.starts_with("rpc-0."))
        );
        assert_eq!(
            event.source.and_then(|s| s.component).as_deref(),
            Some("sei-console")
        );
    }

    #[test]
    fn every_reason_starts_with_console() {
        for kind in ActionKind::ALL {
            assert!(kind.event_reason().starts_with("Console"), "{kind:?}");
        }
    }
}
