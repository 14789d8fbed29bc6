//! The local record of operator actions: one JSON object per line in
//! `$XDG_STATE_HOME/sei-console/journal.jsonl` (else `~/.local/state/sei-console/journal.jsonl`).
//!
//! Lines are appended with one `write` each, so concurrent consoles interleave whole lines.
//! Reading is forgiving: a damaged line is reported by number and skipped.
//!
//! Bounded: once the file would pass [`ROTATE_AT_BYTES`] it is renamed `journal.jsonl.1` (the
//! one before that is dropped) and a new file begins; [`Journal::read`] reads both, the older
//! first, each at most [`READ_LIMIT_BYTES`] (a longer file, written before rotation existed, is
//! read from its last [`READ_LIMIT_BYTES`] bytes, and what was skipped is said).
//!
//! Recording: `check_writable` is the pre-flight of `require_journal` (`ops::ActionLog::ready`); a
//! line that cannot be written is `ops::Note::Unrecorded` in the action's output and on the
//! console's status line, and `ops::NoLog` (no state dir) fails every write instead of dropping it.
//! Entries carry their `context` (older lines are read from the operator). `JournalFilter` (since,
//! node, action, operator, contexts, dry runs hidden by default) and `parse_since` are shared by
//! the `journal` command and `:journal`.
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::actions::event::{ActionKind, ActionName};

mod files;

pub const JOURNAL_FILE_NAME: &str = "journal.jsonl";

/// The size past which the journal is rotated: tens of thousands of actions.
pub const ROTATE_AT_BYTES: u64 = 8 * 1024 * 1024;

/// The most of one journal file read: twice the rotation size, for lines appended by consoles
/// racing past it.
pub const READ_LIMIT_BYTES: u64 = 2 * ROTATE_AT_BYTES;

/// How an action ended (or that it only started).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The change was persisted; the plan runs on.
    Started,
    Succeeded,
    Failed,
    /// Stopped before any change: read-only, a permission check, the operator said no.
    Refused,
    /// `--dry-run`: previewed only.
    DryRun,
    /// Closes a `started` line whose console died before it ended (`ops::interrupted`).
    Interrupted,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Started => "started",
            Outcome::Succeeded => "succeeded",
            Outcome::Failed => "failed",
            Outcome::Refused => "refused",
            Outcome::DryRun => "dry-run",
            Outcome::Interrupted => "interrupted",
        }
    }
}

/// One journal line. Never holds key material: callers pass descriptions, not objects.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JournalEntry {
    pub time: Timestamp,
    /// `name (context ctx)` of the operator.
    pub operator: String,
    /// The kubeconfig context acted in. Lines written before it existed have none: their
    /// context is read from `operator` ([`JournalEntry::context_name`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    pub action: ActionName,
    /// `namespace/name` of every SeiNode touched.
    pub nodes: Vec<String>,
    /// What was asked, e.g. `image ghcr.io/sei/seid:v2`.
    pub detail: String,
    pub outcome: Outcome,
    /// Why it failed or was refused; on a rolled node that succeeded, its health gate's
    /// verdict (`health gate passed after 60s soak …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The executor identity (Lease holder, `sei-console-<host>-<pid>`) of the console that
    /// wrote it: a `started` line whose holder died is closed as `interrupted`. Lines written
    /// before it existed have none (and are never closed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
}

impl JournalEntry {
    /// The context acted in: the typed field, else the `(context ctx)` the operator ends with.
    pub fn context_name(&self) -> Option<&str> {
        self.context.as_deref().or_else(|| {
            self.operator
                .strip_suffix(')')
                .and_then(|rest| rest.rsplit_once(" (context "))
                .map(|(_, context)| context)
        })
    }

    /// This entry with its context field filled from the operator when it had none.
    pub fn with_context(&self) -> JournalEntry {
        let mut entry = self.clone();
        entry.context = self.context_name().map(str::to_owned);
        entry
    }
}

#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    #[error("no journal location: neither XDG_STATE_HOME nor HOME is set")]
    NoLocation,
    #[error("cannot write journal {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read journal {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The journal file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    path: PathBuf,
    rotate_at: u64,
}

/// Entries read, and one message per damaged line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JournalContents {
    pub entries: Vec<JournalEntry>,
    pub problems: Vec<String>,
}

impl Journal {
    pub fn at(path: impl Into<PathBuf>) -> Journal {
        Journal {
            path: path.into(),
            rotate_at: ROTATE_AT_BYTES,
        }
    }

    /// This journal rotated at `bytes` instead of [`ROTATE_AT_BYTES`] (tests).
    pub fn rotating_at(mut self, bytes: u64) -> Journal {
        self.rotate_at = bytes;
        self
    }

