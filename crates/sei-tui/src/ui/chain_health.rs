//! The node screen's chain-health lines (under the spec): the verdict with its mark, height,
//! block time and age, catching up, max peer height, lag and lag status, peers, moniker,
//! version, the node ID the RPC reports against the one the console knows, when it was read.
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::theme::Theme;
use crate::app::model::Model;
use crate::chain::State;
use crate::fleet::detail::{NodeDetail, NodeIdLookup};
use crate::fleet::health::lines;
use crate::fleet::verdict_of;

fn style(state: State, theme: &Theme) -> Style {
    match state {
        State::InSync => theme.good,
        State::Stalled | State::Unreachable => theme.bad,
        State::Lagging => theme.warn,
        State::CatchingUp => theme.accent,
        State::Pending => theme.dim,
    }
}

/// The lines, once the node's RPC was read or is being read; none before (or for a seed).
pub fn spec_lines(detail: &NodeDetail, model: &Model, theme: &Theme) -> Vec<Line<'static>> {
    let key = &detail.key;
    let Some(health) = model.fleet.health(key) else {
        return Vec::new();
    };
    let Some(verdict) = verdict_of(&model.fleet, key, model.now) else {
        return Vec::new();
    };
    let known = match model.fleet.node_id(key) {
        Some(NodeIdLookup::Found { node_id, .. }) => Some(node_id.as_str()),
        _ => None,
    };
    let (top, reference) = model.fleet.top_of(key);
    let against = crate::fleet::health::Against { top, reference };
    lines(Some(health), &verdict, known, model.now, against)
        .into_iter()
        .enumerate()
        .map(|(i, (label, value))| {
            let value_style = if i == 0 {
                style(verdict.state(), theme)
            } else {
                Style::new()
            };
            Line::from(vec![
                Span::styled(format!("  {label:<17}"), theme.dim),
                Span::styled(value, value_style),
            ])
        })
        .collect()
}
