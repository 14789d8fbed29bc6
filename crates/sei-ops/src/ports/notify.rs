//! Notifications: what the console tells the webhooks of `[notify]` (`config::notify`), and the
//! two ports that carry it. [`Notifier`] is what the use cases and the console call: it only
//! queues (never blocks, never fails the caller); `ops::notify::Dispatcher` is the one in use,
//! a background task over a bounded channel that POSTs each notification through
//! [`WebhookPost`] (the HTTP adapter, `sei_adapters::notify`), each POST bounded in time and
//! retried with backoff, and that counts, shows and journals what it could not deliver.
//!
//! # The payload, schema `sei-console.notification/v1`
//!
//! One JSON object per POST (`Content-Type: application/json`, `User-Agent:
//! sei-console/VERSION`), the same object to every webhook. Fields are only ever added within
//! `v1`; a change of meaning or a removal is a new schema name. Receivers ignore fields they do
//! not know.
//!
//! ```json
//! {
//!   "schema": "sei-console.notification/v1",
//!   "id": "4b0c0f8e-…",                  // one per notification; retries repeat it (dedupe)
//!   "event": "rollout.halted",
//!   "time": "2026-12-05T12:00:00Z",      // when it happened (RFC 3339, UTC)
//!   "operator": "alice (context prod)",  // who ran the rollout; null for doctor findings
//!   "context": "prod",                   // the kubeconfig context (cluster)
//!   "namespace": "sei",
//!   "message": "rollout halted at sei/rpc-1: …",  // one line, as the console says it
//!   "rollout": {                         // rollout.* events only
//!     "image": "ghcr.io/sei/seid:v2",
//!     "nodes": ["rpc-0", "rpc-1"],       // the nodes the rollout was asked to change
//!     "failedNode": "rpc-1"              // rollout.halted: where it stopped; else null
//!   },
//!   "finding": {                         // doctor.critical only
//!     "severity": "critical",
//!     "class": "controller-absent",
//!     "kind": "SeiNode", "name": "rpc-0", "node": "rpc-0",
//!     "summary": "…", "fix": "…"
//!   }
//! }
//! ```
//!
//! `event` is one of [`EventKind`]: `rollout.halted` (a node failed its plan, the wave gate or
//! the health gate, or the run stopped on an error: nothing further was started),
//! `rollout.finished` (every node on the image, the gates passed), `rollout.held` (waiting for a
//! promote) and `rollout.aborted` (stopped by an operator), and `doctor.critical` (a critical
//! finding the running console's doctor did not have at its previous judgement; one that
//! persists is not sent again, one that went away and came back is).
use std::future::Future;
use std::pin::Pin;

use jiff::Timestamp;
use serde::Serialize;

/// The schema name every payload carries.
pub const SCHEMA: &str = "sei-console.notification/v1";

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum EventKind {
    #[serde(rename = "rollout.halted")]
    RolloutHalted,
    #[serde(rename = "rollout.finished")]
    RolloutFinished,
    #[serde(rename = "rollout.held")]
    RolloutHeld,
    #[serde(rename = "rollout.aborted")]
    RolloutAborted,
    #[serde(rename = "doctor.critical")]
    DoctorCritical,
}

impl EventKind {
    /// The name the payload's `event` carries.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::RolloutHalted => "rollout.halted",
            EventKind::RolloutFinished => "rollout.finished",
            EventKind::RolloutHeld => "rollout.held",
            EventKind::RolloutAborted => "rollout.aborted",
            EventKind::DoctorCritical => "doctor.critical",
        }
    }
}

/// A rollout's facts in its notifications.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutFacts {
    pub image: String,
    pub nodes: Vec<String>,
    pub failed_node: Option<String>,
}

/// A doctor finding's facts in its notification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindingFacts {
    pub severity: String,
    pub class: String,
    pub kind: String,
    pub name: String,
    pub node: Option<String>,
    pub summary: String,
    pub fix: String,
}

/// One notification: the payload of schema [`SCHEMA`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Notification {
    pub schema: &'static str,
    pub id: String,
    pub event: EventKind,
    pub time: Timestamp,
    pub operator: Option<String>,
    pub context: String,
    pub namespace: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollout: Option<RolloutFacts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<FindingFacts>,
}

/// Where a notification comes from: who, in which cluster and namespace, when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    pub operator: Option<String>,
    pub context: String,
    pub namespace: String,
    pub time: Timestamp,
}

impl Notification {
    /// A rollout's notification (`event` one of the `rollout.*` kinds).
    pub fn rollout(
        event: EventKind,
        origin: Origin,
        message: &str,
        facts: RolloutFacts,
    ) -> Notification {
        Notification::new(event, origin, message, Some(facts), None)
    }

    /// A new critical doctor finding's notification.
    pub fn finding(origin: Origin, facts: FindingFacts) -> Notification {
        let message = facts.summary.clone();
        Notification::new(
            EventKind::DoctorCritical,
            origin,
            &message,
            None,
            Some(facts),
        )
    }

    fn new(
        event: EventKind,
        origin: Origin,
        message: &str,
        rollout: Option<RolloutFacts>,
        finding: Option<FindingFacts>,
    ) -> Notification {
        Notification {
            schema: SCHEMA,
            id: uuid::Uuid::new_v4().to_string(),
            event,
            time: origin.time,
            operator: origin.operator,
            context: origin.context,
            namespace: origin.namespace,
            // One line, whatever the message held.
            message: message.split_whitespace().collect::<Vec<_>>().join(" "),
            rollout,
            finding,
        }
    }