    /// Where the file before the current one is kept: `journal.jsonl.1`.
    pub fn rotated_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".1");
        PathBuf::from(name)
    }

    /// The journal under the XDG state dir.
    pub fn default_location() -> Result<Journal, JournalError> {
        crate::config::paths::state_dir()
            .map(|dir| Journal::at(dir.join(JOURNAL_FILE_NAME)))
            .ok_or(JournalError::NoLocation)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a line could be appended now: the directory made and the file opened for
    /// appending (created if absent), nothing written. The pre-flight of `require_journal`.
    pub fn check_writable(&self) -> Result<(), JournalError> {
        let failed = |source| JournalError::Write {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(failed)?;
        }
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map(drop)
            .map_err(failed)
    }

    /// Appends one line.
    pub fn append(&self, entry: &JournalEntry) -> Result<(), JournalError> {
        let failed = |source| JournalError::Write {
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(failed)?;
        }
        let mut line = serde_json::to_string(entry)
            .map_err(|e| failed(std::io::Error::other(e.to_string())))?;
        line.push('\n');
        // Consoles appending at once take the file's lock; the one that finds it full renames it
        // and every other one, finding the name on a new file, opens that (never renaming it
        // again, which would drop the older file's lines).
        for _ in 0..4 {
            let mut file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .map_err(failed)?;
            file.lock().map_err(failed)?;
            let size = file.metadata().map_err(failed)?.len();
            if size == 0 || size + line.len() as u64 <= self.rotate_at {
                return file.write_all(line.as_bytes()).map_err(failed);
            }
            if files::still_at(&file, &self.path) {
                std::fs::rename(&self.path, self.rotated_path()).map_err(failed)?;
            }
        }
        Err(failed(std::io::Error::other(
            "the journal kept being rotated by other consoles; line not written",
        )))
    }

    /// Every entry, oldest first: the rotated file's, then the current one's; a missing file is
    /// an empty journal.
    pub fn read(&self) -> Result<JournalContents, JournalError> {
        let mut contents = JournalContents::default();
        for path in [self.rotated_path(), self.path.clone()] {
            if let Some(part) = files::read_part(&path)? {
                part.parse_into(&path, &mut contents);
            }
        }
        Ok(contents)
    }
}

/// Which entries to show: every condition given must hold. Dry runs are hidden unless asked
/// for (previews fill the journal).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JournalFilter {
    /// At or after this time.
    pub since: Option<Timestamp>,
    /// A node touched, as `name` or `namespace/name`.
    pub node: Option<String>,
    pub action: Option<ActionKind>,
    /// Part of the operator's `name (context ctx)`, any case.
    pub operator: Option<String>,
    /// Only entries of these contexts (`--context A --context B`); empty: every context.
    pub contexts: Vec<String>,
    /// Dry runs too.
    pub dry_runs: bool,
}

impl JournalFilter {
    pub fn matches(&self, entry: &JournalEntry) -> bool {
        let node_matches = |wanted: &str| {
            entry.nodes.iter().any(|node| {
                node == wanted
                    || node
                        .rsplit_once('/')
                        .is_some_and(|(_, name)| name == wanted)
            })
        };
        (self.dry_runs || entry.outcome != Outcome::DryRun)
            && self.since.is_none_or(|since| entry.time >= since)
            && self.node.as_deref().is_none_or(node_matches)
            && self.action.is_none_or(|action| entry.action == action)
            && (self.contexts.is_empty()
                || entry
                    .context_name()
                    .is_some_and(|context| self.contexts.iter().any(|c| c == context)))
            && self.operator.as_deref().is_none_or(|operator| {
                entry
                    .operator
                    .to_lowercase()
                    .contains(&operator.to_lowercase())
            })
    }

    /// The matching entries in the journal's order (oldest first).
    pub fn select<'a>(&self, entries: &'a [JournalEntry]) -> Vec<&'a JournalEntry> {
        entries.iter().filter(|e| self.matches(e)).collect()
    }

    /// The conditions in words, for a title or an empty result: `node rpc-0, since …`.
    pub fn words(&self) -> String {
        let mut words = Vec::new();
        if let Some(node) = &self.node {
            words.push(format!("node {node}"));
        }
        if let Some(action) = self.action {
            words.push(format!("action {}", action.name()));
        }
        if let Some(operator) = &self.operator {
            words.push(format!("operator {operator}"));
        }
        match self.contexts.as_slice() {
            [] => {}
            [one] => words.push(format!("context {one}")),
            several => words.push(format!("contexts {}", several.join(", "))),
        }
        if let Some(since) = self.since {
            words.push(format!("since {}", since.strftime("%Y-%m-%dT%H:%M:%SZ")));
        }
        words.push(if self.dry_runs {
            "dry runs shown".to_owned()
        } else {
            "dry runs hidden".to_owned()
        });
        words.join(", ")
    }
}

