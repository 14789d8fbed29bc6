//! The console's own config file (`config.toml` under the XDG config dir, or `--config FILE`).
//!
//! Defaults and their comments live in `assets/config.toml`; [`Config::default`] equals that file.
//! Reading is forgiving: a file that does not parse gives one message naming the line and all
//! defaults; a bad value gives a message naming its line and the default for that setting only.
//! Writing ([`edit`]) changes one value with `toml_edit`, so comments and order survive.
//!
//! [`Config`] holds the theme (`ThemeName`, its config name and the `T` cycle), executor mode,
//! read-only, the fleet filter, wave defaults, key overrides, the webhooks (`notify`) and the user plugins (`plugins`). `edit` saves the theme and the
//! filter (`save_theme`, `save_filter`); `keys` names screens and actions (`KeyOverride`,
//! `keymap_with`); `paths` finds the XDG config and state dirs.
use std::path::{Path, PathBuf};

mod decode;
pub mod edit;
pub mod keys;
pub mod notify;
pub mod paths;
pub mod plugins;
pub mod read_only;

pub use keys::KeyOverride;

/// The defaults, with comments; also what a first save starts from.
pub const DEFAULT_CONFIG_TOML: &str = include_str!("../../../../assets/config.toml");

/// File name inside the config dir.
pub const CONFIG_FILE_NAME: &str = "config.toml";

/// Which palette the console draws with (the styles themselves are `ui::theme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThemeName {
    #[default]
    Dark,
    Light,
    /// No colours at all, only bold/reverse/dim (what `NO_COLOR` selects).
    Plain,
}

impl ThemeName {
    /// The name written in the config file and shown in messages.
    pub fn name(self) -> &'static str {
        match self {
            ThemeName::Dark => "dark",
            ThemeName::Light => "light",
            ThemeName::Plain => "plain",
        }
    }

    /// The theme after this one when switching with the theme key.
    pub fn next(self) -> ThemeName {
        match self {
            ThemeName::Dark => ThemeName::Light,
            ThemeName::Light => ThemeName::Plain,
            ThemeName::Plain => ThemeName::Dark,
        }
    }
}

/// Who executes the plans of operator actions (DESIGN.md section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExecutorMode {
    /// The controller when its leader Lease is live, else embedded.
    #[default]
    Auto,
    /// Hand-off: persist the plan, the controller runs it.
    Controller,
    /// The console's own executor runs the plan.
    Embedded,
}

impl ExecutorMode {
    pub fn name(self) -> &'static str {
        match self {
            ExecutorMode::Auto => "auto",
            ExecutorMode::Controller => "controller",
            ExecutorMode::Embedded => "embedded",
        }
    }
}

/// Wave sizes for multi-node image rollouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaveDefaults {
    /// Nodes rolled alone first.
    pub canary: u32,
    /// Nodes per following wave.
    pub batch: u32,
}

impl Default for WaveDefaults {
    fn default() -> Self {
        WaveDefaults {
            canary: 1,
            batch: 3,
        }
    }
}

/// Minutes a plan task may run (since `submittedAt`) before `doctor` reports it as running
/// longer than its kind should: `task_minutes` per task type (the upstream type string), else
/// `default_minutes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoctorThresholds {
    pub default_minutes: u32,
    pub task_minutes: std::collections::BTreeMap<String, u32>,
}

/// Task types that legitimately run for hours, and their defaults in minutes (the same as
/// `assets/config.toml`, which a test compares).
const DEFAULT_TASK_MINUTES: [(&str, u32); 6] = [
    ("apply-statefulset", 10),
    ("replace-pod", 15),
    ("await-nodes-running", 60),
    ("await-condition", 240),
    ("snapshot-restore", 360),
    ("await-bootstrap-complete", 360),
];

impl Default for DoctorThresholds {
    fn default() -> Self {
        DoctorThresholds {
            default_minutes: 20,
            task_minutes: DEFAULT_TASK_MINUTES
                .iter()
                .map(|(kind, minutes)| ((*kind).to_owned(), *minutes))
                .collect(),
        }
    }
}

impl DoctorThresholds {
    /// The minutes a task of type `kind` (upstream string) may run.
    pub fn minutes_for(&self, kind: &str) -> u32 {
        self.task_minutes
            .get(kind)
            .copied()
            .unwrap_or(self.default_minutes)
    }
}

/// Every setting of the config file, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Config {
    pub theme: ThemeName,
    pub executor: ExecutorMode,
    pub read_only: bool,
    /// Refuse a change, before any request, when the journal cannot record it.
    pub require_journal: bool,
    /// Kubeconfig contexts the console watches at once (`--context` wins); empty: the
    /// kubeconfig's current context.
    pub contexts: Vec<String>,
    /// The fleet filter the console opens with on any context (empty: none); written by hand,
    /// never by the console.
    pub fleet_filter: String,
    /// Opt-in: the console saves the last applied filter per context (`[fleet.filters]`) and
    /// opens each context with its own.
    pub remember_filter: bool,
    /// The saved filter of each context, when `remember_filter` is on.
    pub saved_filters: std::collections::BTreeMap<String, String>,
    pub waves: WaveDefaults,
    /// How long each plan task type may run before the doctor reports it.
    pub doctor: DoctorThresholds,
    /// Key binding replacements, in file order.
    pub keys: Vec<KeyOverride>,
    /// `[chains."CHAIN-ID"] reference_rpc`: the RPC each chain's lag is measured against
    /// instead of the fleet's highest node.
    pub reference_rpc: std::collections::BTreeMap<String, crate::chain::ReferenceUrl>,
    /// `[notify]`: the webhooks told of rollouts and new critical doctor findings.
    pub notify: notify::NotifyConfig,
    /// `[[plugins]]`: the team's own commands on keys of the fleet and node screens.
    pub plugins: Vec<plugins::Plugin>,
}

