//! `[notify]`: the webhooks told when a rollout halts, is held, aborted or finishes, and when
//! the console's doctor finds a new critical finding (`ports::notify` in sei-ops holds the
//! payload's schema; `docs/notifications.md` documents it). Each URL is an `http://` or
//! `https://` URL; a bad one is named in one config problem and left out, the rest apply.
//!
//! ```toml
//! [notify]
//! webhooks = ["https://hooks.example.com/sei"]
//! timeout_seconds = 5   # the bound on one POST (connect, send, answer)
//! attempts = 3          # tries per webhook and notification, with backoff between them
//! ```
use std::time::Duration;

use crate::http_url::{self, HttpUrlError, Query};

/// A validated `http(s)://HOST[:PORT][/PATH][?QUERY]` (webhook URLs often carry a token in
/// the path or query); no user part, fragment or whitespace.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct WebhookUrl(String);

impl WebhookUrl {
    pub fn parse(text: &str) -> Result<WebhookUrl, HttpUrlError> {
        http_url::check(text, Query::Allowed).map(|text| WebhookUrl(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The URL as messages show it: scheme, host and port only (a path or query may hold a
    /// token, which stays out of the terminal and the journal).
    pub fn shown(&self) -> String {
        let (scheme, rest) = self.0.split_once("://").unwrap_or(("http", &self.0));
        let authority = http_url::authority(rest);
        let more = if rest.len() > authority.len() {
            "/…"
        } else {
            ""
        };
        format!("{scheme}://{authority}{more}")
    }
}

impl std::fmt::Display for WebhookUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.shown())
    }
}

/// The bound on one POST by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);
/// Tries per webhook and notification by default.
pub const DEFAULT_ATTEMPTS: u32 = 3;
/// The most tries a config may ask for (a notification must not keep the queue for minutes).
pub const MAX_ATTEMPTS: u32 = 10;
/// The longest bound a config may give one POST.
pub const MAX_TIMEOUT_SECONDS: u64 = 60;

/// `[notify]` decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyConfig {
    /// Every notification goes to each of them; none: nothing is sent.
    pub webhooks: Vec<WebhookUrl>,
    /// The bound on one POST.
    pub timeout: Duration,
    /// Tries per webhook and notification (at least 1).
    pub attempts: u32,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        NotifyConfig {
            webhooks: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            attempts: DEFAULT_ATTEMPTS,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webhook_urls_are_http_with_a_host_and_are_shown_without_their_path() {
        let url = WebhookUrl::parse(" https://hooks.example.com/T0/B1/secret?x=1 ").expect("ok");
        assert_eq!(url.as_str(), "https://hooks.example.com/T0/B1/secret?x=1");
        assert_eq!(url.to_string(), "https://hooks.example.com/…");
        let bare = WebhookUrl::parse("http://127.0.0.1:9000").expect("ok");
        assert_eq!(bare.to_string(), "http://127.0.0.1:9000");
        assert_eq!(
            WebhookUrl::parse("hooks.example.com"),
            Err(HttpUrlError::Scheme)
        );
        assert_eq!(WebhookUrl::parse("http:///x"), Err(HttpUrlError::NoHost));
        assert_eq!(
            WebhookUrl::parse("http://h:70000/"),
            Err(HttpUrlError::Port)
        );
        assert_eq!(
            WebhookUrl::parse("http://user@h/"),
            Err(HttpUrlError::Extra)
        );
    }
}
