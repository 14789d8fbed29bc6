//! The doctor's render checks of one node, against the present: the platform config in use
//! renders the node's StatefulSet or not (a blocker with its fix), a `StatefulSetRenderFailed`
//! event it no longer shows is from before, and the ServiceAccount the pod runs as exists.
use jiff::{SignedDuration, Timestamp};

use super::node::{NodeCtx, one_line};
use super::{Evidence, Finding, FindingClass, Fix, FixAction, Severity, scope_args};
use crate::actions::render_fix::{event_render_fix, render_failure_fix};
use crate::fleet::detail::RenderEventNow;
use crate::fleet::events::{RENDER_FAILED_REASON, last_seen};
use crate::fleet::text::render_event_line;

/// Render failures checked against the present: the platform config in use either cannot
/// render the node (a blocker, with the fix) or can, and a `StatefulSetRenderFailed` event is
/// then from before.
pub(super) fn render(at: &NodeCtx<'_, '_>, out: &mut Vec<Finding>) {
    let latest_event = at
        .snapshot
        .events
        .iter()
        .filter(|e| e.reason.as_deref() == Some(RENDER_FAILED_REASON))
        .max_by_key(|e| last_seen(e));
    let event_evidence = |e: &&k8s_openapi::api::core::v1::Event| {
        Evidence::new(
            format!("Event {RENDER_FAILED_REASON}"),
            one_line(e.message.as_deref().unwrap_or("")),
        )
        .at(last_seen(e))
    };
    let Some(platform) = at.cluster.platform else {
        if let Some(event) = latest_event.filter(|e| is_recent(at.now, last_seen(e))) {
            unchecked_render_failure(at, event, out);
        }
        return;
    };
    match crate::render::statefulset(at.node, platform.config) {
        Err(error) => {
            let mut evidence = vec![Evidence::new(
                "render",
                format!("with {}: {error}", platform.source),
            )];
            evidence.extend(latest_event.map(event_evidence));
            let fix = match render_failure_fix(&error, platform.source) {
                Some(fix) => Fix::says(fix),
                None => Fix::says("change the node's spec or the platform config so it renders"),
            }
            .command(at.rollout_preview(&at.node.spec.image))
            .action(FixAction::Rollout {
                image: at.node.spec.image.clone(),
            });
            out.push(at.finding(
                Severity::Critical,
                FindingClass::RenderBlocked,
                format!("its StatefulSet cannot be rendered: {error}"),
                evidence,
                fix,
            ));
        }
        Ok(statefulset) => {
            if let Some(event) = latest_event {
                // The same words as the node screen and `describe` (`fleet::text`).
                let verdict = RenderEventNow::FromBefore {
                    source: platform.source.clone(),
                    read_at: None,
                };
                let line = render_event_line(&verdict, last_seen(event), at.now)
                    .unwrap_or_else(|| "from before".to_owned());
                out.push(at.finding(
                    Severity::Info,
                    FindingClass::RenderFailedBefore,
                    format!("the {RENDER_FAILED_REASON} event is {line}"),
                    vec![
                        event_evidence(event),
                        Evidence::new("render", format!("renders with {}", platform.source))
                            .at(Some(at.now)),
                    ],
                    Fix::says("nothing to fix; the event ages out"),
                ));
            }
            service_account(at, &statefulset, out);
        }
    }
}

/// Warning events older than this are history, not a current finding (Kubernetes keeps events
/// for an hour by default).
pub(super) const RECENT: SignedDuration = SignedDuration::from_mins(60);

pub(super) fn is_recent(now: Timestamp, at: Option<Timestamp>) -> bool {
    at.is_some_and(|at| now.duration_since(at) <= RECENT)
}

/// A recent render failure where the platform config in use was not read (the console): said
/// as not checked, with the rollout preview, which renders with the present config.
fn unchecked_render_failure(
    at: &NodeCtx<'_, '_>,
    event: &k8s_openapi::api::core::v1::Event,
    out: &mut Vec<Finding>,
) {
    let message = event.message.as_deref().unwrap_or("");
    let fix = at
        .cluster
        .platform_source
        .and_then(|source| event_render_fix(message, source))
        .unwrap_or_else(|| "see the controller's message".to_owned());
    out.push(
        at.finding(
            Severity::Warning,
            FindingClass::RenderBlocked,
            "StatefulSetRenderFailed, not checked against the present platform config (the \
         preview renders with it)"
                .to_owned(),
            vec![
                Evidence::new(format!("Event {RENDER_FAILED_REASON}"), one_line(message))
                    .at(last_seen(event)),
            ],
            Fix::says(format!(
                "{fix}; the rollout preview says whether it still fails"
            ))
            .command(at.rollout_preview(&at.node.spec.image))
            .action(FixAction::Rollout {
                image: at.node.spec.image.clone(),
            }),
        ),
    );
}

fn service_account(
    at: &NodeCtx<'_, '_>,
    statefulset: &k8s_openapi::api::apps::v1::StatefulSet,
    out: &mut Vec<Finding>,
) {
    let (Some(existing), Some(account)) = (
        at.cluster.service_accounts,
        statefulset
            .spec
            .template
            .spec
            .as_ref()
            .and_then(|p| p.service_account_name.as_deref())
            .filter(|a| !a.is_empty() && *a != "default"),
    ) else {
        return;
    };
    let namespace = at.namespace();
    if existing.contains(&(namespace.to_owned(), account.to_owned())) {
        return;
    }
    let kubectl_scope = scope_args(&at.cluster.context, namespace);
    out.push(at.finding(
        Severity::Critical,
        FindingClass::ServiceAccountMissing,
        format!("ServiceAccount {account} does not exist: no pod can be created"),
        vec![Evidence::new(
            "render",
            format!(
                "StatefulSet {} runs its pod as {account}; namespace {namespace} has no such \
                 ServiceAccount",
                at.name()
            ),
        )],
        Fix::says(format!("create ServiceAccount {account} in {namespace}")).command(format!(
            "kubectl{kubectl_scope} create serviceaccount {account}"
        )),
    ));
}
