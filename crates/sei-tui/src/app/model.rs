//! The UI state, its messages and the effects it asks for. No terminal or ratatui types here.
use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;

use crate::fleet::detail::NodeDetail;
use crate::fleet::filter::Filter;
use crate::fleet::fleets::{Fleets, RowMarks};
use crate::fleet::sort::{Listing, Sort};
use crate::fleet::store::ObjectKey;
use crate::fleet::watches::WatchKind;
use crate::keymap::Keymap;

use super::action::ActionFlow;
use super::errors::{JournalReadError, NamespacesError};
use super::settings::{FlagOverrides, Settings};
use crate::config::LoadedConfig;

mod msg;
pub use msg::{Cmd, Msg, SavedSetting};

/// Health of one watch as the screen shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchState {
    /// Started, initial list not complete yet.
    Syncing,
    Live,
    /// The watch failed and is retrying with backoff.
    Stale {
        since: Timestamp,
        error: String,
    },
    /// The API server refused: RBAC does not allow this watch.
    Forbidden(String),
}

/// Whether the API server answers, as the probe found it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerState {
    /// When the server last answered: the watches' data was current then.
    pub confirmed_at: Option<Timestamp>,
    /// Since when it has not answered, and why; `None` while it answers.
    pub silent: Option<(Timestamp, String)>,
}

/// Which namespace(s) and contexts the console looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The kubeconfig contexts watched at once, never empty (the first one names the scope
    /// for saved filters and `:ns`).
    pub contexts: Vec<String>,
    /// `None` = all namespaces.
    pub namespace: Option<String>,
}

impl Scope {
    /// A scope of one context.
    pub fn one(context: impl Into<String>, namespace: Option<String>) -> Scope {
        Scope {
            contexts: vec![context.into()],
            namespace,
        }
    }

    pub fn namespace_label(&self) -> &str {
        self.namespace.as_deref().unwrap_or("all namespaces")
    }

    /// The first context: the one saved filters and `:ns` are about.
    pub fn context(&self) -> &str {
        self.contexts.first().map_or("", String::as_str)
    }

    /// The contexts as the header and messages name them (`a, b`).
    pub fn contexts_label(&self) -> String {
        self.contexts.join(", ")
    }
}

/// The watches and the API server of one watched cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterState {
    /// The epoch of this cluster's current scope watches.
    pub epoch: u64,
    /// Health of each watch (the node screen's watches live in its node's cluster).
    pub watches: BTreeMap<WatchKind, WatchState>,
    pub server: ServerState,
}

impl ClusterState {
    /// The oldest stale watch of this cluster (detail watches only when `detail_visible`).
    pub fn stale(&self, detail_visible: bool) -> Option<(WatchKind, &WatchState)> {
        self.watches
            .iter()
            .filter(|(kind, _)| detail_visible || !kind.is_detail())
            .filter(|(_, state)| matches!(state, WatchState::Stale { .. }))
            .min_by_key(|(_, state)| match state {
                WatchState::Stale { since, .. } => Some(*since),
                _ => None,
            })
            .map(|(kind, state)| (*kind, state))
    }
}

/// Screen under the overlays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    Fleet,
    Node(ObjectKey),
}

pub use super::node_scroll::NodePane;

/// The line being typed after `/` or `:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub kind: InputKind,
    pub text: String,
    /// The filter before typing started, restored on esc.
    pub previous_filter: Filter,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Filter,
    Command,
}

/// A one-line message under the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    pub text: String,
    pub error: bool,
}