/// A config together with where it came from and what was wrong with the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedConfig {
    pub config: Config,
    /// The file read (or that would be written), if a location could be determined.
    pub path: Option<PathBuf>,
    /// One line per problem, each naming the file and line; empty when the file was fine.
    pub problems: Vec<String>,
}

/// `--config FILE` names a file that cannot be read: the user's mistake, reported and fatal.
#[derive(Debug, thiserror::Error)]
#[error("cannot read config file {}: {source}", path.display())]
pub struct ConfigReadError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// The default config path: `$XDG_CONFIG_HOME/sei-console/config.toml`, else
/// `~/.config/sei-console/config.toml`.
pub fn default_path() -> Option<PathBuf> {
    paths::config_dir().map(|dir| dir.join(CONFIG_FILE_NAME))
}

/// Loads the config from `explicit` (`--config FILE`, which must exist) or the default path
/// (where a missing file simply means defaults). `operator_actions`: the names the console's
/// registered actions take in `[keys.*]` (besides [`keys::ACTION_NAMES`]); the core knows no
/// action, the caller hands them in.
pub fn load(
    explicit: Option<&Path>,
    operator_actions: &[&'static str],
) -> Result<LoadedConfig, ConfigReadError> {
    match explicit {
        Some(path) => {
            let read = read_text(path).map_err(|source| ConfigReadError {
                path: path.to_path_buf(),
                source,
            })?;
            Ok(match read {
                Ok(text) => from_text_with(&text, path, operator_actions),
                Err(refused) => refused_before_reading(path, &refused),
            })
        }
        None => Ok(load_default_location(default_path(), operator_actions)),
    }
}

fn load_default_location(path: Option<PathBuf>, operator_actions: &[&'static str]) -> LoadedConfig {
    let Some(path) = path else {
        return LoadedConfig {
            config: Config::default(),
            path: None,
            problems: Vec::new(),
        };
    };
    match read_text(&path) {
        Ok(Ok(text)) => from_text_with(&text, &path, operator_actions),
        Ok(Err(refused)) => refused_before_reading(&path, &refused),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => LoadedConfig {
            config: Config::default(),
            path: Some(path),
            problems: Vec::new(),
        },
        Err(e) => LoadedConfig {
            problems: vec![format!(
                "cannot read config file {}: {e}; using the defaults",
                path.display()
            )],
            config: Config::default(),
            path: Some(path),
        },
    }
}

/// The file at `path` as text, within `limits::CONFIG_FILE`: the size is checked before
/// reading, and the read stops past the limit (a file that grows meanwhile, a device).
pub(crate) fn read_text(path: &Path) -> std::io::Result<Result<String, crate::limits::LimitError>> {
    let file = std::fs::File::open(path)?;
    let size = file
        .metadata()
        .map(|meta| usize::try_from(meta.len()).unwrap_or(usize::MAX))?;
    if let Err(refused) = crate::limits::check_size(size, crate::limits::CONFIG_FILE) {
        return Ok(Err(refused));
    }
    crate::limits::read_bounded(file, crate::limits::CONFIG_FILE)
}

/// A file over the size bound: the defaults, and one problem naming the file and the limit (the
/// console opens and shows it; nothing of the file is used).
fn refused_before_reading(path: &Path, refused: &crate::limits::LimitError) -> LoadedConfig {
    LoadedConfig {
        config: Config::default(),
        path: Some(path.to_path_buf()),
        problems: vec![format!(
            "config file {} refused before reading: {refused}; using the defaults",
            path.display()
        )],
    }
}

/// Decodes `text` read from `path`; never fails, problems are reported with their line.
pub fn from_text(text: &str, path: &Path) -> LoadedConfig {
    from_text_with(text, path, &[])
}

/// [`from_text`], the registered actions' key names known (see [`load`]).
pub fn from_text_with(text: &str, path: &Path, operator_actions: &[&'static str]) -> LoadedConfig {
    if let Err(refused) = crate::limits::check_brackets(text, crate::limits::CONFIG_FILE) {
        return LoadedConfig {
            config: Config::default(),
            path: Some(path.to_path_buf()),
            problems: vec![format!(
                "config file {} refused before decoding: {refused}; using the defaults",
                path.display()
            )],
        };
    }
    let (config, problems) = decode::decode(text, operator_actions);
    LoadedConfig {
        config,
        path: Some(path.to_path_buf()),
        problems: problems
            .into_iter()
            .map(|p| format!("config file {}: {p}", path.display()))
            .collect(),
    }
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(0, |before| before.matches('\n').count())
        + 1
}

#[cfg(test)]
mod plugins_tests;
#[cfg(test)]
mod tests;
