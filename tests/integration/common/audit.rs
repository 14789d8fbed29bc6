//! The API server's audit log (`DIR/logs/audit.log`, written by `tests/control-plane/start`):
//! what one identity sent, to prove what it never sent.
use std::time::{Duration, Instant};

use serde_json::Value;

use super::control_plane;

/// Verbs that change cluster state.
pub const MUTATING_VERBS: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];

/// One event of the audit log: a request has one per stage (RequestReceived, ResponseStarted for
/// streams such as port-forwards, ResponseComplete).
#[derive(Debug, Clone)]
pub struct AuditEvent {
    pub stage: String,
    /// The HTTP status, once the stage has one (101 for an upgraded port-forward).
    pub code: Option<u64>,
    pub verb: String,
    pub api_group: String,
    pub resource: String,
    pub subresource: String,
    pub namespace: String,
    pub name: String,
    pub request_uri: String,
    pub user_agent: String,
}

impl AuditEvent {
    /// A change of cluster state. Access reviews are `create`s that store nothing, and so are
    /// `dryRun=All` requests (the previews' server-side apply dry run of the StatefulSet).
    pub fn is_mutating(&self) -> bool {
        let review = self.api_group == "authorization.k8s.io"
            && self.resource.starts_with("self")
            && self.resource.ends_with("reviews");
        let dry_run = self.request_uri.contains("dryRun=All");
        MUTATING_VERBS.contains(&self.verb.as_str()) && !review && !dry_run
    }
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or("").to_owned()
}

/// Every audit event of `username` (the first impersonated user counts as the user).
pub fn events_of(username: &str) -> Vec<AuditEvent> {
    events_in(&control_plane().dir, username)
}

/// [`events_of`] in the control plane under `dir` (a test's own, `second::SecondControlPlane`).
pub fn events_in(dir: &std::path::Path, username: &str) -> Vec<AuditEvent> {
    let path = dir.join("logs").join("audit.log");
    let log = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "read {}: {e} (does start enable audit logging?)",
            path.display()
        )
    });
    log.lines()
        // The username is in every line of its events; parse only those.
        .filter(|line| line.contains(username))
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| {
            event["user"]["username"] == username
                || event["impersonatedUser"]["username"] == username
        })
        .map(|event| AuditEvent {
            stage: text(&event["stage"]),
            code: event["responseStatus"]["code"].as_u64(),
            verb: text(&event["verb"]),
            api_group: text(&event["objectRef"]["apiGroup"]),
            resource: text(&event["objectRef"]["resource"]),
            subresource: text(&event["objectRef"]["subresource"]),
            namespace: text(&event["objectRef"]["namespace"]),
            name: text(&event["objectRef"]["name"]),
            request_uri: text(&event["requestURI"]),
            user_agent: text(&event["userAgent"]),
        })
        .collect()
}

/// The events after the first request whose URI contains `marker`.
pub fn after_marker<'a>(events: &'a [AuditEvent], marker: &str) -> &'a [AuditEvent] {
    let at = events
        .iter()
        .position(|e| e.request_uri.contains(marker))
        .unwrap_or_else(|| panic!("marker {marker} not in the events"));
    &events[at + 1..]
}

/// Waits until a request of `username` whose URI contains `marker` is in the log (the log is
/// written as requests arrive, so everything the identity sent before the marker is in it too),
/// then returns all of that identity's events.
pub async fn events_through_marker(username: &str, marker: &str) -> Vec<AuditEvent> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let events = events_of(username);
        if events.iter().any(|e| e.request_uri.contains(marker)) {
            return events;
        }
        assert!(
            Instant::now() < deadline,
            "the marker request {marker} of {username} never reached the audit log"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
