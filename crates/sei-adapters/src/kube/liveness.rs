//! Liveness of the data, not only of the connection: a bounded periodic probe of the API
//! server beside the watches.
//!
//! A frozen API server (SIGSTOPped, or a hung process behind a live socket) keeps the watch
//! connections open and silent: nothing fails, so a watch alone never says STALE. The probe
//! asks the server's `/version` every [`PROBE_EVERY`] and gives it [`PROBE_DEADLINE`]: an
//! unanswered probe reports the server silent (the screen shows STALE with the age of the last
//! confirmed data within `PROBE_EVERY + PROBE_DEADLINE`), the next answer reports it back.
use std::time::Duration;

use jiff::Timestamp;
use tokio::sync::mpsc;

use crate::fleet::watches::{ServerReport, WatchEvent};

/// Pause between probes.
pub const PROBE_EVERY: Duration = Duration::from_secs(2);
/// How long a probe waits for the answer.
pub const PROBE_DEADLINE: Duration = Duration::from_secs(3);

/// Probes the API server until the receiver is gone; one report per probe. `server` (its URL)
/// is named when it cannot be reached.
pub async fn probe_server<M>(
    client: kube::Client,
    server: Option<String>,
    epoch: u64,
    tx: mpsc::Sender<M>,
) where
    M: From<WatchEvent> + Send,
{
    loop {
        let report = match tokio::time::timeout(PROBE_DEADLINE, client.apiserver_version()).await {
            Ok(Ok(_)) => ServerReport::Answered {
                at: Timestamp::now(),
            },
            Ok(Err(error)) => ServerReport::Silent {
                error: super::errors::describe_at(&error, server.as_deref()),
            },
            Err(_) => ServerReport::Silent {
                error: format!(
                    "the API server{} did not answer within {} s",
                    server
                        .as_deref()
                        .map_or(String::new(), |url| format!(" {url}")),
                    PROBE_DEADLINE.as_secs()
                ),
            },
        };
        if tx
            .send(M::from(WatchEvent::Server { epoch, report }))
            .await
            .is_err()
        {
            return;
        }
        tokio::time::sleep(PROBE_EVERY).await;
    }
}
