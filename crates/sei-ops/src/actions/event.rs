//! The Kubernetes Event every operator action records on each SeiNode it touches: reason
//! `Console...`, message naming the operator and the action, source component `sei-console`.
use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};

use crate::ports::Clock;

/// Source component of the console's Events (the controller's are `seinode-controller`).
pub const CONSOLE_COMPONENT: &str = "sei-console";

/// An operator action, as the journal and its Events name it. Each action declares its own
/// (`ops::actions::restart::KIND`) beside its `Operation`; `ops::actions::all()` lists them for
/// the journal's `--action` filter. No `match` over actions anywhere: the names are data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ActionKind {
    name: &'static str,
    event_reason: &'static str,
}

impl ActionKind {
    /// `name` as the journal writes it (`restart`), `event_reason` as Events carry it; every
    /// console reason starts with `Console`.
    pub const fn new(name: &'static str, event_reason: &'static str) -> ActionKind {
        ActionKind { name, event_reason }
    }

    /// The Event reason (`ConsolePodRestart`).
    pub const fn event_reason(self) -> &'static str {
        self.event_reason
    }

    pub const fn name(self) -> &'static str {
        self.name
    }
}

impl serde::Serialize for ActionKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name)
    }
}

/// An action's name as a journal line holds it: any name, so a line another version of the
/// console wrote (an action this one lacks) still reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct ActionName(String);

impl ActionName {
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl From<ActionKind> for ActionName {
    fn from(kind: ActionKind) -> ActionName {
        ActionName(kind.name.to_owned())
    }
}

impl From<&str> for ActionName {
    fn from(name: &str) -> ActionName {
        ActionName(name.to_owned())
    }
}

impl PartialEq<ActionKind> for ActionName {
    fn eq(&self, kind: &ActionKind) -> bool {
        self.0 == kind.name
    }
}

impl PartialEq<&str> for ActionName {
    fn eq(&self, name: &&str) -> bool {
        self.0 == *name
    }
}

/// A name no action has (`--action`, `:journal action=`): the names there are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no action {name:?}; actions: {}", known.join(", "))]
pub struct UnknownAction {
    pub name: String,
    pub known: Vec<&'static str>,
}

/// The kind named `name` among `kinds` (as the journal writes it).
pub fn kind_named(kinds: &[ActionKind], name: &str) -> Result<ActionKind, UnknownAction> {
    kinds
        .iter()
        .copied()
        .find(|kind| kind.name == name)
        .ok_or_else(|| UnknownAction {
            name: name.to_owned(),
            known: kinds.iter().map(|k| k.name).collect(),
        })
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
            ActionKind::new("rollout", "ConsoleImageRollout"),
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
}
