//! What the console's config file (and the global flags) decide for the TUI: keymap, theme,
//! read-only, executor mode, wave sizes and the fleet filter it opens with (applied to the model
//! by `Model::configure`).
use std::path::PathBuf;

use crate::config::ThemeName;
use crate::config::read_only::MutationGuard;
use crate::config::{ExecutorMode, LoadedConfig, WaveDefaults};

use super::model::{Cmd, Flash, Model, SavedSetting};

/// Settings the model consults; changed only by `update`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Settings {
    pub theme: ThemeName,
    /// Read-only mode (flag or config); every action is refused before any request.
    pub guard: MutationGuard,
    pub executor: ExecutorMode,
    pub waves: WaveDefaults,
    /// How long each plan task type may run before the doctor reports it.
    pub doctor: crate::config::DoctorThresholds,
    /// Where a theme switch or an applied filter is saved; `None`: nowhere to save.
    pub config_path: Option<PathBuf>,
    /// The last applied filter is saved per context (`fleet.remember_filter`).
    pub remember_filter: bool,
    /// Problems found in the config file (each names its line), shown until the first key.
    pub problems: Vec<String>,
    /// Read the nodes' RPC for chain health (`app::chain_health`); off where no effects run.
    pub chain_health: bool,
    /// `require_journal`: a change the journal cannot record is refused before any request.
    pub require_journal: bool,
    /// `[chains."ID"] reference_rpc`: what each chain's lag is measured against.
    pub reference_rpc: std::collections::BTreeMap<String, crate::chain::ReferenceUrl>,
}

/// Flags that win over the config file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FlagOverrides {
    /// `--theme`, when given.
    pub theme: Option<ThemeName>,
    /// `--read-only`.
    pub read_only: bool,
}

impl Settings {
    pub fn from_config(loaded: &LoadedConfig, flags: FlagOverrides) -> Settings {
        let config = &loaded.config;
        Settings {
            theme: flags.theme.unwrap_or(config.theme),
            guard: MutationGuard::new(flags.read_only, config.read_only),
            executor: config.executor,
            waves: config.waves,
            doctor: config.doctor.clone(),
            config_path: loaded.path.clone(),
            remember_filter: config.remember_filter,
            problems: loaded.problems.clone(),
            chain_health: false,
            require_journal: config.require_journal,
            reference_rpc: config.reference_rpc.clone(),
        }
    }
}

pub(super) fn on_setting_saved(
    model: &mut Model,
    setting: &SavedSetting,
    result: Result<(), super::errors::SettingSaveError>,
) {
    let what = match setting {
        SavedSetting::Theme(theme) => format!("theme {}", theme.name()),
        SavedSetting::Filter { filter, .. } if filter.is_empty() => "empty filter".to_owned(),
        SavedSetting::Filter { filter, .. } => format!("filter {filter:?}"),
    };
    // A save that fails says why; a successful one only speaks for the theme switch, which
    // the user asked for (filters are saved silently on every enter).
    match result {
        Err(error) => {
            model.flash = Some(Flash {
                text: error.to_string(),
                error: true,
            });
            model.dirty = true;
        }
        Ok(()) if matches!(setting, SavedSetting::Theme(_)) => {
            model.flash = Some(Flash {
                text: format!("{what} saved to the config file"),
                error: false,
            });
            model.dirty = true;
        }
        Ok(()) => {}
    }
}

/// Asks to write `setting` into the config file, when the console has one.
pub(super) fn save(model: &Model, setting: SavedSetting) -> Vec<Cmd> {
    match &model.settings.config_path {
        Some(path) => vec![Cmd::SaveSetting {
            path: path.clone(),
            setting,
        }],
        None => Vec::new(),
    }
}

/// Saves the applied filter for the current context, when `fleet.remember_filter` is on (a
/// filter never follows the operator to another cluster unasked).
pub(super) fn save_filter(model: &mut Model) -> Vec<Cmd> {
    model.filter_saved = false;
    if !model.settings.remember_filter {
        return Vec::new();
    }
    model.filter_saved = !model.filter.is_empty();
    let setting = SavedSetting::Filter {
        context: model.scope.context().to_owned(),
        filter: model.filter.text.clone(),
    };
    save(model, setting)
}
