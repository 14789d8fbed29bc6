//! When the loop draws a dirty model: a keystroke or a resize at once, the first rows of an empty
//! table at once, any other change (watch updates, ticks) at most once per [`DATA_FRAME`]. And
//! when it reads: the operator's input at any time, other messages not while a dirty model waits
//! for its frame (they wait in their channel), so a fleet in churn wakes the loop about twice a
//! frame instead of once per update.
//!
//! Ten frames a second is as fast as anyone reads a changing table (k9s refreshes every two
//! seconds), and a fleet in churn sends far more updates than that: every frame drawn costs
//! the same whatever the number of updates it shows, so the frame rate, not the update rate,
//! sets the console's CPU while a fleet rolls.
use std::time::{Duration, Instant};

use tokio::sync::mpsc::Receiver;

use super::model::{Model, Msg};

/// The least time between two frames that only show new data.
pub const DATA_FRAME: Duration = Duration::from_millis(100);
/// The clock's tick (ages, the STALE clock).
pub const TICK: Duration = Duration::from_secs(1);
/// Messages handled per batch before drawing, so a flood of deltas cannot starve the screen.
pub const MAX_BATCH: usize = 4096;
/// The bound of the loop's message channel.
pub const CHANNEL_CAPACITY: usize = 8192;

/// The loop's frame clock.
#[derive(Debug, Clone)]
pub struct Pacer {
    last_draw: Option<Instant>,
    urgent: bool,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer::new()
    }
}

impl Pacer {
    /// A clock whose first frame is due at once.
    pub fn new() -> Pacer {
        Pacer {
            last_draw: None,
            urgent: true,
        }
    }

    /// Whether a dirty model is drawn now.
    pub fn due(&self, now: Instant) -> bool {
        self.urgent || self.wait(now).is_zero()
    }

    /// How long a dirty model waits for more messages before it is drawn.
    pub fn wait(&self, now: Instant) -> Duration {
        if self.urgent {
            return Duration::ZERO;
        }
        self.last_draw.map_or(Duration::ZERO, |at| {
            DATA_FRAME.saturating_sub(now.saturating_duration_since(at))
        })
    }

    /// A frame was drawn at `now`.
    pub fn drawn(&mut self, now: Instant) {
        self.last_draw = Some(now);
        self.urgent = false;
    }

    /// `msg` was handled: an operator's key or a resize is answered with the next frame.
    pub fn handled(&mut self, msg: &Msg) {
        self.urgent |= matches!(msg, Msg::Key(_) | Msg::Resize { .. });
    }

    /// The table was empty before a batch and has rows after it: they are shown at once.
    pub fn first_rows(&mut self) {
        self.urgent = true;
    }

    /// The next frame is drawn at once (the screen came back from a suspend).
    pub fn redraw_now(&mut self) {
        self.urgent = true;
    }
}

/// What the loop does next. Returned and matched at once, never stored, so the message travels
/// unboxed as it came out of its channel.
#[derive(Debug)]
#[allow(
    clippy::large_enum_variant,
    reason = "returned and matched at once, never stored: the message travels unboxed"
)]
pub enum Next {
    Handle(Msg),
    /// The dirty model's frame is due.
    Draw,
    /// Every sender is gone.
    Closed,
}

/// Waits for what the loop does next: a message of the operator's `input` (keys, resizes) at
/// any time; while the model is dirty, its frame, and meanwhile other messages too unless they
/// are `held` (they wait in `rest` and are handled just before the frame); a clean model waits
/// for the next message of either.
pub async fn next(
    pacer: &Pacer,
    dirty: bool,
    held: bool,
    input: &mut Receiver<Msg>,
    rest: &mut Receiver<Msg>,
) -> Next {
    let wait = pacer.wait(Instant::now());
    match (dirty, held) {
        (true, true) => tokio::select! {
            biased;
            Some(msg) = input.recv() => Next::Handle(msg),
            () = tokio::time::sleep(wait) => Next::Draw,
        },
        (true, false) => tokio::select! {
            biased;
            Some(msg) = input.recv() => Next::Handle(msg),
            () = tokio::time::sleep(wait) => Next::Draw,
            msg = rest.recv() => msg.map_or(Next::Closed, Next::Handle),
        },
        (false, _) => tokio::select! {
            biased;
            Some(msg) = input.recv() => Next::Handle(msg),
            msg = rest.recv() => msg.map_or(Next::Closed, Next::Handle),
        },
    }
}

/// Whether messages other than input wait for the next frame: only once every cluster's
/// SeiNodes have been listed and the table has rows. Until then rows are taken as they come
/// (the first ones are drawn at once, and several clusters listing at the same time fill the
/// channel faster than one frame drains it).
pub fn holds_data(model: &Model) -> bool {
    model.fleet.nodes_synced() && !model.fleet.is_empty()
}

