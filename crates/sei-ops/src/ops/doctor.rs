//! The fleet doctor: every problem of the watched fleet, ranked, each with the evidence that
//! shows it and the fix (issue 25). Pure over what the console already watches and probes: the
//! caller (`sei-console doctor`, the console's `:doctor`) gathers a [`DoctorInput`] and
//! [`diagnose`] returns the ranked [`Finding`]s. Shared by the command line, its JSON (a stable,
//! documented shape: README "sei-console doctor") and the console.
//!
//! The checks live by what they read: `doctor_node` (plan, tasks, render, drift, conditions,
//! the seed probe), `doctor_workload` (pods, PVCs, Warning events of the StatefulSet and pods),
//! `doctor_cluster` (the controller's Lease, embedded executors' Leases, permissions).
use std::collections::BTreeSet;

use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Event, PersistentVolumeClaim, Pod};
use serde::Serialize;

use crate::actions::render_fix::PlatformSource;
use crate::api::SeiNode;
use crate::config::DoctorThresholds;
use crate::executor::lease::ControllerLiveness;
use crate::platform::PlatformConfig;
use crate::ports::access::Denial;
use crate::ports::probe::ProbeOutcome;
pub mod chain;
mod cluster;
mod node;
mod render;
mod skew;
mod workload;

/// How bad a finding is; ranks first. `critical`: the node is down or cannot be changed;
/// `warning`: it works but not as specified, or will not for long; `info`: worth knowing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Critical,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// What kind of problem a finding is (its JSON `class`). The order is the rank within one
/// object and severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingClass {
    /// Plans are Active and no controller holds its Lease: nobody runs them.
    ControllerAbsent,
    /// The StatefulSet cannot be rendered with the platform config in use now.
    RenderBlocked,
    /// The pod runs as a ServiceAccount the namespace lacks.
    ServiceAccountMissing,
    PlanFailed,
    PodCrashLoop,
    PodImagePull,
    PodPending,
    PvcPending,
    SeedUnreachable,
    SeedOtherNodeId,
    SeedMisadvertised,
    SeedNoPeers,
    /// An embedded executor's node Lease left by a console that is gone.
    ExecutorLeaseOrphaned,
    TaskOverdue,
    /// `spec.image` is not what runs, and no plan is taking the node there.
    ImageDrift,
    /// A pod's container runs another image than the spec's, and no plan is replacing it.
    PodOldImage,
    /// The sidecar runs another image than the platform's (or the spec's), with no plan.
    SidecarBehind,
    /// A condition of the node reports trouble (a Running node is then not healthy).
    ConditionFailing,
    /// A Warning event of the node's StatefulSet or pod no other finding explains.
    PodWarning,
    /// The node carries fields sei-console does not know (a newer CRD's): actions refused.
    UnknownFields,
    /// The cluster's SeiNode CRD differs from the one sei-console embeds.
    CrdSkew,
    /// The operator lacks permissions the fixes of this namespace need.
    PermissionMissing,
    /// A `StatefulSetRenderFailed` event from before: the platform config renders the node now.
    RenderFailedBefore,
    /// The node's height has not advanced for longer than its chain's blocks allow.
    ChainStalled,
    /// The node is behind its chain (its own `/lag_status`, or the fleet's highest height).
    ChainLagging,
    /// The node is catching up (and, with one block-sync peer, can never be called caught up).
    ChainCatchingUp,
    /// The node's RPC does not answer (its pod exists).
    ChainRpcUnreachable,
}

impl FindingClass {
    pub fn as_str(self) -> &'static str {
        match self {
            FindingClass::ControllerAbsent => "controller-absent",
            FindingClass::RenderBlocked => "render-blocked",
            FindingClass::ServiceAccountMissing => "service-account-missing",
            FindingClass::PlanFailed => "plan-failed",
            FindingClass::PodCrashLoop => "pod-crash-loop",
            FindingClass::PodImagePull => "pod-image-pull",
            FindingClass::PodPending => "pod-pending",
            FindingClass::PvcPending => "pvc-pending",
            FindingClass::SeedUnreachable => "seed-unreachable",
            FindingClass::SeedOtherNodeId => "seed-other-node-id",
            FindingClass::SeedMisadvertised => "seed-misadvertised",
            FindingClass::SeedNoPeers => "seed-no-peers",
            FindingClass::ExecutorLeaseOrphaned => "executor-lease-orphaned",
            FindingClass::TaskOverdue => "task-overdue",
            FindingClass::ImageDrift => "image-drift",
            FindingClass::PodOldImage => "pod-old-image",
            FindingClass::SidecarBehind => "sidecar-behind",
            FindingClass::ConditionFailing => "condition-failing",
            FindingClass::PodWarning => "pod-warning",
            FindingClass::UnknownFields => "unknown-fields",
            FindingClass::CrdSkew => "crd-skew",
            FindingClass::PermissionMissing => "permission-missing",
            FindingClass::RenderFailedBefore => "render-failed-before",
            FindingClass::ChainStalled => "chain-stalled",
            FindingClass::ChainLagging => "chain-lagging",
            FindingClass::ChainCatchingUp => "chain-catching-up",
            FindingClass::ChainRpcUnreachable => "chain-rpc-unreachable",
        }
    }
}

