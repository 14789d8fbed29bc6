//! Colours and text styles. Every status is also written as a symbol or word, so the plain theme
//! (chosen when `NO_COLOR` is set) loses no information, only colour.
use ratatui::style::{Color, Modifier, Style};

use crate::config::ThemeName;

/// Styles by meaning, never by colour name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub base: Style,
    pub title: Style,
    pub header: Style,
    pub selected: Style,
    pub dim: Style,
    pub good: Style,
    pub warn: Style,
    pub bad: Style,
    pub accent: Style,
    pub banner: Style,
    pub border: Style,
}

impl Theme {
    /// The theme to use: `NO_COLOR` (any non-empty value, per no-color.org) forces plain.
    pub fn select(name: ThemeName, no_color: bool) -> Theme {
        if no_color {
            return Theme::plain();
        }
        match name {
            ThemeName::Dark => Theme::dark(),
            ThemeName::Light => Theme::light(),
            ThemeName::Plain => Theme::plain(),
        }
    }

    /// Reads `NO_COLOR` from the environment.
    pub fn no_color_from_env() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }

    pub fn dark() -> Theme {
        Theme {
            base: Style::new().fg(Color::Gray),
            title: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            header: Style::new().fg(Color::White).add_modifier(Modifier::BOLD),
            selected: Style::new()
                .bg(Color::DarkGray)
                .add_modifier(Modifier::BOLD),
            dim: Style::new().fg(Color::DarkGray),
            good: Style::new().fg(Color::Green),
            warn: Style::new().fg(Color::Yellow),
            bad: Style::new()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
            accent: Style::new().fg(Color::Cyan),
            banner: Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
            border: Style::new().fg(Color::DarkGray),
        }
    }

    pub fn light() -> Theme {
        Theme {
            base: Style::new().fg(Color::Black),
            title: Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
            header: Style::new().fg(Color::Black).add_modifier(Modifier::BOLD),
            selected: Style::new().bg(Color::Gray).add_modifier(Modifier::BOLD),
            dim: Style::new().fg(Color::DarkGray),
            good: Style::new().fg(Color::Green),
            warn: Style::new().fg(Color::Magenta),
            bad: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            accent: Style::new().fg(Color::Blue),
            banner: Style::new()
                .fg(Color::White)
                .bg(Color::Red)
                .add_modifier(Modifier::BOLD),
            border: Style::new().fg(Color::Gray),
        }
    }

    pub fn plain() -> Theme {
        let none = Style::new();
        Theme {
            base: none,
            title: none.add_modifier(Modifier::BOLD),
            header: none.add_modifier(Modifier::BOLD),
            selected: none.add_modifier(Modifier::REVERSED),
            dim: none,
            good: none,
            warn: none,
            bad: none.add_modifier(Modifier::BOLD),
            accent: none,
            banner: none.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            border: none,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_forces_plain_and_plain_has_no_colour() {
        let theme = Theme::select(ThemeName::Light, true);
        assert_eq!(theme, Theme::plain());
        for style in [
            theme.base,
            theme.title,
            theme.header,
            theme.selected,
            theme.good,
            theme.warn,
            theme.bad,
            theme.banner,
        ] {
            assert_eq!(style.fg, None);
            assert_eq!(style.bg, None);
        }
    }

    #[test]
    fn light_and_dark_differ() {
        assert_ne!(Theme::select(ThemeName::Light, false), Theme::dark());
        assert_eq!(Theme::select(ThemeName::Dark, false), Theme::dark());
    }
}
