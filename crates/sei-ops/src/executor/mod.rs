//! Port of the controller's plan executor (`internal/planner/executor.go`, spec/planner.md
//! section 3) as a pure step function: the caller performs each task's `Execute`/`Status`
//! (I/O) and reports the outcome; this module applies the controller's exact rules to the plan.
//!
//! One reconcile pass, as the controller runs it:
//!
//! ```text
//! loop {
//!     match next_step(&mut plan) {
//!         NextStep::Idle => break Requeue::Never,                       // plan already terminal
//!         NextStep::PlanComplete { target_phase } => {                  // every task Complete
//!             apply_phase_change(status, target_phase, now);
//!             break Requeue::After(REQUEUE_IMMEDIATE);
//!         }
//!         NextStep::RunTask { index, submit } => {
//!             // deserialize the task; if `submit`, call Execute; unless Execute failed, call Status
//!             let step = record_outcome(&mut plan, index, outcome, now);
//!             apply_phase_change(status, step.phase_change, now);
//!             if !step.continue_plan { break step.requeue; }
//!         }
//!     }
//! }
//! ```
//!
//! [`execute_pass`] is that loop for synchronous callers; an async driver writes the same loop
//! around `next_step` and `record_outcome`.
pub mod driver;
pub mod lease;
pub mod peering;
mod step;

pub use step::*;
