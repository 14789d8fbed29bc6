//! The update function's messages ([`Msg`]: keys, ticks, watch deltas and reports, finished
//! jobs) and the effects it asks the runtime for ([`Cmd`], [`SavedSetting`]).
use jiff::Timestamp;

use crate::actions::event::ActionKind;
use crate::app::action::{ActionPreview, ActionRequest, Finished, ProgressLine};
use crate::app::errors::{JournalReadError, NamespacesError, SeedProbeError, SettingSaveError};
use crate::config::ExecutorMode;
use crate::config::ThemeName;
use crate::fleet::FleetDelta;
use crate::fleet::store::ObjectKey;
use crate::fleet::watches::ServerReport;
use crate::fleet::watches::WatchKind;
use crate::fleet::watches::{WatchEvent, WatchReport};
use crate::keymap::Key;
use crate::ports::probe::{ProbeOutcome, ProbeTarget};

/// A message to the update function.
#[derive(Debug, Clone)]
pub enum Msg {
    Key(Key),
    Resize {
        width: u16,
        height: u16,
    },
    Tick(Timestamp),
    /// A delta from the watch started at `epoch` (stale epochs are dropped).
    Delta {
        epoch: u64,
        delta: FleetDelta,
    },
    Watch {
        epoch: u64,
        kind: WatchKind,
        report: WatchReport,
    },
    /// The preview of action `id` (or why it could not be computed; nothing was changed).
    ActionPrepared {
        id: u64,
        result: Result<ActionPreview, crate::app::action_error::ActionError>,
    },
    /// A journal line of a console action could not be written (why): said on the status line.
    JournalUnwritable(String),
    /// What the webhooks' notifier has done, as it changed (`app::notify`).
    Notified(crate::ports::notify::NotifyStatus),
    /// A line of action `id`'s progress.
    ActionProgress {
        id: u64,
        line: ProgressLine,
    },
    ActionFinished {
        id: u64,
        finished: Finished,
    },
    /// The platform's default sidecar image, from the controller's ConfigMap as the watch of
    /// scope `epoch` saw it change (`None`: the ConfigMap names none).
    PlatformSidecarImage {
        epoch: u64,
        image: Option<String>,
    },
    /// The controller's platform config, as the ConfigMap watch of scope `epoch` read it.
    PlatformConfig {
        epoch: u64,
        config: Box<crate::platform::PlatformConfig>,
    },
    /// The SeiNode CRD of scope `epoch`'s cluster, compared with the embedded one.
    Crd {
        epoch: u64,
        view: Box<crate::api::crd_compare::CrdView>,
    },
    /// A probe of the API server of scope `epoch`: it answered, or not.
    Server {
        epoch: u64,
        report: ServerReport,
    },
    /// The namespaces of the current context (or why they could not be listed).
    Namespaces(Result<Vec<String>, NamespacesError>),
    /// The journal file as read for `:journal` (or why it could not be).
    Journal(Result<crate::journal::JournalContents, JournalReadError>),
    /// Lines of the logs stream started at `epoch`.
    LogLines {
        epoch: u64,
        lines: Vec<String>,
    },
    /// The logs stream of `epoch` closed, or could not be opened (`error`, one line).
    LogEnded {
        epoch: u64,
        error: Option<String>,
    },
    /// `count` lines of the logs view were written to a file (or could not be).
    LogsSaved {
        count: usize,
        result: Result<std::path::PathBuf, crate::app::log_save::LogSaveError>,
    },
    /// A setting was written to the config file (or could not be).
    SettingSaved {
        setting: SavedSetting,
        result: Result<(), SettingSaveError>,
    },
    /// An outside probe of seed `key` ended at `at` (`Err`: it could not run).
    SeedProbed {
        key: ObjectKey,
        at: Timestamp,
        outcome: Result<ProbeOutcome, SeedProbeError>,
    },
    /// A read of node `key`'s RPC ended.
    HealthRead {
        key: ObjectKey,
        reading: crate::chain::Reading,
    },
    /// A read of `chain`'s reference RPC ended.
    ReferenceRead {
        chain: String,
        read: crate::chain::ReferenceRead,
    },
    /// The doctor's read of `context` ended (`app::doctor`).
    DoctorRead {
        context: String,
        reads: Box<
            Result<
                crate::ops::doctor_reads::DoctorReads,
                crate::ops::doctor_reads::DoctorReadError,
            >,
        >,
    },
    /// A `:dump` was written to `path` (`what`: the screen; `lines` of text), or why not.
    Dumped {
        path: std::path::PathBuf,
        what: String,
        lines: usize,
        result: Result<(), crate::app::dump::DumpError>,
    },
    /// A plugin ended with its exit code (`None`: a signal), or could not run (`app::plugins`).
    PluginEnded {
        name: String,
        log: Option<std::path::PathBuf>,
        outcome: Result<Option<i32>, crate::app::plugins::PluginRunError>,
    },
    /// A read of who runs `context`'s Active plans ended (`app::runners`).
    Runners {
        context: String,
        runners: Box<crate::fleet::runners::Runners>,
    },
    /// A read of `context`'s rollout records ended (`app::rollouts`).
    Rollouts {
        context: String,
        read: Result<Vec<crate::ops::rollout_view::RolloutView>, crate::ports::ClusterError>,
    },
}

