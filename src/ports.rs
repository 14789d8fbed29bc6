//! Traits through which the pure domain core reaches the world.
//!
//! The core (`api`, `planner`, `render`, `tasks`, `executor`, `fleet`) never talks to a cluster,
//! a socket or the wall clock directly; it receives one of these.
use jiff::Timestamp;

/// Source of "now". Tests pass a fixed clock so plans, ages and snapshots are reproducible.
pub trait Clock: Send + Sync {
    fn now(&self) -> Timestamp;
}

/// The wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// A clock frozen at one instant.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub Timestamp);

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        self.0
    }
}
