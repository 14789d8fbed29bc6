//! Where an action's journal lines go: the [`ActionLog`] port, the local JSONL [`Journal`] behind
//! it, and [`NoLog`] when the journal has no location.
use crate::journal::{Journal, JournalEntry, JournalError};

/// Where journal lines go (the local JSONL journal; a list in tests).
pub trait ActionLog: Send + Sync {
    fn append(&self, entry: &JournalEntry) -> Result<(), JournalError>;
    /// Whether a line could be written now (nothing is written): `require_journal`'s pre-flight.
    fn ready(&self) -> Result<(), JournalError> {
        Ok(())
    }
    /// The lines written so far, oldest first (`ops::interrupted` closes the runs of consoles
    /// that died); a log that cannot be read back has none.
    fn entries(&self) -> Vec<JournalEntry> {
        Vec::new()
    }
}

impl ActionLog for Journal {
    fn append(&self, entry: &JournalEntry) -> Result<(), JournalError> {
        Journal::append(self, entry)
    }

    fn entries(&self) -> Vec<JournalEntry> {
        self.read().map(|c| c.entries).unwrap_or_default()
    }

    fn ready(&self) -> Result<(), JournalError> {
        self.check_writable()
    }
}

/// No journal (its location could not be determined): every line is lost, and each write says
/// so (never silently).
pub struct NoLog;

impl ActionLog for NoLog {
    fn append(&self, _entry: &JournalEntry) -> Result<(), JournalError> {
        Err(JournalError::NoLocation)
    }

    fn ready(&self) -> Result<(), JournalError> {
        Err(JournalError::NoLocation)
    }
}