/// The whole UI state; the app loop is its only owner.
#[derive(Debug)]
pub struct Model {
    /// One fleet per watched context.
    pub fleet: Fleets,
    pub scope: Scope,
    pub screen: Screen,
    pub help_open: bool,
    pub help_scroll: u16,
    pub input: Option<Input>,
    pub filter: Filter,
    pub sort: Sort,
    pub listing: Listing,
    pub selected: usize,
    pub node_pane: NodePane,
    /// The first line shown of the focused pane's column (the same for both columns of a
    /// narrow screen: there is one).
    pub node_scroll: u16,
    /// Where the last frame drew each pane and how far its column scrolls (the lines are
    /// wrapped to the width when drawn, so only the drawing knows).
    pub node_layout: std::cell::Cell<super::node_scroll::NodeLayout>,
    pub detail: Option<NodeDetail>,
    /// Per watched context: watch health and the API server's answers.
    pub clusters: BTreeMap<String, ClusterState>,
    pub flash: Option<Flash>,
    pub now: Timestamp,
    pub size: (u16, u16),
    pub keymap: Keymap,
    pub settings: Settings,
    /// Nodes marked with space for a multi-node rollout.
    pub marked: BTreeSet<ObjectKey>,
    /// The action dialog: at most one action at a time.
    pub action: Option<ActionFlow>,
    /// Quit was pressed while an action ran; the next key quits if it is quit again.
    pub quit_armed: bool,
    /// The read-only viewer (describe, YAML, events) over the screen.
    pub viewer: Option<super::viewer::Viewer>,
    /// The fleet doctor's findings (refreshed every second) and its view (`D`, `:doctor`).
    pub doctor: super::doctor::DoctorState,
    /// The webhooks of `[notify]`: what was sent, what failed (`app::notify`).
    pub notify: super::notify::NotifyView,
    /// The watched clusters' rollouts as their records say (`app::rollouts`).
    pub rollouts: super::rollouts::RolloutsState,
    /// The logs view (`l`) over the screen.
    pub logs: Option<super::logs::LogsView>,
    pub next_logs_epoch: u64,
    /// `ctrl-z` was pressed: the loop gives the terminal back and stops the process.
    pub suspend: bool,
    /// Text `c` copied: the loop sends it to the terminal's clipboard (OSC 52) before the next
    /// frame (`app::copy`).
    pub clipboard: Option<String>,
    /// The config file's plugins, as bound (`app::plugins`; `Action::Plugin(i)` is the i-th).
    pub plugins: Vec<crate::config::plugins::Plugin>,
    /// A plugin waiting for its y/n (`confirm`), and whether it runs in the background.
    pub plugin_pending: Option<(super::plugins::PluginRun, bool)>,
    /// A foreground plugin: the loop gives it the terminal and takes it back when it ends.
    pub foreground: Option<super::plugins::PluginRun>,
    /// The kubeconfig's contexts, for `:ctx` (completion, refusal of unknown names).
    pub contexts: Vec<String>,
    /// The filter came from `[fleet.filters]` for this context (the header says so).
    pub filter_saved: bool,
    /// Where the platform config comes from, for the fix beside a render failure.
    pub platform_source: Option<crate::actions::render_fix::PlatformSource>,
    /// The cluster's namespaces for `:ns`, once listed (`Err`: why they could not be).
    pub namespaces: Option<Result<Vec<String>, NamespacesError>>,
    /// The journal as last read for `:journal` (`None`: being read).
    pub journal: Option<Result<crate::journal::JournalContents, JournalReadError>>,
    pub next_action_id: u64,
    pub scope_epoch: u64,
    pub detail_epoch: u64,
    pub quit: bool,
    /// Something visible changed since the last draw.
    pub dirty: bool,
    /// Where the rows stood, and the filter and sort, when `listing` was last brought up to date.
    listed_at: Option<(RowMarks, Filter, Sort)>,
    /// Fleet revision the node detail was built at.
    detailed_at: Option<u64>,
}

impl Model {
    pub fn new(scope: Scope, now: Timestamp, default_sidecar_image: Option<String>) -> Model {
        Model {
            fleet: Fleets::new(&scope.contexts, default_sidecar_image),
            scope,
            screen: Screen::Fleet,
            help_open: false,
            help_scroll: 0,
            input: None,
            filter: Filter::default(),
            sort: Sort::default(),
            listing: Listing::default(),
            selected: 0,
            node_pane: NodePane::default(),
            node_scroll: 0,
            node_layout: std::cell::Cell::default(),
            detail: None,
            clusters: BTreeMap::new(),
            flash: None,
            now,
            size: (80, 24),
            keymap: super::console_actions::keymap(&[]),
            settings: Settings::default(),
            marked: BTreeSet::new(),
            action: None,
            quit_armed: false,
            viewer: None,
            doctor: Default::default(),
            notify: Default::default(),
            rollouts: Default::default(),
            logs: None,
            next_logs_epoch: 0,
            suspend: false,
            clipboard: None,
            plugins: Vec::new(),
            plugin_pending: None,
            foreground: None,
            contexts: Vec::new(),
            namespaces: None,
            journal: None,
            platform_source: None,
            filter_saved: false,
            next_action_id: 0,
            scope_epoch: 0,
            detail_epoch: 0,
            quit: false,
            dirty: true,
            listed_at: None,
            detailed_at: None,
        }
    }

    /// The commands to run at start-up: every cluster's scope watches.
    pub fn init(&mut self) -> Vec<Cmd> {
        self.fleet.set_contexts(&self.scope.contexts);
        let contexts = self.scope.contexts.clone();
        self.clusters
            .retain(|context, _| contexts.iter().any(|c| c == context));
        contexts
            .iter()
            .map(|context| self.watch_cluster(context))
            .collect()
    }

    /// (Re)starts the scope watches of one cluster under a new epoch (what the old ones still
    /// send is dropped).
    pub fn watch_cluster(&mut self, context: &str) -> Cmd {
        self.scope_epoch += 1;
        super::rollouts::reset(self);
        let cluster = self.clusters.entry(context.to_owned()).or_default();
        cluster.epoch = self.scope_epoch;
        cluster
            .watches
            .insert(WatchKind::Nodes, WatchState::Syncing);
        for kind in [
            WatchKind::NodeEvents,
            WatchKind::PodWarnings,
            WatchKind::NodePods,
        ] {
            cluster.watches.insert(kind, WatchState::Syncing);
        }
        Cmd::WatchCluster {
            context: context.to_owned(),
            namespace: self.scope.namespace.clone(),
            epoch: self.scope_epoch,
        }
    }

