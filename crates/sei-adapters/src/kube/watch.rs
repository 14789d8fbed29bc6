//! Watchers: a kube-runtime watcher per resource and scope, turned into store deltas on the
//! caller's bounded channel, with its health reported beside, as [`WatchEvent`]s (the app maps
//! them into its own messages; this module does not know the app).
//!
//! On any watch error the stream is dropped and restarted after a backoff (0.5 s doubling to
//! 30 s), which relists: so deletes missed while the connection was down are honoured, and the
//! completed relist is the signal that the watch is live again (the STALE banner clears).
use std::time::Duration;

use futures::StreamExt;
use kube::Resource;
use kube::api::Api;
use kube::runtime::watcher;
use kube::runtime::watcher::InitialListStrategy;
use tokio::sync::mpsc;

use super::lenient::{self, DisplayDecode, Lenient};
use super::watches::WatchKind;
use crate::fleet::FleetDelta;
use crate::fleet::store::Delta;

/// What a watcher reports besides deltas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchReport {
    Live,
    Failed { error: String, forbidden: bool },
}

/// What a watcher sends, tagged with the epoch of the watch set it belongs to (the receiver
/// drops events of a replaced set).
#[derive(Debug, Clone)]
pub enum WatchEvent {
    /// A store delta.
    Delta { epoch: u64, delta: FleetDelta },
    /// The watch's health: live after each completed (re)list, failed before each retry.
    Health {
        epoch: u64,
        kind: WatchKind,
        report: WatchReport,
    },
    /// The platform's default sidecar image as the controller's ConfigMap names it (`None`:
    /// it names none); see `platform_config::watch_default_sidecar_image`.
    DefaultSidecarImage { epoch: u64, image: Option<String> },
    /// The controller's platform config as its ConfigMap holds it, each time it is listed or
    /// changed: render failures are judged against it.
    PlatformConfig {
        epoch: u64,
        config: Box<crate::platform::PlatformConfig>,
    },
    /// The cluster's SeiNode CRD compared with the embedded one (`crd_watch`).
    Crd {
        epoch: u64,
        view: crate::api::crd_compare::CrdView,
    },
    /// Whether the API server answers at all (`liveness::probe_server`).
    Server {
        epoch: u64,
        report: super::liveness::ServerReport,
    },
}

/// Initial list page size (kubectl's chunk size): pages keep the relist peak low and paint the
/// first rows before the whole list has arrived.
pub const PAGE_SIZE: u32 = 500;

/// The watcher configuration of every console watch (selectors are added by the caller).
///
/// The initial list is a streaming list (a watch that first sends every existing object, from
/// the API server's cache, then a bookmark): rows paint as the first objects arrive and the
/// server never pages. `run_watch` falls back to a list in pages of `PAGE_SIZE` where the
/// server does not serve streaming lists.
pub fn watch_config() -> watcher::Config {
    watcher::Config::default()
        .page_size(PAGE_SIZE)
        .streaming_lists()
}

/// Whether a watch error says the server does not serve streaming lists (the `WatchList`
/// feature is off: `sendInitialEvents` is rejected as invalid).
pub fn is_streaming_list_refused(error: &watcher::Error) -> bool {
    let status = match error {
        watcher::Error::WatchStartFailed(kube::Error::Api(status))
        | watcher::Error::WatchFailed(kube::Error::Api(status)) => status,
        watcher::Error::WatchError(status) => status,
        _ => return false,
    };
    matches!(status.code, 400 | 422)
}
const BACKOFF_START: Duration = Duration::from_millis(500);
const BACKOFF_MAX: Duration = Duration::from_secs(30);

/// Whether a watch error is the API server refusing us (RBAC), not a lost connection.
pub fn is_forbidden(error: &watcher::Error) -> bool {
    let client_error = match error {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => e,
        watcher::Error::WatchError(status) => return status.code == 403,
        watcher::Error::NoResourceVersion => return false,
    };
    matches!(client_error, kube::Error::Api(status) if status.code == 403)
}

/// One line describing a watch error for the banner.
pub fn describe_error(error: &watcher::Error) -> String {
    match error {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => super::errors::describe(e),
        watcher::Error::WatchError(status) => super::errors::status_line(status),
        other => crate::limits::elide(&other.to_string()).into_owned(),
    }
}

