//! The notifier in use (`ports::notify::Notifier`): [`Dispatcher`] queues each notification on
//! a bounded channel ([`QUEUE`]; a full queue drops it, counted and shown) and one background
//! task POSTs it to every webhook of `[notify]` in turn through `ports::notify::WebhookPost`.
//! Each POST is bounded by the configured timeout and tried up to `attempts` times, waiting
//! [`backoff`] between tries; a webhook given up on is a failure line in the status (the
//! console's footer and flash, the command's stderr) and a journal line (`action: notify`,
//! outcome `failed`, the webhook as scheme://host:port only: its path may hold a token).
//! Nothing here waits on the caller's path: a rollout only queues.
//!
//! The command line, which exits right after its rollout ended, waits for the queue with
//! [`Dispatcher::drain`], bounded by [`Dispatcher::worst_case`] (every POST of what is queued
//! timing out at every attempt) plus [`DRAIN_SLACK`].
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use crate::config::notify::{NotifyConfig, WebhookUrl};
use crate::journal::{JournalEntry, Outcome};
use crate::ops::ActionLog;
use crate::ports::notify::{
    EventKind, FAILURES_KEPT, Notification, Notifier, NotifyStatus, Origin, PostError,
    RolloutFacts, WebhookPost,
};

/// Notifications queued at most; a notification past it is dropped (and counted).
pub const QUEUE: usize = 64;

/// The first wait between two tries of one POST; it doubles each try, up to [`BACKOFF_CAP`].
pub const BACKOFF_BASE: Duration = Duration::from_millis(500);
pub const BACKOFF_CAP: Duration = Duration::from_secs(8);

/// The wait after failed try `attempt` (1-based) before the next: `base · 2^(attempt-1)`, at
/// most `cap`.
pub fn backoff(attempt: u32, base: Duration, cap: Duration) -> Duration {
    let factor = 2u32.saturating_pow(attempt.saturating_sub(1).min(16));
    base.saturating_mul(factor).min(cap)
}

/// What a waiter adds to [`Dispatcher::worst_case`]: the last try's give-up and its journal line
/// come just after the bound.
pub const DRAIN_SLACK: Duration = Duration::from_secs(1);

/// How one notification goes to one webhook: the bound per POST, the tries, the backoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    pub timeout: Duration,
    pub attempts: u32,
    pub backoff_base: Duration,
    pub backoff_cap: Duration,
}

impl Delivery {
    pub fn of(config: &NotifyConfig) -> Delivery {
        Delivery {
            timeout: config.timeout,
            attempts: config.attempts.max(1),
            backoff_base: BACKOFF_BASE,
            backoff_cap: BACKOFF_CAP,
        }
    }

    /// The longest one notification can take to one webhook: every try timing out.
    pub fn worst_case(&self) -> Duration {
        let waits: Duration = (1..self.attempts)
            .map(|a| backoff(a, self.backoff_base, self.backoff_cap))
            .sum();
        self.timeout.saturating_mul(self.attempts) + waits
    }
}

/// Posts `body` to `url` until it is delivered or `delivery.attempts` tries failed; `Err`
/// carries the last try's failure and how many were made.
pub async fn deliver(
    post: &dyn WebhookPost,
    url: &WebhookUrl,
    body: &[u8],
    delivery: Delivery,
) -> Result<u32, (PostError, u32)> {
    let mut attempt = 1;
    loop {
        let tried =
            tokio::time::timeout(delivery.timeout, post.post(url.as_str(), body.to_vec())).await;
        let failure = match tried {
            Ok(Ok(())) => return Ok(attempt),
            Ok(Err(err)) => err,
            Err(_) => PostError::Timeout(delivery.timeout),
        };
        if attempt >= delivery.attempts {
            return Err((failure, attempt));
        }
        tokio::time::sleep(backoff(
            attempt,
            delivery.backoff_base,
            delivery.backoff_cap,
        ))
        .await;
        attempt += 1;
    }
}

/// The notifier of one process: the queue, its task, and what it did.
pub struct Dispatcher {
    tx: mpsc::Sender<Notification>,
    status: Arc<Mutex<NotifyStatus>>,
    changed: watch::Sender<NotifyStatus>,
    webhooks: usize,
    delivery: Delivery,
}

impl Dispatcher {
    /// Starts the task (on the current tokio runtime) posting to `webhooks`; failures are
    /// journaled in `log` as `operator`'s.
    pub fn start(
        webhooks: Vec<WebhookUrl>,
        delivery: Delivery,
        post: Arc<dyn WebhookPost>,
        log: Arc<dyn ActionLog>,
        operator: String,
    ) -> Arc<Dispatcher> {
        let (tx, mut rx) = mpsc::channel::<Notification>(QUEUE);
        let status = Arc::new(Mutex::new(NotifyStatus::default()));
        let (changed, _) = watch::channel(NotifyStatus::default());
        let dispatcher = Arc::new(Dispatcher {
            tx,
            status: status.clone(),
            changed: changed.clone(),
            webhooks: webhooks.len(),
            delivery,
        });
        tokio::spawn(async move {
            while let Some(notification) = rx.recv().await {
                let body = notification.body();
                for url in &webhooks {
                    let outcome = deliver(post.as_ref(), url, &body, delivery).await;
                    let mut line = None;
                    update(&status, &changed, |s| match &outcome {
                        Ok(_) => s.delivered += 1,
                        Err((err, tries)) => {
                            s.failed += 1;
                            let text = format!(
                                "webhook {url}: {} not delivered after {tries} attempt(s): {err}",
                                notification.event.name()
                            );
                            push_failure(s, text.clone());
                            line = Some((text, err.to_string()));
                        }
                    });
                    if let Some((text, reason)) = line {
                        let entry = JournalEntry {
                            time: jiff::Timestamp::now(),
                            operator: operator.clone(),
                            context: Some(notification.context.clone()),
                            action: "notify".into(),
                            nodes: notification.nodes(),
                            detail: format!("{} to {url}", notification.event.name()),
                            outcome: Outcome::Failed,
                            reason: Some(reason),
                            holder: None,
                        };
                        if let Err(err) = log.append(&entry) {
                            update(&status, &changed, |s| {
                                push_failure(s, format!("{text}; not journaled: {err}"));
                            });
                        }
                    }
                }
                update(&status, &changed, |s| {
                    s.pending = s.pending.saturating_sub(1)
                });
            }
        });
        dispatcher
    }

