//! SeiNode condition types and reasons (spec/planner.md 1.7) and the upsert rules of
//! `meta.SetStatusCondition` (spec/planner.md 1.4). Conditions themselves are
//! `k8s_openapi` `metav1::Condition`.
use std::fmt;

use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};

macro_rules! string_enum {
    ($(#[$meta:meta])* $name:ident { $( $variant:ident => $wire:literal, )* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( #[doc = concat!("`", $wire, "`")] $variant, )*
        }

        impl $name {
            /// Every value.
            pub const ALL: &'static [$name] = &[$( $name::$variant, )*];

            /// The wire string.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $wire, )*
                }
            }

            /// Parses the wire string.
            pub fn parse(text: &str) -> Option<$name> {
                match text {
                    $( $wire => Some($name::$variant), )*
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum! {
    /// Condition types a SeiNode carries.
    ConditionType {
        NodeUpdateInProgress => "NodeUpdateInProgress",
        SidecarReady => "SidecarReady",
        ImportPvcReady => "ImportPVCReady",
        SigningKeyReady => "SigningKeyReady",
        NodeKeyReady => "NodeKeyReady",
        OperatorKeyringReady => "OperatorKeyringReady",
        Paused => "Paused",
        StateSyncReady => "StateSyncReady",
        WorkflowInProgress => "WorkflowInProgress",
    }
}

string_enum! {
    /// Condition status.
    ConditionStatus {
        True => "True",
        False => "False",
        Unknown => "Unknown",
    }
}

string_enum! {
    /// Every reason the controller writes on a SeiNode condition. `Ready` is shared by
    /// `SidecarReady` and `StateSyncReady`.
    Reason {
        UpdateStarted => "UpdateStarted",
        UpdateComplete => "UpdateComplete",
        UpdateFailed => "UpdateFailed",
        Ready => "Ready",
        NotReady => "NotReady",
        Unreachable => "Unreachable",
        PvcValidated => "PVCValidated",
        PvcNotReady => "PVCNotReady",
        PvcInvalid => "PVCInvalid",
        SigningKeyValidated => "SigningKeyValidated",
        SigningKeyNotReady => "SigningKeyNotReady",
        SigningKeyInvalid => "SigningKeyInvalid",
        NodeKeyValidated => "NodeKeyValidated",
        NodeKeyNotReady => "NodeKeyNotReady",
        NodeKeyInvalid => "NodeKeyInvalid",
        OperatorKeyringValidated => "OperatorKeyringValidated",
        OperatorKeyringNotReady => "OperatorKeyringNotReady",
        OperatorKeyringInvalid => "OperatorKeyringInvalid",
        Paused => "Paused",
        NotPaused => "NotPaused",
        NoSyncersConfigured => "NoSyncersConfigured",
        NotApplicable => "NotApplicable",
        SyncerSourceError => "SyncerSourceError",
        NoWorkflow => "NoWorkflow",
        WorkflowRunning => "WorkflowRunning",
        WorkflowFailedHeld => "WorkflowFailedHeld",
    }
}

/// The condition of type `kind` in `conditions`.
pub fn find_condition(conditions: &[Condition], kind: ConditionType) -> Option<&Condition> {
    conditions
        .iter()
        .find(|condition| condition.type_ == kind.as_str())
}

/// A condition to upsert with [`set_condition`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConditionUpdate {
    pub kind: ConditionType,
    pub status: ConditionStatus,
    pub reason: Reason,
    pub message: String,
    /// Every setter upstream stamps `metadata.generation` here.
    pub observed_generation: i64,
}

/// Upserts `update` with `meta.SetStatusCondition` semantics: an absent condition is appended
/// with `lastTransitionTime = now`; a present one changes `lastTransitionTime` only when its
/// status changes; reason, message and observedGeneration are always overwritten.
/// Returns whether anything changed.
pub fn set_condition(
    conditions: &mut Vec<Condition>,
    update: ConditionUpdate,
    now: Timestamp,
) -> bool {
    let ConditionUpdate {
        kind,
        status,
        reason,
        message,
        observed_generation,
    } = update;
    let Some(existing) = conditions.iter_mut().find(|c| c.type_ == kind.as_str()) else {
        conditions.push(Condition {
            type_: kind.as_str().to_owned(),
            status: status.as_str().to_owned(),
            reason: reason.as_str().to_owned(),
            message,
            observed_generation: Some(observed_generation),
            last_transition_time: Time(now),
        });
        return true;
    };
    let mut changed = false;
    if existing.status != status.as_str() {
        existing.status = status.as_str().to_owned();
        existing.last_transition_time = Time(now);
        changed = true;
    }
    if existing.reason != reason.as_str() {
        existing.reason = reason.as_str().to_owned();
        changed = true;
    }
    if existing.message != message {
        existing.message = message;
        changed = true;
    }
    if existing.observed_generation != Some(observed_generation) {
        existing.observed_generation = Some(observed_generation);
        changed = true;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(status: ConditionStatus, reason: Reason, message: &str) -> ConditionUpdate {
        ConditionUpdate {
            kind: ConditionType::NodeUpdateInProgress,
            status,
            reason,
            message: message.into(),
            observed_generation: 3,
        }
    }

    #[test]
    fn set_condition_transition_time_moves_only_on_status_change() {
        let t0 = Timestamp::from_second(1_000).expect("t0");
        let t1 = Timestamp::from_second(2_000).expect("t1");
        let t2 = Timestamp::from_second(3_000).expect("t2");
        let mut conditions = Vec::new();
        assert!(set_condition(
            &mut conditions,
            update(ConditionStatus::True, Reason::UpdateStarted, "a"),
            t0
        ));
        assert_eq!(conditions[0].last_transition_time, Time(t0));
        assert_eq!(conditions[0].observed_generation, Some(3));
        // Same status, new message: time kept, message overwritten.
        assert!(set_condition(
            &mut conditions,
            update(ConditionStatus::True, Reason::UpdateStarted, "b"),
            t1
        ));
        assert_eq!(conditions[0].last_transition_time, Time(t0));
        assert_eq!(conditions[0].message, "b");
        // Status change: time moves.
        assert!(set_condition(
            &mut conditions,
            update(ConditionStatus::False, Reason::UpdateComplete, "c"),
            t2
        ));
        assert_eq!(conditions[0].last_transition_time, Time(t2));
        assert_eq!(conditions[0].reason, "UpdateComplete");
        assert!(!set_condition(
            &mut conditions,
            update(ConditionStatus::False, Reason::UpdateComplete, "c"),
            t2
        ));
        assert_eq!(conditions.len(), 1);
    }

    #[test]
    fn wire_strings_parse_back() {
        for kind in ConditionType::ALL {
            assert_eq!(ConditionType::parse(kind.as_str()), Some(*kind));
        }
        for reason in Reason::ALL {
            assert_eq!(Reason::parse(reason.as_str()), Some(*reason));
        }
        assert_eq!(ConditionType::ImportPvcReady.as_str(), "ImportPVCReady");
    }
}
