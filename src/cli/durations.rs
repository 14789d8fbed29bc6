//! The duration flags' value parsers: every one reads the one grammar of `duration` (bare
//! integers as seconds, jiff's `500ms`, `5m`, `1h30m`, `2d`), each bounded in its own range.
use std::time::Duration;

use crate::duration::{DurationError, within};

const SECOND: Duration = Duration::from_secs(1);
const MINUTE: Duration = Duration::from_secs(60);

/// `exec` and the actions' `--timeout`: how long a plan is followed (1 s to 7 days).
pub fn follow_timeout(text: &str) -> Result<Duration, DurationError> {
    within(text, SECOND, 7 * 24 * 60 * MINUTE)
}

/// `restart --timeout`: the wait for the new pod (1 s to 5 min).
pub fn restart_timeout(text: &str) -> Result<Duration, DurationError> {
    within(text, SECOND, 5 * MINUTE)
}

/// `seed probe --timeout`: one dial (1 ms to 10 min).
pub fn probe_timeout(text: &str) -> Result<Duration, DurationError> {
    within(text, Duration::from_millis(1), 10 * MINUTE)
}

/// `logs --since`: whole seconds back from now, at least one.
pub fn since_seconds(text: &str) -> Result<i64, DurationError> {
    let duration = within(text, SECOND, Duration::from_secs(i64::MAX as u64))?;
    Ok(duration.as_secs() as i64)
}

/// `--request-timeout`: an answer's deadline, `0` for none (as kubectl's).
pub fn request_timeout(text: &str) -> Result<Duration, DurationError> {
    crate::duration::parse(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_duration_flag_reads_the_same_grammar_within_its_bounds() {
        assert_eq!(follow_timeout("300"), Ok(Duration::from_secs(300)));
        assert_eq!(follow_timeout("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(restart_timeout("5m"), Ok(Duration::from_secs(300)));
        assert!(restart_timeout("6m").is_err());
        assert_eq!(probe_timeout("500ms"), Ok(Duration::from_millis(500)));
        assert!(probe_timeout("0s").is_err());
        assert_eq!(since_seconds("1h30m"), Ok(5400));
        assert!(since_seconds("0s").is_err());
        assert!(since_seconds("soon").is_err());
        assert_eq!(request_timeout("0"), Ok(Duration::ZERO));
        assert_eq!(request_timeout("2s"), Ok(Duration::from_secs(2)));
    }
}
