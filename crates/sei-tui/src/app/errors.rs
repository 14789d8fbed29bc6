//! The app layer's typed errors besides an action job's (`action_error`): what the effects hand
//! the model and what the forms and the palette refuse. Their words are the screen's; the lower
//! layers' errors are kept whole (behind an `Arc` where they cannot be cloned, as `Msg` is).
use std::sync::Arc;

use crate::actions::event::UnknownAction;
use crate::journal::JournalError;
use crate::ops::seed_probe::NotProbeable;

/// A form that does not validate into an operation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormError {
    /// A field's value is wrong: the field as the form labels it (the dialog focuses it).
    #[error("{field}: {problem}")]
    Field {
        field: &'static str,
        problem: String,
    },
    #[error("no console action {0}")]
    Unregistered(&'static str),
}

impl FormError {
    pub fn field(field: &'static str, problem: impl std::fmt::Display) -> FormError {
        FormError::Field {
            field,
            problem: problem.to_string(),
        }
    }

    /// The field's label when the error is about one field.
    pub fn field_label(&self) -> Option<&'static str> {
        match self {
            FormError::Field { field, .. } => Some(field),
            _ => None,
        }
    }
}

/// Why a seed's outside probe did not start or gave no outcome.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeedProbeError {
    #[error("{0} is gone")]
    Gone(String),
    #[error("{0}")]
    NotProbeable(#[from] NotProbeable),
    #[error("the seed probe is not available in this console")]
    Unavailable,
    #[error("no result within {0} s")]
    TimedOut(u64),
}

/// Why `:journal` has no journal to show.
#[derive(Debug, Clone, thiserror::Error)]
pub enum JournalReadError {
    #[error("no journal location (neither XDG_STATE_HOME nor HOME is set)")]
    NoLocation,
    #[error("{0}")]
    Read(Arc<JournalError>),
    /// The blocking read's task did not return.
    #[error("reading the journal failed: {0}")]
    Task(Arc<tokio::task::JoinError>),
}

/// The words of `:journal …` that make no filter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalFilterError {
    #[error("{0}")]
    Action(#[from] UnknownAction),
    /// `since:D` (the journal's own words for it).
    #[error("{0}")]
    Since(crate::journal::SinceError),
    #[error(
        "journal: unknown filter {0:?}; use NODE, action:A, operator:T, since:D, ctx:NAME, all"
    )]
    UnknownFilter(String),
}

/// The contexts of `:ctx …` that are not the kubeconfig's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContextsError {
    #[error("the kubeconfig names no context")]
    NoContexts,
    #[error("no context {name:?} in the kubeconfig; contexts: {known}")]
    Unknown { name: String, known: String },
    #[error("name a context: :ctx NAME, :ctx A,B or :ctx all")]
    NoneNamed,
}

/// Why the namespaces of a context could not be listed for `:ns`.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NamespacesError {
    #[error("listing namespaces timed out after {0} s")]
    TimedOut(u64),
    /// The API server's answer, as the port's adapter describes it.
    #[error("{0}")]
    List(Arc<dyn std::error::Error + Send + Sync>),
}

/// Why a setting was not written to the config file.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SettingSaveError {
    #[error("{0}")]
    Write(Arc<crate::config::edit::ConfigWriteError>),
    /// The blocking write's task did not return.
    #[error("saving the config file: {0}")]
    Task(Arc<tokio::task::JoinError>),
}

/// Why the console did not start or stopped (one line on stderr once the terminal is back);
/// a cluster that cannot be connected to before the start is the composition root's error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot open the terminal: {0}")]
    OpenTerminal(std::io::Error),
    #[error("cannot draw: {0}")]
    Draw(std::io::Error),
    #[error("input closed")]
    InputClosed,
    /// After `ctrl-z` and `fg`: raw mode or the alternate screen could not be taken again.
    #[error("cannot take the terminal back: {0}")]
    TakeBack(std::io::Error),
    #[error("cannot redraw after resuming: {0}")]
    Redraw(std::io::Error),
}