/// The object a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    /// The kubeconfig context (cluster) it was read from.
    pub context: String,
    /// Empty for a cluster-wide object.
    pub namespace: String,
    /// `SeiNode`, `Pod`, `PersistentVolumeClaim`, `Lease`, `Namespace`.
    pub kind: &'static str,
    pub name: String,
    /// The SeiNode the object belongs to (`enter` goes there); `None` for the controller or a
    /// namespace.
    pub node: Option<String>,
}

/// One fact that shows the problem: where it was read, what it says, and when it was so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// A field path (`status.plan.phase`), `Event Pod/x-0 BackOff`, `probe`, `Lease ns/name`.
    pub source: String,
    pub detail: String,
    /// When it was seen or last changed, when known.
    pub at: Option<Timestamp>,
}

impl Evidence {
    pub(crate) fn new(source: impl Into<String>, detail: impl Into<String>) -> Evidence {
        Evidence {
            source: source.into(),
            detail: detail.into(),
            at: None,
        }
    }

    pub(crate) fn at(mut self, at: Option<Timestamp>) -> Evidence {
        self.at = at;
        self
    }
}

/// The console action whose preview a fix's command prints (the console's fix key opens it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FixAction {
    /// The rollout dialog of the node with this image.
    Rollout { image: String },
    /// The seed probe of the node.
    Probe,
}

/// What to do about a finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    /// The fix in words.
    pub summary: String,
    /// The command line that fixes it, or for a console action the one that previews it.
    pub command: Option<String>,
    pub action: Option<FixAction>,
}

impl Fix {
    pub(crate) fn says(summary: impl Into<String>) -> Fix {
        Fix {
            summary: summary.into(),
            command: None,
            action: None,
        }
    }

    pub(crate) fn command(mut self, command: impl Into<String>) -> Fix {
        self.command = Some(command.into());
        self
    }

    pub(crate) fn action(mut self, action: FixAction) -> Fix {
        self.action = Some(action);
        self
    }
}

/// One problem of the fleet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub severity: Severity,
    pub class: FindingClass,
    pub object: ObjectRef,
    /// One line: what is wrong.
    pub summary: String,
    pub evidence: Vec<Evidence>,
    pub fix: Fix,
}

/// A seed's last outside probe and when it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct SeedProbeResult {
    pub at: Timestamp,
    pub outcome: ProbeOutcome,
}

/// One SeiNode with what is known about it.
#[derive(Debug, Clone)]
pub struct NodeSnapshot<'a> {
    pub node: &'a SeiNode,
    /// Events about the SeiNode, its StatefulSet and its pods.
    pub events: Vec<&'a Event>,
    /// Its pods (label `sei.io/node`).
    pub pods: Vec<&'a Pod>,
    /// Its PersistentVolumeClaims (`data-<node>`, or labelled `sei.io/node`).
    pub pvcs: Vec<&'a PersistentVolumeClaim>,
    /// The seed's last outside probe, for a seed that was probed.
    pub probe: Option<&'a SeedProbeResult>,
    /// `pods` and `pvcs` were read (so none means none; the console watches only the open
    /// node's).
    pub workload_known: bool,
}

/// The platform config in use now and where it came from.
#[derive(Debug, Clone, Copy)]
pub struct PlatformView<'a> {
    pub config: &'a PlatformConfig,
    pub source: &'a PlatformSource,
}

/// An embedded executor's node Lease (`sei-console-exec-<node>`), as `fleet::runners` reads it.
pub use crate::fleet::runners::ExecutorLease;

