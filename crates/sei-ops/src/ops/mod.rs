//! The operator actions as use cases, one file per action under [`actions`] (`rollout`,
//! `address`, `seed`, `exec`, …), shared by the commands (`cli`) and the console (`app`). Each
//! action has a typed `prepare` (inputs validated once, previews, StatefulSet diff, permission
//! checks, blocked nodes and why, names to type, the question to ask) and a `run` (waves, halt,
//! resume, Event, journal, following the plan) reporting typed progress through [`Report`].
//!
//! `ops` reaches the world only through the ports ([`Ports`]): no kube-rs, clap or ratatui.
//! A node that `prepare` reports as blocked is never mutated, and a read-only console is
//! refused before any call.
//!
//! What is where. The contract and its preamble: `action` (`Operation`, `Previewed`, `prepare`,
//! `execute`, `read_only_refusal`, the type-erased `AnyOperation`/`SomeOperation` the console's
//! model holds) and `across` (an action across clusters, `execute_in_turn`). Here: [`Ports`]
//! (cluster, access review, sidecar, renderer, clock, journal, holders, prober, node RPC),
//! [`Settings`] (flags, env and config resolved once by the caller), [`Ops`] (the driver, the
//! permission checks, the Console Event, the console-action record written in the action's own
//! patch, the journal line) and the typed [`OpsError`]. `report` (the `Report` trait, typed
//! `Note`s, `RunEnd` with the action's own JSON result fields and exit code); `follow` (the
//! executor chosen from the controller's Lease, a plan followed to a typed `FollowEnd`, progress
//! text); `lease` (the node's Lease); `action_log` (the journal port `ActionLog`, `NoLog`).
//!
//! The actions, one module each under `actions` (`address`, `exec`, `pause` with `resume`,
//! `restart`, `rollout`, `seed`; each module's doc says what it does), declare their
//! `ActionKind`s, which `ops::actions::FILES` lists (`ops::actions::all()`, `action_kind(name)`:
//! the journal's `--action` filter and `:journal action:` read it). Shared by them: `rollout_text` (the rollout preview's words), `seed_probe` (a seed's
//! published identity as the probe's target, its NodeID), `waiting` (the Warning events that say
//! why a wait is not progressing), `pod_needs` (a StatefulSet that cannot be rendered or a missing
//! ServiceAccount blocks the preview, with the fix), `pod_ready`, `sidecar_credential` (the
//! pre-flight of the console's own sidecar task calls), `chain_health` (reading a node's RPC
//! through the `NodeRpc` port) and `doctor` (the fleet doctor, pure: `diagnose(DoctorInput) ->
//! Vec<Finding>`).
//!
//! Tests: scenarios against the in-memory fakes (waves, canary, halt, resume, blocked nodes
//! untouched, read-only refusal before any call, denied permissions, dry run, address), and per
//! subject the seed bring-up, the node Lease, render failures, restart, the rollout's health gate
//! (on tokio's paused clock) and the doctor's classes.
use crate::actions::event::{ActionKind, EventTarget, console_event};
use crate::actions::permissions::ExecutionScope;
use crate::actions::render_fix::PlatformSource;
use crate::api::SeiNode;
use crate::config::ExecutorMode;
use crate::executor::driver::{Driver, DriverConfig};
use crate::fleet::console_actions;
use crate::journal::{JournalEntry, Outcome};
use crate::planner::PlanContext;
use crate::platform::PlatformConfig;
use crate::ports::access::{AccessError, AccessReview, PermissionCheck, check_permissions};
use crate::ports::{Clock, ClusterApi, ClusterError, HolderProbe, SidecarApi};
use crate::tasks::WorkloadRenderer;

pub mod across;
pub mod action;
mod action_log;
pub mod actions;
pub mod chain_health;
pub mod doctor;
pub mod doctor_reads;
pub mod follow;
pub mod interrupted;
#[cfg(test)]
mod interrupted_tests;
mod lease;
pub mod notify;
pub mod pod_needs;
pub mod pod_ready;
mod report;
pub mod rollout_control;
pub mod rollout_record;
mod rollout_text;
pub mod rollout_tracker;
pub mod rollout_undo;
pub mod rollout_view;
pub mod runners;
pub mod seed_probe;
mod sidecar_credential;
pub mod skew;
#[cfg(test)]
mod tests;
pub mod waiting;

pub use action_log::{ActionLog, NoLog};
pub use report::{Note, Report, RunEnd};

