//! ratatui views only: screens, widgets and the theme. Each screen is `fn(&Model, &mut Frame)`.
pub mod theme;
