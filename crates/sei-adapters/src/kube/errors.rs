//! One error style for everything the API server (or the way to it) answers: a short human
//! sentence with the Kubernetes reason and message, long values elided, no Debug dumps.
//!
//! kube-rs displays an API error as `ApiError: <message>: <reason> (Status { … })`; the screens,
//! the banners and stderr show [`describe`] instead: `forbidden: User "x" cannot list resource
//! "seinodes" …`.
use std::error::Error as _;
use std::time::Duration;

use kube::core::Status;

use crate::limits::elide;

/// How long the console waits for the API server's answer to one request (the response
/// headers; a watch's stream may then stay quiet for minutes). A frozen server fails requests
/// after this instead of hanging them.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// One line for a kube-rs error.
pub fn describe(error: &kube::Error) -> String {
    describe_at(error, None)
}

/// One line for a kube-rs error; when the server could not be reached (or did not answer) the
/// line names it, e.g. `cannot reach the API server https://10.0.0.1:6443: …`.
pub fn describe_at(error: &kube::Error, server: Option<&str>) -> String {
    let at = server.map_or(String::new(), |url| format!(" {url}"));
    match error {
        kube::Error::Api(status) => status_line(status),
        kube::Error::SerdeError(e) => format!(
            "cannot decode the API server's answer: {}",
            crate::kube::lenient::decode_reason(e)
        ),
        other if is_timeout(other) => format!(
            "the API server{at} did not answer within {} s",
            super::timeout::request_timeout().as_secs()
        ),
        kube::Error::HyperError(_) | kube::Error::Service(_) => {
            format!("cannot reach the API server{at}: {}", causes(error))
        }
        other => elide(&causes(other)).into_owned(),
    }
}

/// `reason: message` of an API status, e.g. `forbidden: User "x" cannot list …`; a status
/// without either says what is known (its HTTP code).
pub fn status_line(status: &Status) -> String {
    let reason = reason_words(&status.reason, status.code);
    let message = status.message.trim();
    if message.is_empty() {
        reason
    } else {
        format!("{reason}: {}", elide(message))
    }
}

/// `NotFound` → `not found`; no reason → the HTTP code's meaning.
fn reason_words(reason: &str, code: u16) -> String {
    if reason.is_empty() {
        return match code {
            0 => "error (the API server gave no reason)".to_owned(),
            400 => "bad request".to_owned(),
            401 => "unauthorized".to_owned(),
            403 => "forbidden".to_owned(),
            404 => "not found".to_owned(),
            409 => "conflict".to_owned(),
            410 => "gone".to_owned(),
            422 => "invalid".to_owned(),
            429 => "too many requests".to_owned(),
            500..=599 => format!("server error {code}"),
            _ => format!("error {code}"),
        };
    }
    let mut words = String::new();
    for (i, c) in reason.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            words.push(' ');
        }
        words.extend(c.to_lowercase());
    }
    words
}

/// Whether the request ran out of [`REQUEST_TIMEOUT`] (the client's timeout layer).
pub fn is_timeout(error: &kube::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = error.source();
    for _ in 0..16 {
        let Some(current) = source else { break };
        if current.is::<super::timeout::RequestTimedOut>() {
            return true;
        }
        source = current.source();
    }
    false
}

/// The error and its causes as `a: b: c`, each cause once (wrappers often repeat their
/// source's text), without kube-rs's type-name prefixes.
fn causes(error: &kube::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut current: Option<&(dyn std::error::Error + 'static)> = error.source();
    for _ in 0..8 {
        let Some(cause) = current else { break };
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        current = cause.source();
    }
    if parts.is_empty() {
        parts.push(error.to_string());
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api_error(code: u16, reason: &str, message: &str) -> kube::Error {
        let status: Status = serde_json::from_value(serde_json::json!({
            "status": "Failure", "code": code, "reason": reason, "message": message
        }))
        .expect("status");
        kube::Error::Api(Box::new(status))
    }

    #[test]
    fn error_lines() {
        let long_name = "n".repeat(1_000);
        let lines = [
            describe(&api_error(
                403,
                "Forbidden",
                r#"seinodes.sei.io is forbidden: User "x" cannot list resource "seinodes" in API group "sei.io" in the namespace "y""#,
            )),
            describe(&api_error(
                404,
                "NotFound",
                r#"seinodes.sei.io "gone" not found"#,
            )),
            describe(&api_error(409, "Conflict", "the object has been modified")),
            describe(&api_error(0, "", "")),
            describe(&api_error(500, "", "")),
            describe(&api_error(
                422,
                "Invalid",
                &format!("SeiNode {long_name:?} is invalid"),
            )),
            describe(&kube::Error::SerdeError(
                serde_json::from_str::<serde_json::Value>(&"[".repeat(200)).expect_err("deep"),
            )),
        ];
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn no_line_carries_a_debug_dump() {
        let line = describe(&api_error(403, "Forbidden", "no"));
        assert!(!line.contains("Status {"), "{line}");
        assert_eq!(line, "forbidden: no");
    }
}