/// Permissions one fix needs that the operator lacks (from the action's permission checks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FixDenials {
    pub namespace: String,
    /// `rollout`, `exec`, ...: the command whose checks these are.
    pub action: String,
    pub denials: Vec<Denial>,
}

/// One watched cluster.
#[derive(Debug, Clone, Default)]
pub struct ClusterSnapshot<'a> {
    /// The kubeconfig context (empty: the current one, unnamed).
    pub context: String,
    pub controller_namespace: String,
    /// The controller's Lease; `None` when it could not be read (no finding is made then).
    pub controller: Option<ControllerLiveness>,
    /// The platform config in use; `None` when it was not read (a render-failure event is
    /// then reported as not checked against the present, with the preview that checks it).
    pub platform: Option<PlatformView<'a>>,
    /// Where the platform config comes from, for fixes when it was not read.
    pub platform_source: Option<&'a PlatformSource>,
    /// The platform's sidecar image (`images.sidecar`); `None`: unknown, sidecar drift is
    /// judged only for nodes whose spec names one.
    pub sidecar_image: Option<&'a str>,
    /// ServiceAccounts that exist, as (namespace, name); `None` when not read.
    pub service_accounts: Option<&'a BTreeSet<(String, String)>>,
    pub nodes: Vec<NodeSnapshot<'a>>,
    pub executor_leases: Vec<ExecutorLease>,
    pub denials: Vec<FixDenials>,
    /// The cluster's SeiNode CRD against the embedded one; `None` when not read.
    pub crd: Option<&'a crate::api::crd_compare::CrdView>,
}

/// Everything [`diagnose`] looks at.
#[derive(Debug, Clone)]
pub struct DoctorInput<'a> {
    pub now: Timestamp,
    pub thresholds: &'a DoctorThresholds,
    pub clusters: Vec<ClusterSnapshot<'a>>,
    /// Findings other checks made, ranked with these: chain health (`chain::finding` of each
    /// node's verdict: stalled, lagging, catching up, RPC unreachable).
    pub more: Vec<Finding>,
}

/// Every finding of `input`, ranked: severity, then context, namespace, node, class, object.
pub fn diagnose(input: DoctorInput<'_>) -> Vec<Finding> {
    let mut findings = input.more;
    for cluster in &input.clusters {
        for snapshot in &cluster.nodes {
            let at = node::NodeCtx {
                cluster,
                node: snapshot.node,
                snapshot,
                now: input.now,
                thresholds: input.thresholds,
            };
            node::check(&at, &mut findings);
            workload::check(&at, &mut findings);
            skew::node(cluster, snapshot.node, &mut findings);
        }
        cluster::check(cluster, input.now, &mut findings);
        skew::crd(cluster, &mut findings);
    }
    rank(&mut findings);
    findings
}

/// Sorts by severity, then a stable order of the object and class.
pub fn rank(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        a.severity
            .cmp(&b.severity)
            .then_with(|| a.object.context.cmp(&b.object.context))
            .then_with(|| a.object.namespace.cmp(&b.object.namespace))
            .then_with(|| a.object.node.cmp(&b.object.node))
            .then_with(|| a.class.cmp(&b.class))
            .then_with(|| a.object.name.cmp(&b.object.name))
            .then_with(|| a.summary.cmp(&b.summary))
    });
}

/// How many findings of each severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub critical: usize,
    pub warning: usize,
    pub info: usize,
}

impl Counts {
    pub fn of(findings: &[Finding]) -> Counts {
        let mut counts = Counts::default();
        for finding in findings {
            match finding.severity {
                Severity::Critical => counts.critical += 1,
                Severity::Warning => counts.warning += 1,
                Severity::Info => counts.info += 1,
            }
        }
        counts
    }

    /// Findings at `threshold` or worse.
    pub fn at_or_above(&self, threshold: Severity) -> usize {
        match threshold {
            Severity::Critical => self.critical,
            Severity::Warning => self.critical + self.warning,
            Severity::Info => self.critical + self.warning + self.info,
        }
    }
}

/// The command-line words naming the object's cluster and namespace, for fix commands:
/// `--context C -n NS` (the context left out when unnamed).
pub(crate) fn scope_args(context: &str, namespace: &str) -> String {
    let mut args = String::new();
    if !context.is_empty() {
        args.push_str(&format!(" --context {context}"));
    }
    if !namespace.is_empty() {
        args.push_str(&format!(" -n {namespace}"));
    }
    args
}

#[cfg(test)]
mod tests;