/// Handles `first` (if any) and every message waiting behind it with `handle`, input first and
/// at most [`MAX_BATCH`] others, noting keys and an empty table's first rows for the next frame.
pub fn handle_batch(
    model: &mut Model,
    pacer: &mut Pacer,
    first: Option<Msg>,
    input: &mut Receiver<Msg>,
    rest: &mut Receiver<Msg>,
    mut handle: impl FnMut(&mut Model, Msg),
) {
    let was_empty = model.fleet.is_empty();
    let mut handled = 0;
    let mut msg = first.or_else(|| more(0, input, rest));
    while let Some(current) = msg {
        pacer.handled(&current);
        handle(model, current);
        handled += 1;
        msg = more(handled, input, rest);
    }
    if was_empty && !model.fleet.is_empty() {
        pacer.first_rows();
    }
}

/// The next message of the batch being handled, input first, none past [`MAX_BATCH`] others.
fn more(handled: usize, input: &mut Receiver<Msg>, rest: &mut Receiver<Msg>) -> Option<Msg> {
    input.try_recv().ok().or_else(|| {
        (handled < MAX_BATCH)
            .then(|| rest.try_recv().ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::{Key, KeyCode};

    fn key(c: char) -> Msg {
        Msg::Key(Key::plain(KeyCode::Char(c)))
    }

    #[tokio::test(start_paused = true)]
    async fn a_dirty_model_reads_keys_at_once_and_other_messages_after_its_frame() {
        let (input_tx, mut input) = tokio::sync::mpsc::channel(8);
        let (rest_tx, mut rest) = tokio::sync::mpsc::channel(8);
        let mut pacer = Pacer::new();
        pacer.drawn(Instant::now());
        rest_tx
            .send(Msg::Tick(jiff::Timestamp::UNIX_EPOCH))
            .await
            .expect("sent");
        // Dirty: the waiting tick is left alone until the frame is due.
        assert!(matches!(
            next(&pacer, true, true, &mut input, &mut rest).await,
            Next::Draw
        ));
        // Not held (an empty table waits for its first rows): the tick is read at once.
        assert!(matches!(
            next(&pacer, true, false, &mut input, &mut rest).await,
            Next::Handle(Msg::Tick(_))
        ));
        rest_tx
            .send(Msg::Tick(jiff::Timestamp::UNIX_EPOCH))
            .await
            .expect("sent");
        input_tx.send(key('j')).await.expect("sent");
        assert!(matches!(
            next(&pacer, true, true, &mut input, &mut rest).await,
            Next::Handle(Msg::Key(_))
        ));
        // Clean: the tick is read; a batch takes input first.
        input_tx.send(key('k')).await.expect("sent");
        rest_tx
            .send(Msg::Tick(jiff::Timestamp::UNIX_EPOCH))
            .await
            .expect("sent");
        assert!(matches!(
            next(&pacer, false, true, &mut input, &mut rest).await,
            Next::Handle(Msg::Key(_))
        ));
        assert!(matches!(more(1, &mut input, &mut rest), Some(Msg::Tick(_))));
        assert!(matches!(more(1, &mut input, &mut rest), Some(Msg::Tick(_))));
        assert!(more(1, &mut input, &mut rest).is_none());
        rest_tx
            .send(Msg::Tick(jiff::Timestamp::UNIX_EPOCH))
            .await
            .expect("sent");
        assert!(
            more(MAX_BATCH, &mut input, &mut rest).is_none(),
            "the batch is full"
        );
        drop((input_tx, rest_tx));
        assert!(matches!(
            next(&pacer, false, true, &mut input, &mut rest).await,
            Next::Handle(_)
        ));
        assert!(matches!(
            next(&pacer, false, true, &mut input, &mut rest).await,
            Next::Closed
        ));
    }

    #[test]
    fn data_waits_for_its_frame_and_a_key_or_the_first_rows_do_not() {
        let start = Instant::now();
        let mut pacer = Pacer::new();
        assert!(pacer.due(start), "the first frame is due at once");
        pacer.drawn(start);
        let soon = start + Duration::from_millis(30);
        assert!(!pacer.due(soon));
        assert_eq!(pacer.wait(soon), Duration::from_millis(70));
        assert!(pacer.due(start + DATA_FRAME));
        pacer.handled(&Msg::Tick(jiff::Timestamp::UNIX_EPOCH));
        assert!(!pacer.due(soon), "a tick is data");
        pacer.handled(&Msg::Key(Key::plain(KeyCode::Char('j'))));
        assert!(pacer.due(soon));
        assert_eq!(pacer.wait(soon), Duration::ZERO);
        pacer.drawn(soon);
        assert!(!pacer.due(soon + Duration::from_millis(1)));
        pacer.first_rows();
        assert!(pacer.due(soon + Duration::from_millis(1)));
    }
}
