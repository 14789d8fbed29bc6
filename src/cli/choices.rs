//! The command line's words for the config's choices (`--theme`, `--executor`): the config types
//! live in `sei-core`, which has no command-line parser, so clap's `ValueEnum` is derived here on
//! mirrors with the same names and help, mapped onto the config types by `value_parser`.
use clap::builder::{EnumValueParser, TypedValueParser};

use crate::config::{ExecutorMode, ThemeName};

/// Which palette the console draws with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Theme {
    Dark,
    Light,
    /// No colours at all, only bold/reverse/dim (what `NO_COLOR` selects).
    Plain,
}

/// Who executes the plans of operator actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Executor {
    /// The controller when its leader Lease is live, else embedded.
    Auto,
    /// Hand-off: persist the plan, the controller runs it.
    Controller,
    /// The console's own executor runs the plan.
    Embedded,
}

/// `--theme`'s parser: the mirror's words, the config's value.
pub fn theme() -> impl TypedValueParser<Value = ThemeName> {
    EnumValueParser::<Theme>::new().map(|theme| match theme {
        Theme::Dark => ThemeName::Dark,
        Theme::Light => ThemeName::Light,
        Theme::Plain => ThemeName::Plain,
    })
}

/// `--executor`'s parser: the mirror's words, the config's value.
pub fn executor() -> impl TypedValueParser<Value = ExecutorMode> {
    EnumValueParser::<Executor>::new().map(|executor| match executor {
        Executor::Auto => ExecutorMode::Auto,
        Executor::Controller => ExecutorMode::Controller,
        Executor::Embedded => ExecutorMode::Embedded,
    })
}

#[cfg(test)]
mod tests {
    use clap::ValueEnum;

    use super::*;

    #[test]
    fn the_words_are_the_config_files_names() {
        let words = |values: Vec<Option<clap::builder::PossibleValue>>| -> Vec<String> {
            values
                .into_iter()
                .flatten()
                .map(|v| v.get_name().to_owned())
                .collect()
        };
        assert_eq!(
            words(
                Theme::value_variants()
                    .iter()
                    .map(|t| t.to_possible_value())
                    .collect()
            ),
            [ThemeName::Dark, ThemeName::Light, ThemeName::Plain].map(|t| t.name())
        );
        assert_eq!(
            words(
                Executor::value_variants()
                    .iter()
                    .map(|e| e.to_possible_value())
                    .collect()
            ),
            [
                ExecutorMode::Auto,
                ExecutorMode::Controller,
                ExecutorMode::Embedded
            ]
            .map(|m| m.name())
        );
    }
}
