//! The webhooks of `[notify]` in the console (`ports::notify`): the doctor's new critical
//! findings are queued as `doctor.critical` notifications (`Cmd::Notify`, which the effects
//! hand to the notifier the composition root made), and what the notifier could not deliver is
//! said: a flash when it happens, and a banner line while the last failure is recent
//! ([`BANNER_FOR`]). A rollout's own end is queued by the use case (`ops::notify::rollout_end`).
//!
//! "New" is against the doctor's previous judgement: the first judgement after every watched
//! cluster's doctor reads arrived is the baseline (nothing sent: those were there when the
//! console started), then each critical finding not in the previous judgement is sent once;
//! one that persists is not sent again, one that went away and came back is.
use std::collections::BTreeSet;

use jiff::Timestamp;

use super::model::{Cmd, Flash, Model};
use crate::ops::doctor::{Finding, Severity};
use crate::ports::notify::{FindingFacts, Notification, NotifyStatus, Origin};

/// How long after its last failure the banner says the webhooks failed.
pub const BANNER_FOR: jiff::SignedDuration = jiff::SignedDuration::from_mins(10);

/// The notifier's state as the console knows it.
#[derive(Debug, Clone, Default)]
pub struct NotifyView {
    /// Webhooks are configured (the effects have a notifier).
    pub enabled: bool,
    pub status: NotifyStatus,
    /// When a failure or drop was last seen.
    pub failed_at: Option<Timestamp>,
    /// The critical findings of the previous judgement; `None` before the baseline.
    pub critical: Option<BTreeSet<String>>,
}

/// The identity of a finding across judgements: its class and object.
fn key(finding: &Finding) -> String {
    let o = &finding.object;
    format!(
        "{:?} {}/{}/{}/{}",
        finding.class, o.context, o.namespace, o.kind, o.name
    )
}

/// After a judgement (`doctor::refresh`): the notifications of the critical findings that are
/// new since the previous one.
pub fn on_judged(model: &mut Model) -> Vec<Cmd> {
    if !model.notify.enabled {
        return Vec::new();
    }
    let ready = super::doctor::reads_at(model).is_some();
    let critical: Vec<&Finding> = model
        .doctor
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Critical)
        .collect();
    let now: BTreeSet<String> = critical.iter().map(|f| key(f)).collect();
    let cmds = match (&model.notify.critical, ready) {
        (_, false) => return Vec::new(),
        (None, true) => Vec::new(),
        (Some(before), true) => critical
            .iter()
            .filter(|f| !before.contains(&key(f)))
            .map(|f| Cmd::Notify(Box::new(notification(f, model.now))))
            .collect(),
    };
    model.notify.critical = Some(now);
    cmds
}

fn notification(finding: &Finding, at: Timestamp) -> Notification {
    let o = &finding.object;
    let fix = match &finding.fix.command {
        Some(command) => format!("{} ({command})", finding.fix.summary),
        None => finding.fix.summary.clone(),
    };
    Notification::finding(
        Origin {
            operator: None,
            context: o.context.clone(),
            namespace: o.namespace.clone(),
            time: at,
        },
        FindingFacts {
            severity: "critical".to_owned(),
            class: serde_json::to_value(finding.class)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            kind: o.kind.to_owned(),
            name: o.name.clone(),
            node: o.node.clone(),
            summary: finding.summary.clone(),
            fix,
        },
    )
}

/// The notifier's status changed: a new failure or drop is flashed and starts the banner.
pub fn on_status(model: &mut Model, status: NotifyStatus) {
    let before = model.notify.status.failed + model.notify.status.dropped;
    let after = status.failed + status.dropped;
    if after > before {
        model.notify.failed_at = Some(model.now);
        if let Some(last) = status.failures.last() {
            model.flash = Some(Flash {
                text: format!("notification failed: {last}"),
                error: true,
            });
        }
        model.dirty = true;
    }
    model.notify.status = status;
}

/// The banner's line while the last failure is recent.
pub fn banner_line(model: &Model) -> Option<String> {
    let at = model.notify.failed_at?;
    if model.now.duration_since(at) > BANNER_FOR {
        return None;
    }
    let status = &model.notify.status;
    let last = status.failures.last()?;
    let mut counts = Vec::new();
    if status.failed > 0 {
        counts.push(format!("{} not delivered", status.failed));
    }
    if status.dropped > 0 {
        counts.push(format!("{} dropped", status.dropped));
    }
    Some(format!(
        " webhooks: {} (journaled); last: {last} ",
        counts.join(", ")
    ))
}

#[cfg(test)]
mod tests;
