//! Every upstream task-type string as a typed enum (spec/planner.md 2.1, tasks-and-resources.md 1.4).
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Who executes a task type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskExecutor {
    /// Done by the controller against the Kubernetes API.
    Controller,
    /// Submitted to the node's seictl sidecar.
    Sidecar,
}

macro_rules! task_kinds {
    ($( $variant:ident => $wire:literal, $abbrev:literal, $registered:literal, $executor:ident; )*) => {
        /// A task type. Serializes to the upstream string; any other string is kept verbatim
        /// in `Unknown` so plans written by others survive a read/write cycle.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum TaskKind {
            $( #[doc = concat!("`", $wire, "`")] $variant, )*
            /// A string this version does not know.
            Unknown(String),
        }

        impl TaskKind {
            /// Every known task type, in table order.
            pub const KNOWN: &'static [TaskKind] = &[$( TaskKind::$variant, )*];

            /// The upstream task-type string.
            pub fn as_str(&self) -> &str {
                match self {
                    $( TaskKind::$variant => $wire, )*
                    TaskKind::Unknown(other) => other,
                }
            }

            /// Parses a task-type string; unknown strings become `Unknown`.
            pub fn parse(text: &str) -> TaskKind {
                match text {
                    $( $wire => TaskKind::$variant, )*
                    other => TaskKind::Unknown(other.to_owned()),
                }
            }

            /// The abbreviation used by the test-oracle tables (`PVC`, `STS`, …), or the full
            /// string for types without one.
            pub fn abbrev(&self) -> &str {
                match self {
                    $( TaskKind::$variant => if $abbrev.is_empty() { $wire } else { $abbrev }, )*
                    TaskKind::Unknown(other) => other,
                }
            }

            /// Whether the controller's executor registry has this type. Deserializing any
            /// other type fails the plan with `unknown task type "…"`.
            pub fn is_registered(&self) -> bool {
                match self {
                    $( TaskKind::$variant => $registered, )*
                    TaskKind::Unknown(_) => false,
                }
            }

            /// Who executes the type (meaningful for registered types).
            pub fn executor(&self) -> TaskExecutor {
                match self {
                    $( TaskKind::$variant => TaskExecutor::$executor, )*
                    TaskKind::Unknown(_) => TaskExecutor::Sidecar,
                }
            }
        }
    };
}

task_kinds! {
    EnsureDataPvc => "ensure-data-pvc", "PVC", true, Controller;
    ValidateSigningKey => "validate-signing-key", "VSK", true, Controller;
    ValidateNodeKey => "validate-node-key", "VNK", true, Controller;
    ValidateOperatorKeyring => "validate-operator-keyring", "VOK", true, Controller;
    ApplyRbacProxyConfig => "apply-rbac-proxy-config", "RBAC", true, Controller;
    ApplyStatefulSet => "apply-statefulset", "STS", true, Controller;
    ApplyService => "apply-service", "SVC", true, Controller;
    ReplacePod => "replace-pod", "RP", true, Controller;
    ObserveImage => "observe-image", "OI", true, Controller;
    DeployBootstrapService => "deploy-bootstrap-service", "DBS", true, Controller;
    DeployBootstrapJob => "deploy-bootstrap-job", "DBJ", true, Controller;
    AwaitBootstrapComplete => "await-bootstrap-complete", "ABC", true, Controller;
    TeardownBootstrap => "teardown-bootstrap", "TB", true, Controller;
    UpdateNodeImage => "update-node-image", "", true, Controller;
    AwaitNodesRunning => "await-nodes-running", "", true, Controller;
    CollectAndSetPeers => "collect-and-set-peers", "", true, Controller;
    SnapshotRestore => "snapshot-restore", "SR", true, Sidecar;
    ConfigureGenesis => "configure-genesis", "CG", true, Sidecar;
    ConfigureStateSync => "configure-state-sync", "CSS", true, Sidecar;
    ConfigApply => "config-apply", "CA", true, Sidecar;
    ConfigPatch => "config-patch", "CP", true, Sidecar;
    ConfigValidate => "config-validate", "CV", true, Sidecar;
    MarkReady => "mark-ready", "MR", true, Sidecar;
    AwaitCondition => "await-condition", "", true, Sidecar;
    RestartSeid => "restart-seid", "", true, Sidecar;
    MarkNotReady => "mark-not-ready", "", true, Sidecar;
    StopSeid => "stop-seid", "", true, Sidecar;
    ResetData => "reset-data", "", true, Sidecar;
    GenerateIdentity => "generate-identity", "", true, Sidecar;
    GenerateGentx => "generate-gentx", "", true, Sidecar;
    UploadGenesisArtifacts => "upload-genesis-artifacts", "", true, Sidecar;
    AssembleAndUploadGenesis => "assemble-and-upload-genesis", "", true, Sidecar;
    SetGenesisPeers => "set-genesis-peers", "", true, Sidecar;
    GovVote => "gov-vote", "", true, Sidecar;
    GovSoftwareUpgrade => "gov-software-upgrade", "", true, Sidecar;
    GovParamChange => "gov-param-change", "", true, Sidecar;
    SnapshotUpload => "snapshot-upload", "", false, Sidecar;
    SnapshotUploadOnce => "snapshot-upload-once", "", false, Sidecar;
    ResultExport => "result-export", "", false, Sidecar;
    ConfigReload => "config-reload", "", false, Sidecar;
    EvmLogicalDigest => "evm-logical-digest", "", false, Sidecar;
}

impl TaskKind {
    /// Sidecar tasks whose outcome is never polled: Complete right after a successful submit.
    pub fn is_fire_and_forget(&self) -> bool {
        matches!(self, TaskKind::MarkReady | TaskKind::ConfigValidate)
    }
}

impl fmt::Display for TaskKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for TaskKind {
    fn from(text: &str) -> Self {
        TaskKind::parse(text)
    }
}

impl Serialize for TaskKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for TaskKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(TaskKind::parse(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_kind_round_trips_through_its_string() {
        for kind in TaskKind::KNOWN {
            assert_eq!(&TaskKind::parse(kind.as_str()), kind);
            let json = serde_json::to_string(kind).expect("serialize");
            assert_eq!(
                &serde_json::from_str::<TaskKind>(&json).expect("parse"),
                kind
            );
        }
        assert_eq!(TaskKind::KNOWN.len(), 41);
    }

    #[test]
    fn unknown_strings_are_preserved() {
        let kind: TaskKind = serde_json::from_str("\"frobnicate\"").expect("parse");
        assert_eq!(kind, TaskKind::Unknown("frobnicate".into()));
        assert_eq!(serde_json::to_string(&kind).expect("ser"), "\"frobnicate\"");
        assert!(!kind.is_registered());
    }

    #[test]
    fn unregistered_seictl_types_are_known_but_not_registered() {
        for wire in [
            "snapshot-upload",
            "snapshot-upload-once",
            "result-export",
            "config-reload",
            "evm-logical-digest",
        ] {
            let kind = TaskKind::parse(wire);
            assert!(!matches!(kind, TaskKind::Unknown(_)), "{wire}");
            assert!(!kind.is_registered(), "{wire}");
        }
        assert!(TaskKind::MarkReady.is_fire_and_forget());
        assert!(TaskKind::ConfigValidate.is_fire_and_forget());
        assert!(!TaskKind::MarkNotReady.is_fire_and_forget());
    }
}
