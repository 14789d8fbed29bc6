//! When the loop draws a dirty model: a keystroke or a resize at once, the first rows of an empty
//! table at once, any other change (watch updates, ticks) at most once per [`DATA_FRAME`].
//!
//! Ten frames a second is as fast as anyone reads a changing table (k9s refreshes every two
//! seconds), and a fleet in churn sends far more updates than that: every frame drawn costs
//! the same whatever the number of updates it shows, so the frame rate, not the update rate,
//! sets the console's CPU while a fleet rolls.
use std::time::{Duration, Instant};

use super::model::Msg;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::{Key, KeyCode};

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