impl From<WatchEvent> for Msg {
    fn from(event: WatchEvent) -> Msg {
        match event {
            WatchEvent::Delta { epoch, delta } => Msg::Delta { epoch, delta },
            WatchEvent::Health {
                epoch,
                kind,
                report,
            } => Msg::Watch {
                epoch,
                kind,
                report,
            },
            WatchEvent::DefaultSidecarImage { epoch, image } => {
                Msg::PlatformSidecarImage { epoch, image }
            }
            WatchEvent::PlatformConfig { epoch, config } => Msg::PlatformConfig { epoch, config },
            WatchEvent::Server { epoch, report } => Msg::Server { epoch, report },
            WatchEvent::Crd { epoch, view } => Msg::Crd {
                epoch,
                view: Box::new(view),
            },
        }
    }
}

/// A setting the console writes back into its config file with `toml_edit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SavedSetting {
    Theme(ThemeName),
    /// The last applied fleet filter of a context (`fleet.remember_filter` on).
    Filter {
        context: String,
        filter: String,
    },
}

/// An effect the runtime performs for the update function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
    /// (Re)start one cluster's scope watches (SeiNodes, their Events, its API server probe)
    /// for this epoch, replacing that cluster's previous ones.
    WatchCluster {
        context: String,
        namespace: Option<String>,
        epoch: u64,
    },
    /// Stop every cluster's scope watches (the scope is replaced).
    StopScope,
    /// Start watching the StatefulSet, Pods and their Events of one node, replacing any others.
    WatchDetail {
        node: ObjectKey,
        epoch: u64,
    },
    StopDetail,
    /// Compute the preview of an action: the plan, the permission checks, who executes.
    PrepareAction {
        id: u64,
        request: ActionRequest,
        executor: ExecutorMode,
    },
    /// Forget a prepared action (its generated seed key with it).
    CancelAction {
        id: u64,
    },
    /// Execute a confirmed action, sending progress and the result back.
    /// Run the action prepared under `id` (its waves were fixed by the preview).
    RunAction {
        id: u64,
        request: ActionRequest,
        executor: ExecutorMode,
    },
    /// Journal an action refused before any request (read-only).
    RecordRefusal {
        kind: ActionKind,
        namespace: String,
        nodes: Vec<String>,
        reason: String,
    },
    /// Stream a container's logs as `Msg::LogLines` tagged `epoch`, replacing any other stream.
    StreamLogs {
        epoch: u64,
        /// The node's cluster.
        context: String,
        request: crate::ports::logs::LogRequest,
    },
    StopLogs,
    /// Write the logs view's lines to `file_name` under the state dir (`ctrl-s`); answered by
    /// `Msg::LogsSaved`.
    SaveLogs {
        file_name: String,
        lines: Vec<String>,
    },
    /// List the namespaces of `context` (for `:ns`).
    ListNamespaces {
        context: String,
    },
    /// Read the journal file (for `:journal`), off the render path.
    ReadJournal,
    /// Write one setting into the config file at `path`.
    SaveSetting {
        path: std::path::PathBuf,
        setting: SavedSetting,
    },
    /// Probe seed `key` at `target` from here (its NodeID looked up first when the target has
    /// none); the outcome comes back as `Msg::SeedProbed`.
    ProbeSeed {
        key: ObjectKey,
        target: ProbeTarget,
    },
    /// Read the RPC of these nodes (chain health); each reading comes back as
    /// `Msg::HealthRead`.
    ReadHealth {
        keys: Vec<ObjectKey>,
    },
    /// `GET <url>/status` of `chain`'s reference RPC; answered by `Msg::ReferenceRead`.
    ReadReference {
        chain: String,
        url: crate::chain::ReferenceUrl,
    },
    /// Read for the doctor what the console does not watch in `context` (Leases, pods, PVCs,
    /// ServiceAccounts, permissions); answered by `Msg::DoctorRead`.
    ReadDoctor {
        context: String,
        namespace: Option<String>,
    },
    /// Write `text` (the screen `what` as plain text) to a new file at `path` (`:dump`);
    /// answered by `Msg::Dumped`.
    Dump {
        path: std::path::PathBuf,
        what: String,
        text: String,
    },
    /// Run a plugin detached, its output in its log file; answered by `Msg::PluginEnded`.
    RunPlugin(crate::app::plugins::PluginRun),
    /// Queue a notification for the webhooks of `[notify]` (`app::notify`).
    Notify(Box<crate::ports::notify::Notification>),
    /// Read who runs `context`'s Active plans (`checked`: those known when asked); answered by
    /// `Msg::Runners`.
    ReadRunners {
        context: String,
        namespace: Option<String>,
        checked: std::collections::BTreeSet<(String, String, String)>,
    },
    /// Read `context`'s rollout records in `namespaces`; answered by `Msg::Rollouts`.
    ReadRollouts {
        context: String,
        namespaces: Vec<String>,
    },
}