    /// The JSON body POSTed.
    pub fn body(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The nodes it is about (`namespace/name`), for its journal lines.
    pub fn nodes(&self) -> Vec<String> {
        let names: Vec<&String> = match (&self.rollout, &self.finding) {
            (Some(rollout), _) => rollout.nodes.iter().collect(),
            (None, Some(finding)) => finding.node.iter().collect(),
            (None, None) => Vec::new(),
        };
        names
            .into_iter()
            .map(|n| format!("{}/{n}", self.namespace))
            .collect()
    }
}

/// Queues notifications; never blocks and never fails its caller (what cannot be delivered is
/// counted, shown and journaled by the implementation).
pub trait Notifier: Send + Sync {
    fn notify(&self, notification: Notification);
}

impl std::fmt::Debug for dyn Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notifier")
    }
}

/// No webhooks configured: nothing is sent.
pub struct NoNotifier;

impl Notifier for NoNotifier {
    fn notify(&self, _notification: Notification) {}
}

/// Why one POST did not deliver.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PostError {
    /// The webhook answered, but not with 2xx.
    #[error("answered HTTP {0}")]
    Status(u16),
    /// No answer within the bound.
    #[error("no answer within {0:?}")]
    Timeout(std::time::Duration),
    /// Nothing could be sent (refused, no route, TLS).
    #[error("{0}")]
    Unreachable(String),
}

/// The future of one POST.
pub type PostFuture<'a> = Pin<Box<dyn Future<Output = Result<(), PostError>> + Send + 'a>>;

/// One HTTP POST of a JSON body to a webhook (the adapter; the caller bounds it in time).
pub trait WebhookPost: Send + Sync {
    /// `url` as configured (a validated `config::notify::WebhookUrl`).
    fn post<'a>(&'a self, url: &'a str, body: Vec<u8>) -> PostFuture<'a>;
}

/// What the notifier has done so far: what the console's footer and the command's stderr say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotifyStatus {
    /// POSTs delivered (2xx).
    pub delivered: u64,
    /// POSTs given up after every attempt.
    pub failed: u64,
    /// Notifications dropped because the queue was full.
    pub dropped: u64,
    /// Notifications queued and not yet sent to every webhook.
    pub pending: u64,
    /// The last failures, oldest first, one line each (at most [`FAILURES_KEPT`]).
    pub failures: Vec<String>,
}

/// How many failure lines [`NotifyStatus`] keeps.
pub const FAILURES_KEPT: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_is_the_documented_v1_object() {
        let origin = Origin {
            operator: Some("alice (context prod)".into()),
            context: "prod".into(),
            namespace: "sei".into(),
            time: "2026-12-05T12:00:00Z".parse().expect("time"),
        };
        let mut n = Notification::rollout(
            EventKind::RolloutHalted,
            origin.clone(),
            "rollout halted at sei/rpc-1:\nhealth gate",
            RolloutFacts {
                image: "ghcr.io/sei/seid:v2".into(),
                nodes: vec!["rpc-0".into(), "rpc-1".into()],
                failed_node: Some("rpc-1".into()),
            },
        );
        assert!(uuid::Uuid::parse_str(&n.id).is_ok());
        n.id = "ID".into();
        let json: serde_json::Value = serde_json::from_slice(&n.body()).expect("json");
        assert_eq!(
            json,
            serde_json::json!({
                "schema": "sei-console.notification/v1",
                "id": "ID",
                "event": "rollout.halted",
                "time": "2026-12-05T12:00:00Z",
                "operator": "alice (context prod)",
                "context": "prod",
                "namespace": "sei",
                "message": "rollout halted at sei/rpc-1: health gate",
                "rollout": {"image": "ghcr.io/sei/seid:v2", "nodes": ["rpc-0", "rpc-1"],
                    "failedNode": "rpc-1"},
            })
        );
        assert_eq!(n.nodes(), ["sei/rpc-0", "sei/rpc-1"]);
        let finding = Notification::finding(
            Origin {
                operator: None,
                ..origin
            },
            FindingFacts {
                severity: "critical".into(),
                class: "controller-absent".into(),
                kind: "SeiNode".into(),
                name: "rpc-0".into(),
                node: Some("rpc-0".into()),
                summary: "plans Active, nobody runs them".into(),
                fix: "start the controller".into(),
            },
        );
        let json: serde_json::Value = serde_json::from_slice(&finding.body()).expect("json");
        assert_eq!(json["event"], "doctor.critical");
        assert_eq!(json["operator"], serde_json::Value::Null);
        assert_eq!(json["message"], "plans Active, nobody runs them");
        assert_eq!(json["finding"]["class"], "controller-absent");
        assert!(json.get("rollout").is_none());
        for kind in [
            EventKind::RolloutHalted,
            EventKind::RolloutFinished,
            EventKind::RolloutHeld,
            EventKind::RolloutAborted,
            EventKind::DoctorCritical,
        ] {
            assert_eq!(
                serde_json::to_value(kind).expect("kind"),
                serde_json::Value::from(kind.name())
            );
        }
    }
}
