//! What driving one task came to, as the executor's step function takes it: the tasks produce
//! it ([`super::advance`]), `executor::record_outcome` applies the controller's rules to it.
//! It lives here, below the executor, so the arrow between the two runs one way.

/// What a task's `Status` reported (upstream `ExecutionStatus`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecutionStatus {
    /// Still in flight (or waiting).
    Running,
    /// Done.
    Complete,
    /// Failed; the message of `Err()`, if any.
    Failed(Option<String>),
}

/// The outcome of driving one task, as observed by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskOutcome {
    /// The task could not be rebuilt from its stored type and params (unknown type, params that
    /// do not decode). Fails the plan.
    Undeserializable(String),
    /// `Execute` returned a terminal error. Fails the plan at once, whatever `maxRetries` says.
    TerminalError(String),
    /// `Execute` returned any other error. The task stays `Pending`, no retry is consumed, and
    /// `Status` is not called.
    TransientError(String),
    /// `Execute` succeeded (or was not due) and `Status` reported this.
    Status(ExecutionStatus),
}
