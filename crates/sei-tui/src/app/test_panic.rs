//! A panic injected into the loop of a test build, so the PTY tests (`tests/pty/`) can show the
//! terminal is given back after a crash. Compiled only with the `testing` feature, which the
//! shipped binary does not have (`cargo install` builds no dev-dependencies).
use std::time::{Duration, Instant};

/// Milliseconds after the terminal opens at which the loop panics.
const PANIC_AFTER_MS_ENV: &str = "SEI_CONSOLE_TEST_PANIC_AFTER_MS";

/// When the loop panics, if the environment asks for it.
pub(super) struct InjectedPanic {
    at: Option<Instant>,
}

impl InjectedPanic {
    pub(super) fn from_env() -> InjectedPanic {
        let at = std::env::var(PANIC_AFTER_MS_ENV)
            .ok()
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .map(|ms| Instant::now() + Duration::from_millis(ms));
        InjectedPanic { at }
    }

    /// Panics once the time has come (the loop wakes at least once a second, on its tick).
    pub(super) fn check(&self) {
        if self.at.is_some_and(|at| Instant::now() >= at) {
            panic!("{PANIC_AFTER_MS_ENV}: panic injected by a test build");
        }
    }
}