/// The action named `name` (as the journal writes it), or the names there are.
pub fn action_kind(name: &str) -> Result<ActionKind, crate::actions::event::UnknownAction> {
    crate::actions::event::kind_named(&actions::all(), name)
}

/// The ports an action works through.
#[derive(Clone, Copy)]
pub struct Ports<'a> {
    pub cluster: &'a dyn ClusterApi,
    pub access: &'a dyn AccessReview,
    pub sidecar: &'a dyn SidecarApi,
    pub renderer: &'a dyn WorkloadRenderer,
    pub clock: &'a dyn Clock,
    pub log: &'a dyn ActionLog,
    /// Whether a node Lease's holder is a crashed console of this machine.
    pub holders: &'a dyn HolderProbe,
    /// The outside view of a seed: its P2P handshake (`seed create` ends with it).
    pub prober: &'a dyn crate::ports::probe::SeedProber,
    /// The nodes' sei-tendermint RPC (a rollout's health gate reads it).
    pub node_rpc: &'a dyn crate::ports::node_rpc::NodeRpc,
    /// The webhooks of `[notify]`: a rollout's end is queued there (`ports::notify`).
    pub notifier: &'a dyn crate::ports::notify::Notifier,
    /// Image registries (`rollout --resolve-digest` pins the digest a tag points to).
    pub registry: &'a dyn crate::ports::registry::ImageRegistry,
}

/// Who acts, where, and how plans are executed: resolved once by the caller from flags,
/// environment and config, then passed down.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The namespace of the nodes acted on.
    pub namespace: String,
    /// The operator as the journal and Events name them (`user (context ctx)`).
    pub operator: String,
    /// The kubeconfig context acted in (the journal's `context`).
    pub context: String,
    pub executor: ExecutorMode,
    /// The controller's namespace: its leader-election Lease and platform ConfigMap.
    pub controller_namespace: String,
    pub platform: PlatformConfig,
    /// Where `platform` came from, named in the fix of a render failure.
    pub platform_source: PlatformSource,
    /// Set when an empty config stands in for an unreadable platform ConfigMap.
    pub platform_note: Option<String>,
    /// How sidecar calls travel (pod proxy, port-forward, ...), which decides their permissions.
    pub sidecar_reach: crate::ports::SidecarReach,
    /// Whether the console's own sidecar task calls can be authenticated on that path: an
    /// action that needs them is refused before any change when they cannot.
    pub sidecar_credential: crate::ports::SidecarCredential,
    pub driver: DriverConfig,
    /// Read-only mode and where it was switched on (`started with --read-only`): every change
    /// is refused before any call.
    pub read_only: Option<&'static str>,
    /// `require_journal` in the config file: a change the journal cannot record is refused
    /// before any call.
    pub require_journal: bool,
    /// `--allow-unknown-fields` (or the console's typed confirmation): act on a node or CRD
    /// the port does not fully understand ([`skew`]); journaled and recorded on the node.
    pub allow_unknown_fields: bool,
}

/// Why an action could not go on. `BadInput` is the operator's mistake (exit 2 in the CLI).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpsError {
    #[error("{0}")]
    BadInput(String),
    #[error("read-only mode: refusing to {action}; nothing was sent to the cluster ({hint})")]
    ReadOnly { action: String, hint: &'static str },
    #[error("{0}")]
    Access(#[from] AccessError),
    /// Another live executor holds the node's Lease: nothing was changed. `why` says what
    /// makes it live (its process runs here, it renewed the Lease recently).
    #[error("{node} is being changed by {holder} ({why}; Lease {lease}); nothing was changed")]
    Busy {
        node: String,
        holder: String,
        lease: String,
        why: String,
    },
    #[error("{context}: {source}")]
    Cluster {
        context: String,
        source: ClusterError,
    },
    /// The action needs the sidecar's task API and its calls cannot be authenticated on the
    /// transport in use: refused before any change, naming the fix.
    #[error("{0}")]
    NoSidecarCredential(String),
    /// `require_journal` is set and the journal cannot record the change: refused before any
    /// call.
    #[error(
        "refusing to {action}: the journal cannot record it ({why}) and require_journal is set \
         in the config file; nothing was sent to the cluster"
    )]
    JournalRequired { action: String, why: String },
    /// A step stopped; the message names the node and what state it was left in.
    #[error("{0}")]
    Step(String),
    /// The port does not understand a node or the cluster's CRD ([`skew::guard`]): refused
    /// before any change, naming the fields and the fix.
    #[error("{0}")]
    NotUnderstood(String),
    /// `--resolve-digest`: the tag's digest could not be read; nothing was changed.
    #[error("resolving the tag's digest: {0}; nothing was changed")]
    Registry(#[from] crate::ports::registry::RegistryError),
}

