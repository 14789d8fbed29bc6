//! The one health verdict (`fleet::verdict`) on the node screen: beside the phase, the
//! problems worst first, in the verdict's mark and colour.
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::theme::Theme;
use crate::app::model::Model;
use crate::fleet::detail::NodeDetail;
use crate::fleet::text::phase_text;
use crate::fleet::verdict::{Severity, mark};

/// `phase  ● Running  ✗ SidecarReady/Unreachable`; a healthy node shows its phase alone.
pub fn phase_line(detail: &NodeDetail, model: &Model, theme: &Theme) -> Line<'static> {
    let mut line = Line::from(vec![
        Span::styled(format!("  {:<17}", "phase"), theme.dim),
        Span::styled(phase_text(detail.phase), Style::new()),
    ]);
    let verdict = model.fleet.row(&detail.key).map(|row| &row.verdict);
    if let Some((worst, verdict)) = verdict.and_then(|v| Some((v.worst()?, v))) {
        let style = match worst {
            Severity::Critical => theme.bad,
            Severity::Warning => theme.warn,
        };
        line.spans.push(Span::styled(
            format!("  {} {}", mark(worst), verdict.summary()),
            style,
        ));
    }
    line
}
