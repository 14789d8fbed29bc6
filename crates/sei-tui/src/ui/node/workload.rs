//! The node screen's workload pane: the StatefulSet (ready, revision, rolling) and each Pod
//! with its containers; a watch not listed says unknown, not none.
use ratatui::text::Line;

use super::watch_note;
use crate::app::model::{Model, WatchState};
use crate::fleet::detail::NodeDetail;
use crate::fleet::watches::WatchKind;
use crate::ui::theme::Theme;

/// Whether `kind`'s watch has listed, so an empty result means none rather than unknown.
fn listed(model: &Model, kind: WatchKind) -> bool {
    matches!(model.node_watch(kind), Some(WatchState::Live))
}

pub(super) fn workload_lines(
    detail: &NodeDetail,
    model: &Model,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = [WatchKind::StatefulSet, WatchKind::Pods]
        .into_iter()
        .filter_map(|kind| watch_note(model, kind, theme))
        .collect();
    match &detail.statefulset {
        Some(sts) => {
            let rolled = sts.current_revision == sts.update_revision;
            let style = if sts.ready >= sts.replicas && rolled {
                theme.good
            } else {
                theme.warn
            };
            lines.push(Line::styled(
                format!(
                    "  StatefulSet {}  ready {}/{}  revision {}{}",
                    sts.name,
                    sts.ready,
                    sts.replicas,
                    sts.current_revision,
                    if rolled {
                        String::new()
                    } else {
                        format!(" → {} (rolling)", sts.update_revision)
                    }
                ),
                style,
            ));
        }
        None if listed(model, WatchKind::StatefulSet) => {
            lines.push(Line::styled("  no StatefulSet", theme.dim))
        }
        None => lines.push(Line::styled(
            "  StatefulSet unknown: not listed (see above)",
            theme.warn,
        )),
    }
    if detail.pods.is_empty() {
        if listed(model, WatchKind::Pods) {
            lines.push(Line::styled("  no pods", theme.dim));
        } else {
            lines.push(Line::styled(
                "  pods unknown: not listed (see above)",
                theme.warn,
            ));
        }
    }
    for pod in &detail.pods {
        let (ready, total) = pod.ready_count();
        let style = if ready == total && total > 0 {
            theme.good
        } else {
            theme.warn
        };
        lines.push(Line::styled(
            format!(
                "  Pod {}  {}  ready {ready}/{total}  revision {}",
                pod.name, pod.phase, pod.revision
            ),
            style,
        ));
        for c in &pod.containers {
            let mark = if c.ready { "✓" } else { "✗" };
            lines.push(Line::raw(format!(
                "    {mark} {:<16} restarts {:<3} {}",
                c.name, c.restarts, c.image
            )));
        }
    }
    lines
}
