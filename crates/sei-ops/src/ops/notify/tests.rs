//! The dispatcher's retry, backoff, bound, drops and journal lines, on tokio's paused clock with
//! a webhook stand-in that fails, answers or hangs as told.
use std::sync::atomic::{AtomicU32, Ordering};

use super::*;
use crate::ports::notify::{EventKind, Origin, PostFuture, RolloutFacts};

/// Answers the first `fail` POSTs with HTTP 503, then 204; `hang`: never answers.
#[derive(Default)]
struct Webhook {
    fail: u32,
    hang: bool,
    tries: AtomicU32,
    at: Mutex<Vec<tokio::time::Instant>>,
}

impl WebhookPost for Webhook {
    fn post<'a>(&'a self, _url: &'a str, _body: Vec<u8>) -> PostFuture<'a> {
        Box::pin(async move {
            if let Ok(mut at) = self.at.lock() {
                at.push(tokio::time::Instant::now());
            }
            let n = self.tries.fetch_add(1, Ordering::SeqCst) + 1;
            if self.hang {
                std::future::pending::<()>().await;
            }
            if n <= self.fail {
                Err(PostError::Status(503))
            } else {
                Ok(())
            }
        })
    }
}

#[derive(Default)]
struct Lines(Mutex<Vec<JournalEntry>>);

impl ActionLog for Lines {
    fn append(&self, entry: &JournalEntry) -> Result<(), crate::journal::JournalError> {
        self.0.lock().expect("lock").push(entry.clone());
        Ok(())
    }
}

fn url() -> WebhookUrl {
    WebhookUrl::parse("http://127.0.0.1:9/hook/secret").expect("url")
}

fn delivery(attempts: u32) -> Delivery {
    Delivery {
        timeout: Duration::from_secs(2),
        attempts,
        backoff_base: BACKOFF_BASE,
        backoff_cap: BACKOFF_CAP,
    }
}

fn halted() -> Notification {
    Notification::rollout(
        EventKind::RolloutHalted,
        Origin {
            operator: Some("alice (context kind)".into()),
            context: "kind".into(),
            namespace: "sei".into(),
            time: jiff::Timestamp::UNIX_EPOCH,
        },
        "rollout halted",
        RolloutFacts {
            image: "seid:v2".into(),
            nodes: vec!["rpc-0".into()],
            failed_node: Some("rpc-0".into()),
        },
    )
}

#[test]
fn the_backoff_doubles_from_its_base_up_to_its_cap() {
    let waits: Vec<u64> = (1..=7)
        .map(|a| backoff(a, BACKOFF_BASE, BACKOFF_CAP).as_millis() as u64)
        .collect();
    assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
    assert_eq!(
        backoff(u32::MAX, BACKOFF_BASE, BACKOFF_CAP),
        BACKOFF_CAP,
        "no overflow"
    );
    // 3 tries of 2 s and the two waits between them.
    assert_eq!(delivery(3).worst_case(), Duration::from_millis(7_500));
}

#[tokio::test(start_paused = true)]
async fn a_failing_webhook_is_tried_again_after_each_backoff_until_it_answers() {
    let hook = Webhook {
        fail: 2,
        ..Webhook::default()
    };
    let start = tokio::time::Instant::now();
    let tries = deliver(&hook, &url(), b"{}", delivery(3)).await;
    assert_eq!(tries, Ok(3));
    let at = hook.at.lock().expect("lock").clone();
    let offsets: Vec<u128> = at.iter().map(|t| (*t - start).as_millis()).collect();
    assert_eq!(offsets, [0, 500, 1500]);
    // One try fewer than it needs: given up, the last failure said.
    let hook = Webhook {
        fail: 5,
        ..Webhook::default()
    };
    assert_eq!(
        deliver(&hook, &url(), b"{}", delivery(2)).await,
        Err((PostError::Status(503), 2))
    );
}

#[tokio::test(start_paused = true)]
async fn a_hanging_webhook_costs_at_most_the_worst_case_bound() {
    let hook = Webhook {
        hang: true,
        ..Webhook::default()
    };
    let start = tokio::time::Instant::now();
    let end = deliver(&hook, &url(), b"{}", delivery(3)).await;
    assert_eq!(end, Err((PostError::Timeout(Duration::from_secs(2)), 3)));
    assert_eq!(start.elapsed(), delivery(3).worst_case());
}

#[tokio::test(start_paused = true)]
async fn queuing_never_waits_and_an_undelivered_notification_is_counted_shown_and_journaled() {
    let hook = Arc::new(Webhook {
        hang: true,
        ..Webhook::default()
    });
    let log = Arc::new(Lines::default());
    let dispatcher = Dispatcher::start(
        vec![url()],
        delivery(2),
        hook.clone(),
        log.clone(),
        "alice (context kind)".into(),
    );
    let start = tokio::time::Instant::now();
    dispatcher.notify(halted());
    assert_eq!(start.elapsed(), Duration::ZERO, "queuing does not wait");
    assert_eq!(dispatcher.status().pending, 1);
    let bound = dispatcher.worst_case();
    assert_eq!(bound, Duration::from_millis(4_500));
    assert!(dispatcher.drain(bound + Duration::from_millis(1)).await);
    let status = dispatcher.status();
    assert_eq!((status.delivered, status.failed, status.pending), (0, 1, 0));
    assert_eq!(
        status.failures,
        [
            "webhook http://127.0.0.1:9/…: rollout.halted not delivered after 2 attempt(s): \
          no answer within 2s"
        ]
    );
    let lines = log.0.lock().expect("lock").clone();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].action.name(), "notify");
    assert_eq!(lines[0].outcome, Outcome::Failed);
    assert_eq!(lines[0].nodes, ["sei/rpc-0"]);
    assert_eq!(lines[0].detail, "rollout.halted to http://127.0.0.1:9/…");
    assert!(
        !format!("{lines:?}").contains("secret"),
        "the path stays out"
    );
}

#[tokio::test(start_paused = true)]
async fn a_full_queue_drops_the_notification_and_counts_it() {
    let hook = Arc::new(Webhook {
        hang: true,
        ..Webhook::default()
    });
    let dispatcher = Dispatcher::start(
        vec![url()],
        delivery(1),
        hook,
        Arc::new(Lines::default()),
        "alice".into(),
    );
    // The task takes the first and hangs on it; the queue holds QUEUE more.
    dispatcher.notify(halted());
    tokio::task::yield_now().await;
    for _ in 0..QUEUE + 3 {
        dispatcher.notify(halted());
    }
    let status = dispatcher.status();
    assert_eq!(status.dropped, 3);
    assert_eq!(status.pending, QUEUE as u64 + 1);
    assert_eq!(status.failures.len(), 3);
    assert!(status.failures[0].starts_with("rollout.halted dropped: 64 notifications"));
    let delivered = Arc::new(Webhook::default());
    let fine = Dispatcher::start(
        vec![url()],
        delivery(1),
        delivered.clone(),
        Arc::new(Lines::default()),
        "alice".into(),
    );
    fine.notify(halted());
    assert!(fine.drain(Duration::from_secs(1)).await);
    assert_eq!(fine.status().delivered, 1);
    assert_eq!(delivered.tries.load(Ordering::SeqCst), 1);
}
