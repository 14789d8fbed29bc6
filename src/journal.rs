//! The local record of operator actions: one JSON object per line in
//! `$XDG_STATE_HOME/sei-console/journal.jsonl` (else `~/.local/state/sei-console/journal.jsonl`).
//!
//! Lines are appended with one `write` each, so concurrent consoles interleave whole lines.
//! Reading is forgiving: a damaged line is reported by number and skipped.
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::actions::event::ActionKind;

pub const JOURNAL_FILE_NAME: &str = "journal.jsonl";

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
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Started => "started",
            Outcome::Succeeded => "succeeded",
            Outcome::Failed => "failed",
            Outcome::Refused => "refused",
            Outcome::DryRun => "dry-run",
        }
    }
}

/// One journal line. Never holds key material: callers pass descriptions, not objects.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct JournalEntry {
    pub time: Timestamp,
    /// `name (context ctx)` of the operator.
    pub operator: String,
    pub action: ActionKind,
    /// `namespace/name` of every SeiNode touched.
    pub nodes: Vec<String>,
    /// What was asked, e.g. `image ghcr.io/sei/seid:v2`.
    pub detail: String,
    pub outcome: Outcome,
    /// Why it failed or was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
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
}

/// Entries read, and one message per damaged line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JournalContents {
    pub entries: Vec<JournalEntry>,
    pub problems: Vec<String>,
}

impl Journal {
    pub fn at(path: impl Into<PathBuf>) -> Journal {
        Journal { path: path.into() }
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
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(failed)?;
        file.write_all(line.as_bytes()).map_err(failed)
    }

    /// Every entry, oldest first; a missing file is an empty journal.
    pub fn read(&self) -> Result<JournalContents, JournalError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => {
                return Err(JournalError::Read {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        let mut contents = JournalContents::default();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str(line) {
                Ok(entry) => contents.entries.push(entry),
                Err(e) => contents.problems.push(format!(
                    "journal {}: line {}: {e}; skipped",
                    self.path.display(),
                    index + 1
                )),
            }
        }
        Ok(contents)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(outcome: Outcome) -> JournalEntry {
        JournalEntry {
            time: "2026-11-30T04:00:00Z".parse().expect("time"),
            operator: "alice (context prod)".into(),
            action: ActionKind::Rollout,
            nodes: vec!["sei/rpc-0".into(), "sei/rpc-1".into()],
            detail: "image ghcr.io/sei/seid:v2".into(),
            outcome,
            reason: (outcome == Outcome::Refused).then(|| "read-only mode".into()),
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
            r#"{"time":"2026-11-30T04:00:00Z","operator":"alice (context prod)","action":"rollout","nodes":["sei/rpc-0","sei/rpc-1"],"detail":"image ghcr.io/sei/seid:v2","outcome":"refused","reason":"read-only mode"}"#
        );
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
