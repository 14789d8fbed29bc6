//! The one duration grammar of every duration flag and config value (`--timeout`, `--since`,
//! `--soak`, `--health-timeout`, `--request-timeout`, `seed probe --timeout`, `health_gate` in
//! the config): jiff's friendly format (`500ms`, `30s`, `5m`, `1h30m`, `1m 30s`, `2d`, days
//! of 24 hours) or ISO 8601 (`PT5M`), and a bare integer read as seconds (`300`). Each caller
//! then bounds it in its own words ([`within`]).
use std::time::Duration;

/// Why a duration was refused (each names the text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("{0:?} is not a duration like 300 (seconds), 500ms, 30s, 5m, 1h30m or 2d")]
    NotADuration(String),
    #[error("{0:?}: a duration is not negative")]
    Negative(String),
    #[error("{text:?}: give a duration from {min} to {max}")]
    OutOfRange {
        text: String,
        min: String,
        max: String,
    },
}

/// `text` as a duration of the grammar above.
pub fn parse(text: &str) -> Result<Duration, DurationError> {
    let trimmed = text.trim();
    if let Ok(seconds) = trimmed.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    let bad = || DurationError::NotADuration(text.to_owned());
    let span: jiff::Span = trimmed.parse().map_err(|_| bad())?;
    let signed = span
        .to_duration(jiff::SpanRelativeTo::days_are_24_hours())
        .map_err(|_| bad())?;
    if signed.is_negative() {
        return Err(DurationError::Negative(text.to_owned()));
    }
    Duration::try_from(signed).map_err(|_| bad())
}

/// [`parse`], refused outside `min..=max`.
pub fn within(text: &str, min: Duration, max: Duration) -> Result<Duration, DurationError> {
    let duration = parse(text)?;
    if duration < min || duration > max {
        return Err(DurationError::OutOfRange {
            text: text.to_owned(),
            min: words(min),
            max: words(max),
        });
    }
    Ok(duration)
}

/// A duration in the grammar's own words: `500ms`, `90s` as `1m30s`, `2h`, `1d`.
pub fn words(duration: Duration) -> String {
    if duration.subsec_millis() != 0 && duration.as_secs() == 0 {
        return format!("{}ms", duration.as_millis());
    }
    let secs = duration.as_secs();
    let parts = [
        (secs / 86_400, "d"),
        (secs / 3_600 % 24, "h"),
        (secs / 60 % 60, "m"),
        (secs % 60, "s"),
    ];
    let text: String = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n}{unit}"))
        .collect();
    if text.is_empty() {
        "0s".to_owned()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_integers_are_seconds_and_jiffs_friendly_and_iso_forms_read() {
        let secs = |s: u64| Ok(Duration::from_secs(s));
        assert_eq!(parse("300"), secs(300));
        assert_eq!(parse(" 45 "), secs(45));
        assert_eq!(parse("5m"), secs(300));
        assert_eq!(parse("1h30m"), secs(5400));
        assert_eq!(parse("1m 30s"), secs(90));
        assert_eq!(parse("2d"), secs(172_800));
        assert_eq!(parse("PT5M"), secs(300));
        assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse("0"), secs(0));
    }

    #[test]
    fn words_that_are_no_duration_and_negatives_are_refused_in_one_line() {
        for bad in ["", "soon", "5x", "1.5.2m", "m"] {
            assert!(
                matches!(parse(bad), Err(DurationError::NotADuration(_))),
                "{bad:?}"
            );
        }
        assert!(matches!(parse("-5m"), Err(DurationError::Negative(_))));
        assert!(matches!(parse("5m ago"), Err(DurationError::Negative(_))));
    }

    #[test]
    fn bounds_are_said_in_the_same_words() {
        let (min, max) = (Duration::from_secs(1), Duration::from_secs(86_400));
        assert_eq!(within("10m", min, max), Ok(Duration::from_secs(600)));
        let err = within("2d", min, max).expect_err("too long");
        assert_eq!(err.to_string(), "\"2d\": give a duration from 1s to 1d");
        let err = within("0", Duration::from_millis(1), Duration::from_secs(600));
        assert_eq!(
            err.expect_err("zero").to_string(),
            "\"0\": give a duration from 1ms to 10m"
        );
        assert_eq!(words(Duration::from_secs(90)), "1m30s");
        assert_eq!(words(Duration::from_secs(3600)), "1h");
    }
}