/// Why a `--since` was refused (each names the text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SinceError {
    #[error("since {0:?} is neither a duration (300, 90m, 1h30m, 2d) nor an RFC 3339 time")]
    Unreadable(String),
    #[error("since {0:?}: a duration back from now is positive")]
    Negative(String),
    /// A duration or time jiff cannot reckon with (its words).
    #[error("since {text:?}: {why}")]
    OutOfRange { text: String, why: String },
}

/// `--since`: a duration back from `now` (`90m`, `1h30m`, `2d`, `300` seconds) or an RFC 3339
/// time.
pub fn parse_since(text: &str, now: Timestamp) -> Result<Timestamp, SinceError> {
    let out_of_range = |e: jiff::Error| SinceError::OutOfRange {
        text: text.to_owned(),
        why: e.to_string(),
    };
    if let Ok(time) = text.parse::<Timestamp>() {
        return Ok(time);
    }
    // The one duration grammar (`sei_core::duration`): bare integers are seconds.
    let span = match sei_core::duration::parse(text) {
        Ok(duration) => jiff::SignedDuration::try_from(duration).map_err(out_of_range)?,
        Err(sei_core::duration::DurationError::Negative(_)) => {
            return Err(SinceError::Negative(text.to_owned()));
        }
        Err(_) => return Err(SinceError::Unreadable(text.to_owned())),
    };
    now.checked_sub(span).map_err(out_of_range)
}