    /// The notifier `[notify]` asks for: none without webhooks.
    pub fn for_config(
        config: &NotifyConfig,
        post: Arc<dyn WebhookPost>,
        log: Arc<dyn ActionLog>,
        operator: String,
    ) -> Option<Arc<Dispatcher>> {
        (!config.webhooks.is_empty()).then(|| {
            Dispatcher::start(
                config.webhooks.clone(),
                Delivery::of(config),
                post,
                log,
                operator,
            )
        })
    }

    /// What it did so far.
    pub fn status(&self) -> NotifyStatus {
        self.status.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Follows the status as it changes (the console's footer).
    pub fn watch(&self) -> watch::Receiver<NotifyStatus> {
        self.changed.subscribe()
    }

    /// The longest the queued notifications can take: each to every webhook, every try timing
    /// out.
    pub fn worst_case(&self) -> Duration {
        let queued = u32::try_from(self.status().pending).unwrap_or(u32::MAX);
        let webhooks = u32::try_from(self.webhooks).unwrap_or(u32::MAX);
        self.delivery
            .worst_case()
            .saturating_mul(queued.saturating_mul(webhooks))
    }

    /// Waits until every queued notification was delivered or given up on, at most `bound`;
    /// `false` when some were still pending at the bound.
    pub async fn drain(&self, bound: Duration) -> bool {
        let mut changes = self.watch();
        let waited = tokio::time::timeout(bound, async {
            loop {
                if self.status().pending == 0 {
                    return;
                }
                if changes.changed().await.is_err() {
                    return;
                }
            }
        })
        .await;
        waited.is_ok() && self.status().pending == 0
    }
}

impl Notifier for Dispatcher {
    fn notify(&self, notification: Notification) {
        // Counted before it is sent, so the task's decrement never comes first.
        update(&self.status, &self.changed, |s| s.pending += 1);
        if let Err(err) = self.tx.try_send(notification) {
            let event = match &err {
                mpsc::error::TrySendError::Full(n) | mpsc::error::TrySendError::Closed(n) => {
                    n.event.name()
                }
            };
            update(&self.status, &self.changed, |s| {
                s.pending = s.pending.saturating_sub(1);
                s.dropped += 1;
                push_failure(
                    s,
                    format!("{event} dropped: {QUEUE} notifications already queued"),
                );
            });
        }
    }
}

/// Queues a rollout's end for the webhooks: `rollout.finished` when it ended well, else
/// `rollout.halted` (a failed node, gate or step: `end`'s message says which), from the
/// operator of `ops` in its context and namespace.
pub fn rollout_end(
    ops: &super::Ops<'_>,
    nodes: &[String],
    image: String,
    end: &Result<super::RunEnd, super::OpsError>,
) {
    let (event, message, failed_node) = match end {
        Ok(end) if end.ok => (EventKind::RolloutFinished, end.message.clone(), None),
        // Stopped by `rollout abort` (`rollout/run.rs` marks its end): not a halt.
        Ok(end) if end.result.get(END_STATE).and_then(|s| s.as_str()) == Some("aborted") => (
            EventKind::RolloutAborted,
            end.message.clone(),
            end.failed_node.clone(),
        ),
        Ok(end) => (
            EventKind::RolloutHalted,
            end.message.clone(),
            end.failed_node.clone(),
        ),
        Err(err) => (EventKind::RolloutHalted, err.to_string(), None),
    };
    rollout_event(
        ops,
        event,
        &message,
        RolloutFacts {
            image,
            nodes: nodes.to_vec(),
            failed_node,
        },
    );
}

/// The key of a rollout's `RunEnd::result` naming how it ended when that is not a plain halt
/// (`"aborted"`).
pub const END_STATE: &str = "rolloutState";

/// Queues one rollout notification from this process's operator, context and namespace.
pub fn rollout_event(ops: &super::Ops<'_>, event: EventKind, message: &str, facts: RolloutFacts) {
    let settings = ops.settings;
    let origin = Origin {
        operator: Some(settings.operator.clone()),
        context: settings.context.clone(),
        namespace: settings.namespace.clone(),
        time: ops.ports.clock.now(),
    };
    ops.ports
        .notifier
        .notify(Notification::rollout(event, origin, message, facts));
}

fn update(
    status: &Mutex<NotifyStatus>,
    changed: &watch::Sender<NotifyStatus>,
    change: impl FnOnce(&mut NotifyStatus),
) {
    if let Ok(mut status) = status.lock() {
        change(&mut status);
        changed.send_replace(status.clone());
    }
}

fn push_failure(status: &mut NotifyStatus, line: String) {
    status.failures.push(line);
    let over = status.failures.len().saturating_sub(FAILURES_KEPT);
    status.failures.drain(..over);
}

#[cfg(test)]
mod tests;
