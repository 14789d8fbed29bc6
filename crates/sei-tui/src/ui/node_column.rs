//! The node screen's columns: panes stacked into lines wrapped to the width, where each pane
//! starts (recorded for `app::node_scroll`), and the column scrolled and clamped at its end.
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::node::{console_action_section, pane_lines, spec_lines, title};
use super::theme::Theme;
use super::wrap::hanging;
use crate::app::model::{Model, NodePane};
use crate::app::node_scroll::{NodeLayout, index};
use crate::fleet::detail::NodeDetail;

fn pane_title(pane: NodePane) -> &'static str {
    match pane {
        NodePane::Plan => "Plan",
        NodePane::Conditions => "Conditions",
        NodePane::Events => "Events",
        NodePane::Workload => "StatefulSet and Pods",
    }
}

/// Stacks panes into one column of lines wrapped to `width` (continuations under their value
/// column), each pane's first line recorded in `starts`.
pub(super) fn column(
    panes: &[NodePane],
    detail: &NodeDetail,
    model: &Model,
    theme: &Theme,
    width: u16,
    lines: &mut Vec<Line<'static>>,
    starts: &mut Vec<(NodePane, usize)>,
) {
    for pane in panes {
        starts.push((*pane, lines.len()));
        // Who did what, just above the Events (and scrolled to with them).
        if *pane == NodePane::Events {
            lines.extend(hanging(console_action_section(detail, model, theme), width));
        }
        lines.push(title(pane_title(*pane), *pane == model.node_pane, theme));
        lines.extend(hanging(pane_lines(*pane, detail, model, theme), width));
        lines.push(Line::raw(""));
    }
}

pub(super) fn spec_section(
    detail: &NodeDetail,
    model: &Model,
    theme: &Theme,
    width: u16,
) -> Vec<Line<'static>> {
    let mut lines = vec![title("Spec", false, theme)];
    lines.extend(hanging(spec_lines(detail, model, theme), width));
    lines.push(Line::raw(""));
    lines
}

/// One column of the screen: its lines, where its panes start, and the height it is drawn in.
pub(super) struct Column {
    pub(super) lines: Vec<Line<'static>>,
    pub(super) starts: Vec<(NodePane, usize)>,
    pub(super) height: u16,
}

impl Column {
    /// The last first line: the column's last written line at the bottom (the blank line
    /// after its last pane is not scrolled to).
    fn max_scroll(&self) -> u16 {
        let written = self.lines.len()
            - self
                .lines
                .iter()
                .rev()
                .take_while(|line| line.width() == 0)
                .count();
        u16::try_from(written.saturating_sub(usize::from(self.height))).unwrap_or(u16::MAX)
    }

    fn holds(&self, pane: NodePane) -> bool {
        self.starts.iter().any(|(p, _)| *p == pane)
    }

    /// Records the column's panes in `layout`.
    pub(super) fn record(&self, layout: &mut NodeLayout) {
        for (pane, start) in &self.starts {
            layout.starts[index(*pane)] = u16::try_from(*start).unwrap_or(u16::MAX);
            layout.max[index(*pane)] = self.max_scroll();
        }
    }

    /// The column as drawn: scrolled when it holds the focused pane, clamped at its end.
    pub(super) fn paragraph(self, model: &Model) -> Paragraph<'static> {
        let scroll = if self.holds(model.node_pane) {
            model.node_scroll.min(self.max_scroll())
        } else {
            0
        };
        Paragraph::new(self.lines).scroll((scroll, 0))
    }
}
