//! ratatui views only: screens, widgets and the theme. `view` draws the model; it never
//! changes it (but for the node screen's layout, recorded for its scrolling), never waits and
//! never locks.
//!
//! The modules: `draw` (what the loop calls) and `view`; `chrome` (the header with the verdict's
//! sick count, the STALE/forbidden/config banner, the footer whose hints are fitted to the width:
//! `? help` and the last kept, the middle ones dropped); `fleet`; `node` (one column or two; a
//! failed plan first on one column) and `node_column` (panes stacked and wrapped into a column,
//! each pane's start recorded in `Model::node_layout` for scrolling); `help` (the keys from the
//! keymap table and the legend from `fleet::symbols`); `viewer` and `logs` (over the body);
//! `dialog` (an action's prompt, preview, confirmation and progress); `verdict` (beside the node
//! screen's phase); `chain_health`; `doctor`; `wrap` (hanging-indent wrapping); `theme` (the styles
//! of each `config::ThemeName`; plain for `NO_COLOR`). Snapshots are in `ui/snapshots/`;
//! `picture_tests` draws the README's `docs/fleet-screen.svg` from the same views and fails when it
//! is stale.
mod chain_health;
#[cfg(test)]
mod chain_health_tests;
pub mod chrome;
pub mod dialog;
pub mod doctor;
pub mod fleet;
pub mod help;
pub mod logs;
pub mod node;
mod node_column;
pub mod theme;
mod verdict;
pub mod viewer;
mod wrap;

#[cfg(test)]
mod multi_tests;
#[cfg(test)]
mod node_scroll_tests;
#[cfg(test)]
mod picture_tests;
#[cfg(test)]
mod render_now_tests;
#[cfg(test)]
mod resilience_tests;
#[cfg(test)]
pub(crate) mod tests;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout};

use crate::app::model::{Model, Screen};
use theme::Theme;

/// Draws a frame of the running console: the model's theme, plain when `no_color`
/// (`NO_COLOR`). The loop (`app::run`) is handed this function, so it need not know the views.
pub fn draw(model: &Model, no_color: bool, frame: &mut Frame) {
    view(model, &Theme::select(model.settings.theme, no_color), frame);
}

/// Draws the whole screen for `model`.
pub fn view(model: &Model, theme: &Theme, frame: &mut Frame) {
    let area = frame.area();
    frame.render_widget(ratatui::widgets::Block::new().style(theme.base), area);
    let banner_height = u16::try_from(chrome::banner_lines(model).len()).unwrap_or(1);
    let header_height =
        u16::try_from(chrome::header_lines(model, theme, area.width).len()).unwrap_or(1);
    let footer_height = chrome::footer_height(model, area.width);
    let [header, banner, body, footer] = Layout::vertical([
        Constraint::Length(header_height),
        Constraint::Length(banner_height),
        Constraint::Min(0),
        Constraint::Length(footer_height),
    ])
    .areas(area);
    chrome::header(model, theme, frame, header);
    chrome::banner(model, theme, frame, banner);
    match (&model.viewer, &model.screen) {
        _ if model.doctor.open => doctor::render(model, theme, frame, body),
        _ if model.logs.is_some() => {
            if let Some(view) = &model.logs {
                logs::render(view, theme, frame, body);
            }
        }
        (Some(open), _) => viewer::render(model, open, theme, frame, body),
        (None, Screen::Fleet) => fleet::render(model, theme, frame, body),
        (None, Screen::Node(key)) => node::render(model, key, theme, frame, body),
    }
    chrome::footer(model, theme, frame, footer);
    if model.help_open {
        help::render(
            model.help_scroll,
            &crate::app::plugins::help_lines(model),
            theme,
            frame,
            area,
        );
    }
    if let Some(flow) = model.action.as_ref().filter(|flow| !flow.hidden) {
        let cluster = flow.context().filter(|_| model.multi_cluster());
        // Above the footer: the footer's message (the quit question) stays readable.
        let above_footer = ratatui::layout::Rect {
            height: area.height.saturating_sub(footer_height.saturating_sub(1)),
            ..area
        };
        dialog::render(
            flow,
            cluster.as_deref(),
            model.now,
            theme,
            frame,
            above_footer,
        );
    }
}

#[cfg(test)]
mod console_actions_tests;
#[cfg(test)]
mod dialog_tests;
#[cfg(test)]
mod doctor_tests;
#[cfg(test)]
mod legend_tests;
#[cfg(test)]
mod logs_tests;
#[cfg(test)]
mod orphan_tests;
#[cfg(test)]
mod pod_warning_tests;
#[cfg(test)]
mod probe_tests;
#[cfg(test)]
mod rollouts_tests;
#[cfg(test)]
mod skew_tests;
#[cfg(test)]
mod verdict_tests;
#[cfg(test)]
mod viewer_tests;
#[cfg(test)]
mod viewer_wrap_tests;
#[cfg(test)]
mod wave_dialog_tests;