impl OpsError {
    fn cluster(context: impl Into<String>) -> impl FnOnce(ClusterError) -> OpsError {
        let context = context.into();
        move |source| OpsError::Cluster { context, source }
    }
}

/// The permission checks of a prepared action and how they came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionVerdict {
    pub checks: Vec<PermissionCheck>,
    /// `None` when not asked (a dry run), else the answer.
    pub outcome: Option<Result<(), AccessError>>,
    /// Why the console's own sidecar calls could not be authenticated, when the action needs
    /// them (`Ops::sidecar_credential_refusal`): the action is refused before any change.
    pub sidecar_credential: Option<String>,
}

impl PermissionVerdict {
    pub fn allowed(&self) -> bool {
        matches!(self.outcome, Some(Ok(())))
    }

    /// The denial or review error, when the checks did not pass.
    pub fn error(&self) -> Option<&AccessError> {
        match &self.outcome {
            Some(Err(err)) => Some(err),
            _ => None,
        }
    }

    /// Why the action cannot run as far as its calls go: a denied or failed check (the grants
    /// to ask for come first), else sidecar calls that cannot be authenticated.
    pub fn refusal(&self) -> Option<OpsError> {
        if let Some(err) = self.error() {
            return Some(OpsError::Access(err.clone()));
        }
        self.sidecar_credential
            .clone()
            .map(OpsError::NoSidecarCredential)
    }
}

/// An action's use-case context: the ports and the settings.
#[derive(Clone, Copy)]
pub struct Ops<'a> {
    pub ports: Ports<'a>,
    pub settings: &'a Settings,
}

impl<'a> Ops<'a> {
    pub fn new(ports: Ports<'a>, settings: &'a Settings) -> Self {
        Ops { ports, settings }
    }