/// Runs a watch until the receiver is gone; `wrap` turns a store delta into a fleet delta.
/// Events go straight onto the caller's channel (as `M`), so its bound is the only buffer.
pub async fn run_watch<K, M>(
    api: Api<Lenient<K>>,
    config: watcher::Config,
    kind: WatchKind,
    epoch: u64,
    tx: mpsc::Sender<M>,
    wrap: fn(Delta<K>) -> FleetDelta,
) where
    K: Resource + Clone + DisplayDecode + std::fmt::Debug + Send + Sync + 'static,
    K::DynamicType: Default,
    M: From<WatchEvent> + Send,
{
    let mut config = config;
    let mut backoff = BACKOFF_START;
    loop {
        let streaming = config.initial_list_strategy == InitialListStrategy::StreamingList;
        let mut stream = watcher(api.clone(), config.clone()).boxed();
        let mut failure = None;
        let mut synced = false;
        while let Some(item) = stream.next().await {
            let delta = match item {
                Ok(watcher::Event::Init) => Delta::RelistStarted,
                // An item that does not decode is a skip, never the end of the watch.
                Ok(watcher::Event::InitApply(item)) => slim(lenient::listed(item, true)),
                Ok(watcher::Event::InitDone) => Delta::RelistDone,
                Ok(watcher::Event::Apply(item)) => slim(lenient::listed(item, false)),
                Ok(watcher::Event::Delete(item)) => lenient::deleted(item),
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            };
            let done = matches!(delta, Delta::RelistDone);
            synced |= done;
            let sent = tx
                .send(M::from(WatchEvent::Delta {
                    epoch,
                    delta: wrap(delta),
                }))
                .await;
            if sent.is_err() {
                return;
            }
            if done {
                backoff = BACKOFF_START;
                let live = M::from(WatchEvent::Health {
                    epoch,
                    kind,
                    report: WatchReport::Live,
                });
                if tx.send(live).await.is_err() {
                    return;
                }
            }
        }
        // A server without streaming lists refuses the request, or (older ones) ignores it and
        // never ends the initial list: list in pages from now on.
        if streaming && !synced && failure.as_ref().is_none_or(is_streaming_list_refused) {
            tracing::info!(
                resource = kind.resource(),
                "streaming list not served; listing in pages"
            );
            config.initial_list_strategy = InitialListStrategy::ListWatch;
            continue;
        }
        let (error, forbidden) = match &failure {
            Some(error) => (describe_error(error), is_forbidden(error)),
            None => ("watch stream ended".to_owned(), false),
        };
        tracing::warn!(resource = kind.resource(), %error, forbidden, "watch failed");
        let report = WatchReport::Failed { error, forbidden };
        if tx
            .send(M::from(WatchEvent::Health {
                epoch,
                kind,
                report,
            }))
            .await
            .is_err()
        {
            return;
        }
        let wait = if forbidden { BACKOFF_MAX } else { backoff };
        tokio::time::sleep(wait).await;
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

/// Drops what the console never shows and what costs the most memory.
fn slim<K: Resource>(mut delta: Delta<K>) -> Delta<K> {
    if let Delta::Applied(object) | Delta::RelistItem(object) = &mut delta {
        // Not `managed_fields_mut().clear()`: that turns an absent list (SeiNodes decoded for
        // display never have one) into an empty one.
        object.meta_mut().managed_fields = None;
        if let Some(annotations) = object.meta_mut().annotations.as_mut() {
            annotations.remove(crate::fleet::LAST_APPLIED_ANNOTATION);
        }
    }
    delta
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16) -> Box<kube::core::Status> {
        Box::new(
            serde_json::from_value(serde_json::json!({"code": code, "reason": "Invalid"}))
                .expect("status"),
        )
    }

    #[test]
    fn a_rejected_send_initial_events_falls_back_but_forbidden_and_lost_do_not() {
        let refused = watcher::Error::WatchStartFailed(kube::Error::Api(status(422)));
        assert!(is_streaming_list_refused(&refused));
        assert!(is_streaming_list_refused(&watcher::Error::WatchError(
            status(400)
        )));
        let forbidden = watcher::Error::WatchStartFailed(kube::Error::Api(status(403)));
        assert!(!is_streaming_list_refused(&forbidden));
        assert!(is_forbidden(&forbidden));
        let gone = watcher::Error::WatchError(status(410));
        assert!(!is_streaming_list_refused(&gone));
    }

    #[test]
    fn console_watches_start_with_a_streaming_list_paged_as_fallback() {
        let config = watch_config();
        assert_eq!(
            config.initial_list_strategy,
            InitialListStrategy::StreamingList
        );
        assert_eq!(config.page_size, Some(PAGE_SIZE));
    }
}