    /// The context whose scope watches run under `epoch`, if any still does.
    pub fn context_of_epoch(&self, epoch: u64) -> Option<&str> {
        self.clusters
            .iter()
            .find(|(_, cluster)| cluster.epoch == epoch)
            .map(|(context, _)| context.as_str())
    }

    /// The context of the open node screen.
    pub fn screen_context(&self) -> Option<&str> {
        match &self.screen {
            Screen::Node(key) => Some(key.context.as_ref()),
            Screen::Fleet => None,
        }
    }

    /// The health of `kind` in `context`.
    pub fn watch_state(&self, context: &str, kind: WatchKind) -> Option<&WatchState> {
        self.clusters.get(context)?.watches.get(&kind)
    }

    /// The health of the open node screen's watch `kind` (in its node's cluster).
    pub fn node_watch(&self, kind: WatchKind) -> Option<&WatchState> {
        self.watch_state(self.screen_context()?, kind)
    }

    /// Whether the table names each row's cluster.
    pub fn multi_cluster(&self) -> bool {
        self.scope.contexts.len() > 1
    }

    /// The selected row's key, if any.
    pub fn selected_key(&self) -> Option<&ObjectKey> {
        self.listing.keys.get(self.selected)
    }

    /// Number of table rows that fit on screen (frame minus header, borders, footer).
    pub fn page_rows(&self) -> usize {
        usize::from(self.size.1.saturating_sub(6)).max(1)
    }

    /// Per cluster, its oldest stale watch, for the banners (the node screen's watches count
    /// in its node's cluster while it is open).
    pub fn stale(&self) -> Vec<(&str, WatchKind, &WatchState)> {
        let screen_context = self.screen_context();
        self.clusters
            .iter()
            .filter_map(|(context, cluster)| {
                let detail_visible = screen_context == Some(context.as_str());
                let (kind, state) = cluster.stale(detail_visible)?;
                Some((context.as_str(), kind, state))
            })
            .collect()
    }

    /// Forces `refresh_views` to rebuild (the screen changed, not the data).
    pub fn invalidate_views(&mut self) {
        self.listed_at = None;
        self.detailed_at = None;
    }

    /// Recomputes the filtered, sorted listing and the node detail when their inputs changed,
    /// keeping the same node selected.
    pub fn refresh_views(&mut self) {
        let marks = self.fleet.row_marks();
        let (listed, same_view) = match &self.listed_at {
            Some((at, filter, sort)) if *filter == self.filter && *sort == self.sort => {
                (*at == marks, Some(at))
            }
            _ => (false, None),
        };
        if !listed {
            let selected_key = self.selected_key().cloned();
            self.fleet
                .relist(&mut self.listing, same_view, &self.filter, self.sort);
            if let Some(key) = selected_key
                && self.listing.keys.get(self.selected) != Some(&key)
                && let Some(index) = self.listing.keys.iter().position(|k| *k == key)
            {
                self.selected = index;
            }
            self.selected = self.selected.min(self.listing.keys.len().saturating_sub(1));
            self.listed_at = Some((marks, self.filter.clone(), self.sort));
        }
        let revision = self.fleet.revision();
        if self.detailed_at != Some(revision) {
            if let Screen::Node(key) = &self.screen {
                self.detail = self
                    .fleet
                    .fleet(&key.context)
                    .and_then(|fleet| NodeDetail::build(fleet, key, fleet.default_sidecar_image()));
            }
            self.detailed_at = Some(revision);
        }
    }
}

impl Model {
    /// Applies a loaded config: settings, key overrides and the initial fleet filter (a filter
    /// that does not parse is reported with the other problems and not applied).
    pub fn configure(&mut self, loaded: &LoadedConfig, flags: FlagOverrides) {
        self.settings = Settings::from_config(loaded, flags);
        super::chain_health::configure(self);
        self.keymap = super::console_actions::keymap(&loaded.config.keys);
        super::plugins::configure(self, &loaded.config.plugins);
        let saved = loaded
            .config
            .saved_filters
            .get(self.scope.context())
            .filter(|_| loaded.config.remember_filter);
        let (text, setting) = match saved {
            Some(text) => (text, format!("fleet.filters.{}", self.scope.context())),
            None => (&loaded.config.fleet_filter, "fleet.filter".to_owned()),
        };
        match Filter::parse(text) {
            Ok(filter) => {
                self.filter_saved = saved.is_some() && !filter.is_empty();
                self.filter = filter;
            }
            Err(err) => self.settings.problems.push(format!(
                "config file: {setting} {text:?}: {err}; opening without a filter"
            )),
        }
        self.invalidate_views();
        self.dirty = true;
    }
}