    pub fn namespace(&self) -> &'a str {
        &self.settings.namespace
    }

    /// The embedded executor; it re-checks the controller's Lease before every step and hands
    /// the plan over when a controller appears.
    pub fn driver(&self) -> Driver<'a> {
        let mut config = self.settings.driver.clone();
        config.controller_namespace = Some(self.settings.controller_namespace.clone());
        config.allow_unknown_fields = self.settings.allow_unknown_fields;
        Driver {
            cluster: self.ports.cluster,
            sidecar: self.ports.sidecar,
            renderer: self.ports.renderer,
            clock: self.ports.clock,
            config,
        }
    }

    pub fn plan_context(&self) -> PlanContext {
        PlanContext::from_platform(&self.settings.platform, self.ports.clock.now())
    }

    /// Who executes and how the sidecar is reached decide the calls beyond the action's own.
    pub fn scope(&self) -> ExecutionScope {
        ExecutionScope {
            executor: self.settings.executor,
            sidecar_reach: self.settings.sidecar_reach,
            controller_namespace: self.settings.controller_namespace.clone(),
            reads_platform_config_map: matches!(
                self.settings.platform_source,
                PlatformSource::ConfigMap { .. }
            ),
        }
    }

    /// Refuses a change in read-only mode before any call, journaling the refusal: called by
    /// the shared preamble alone (`action::prepare`, `action::execute`).
    fn refuse_if_read_only(
        &self,
        kind: ActionKind,
        nodes: &[String],
        detail: &str,
    ) -> Result<(), OpsError> {
        let Some(refused) =
            action::read_only_refusal(self.settings.read_only, action::action_words(kind, nodes))
        else {
            return Ok(());
        };
        self.journal_quietly(
            kind,
            nodes,
            detail,
            Outcome::Refused,
            Some(refused.to_string()),
        );
        Err(refused)
    }

    /// The end of a one-node action: `Ok(message)` journaled as succeeded and done, `Err(why)`
    /// journaled as failed with its words as the reason and failed on `node`.
    pub fn finish(
        &self,
        kind: ActionKind,
        nodes: &[String],
        detail: &str,
        node: &str,
        outcome: Result<String, OpsError>,
        report: &dyn Report,
    ) -> RunEnd {
        match outcome {
            Ok(message) => {
                self.journal(kind, nodes, detail, Outcome::Succeeded, None, report);
                RunEnd::done(message)
            }
            Err(why) => {
                let reason = why.to_string();
                let failed = Some(reason.clone());
                self.journal(kind, nodes, detail, Outcome::Failed, failed, report);
                RunEnd::failed(node, reason)
            }
        }
    }

    /// With `require_journal`, refuses `action` before any call when the journal cannot record
    /// it (nothing can be journaled about that refusal either).
    pub fn refuse_if_unrecordable(&self, action: String) -> Result<(), OpsError> {
        if !self.settings.require_journal {
            return Ok(());
        }
        self.ports
            .log
            .ready()
            .map_err(|err| OpsError::JournalRequired {
                action,
                why: err.to_string(),
            })
    }

    /// The stored SeiNode `name`; a missing one is the operator's mistake.
    pub async fn read_node(&self, name: &str) -> Result<SeiNode, OpsError> {
        let namespace = self.namespace();
        self.ports
            .cluster
            .get_seinode(namespace, name)
            .await
            .map_err(OpsError::cluster(format!(
                "reading SeiNode {namespace}/{name}"
            )))?
            .ok_or_else(|| OpsError::BadInput(format!("SeiNode {namespace}/{name} not found")))
    }

    /// Resolves the node's peers as the controller's reconcile would before planning (in
    /// memory), so previews carry the `persistent-peers` the persisted plan will; returns notes
    /// for what could not be resolved fresh.
    pub async fn resolve_peers(&self, node: &mut SeiNode) -> Result<Vec<String>, OpsError> {
        let name = node.name().to_owned();
        let resolved = self
            .driver()
            .resolve_peers(node)
            .await
            .map_err(|e| OpsError::Step(format!("{}/{name}: {e}", self.namespace())))?;
        let mut notes = Vec::new();
        if resolved.ec2_prior_kept {
            notes.push(format!(
                "{name}: peers: an EC2 source keeps status.resolvedPeers as it is (the console cannot query EC2; the controller keeps the prior set when its EC2 lookup fails)"
            ));
        }
        for peer in resolved.unresolved {
            notes.push(format!(
                "{name}: peers: node ID of {peer}; its prior entry is kept if it had one"
            ));
        }
        Ok(notes)
    }

    /// Asks every check; a dry run asks none.
    pub async fn check(&self, checks: Vec<PermissionCheck>, ask: bool) -> PermissionVerdict {
        let outcome = if ask {
            Some(check_permissions(self.ports.access, &checks).await)
        } else {
            None
        };
        PermissionVerdict {
            checks,
            outcome,
            sidecar_credential: None,
        }
    }

    /// Posts the `Console*` Event on the node; a failure is a warning (the change happened).
    pub async fn event(
        &self,
        kind: ActionKind,
        node: &str,
        uid: &str,
        what: &str,
        report: &dyn Report,
    ) {
        let event = console_event(
            kind,
            &EventTarget {
                namespace: self.namespace(),
                name: node,
                uid,
            },
            &self.settings.operator,
            what,
            self.ports.clock,
        );
        if let Err(err) = self.ports.cluster.record_event(&event).await {
            report.note(&Note::Warning(format!(
                "could not record the Event on {node}: {err}"
            )));
        }
    }

    /// The node's [`console_actions::ANNOTATION`] value with this action appended, to write in
    /// the same patch as the change (so the record and the change land together or not at
    /// all). `stored` is the node as just read (`None` for a node being created). A previous
    /// value that could not be kept (someone else's garbage) is replaced and said so.
    pub fn action_record(
        &self,
        kind: ActionKind,
        stored: Option<&SeiNode>,
        what: &str,
        plan: Option<String>,
        report: &dyn Report,
    ) -> String {
        let action = console_actions::ConsoleAction {
            at: self.ports.clock.now(),
            by: self.settings.operator.clone(),
            action: kind.name().to_owned(),
            detail: self.overridden(what),
            plan,
        };
        let existing = stored
            .and_then(|node| node.metadata.annotations.as_ref())
            .and_then(|annotations| annotations.get(console_actions::ANNOTATION));
        let appended = console_actions::append(existing.map(String::as_str), &action);
        if let (Some(lost), Some(node)) = (appended.lost, stored) {
            report.note(&Note::Warning(format!("{}: {lost}", node.name())));
        }
        appended.value
    }

    /// Appends one journal line for `nodes` (names in this namespace); a failure is a warning.
    pub fn journal(
        &self,
        kind: ActionKind,
        nodes: &[String],
        detail: &str,
        outcome: Outcome,
        reason: Option<String>,
        report: &dyn Report,
    ) {
        let entry = self.journal_entry(kind, nodes, detail, outcome, reason);
        if let Err(err) = self.ports.log.append(&entry) {
            report.note(&Note::Unrecorded(err.to_string()));
        }
    }

    /// Closes as `interrupted` the journal's unended runs on `nodes` (names in this namespace)
    /// whose console died (`ops::interrupted`), saying what the cluster shows: done before an
    /// action on those nodes records anything.
    pub async fn close_interrupted(&self, nodes: &[String]) {
        let entries = self.ports.log.entries();
        if entries.is_empty() {
            return;
        }
        let wanted: Vec<String> = nodes
            .iter()
            .map(|n| format!("{}/{n}", self.namespace()))
            .collect();
        let clusters = [(self.settings.context.as_str(), self.ports.cluster)];
        let with = interrupted::CloseWith {
            holders: self.ports.holders,
            own_holder: &self.settings.driver.holder,
            clusters: &clusters,
            now: self.ports.clock.now(),
        };
        let only = |e: &JournalEntry| {
            e.context_name() == Some(self.settings.context.as_str())
                && e.nodes.iter().any(|n| wanted.contains(n))
        };
        for line in interrupted::close(&entries, only, &with).await {
            let _ = self.ports.log.append(&line);
        }
    }

    /// Journals `refusal` (when there is one) for `nodes` and returns it: what `prepare` said
    /// cannot run is refused before any change, the same way for every action.
    pub fn refuse(
        &self,
        kind: ActionKind,
        nodes: &[String],
        detail: &str,
        refusal: Option<OpsError>,
    ) -> Result<(), OpsError> {
        let Some(refusal) = refusal else {
            return Ok(());
        };
        self.journal_quietly(
            kind,
            nodes,
            detail,
            Outcome::Refused,
            Some(refusal.to_string()),
        );
        Err(refusal)
    }

    /// As [`Self::journal`] where there is nobody to warn yet (refusals before a report).
    pub fn journal_quietly(
        &self,
        kind: ActionKind,
        nodes: &[String],
        detail: &str,
        outcome: Outcome,
        reason: Option<String>,
    ) {
        let entry = self.journal_entry(kind, nodes, detail, outcome, reason);
        let _ = self.ports.log.append(&entry);
    }

    /// `detail`, saying `--allow-unknown-fields` was given when it was: the journal line and
    /// the node's console-action record carry it.
    fn overridden(&self, detail: &str) -> String {
        if self.settings.allow_unknown_fields {
            format!("{detail} ({})", skew::ALLOW_FLAG)
        } else {
            detail.to_owned()
        }
    }

    fn journal_entry(
        &self,
        kind: ActionKind,
        nodes: &[String],
        detail: &str,
        outcome: Outcome,
        reason: Option<String>,
    ) -> JournalEntry {
        let mut entry = journal_entry(
            &self.settings.operator,
            &self.settings.context,
            kind,
            self.namespace(),
            nodes,
            &self.overridden(detail),
            outcome,
            reason,
            self.ports.clock,
        );
        entry.holder = Some(self.settings.driver.holder.clone());
        entry
    }
}

/// A journal line; `nodes` become `namespace/name`.
#[allow(
    clippy::too_many_arguments,
    reason = "one journal line's fields, each a plain value from the action that ran"
)]
pub fn journal_entry(
    operator: &str,
    context: &str,
    kind: ActionKind,
    namespace: &str,
    nodes: &[String],
    detail: &str,
    outcome: Outcome,
    reason: Option<String>,
    clock: &dyn Clock,
) -> JournalEntry {
    JournalEntry {
        time: clock.now(),
        operator: operator.to_owned(),
        context: Some(context.to_owned()),
        action: kind.into(),
        nodes: nodes.iter().map(|n| format!("{namespace}/{n}")).collect(),
        detail: detail.to_owned(),
        outcome,
        reason,
        holder: None,
    }
}

/// Validators and seeds need their name typed to confirm.
pub fn needs_typed_name(node: &SeiNode) -> bool {
    use crate::api::NodeMode;
    matches!(node.spec.mode(), Ok(NodeMode::Validator | NodeMode::Seed))
}