#[cfg(test)]
mod rotation_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(outcome: Outcome) -> JournalEntry {
        JournalEntry {
            time: "2026-11-30T04:00:00Z".parse().expect("time"),
            operator: "alice (context prod)".into(),
            context: Some("prod".into()),
            action: ActionName::from("rollout"),
            nodes: vec!["sei/rpc-0".into(), "sei/rpc-1".into()],
            detail: "image ghcr.io/sei/seid:v2".into(),
            outcome,
            reason: (outcome == Outcome::Refused).then(|| "read-only mode".into()),
            holder: None,
        }
    }

    #[test]
    fn appends_and_reads_back_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let journal = Journal::at(dir.path().join("state").join(JOURNAL_FILE_NAME));
        assert_eq!(journal.read().expect("empty").entries, Vec::new());
        journal.append(&entry(Outcome::Started)).expect("append");
        journal.append(&entry(Outcome::Refused)).expect("append");
        let contents = journal.read().expect("read");
        assert_eq!(
            contents.entries,
            vec![entry(Outcome::Started), entry(Outcome::Refused)]
        );
        assert!(contents.problems.is_empty());
    }

    #[test]
    fn line_format_is_stable_json() {
        let line = serde_json::to_string(&entry(Outcome::Refused)).expect("json");
        assert_eq!(
            line,
            r#"{"time":"2026-11-30T04:00:00Z","operator":"alice (context prod)","context":"prod","action":"rollout","nodes":["sei/rpc-0","sei/rpc-1"],"detail":"image ghcr.io/sei/seid:v2","outcome":"refused","reason":"read-only mode"}"#
        );
    }

    #[test]
    fn the_filter_hides_dry_runs_and_keeps_what_every_condition_allows() {
        let mut dry = entry(Outcome::DryRun);
        dry.time = "2026-11-30T05:00:00Z".parse().expect("time");
        let mut bob = entry(Outcome::Succeeded);
        bob.operator = "Bob (context prod)".into();
        bob.action = ActionName::from("address");
        bob.nodes = vec!["sei/seed-0".into()];
        bob.time = "2026-11-30T06:00:00Z".parse().expect("time");
        let entries = vec![entry(Outcome::Started), dry, bob];
        let pick = |filter: &JournalFilter| -> Vec<String> {
            filter
                .select(&entries)
                .iter()
                .map(|e| format!("{} {}", e.operator, e.outcome.name()))
                .collect()
        };
        let all = JournalFilter::default();
        assert_eq!(
            pick(&all),
            [
                "alice (context prod) started",
                "Bob (context prod) succeeded"
            ],
            "dry runs hidden by default"
        );
        let with_dry = JournalFilter {
            dry_runs: true,
            ..all.clone()
        };
        assert_eq!(pick(&with_dry).len(), 3);
        for (filter, wanted) in [
            (
                JournalFilter {
                    node: Some("rpc-1".into()),
                    ..all.clone()
                },
                "alice (context prod) started",
            ),
            (
                JournalFilter {
                    node: Some("sei/seed-0".into()),
                    ..all.clone()
                },
                "Bob (context prod) succeeded",
            ),
            (
                JournalFilter {
                    operator: Some("bob".into()),
                    ..all.clone()
                },
                "Bob (context prod) succeeded",
            ),
            (
                JournalFilter {
                    action: Some(ActionKind::new("rollout", "ConsoleImageRollout")),
                    ..all.clone()
                },
                "alice (context prod) started",
            ),
            (
                JournalFilter {
                    since: Some("2026-11-30T05:30:00Z".parse().expect("time")),
                    ..all.clone()
                },
                "Bob (context prod) succeeded",
            ),
        ] {
            assert_eq!(pick(&filter), [wanted], "{}", filter.words());
        }
        assert!(
            pick(&JournalFilter {
                node: Some("rpc".into()),
                ..all
            })
            .is_empty(),
            "whole names only"
        );
    }

    #[test]
    fn lines_without_a_context_field_read_it_from_the_operator() {
        let old = r#"{"time":"2026-11-30T04:00:00Z","operator":"bob (context dev)","action":"address","nodes":["sei/rpc-1"],"detail":"d","outcome":"started"}"#;
        let entry: JournalEntry = serde_json::from_str(old).expect("old line");
        assert_eq!(entry.context, None);
        assert_eq!(entry.context_name(), Some("dev"));
        assert_eq!(entry.with_context().context.as_deref(), Some("dev"));
        let mut unknown = entry.clone();
        unknown.operator = "someone".into();
        assert_eq!(unknown.context_name(), None);
        let mut typed = entry;
        typed.context = Some("prod".into());
        assert_eq!(typed.context_name(), Some("prod"), "the field wins");
    }

    #[test]
    fn the_filter_keeps_the_contexts_given_or_every_one() {
        let mut dev = entry(Outcome::Started);
        dev.context = None;
        dev.operator = "bob (context dev)".into();
        let mut stage = entry(Outcome::Started);
        stage.context = Some("stage".into());
        let mut nowhere = entry(Outcome::Started);
        nowhere.context = None;
        nowhere.operator = "someone".into();
        let entries = vec![entry(Outcome::Started), dev, stage, nowhere];
        let pick = |contexts: &[&str]| -> Vec<Option<String>> {
            JournalFilter {
                contexts: contexts.iter().map(|c| (*c).to_owned()).collect(),
                ..JournalFilter::default()
            }
            .select(&entries)
            .iter()
            .map(|e| e.context_name().map(str::to_owned))
            .collect()
        };
        assert_eq!(pick(&[]).len(), 4, "no context: every entry");
        assert_eq!(pick(&["dev"]), [Some("dev".to_owned())]);
        assert_eq!(
            pick(&["stage", "prod"]),
            [Some("prod".to_owned()), Some("stage".to_owned())],
            "the journal's order"
        );
        assert!(pick(&["elsewhere"]).is_empty());
        let words = JournalFilter {
            contexts: vec!["a".into(), "b".into()],
            ..JournalFilter::default()
        }
        .words();
        assert_eq!(words, "contexts a, b, dry runs hidden");
    }

    #[test]
    fn since_takes_a_duration_back_from_now_or_a_time() {
        let now: Timestamp = "2026-11-30T06:00:00Z".parse().expect("time");
        assert_eq!(
            parse_since("90m", now),
            Ok("2026-11-30T04:30:00Z".parse().expect("t"))
        );
        assert_eq!(
            parse_since("2d", now),
            Ok("2026-11-28T06:00:00Z".parse().expect("t"))
        );
        assert_eq!(
            parse_since("2026-11-30T01:00:00Z", now),
            Ok("2026-11-30T01:00:00Z".parse().expect("t"))
        );
        assert!(parse_since("soon", now).is_err());
    }

    #[test]
    fn damaged_lines_are_reported_and_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let journal = Journal::at(dir.path().join(JOURNAL_FILE_NAME));
        journal.append(&entry(Outcome::Started)).expect("append");
        let mut file = OpenOptions::new()
            .append(true)
            .open(journal.path())
            .expect("open");
        file.write_all(b"{\"half\n").expect("write");
        journal.append(&entry(Outcome::Succeeded)).expect("append");
        let contents = journal.read().expect("read");
        assert_eq!(contents.entries.len(), 2);
        assert_eq!(contents.problems.len(), 1);
        assert!(
            contents.problems[0].contains("line 2"),
            "{:?}",
            contents.problems
        );
    }
}
