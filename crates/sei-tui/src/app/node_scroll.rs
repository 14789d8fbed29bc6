//! The node screen's scrolling: by line within the focused pane's column, clamped at its end,
//! `g`/`G`, and tab/shift-tab moving the focus to the next or previous pane and scrolling to
//! it. The drawing records where each pane starts and how far its column scrolls
//! ([`NodeLayout`]), since only it knows how the lines wrap at the terminal's width.
use super::model::Model;
use crate::keymap::Action;

/// Panes of the node screen, cycled with tab.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NodePane {
    #[default]
    Plan,
    Conditions,
    Events,
    Workload,
}

impl NodePane {
    pub fn next(self) -> NodePane {
        match self {
            NodePane::Plan => NodePane::Conditions,
            NodePane::Conditions => NodePane::Events,
            NodePane::Events => NodePane::Workload,
            NodePane::Workload => NodePane::Plan,
        }
    }

    pub fn previous(self) -> NodePane {
        match self {
            NodePane::Plan => NodePane::Workload,
            NodePane::Conditions => NodePane::Plan,
            NodePane::Events => NodePane::Conditions,
            NodePane::Workload => NodePane::Events,
        }
    }
}

/// Where the last frame drew each pane, in lines of the pane's own column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NodeLayout {
    /// A frame was drawn (before it, scrolling is not clamped: the drawing clamps it).
    pub known: bool,
    /// First line of each pane (its title), by [`index`].
    pub starts: [u16; 4],
    /// The last first line of each pane's column: its last line at the bottom of the body.
    pub max: [u16; 4],
}

/// A pane's slot in [`NodeLayout`]'s arrays.
pub fn index(pane: NodePane) -> usize {
    match pane {
        NodePane::Plan => 0,
        NodePane::Conditions => 1,
        NodePane::Events => 2,
        NodePane::Workload => 3,
    }
}

impl NodeLayout {
    fn clamp(&self, pane: NodePane, line: i64) -> u16 {
        let top = if self.known {
            i64::from(self.max[index(pane)])
        } else {
            i64::from(u16::MAX)
        };
        u16::try_from(line.clamp(0, top)).unwrap_or(0)
    }
}

/// Lines a page moves: the body less the header, the node title and the footer.
fn page(model: &Model) -> i64 {
    i64::from(model.size.1.saturating_sub(6)).max(1)
}

/// A scrolling or pane key of the node screen; returns whether it was one.
pub fn on_action(model: &mut Model, action: Action) -> bool {
    let layout = model.node_layout.get();
    let pane = model.node_pane;
    let at = i64::from(model.node_scroll);
    let to_pane = |pane: NodePane| layout.clamp(pane, i64::from(layout.starts[index(pane)]));
    match action {
        Action::NextPane | Action::PreviousPane => {
            let next = if action == Action::NextPane {
                pane.next()
            } else {
                pane.previous()
            };
            model.node_pane = next;
            model.node_scroll = to_pane(next);
        }
        Action::Down => model.node_scroll = layout.clamp(pane, at + 1),
        Action::Up => model.node_scroll = layout.clamp(pane, at - 1),
        Action::PageDown => model.node_scroll = layout.clamp(pane, at + page(model)),
        Action::PageUp => model.node_scroll = layout.clamp(pane, at - page(model)),
        Action::Top => model.node_scroll = 0,
        Action::Bottom => model.node_scroll = layout.clamp(pane, i64::from(u16::MAX)),
        _ => return false,
    }
    true
}
