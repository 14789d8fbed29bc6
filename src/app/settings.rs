//! What the console's config file (and the global flags) decide for the TUI: keymap, theme,
//! read-only, executor mode, wave sizes and the fleet filter it opens with.
use std::path::PathBuf;

use super::model::Model;
use crate::config::keys::keymap_with;
use crate::config::{ExecutorMode, LoadedConfig, WaveDefaults};
use crate::fleet::filter::Filter;
use crate::kube::read_only::MutationGuard;
use crate::ui::theme::ThemeName;

/// Settings the model consults; changed only by `update`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Settings {
    pub theme: ThemeName,
    /// Read-only mode (flag or config); every action is refused before any request.
    pub guard: MutationGuard,
    pub executor: ExecutorMode,
    pub waves: WaveDefaults,
    /// Where a theme switch or an applied filter is saved; `None`: nowhere to save.
    pub config_path: Option<PathBuf>,
    /// Problems found in the config file (each names its line), shown until the first key.
    pub problems: Vec<String>,
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
            config_path: loaded.path.clone(),
            problems: loaded.problems.clone(),
        }
    }
}

impl Model {
    /// Applies a loaded config: settings, key overrides and the initial fleet filter (a filter
    /// that does not parse is reported with the other problems and not applied).
    pub fn configure(&mut self, loaded: &LoadedConfig, flags: FlagOverrides) {
        self.settings = Settings::from_config(loaded, flags);
        self.keymap = keymap_with(&loaded.config.keys);
        match Filter::parse(&loaded.config.fleet_filter) {
            Ok(filter) => self.filter = filter,
            Err(err) => self.settings.problems.push(format!(
                "config file: fleet.filter {:?}: {err}; opening without a filter",
                loaded.config.fleet_filter
            )),
        }
        self.invalidate_views();
        self.dirty = true;
    }
}

/// The theme after `current` when switching with the theme key.
pub fn next_theme(current: ThemeName) -> ThemeName {
    match current {
        ThemeName::Dark => ThemeName::Light,
        ThemeName::Light => ThemeName::Plain,
        ThemeName::Plain => ThemeName::Dark,
    }
}

/// The name written in the config file and shown in messages.
pub fn theme_name(theme: ThemeName) -> &'static str {
    match theme {
        ThemeName::Dark => "dark",
        ThemeName::Light => "light",
        ThemeName::Plain => "plain",
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
