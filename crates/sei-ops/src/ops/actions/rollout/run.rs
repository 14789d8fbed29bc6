//! Running a prepared rollout: wave after wave, each node under its Lease followed through
//! every plan it needs to run the image, then the wave gate; the first failure halts the rest.
use std::time::Instant;

use super::health_gate::{self, GateEnd};
use super::{GATE_POLL, MAX_PLANS_PER_ROLLOUT_NODE, NodeToRoll, RolloutInput, RolloutPrepared};

use crate::actions::image_ref::ImageRef;
use crate::actions::waves::{Gate, plan_waves, wave_gate};
use crate::api::SeiNode;
use crate::executor::driver::Persisted;
use crate::fleet::console_actions;
use crate::journal::Outcome;
use crate::ops::follow::FollowEnd;
use crate::ops::rollout_record::{NodeState, RolloutState};
use crate::ops::rollout_tracker::{HoldEnd, Tracker};
use crate::ops::{Note, Ops, OpsError, Report, RunEnd};
use crate::ports::{ClusterObject, ObjectKind};

/// Rolls the prepared nodes in waves, after the shared preamble (`action::execute`: read-only,
/// what `prepare` said cannot start); blocked nodes are never touched and make the end a
/// failure naming them.
pub(super) async fn run(
    ops: &Ops<'_>,
    prepared: &RolloutPrepared,
    report: &dyn Report,
) -> Result<RunEnd, OpsError> {
    // Already-rolled and blocked nodes were shown with the preview; they are not touched.
    if prepared.nodes.is_empty() {
        return Ok(RunEnd::done(format!(
            "every node is already on {}",
            prepared.input.image
        )));
    }
    let end = roll_waves(ops, prepared, report).await?;
    Ok(match prepared.blocked.first() {
        Some(first) if end.ok => {
            let skipped: Vec<&str> = prepared.blocked.iter().map(|b| b.node.as_str()).collect();
            RunEnd::failed(
                &first.node,
                format!(
                    "{}; skipped, nothing changed: {} (no plan can take them to the image)",
                    end.message,
                    skipped.join(", ")
                ),
            )
        }
        _ => end,
    })
}

async fn roll_waves(
    ops: &Ops<'_>,
    prepared: &RolloutPrepared,
    report: &dyn Report,
) -> Result<RunEnd, OpsError> {
    let input = &prepared.input;
    let sizes = prepared.sizes;
    let waves = plan_waves(&prepared.nodes, sizes.canary, sizes.batch);
    if !input.wait && waves.len() > 1 {
        report.note(&Note::NoWaitNoWaves);
    }
    let total = prepared.nodes.len();
    let mut done = 0;
    // The rollout's record: created before any change (a refusal here changed nothing).
    let tracker = Tracker::start(ops, prepared.record(ops), report)
        .await
        .map_err(|e| OpsError::Step(format!("{e}; nothing was changed")))?;
    let tracker = &tracker;
    for (index, wave) in waves.iter().enumerate() {
        // The safe point between waves: an abort read here starts no further wave.
        let _ = tracker.poll().await;
        if let Some(end) = aborted_end(ops, tracker, report).await {
            return Ok(end);
        }
        tracker.wave(index).await;
        report.note(&Note::Wave {
            index: index + 1,
            of: waves.len(),
            nodes: wave.iter().map(|n| n.node.name().to_owned()).collect(),
        });
        // Every node's Lease first: a node another executor holds stops the rollout before
        // this wave changes anything.
        let mut leases = Vec::new();
        for target in wave {
            match ops.take_node_lease(target.node.name(), report).await {
                Ok(lease) => leases.push(lease),
                Err(err) => {
                    for lease in leases {
                        let _ = lease.release(ops.ports.cluster).await;
                    }
                    let name = target.node.name();
                    let reason = err.to_string();
                    let one = [name.to_owned()];
                    let detail = input.detail();
                    ops.journal(
                        crate::ops::actions::rollout::KIND,
                        &one,
                        &detail,
                        Outcome::Refused,
                        Some(reason.clone()),
                        report,
                    );
                    return Ok(halted(ops, tracker, name, &reason, total - done, report).await);
                }
            }
        }
        let deadline = Instant::now() + ops.settings.driver.deadline;
        let wave_work =
            futures::future::join_all(wave.iter().zip(leases).map(|(target, lease)| {
                ops.under_lease(
                    lease,
                    roll_one(ops, tracker, target, input, deadline, report),
                )
            }));
        // The record is read beside the wave (an abort within seconds) and its heartbeat
        // renewed; a record another console took stops the wave where it is.
        let results = tokio::select! {
            results = wave_work => results,
            lost = tracker.keep_alive() => {
                let first = wave.first().map_or("", |t| t.node.name());
                return Ok(halted(ops, tracker, first, &lost.to_string(), total - done, report).await);
            }
        };
        let mut stop = None;
        for (target, result) in wave.iter().zip(results) {
            let failure = match result {
                Ok(NodeEnd::Rolled | NodeEnd::Stopped) => None,
                Ok(NodeEnd::Failed(reason)) => Some(reason),
                Err(err) => Some(err.to_string()),
            };
            if let Some(reason) = failure {
                tracker
                    .node(target.node.name(), NodeState::Failed, None)
                    .await;
                stop.get_or_insert((target.node.name(), reason));
            }
        }
        done += wave.len();
        if let Some((name, reason)) = stop {
            return Ok(halted(ops, tracker, name, &reason, total - done, report).await);
        }
        if let Some(end) = aborted_end(ops, tracker, report).await {
            return Ok(end);
        }
        let canary = sizes.canary > 0;
        if let Some(hold) = input
            .hold_after
            .filter(|h| input.wait && h.holds_after(index, waves.len(), canary))
        {
            let first = wave.first().map_or("", |t| t.node.name());
            match tracker.hold(report).await {
                Ok(HoldEnd::Promoted) => {}
                Ok(HoldEnd::Aborted) => {
                    if let Some(end) = aborted_end(ops, tracker, report).await {
                        return Ok(end);
                    }
                }
                Ok(HoldEnd::Expired) => {
                    let reason = format!(
                        "held after wave {} (--hold-after {}) and not promoted within {} h",
                        index + 1,
                        hold.as_str(),
                        crate::ops::rollout_record::MAX_HOLD.as_secs() / 3600
                    );
                    return Ok(halted(ops, tracker, first, &reason, total - done, report).await);
                }
                Err(lost) => {
                    return Ok(halted(
                        ops,
                        tracker,
                        first,
                        &lost.to_string(),
                        total - done,
                        report,
                    )
                    .await);
                }
            }
        }
    }
    // Only what was checked: each node's plans Complete, `currentImage` the image and its pod
    // Ready (the wave gate), then its health gate when there is one.
    let end = RunEnd::done(if input.wait {
        let gate = if input.health_gate.is_some() {
            "health gate passed"
        } else {
            "no health gate"
        };
        format!(
            "rollout complete: {total} node(s) on {} (plans Complete, currentImage set, pod \
             Ready; {gate})",
            input.image
        )
    } else {
        "image pinned and plans persisted; nothing run yet (--no-wait)".to_owned()
    });
    let reason = format!("{total} node(s) on {}", input.image);
    tracker
        .set_state(RolloutState::Done, Some(reason), report)
        .await;
    Ok(with_id(end, &tracker.id().await))
}

/// The end names the rollout's record (`rollout status ID`), in the JSON result too.
fn with_id(mut end: RunEnd, id: &str) -> RunEnd {
    end.result.insert("rollout".into(), id.into());
    end
}

async fn halted(
    ops: &Ops<'_>,
    tracker: &Tracker<'_>,
    name: &str,
    reason: &str,
    left: usize,
    report: &dyn Report,
) -> RunEnd {
    let message = format!(
        "rollout halted at {}/{name}: {reason}; {left} node(s) not started; run the same command again to resume",
        ops.namespace()
    );
    tracker
        .set_state(RolloutState::Halted, Some(message.clone()), report)
        .await;
    with_id(RunEnd::failed(name, message), &tracker.id().await)
}

/// When an abort was read: the record says aborted, with what changed and what did not.
async fn aborted_end(ops: &Ops<'_>, tracker: &Tracker<'_>, report: &dyn Report) -> Option<RunEnd> {
    let request = tracker.abort_requested()?;
    let reason = format!("aborted by {} at {}", request.by, request.at);
    tracker
        .set_state(RolloutState::Aborted, Some(reason), report)
        .await;
    let id = tracker.id().await;
    let lines = match ops.find_rollout(Some(&id)).await {
        Ok(stored) => crate::ops::rollout_control::summary(&stored),
        Err(err) => vec![format!("rollout {id} aborted (its record: {err})")],
    };
    let mut end = with_id(RunEnd::failed(&id, lines.join("; ")), &id);
    end.result
        .insert(crate::ops::notify::END_STATE.into(), "aborted".into());
    Some(end)
}

/// How one node of a wave ended.
pub(super) enum NodeEnd {
    /// Through its plan and gates.
    Rolled,
    /// Stopped by an abort at a safe point (before its change, or in its health gate).
    Stopped,
    /// Failed (journaled): the rollout halts.
    Failed(String),
}

/// One node of a wave, its Lease held: a plan already Active goes first (pinning under it
/// would strand it: its pod is replaced before the new template, and `OnDelete` never rolls
/// it); then the update plan is persisted, `spec.image` pinned (the console-action record on
/// the node in the same patch), the Event and journal written, and (waiting) the node followed to the image and the gate. `Ok(Some(reason))`
/// when the node failed (journaled).
async fn roll_one(
    ops: &Ops<'_>,
    tracker: &Tracker<'_>,
    target: &NodeToRoll,
    input: &RolloutInput,
    deadline: Instant,
    report: &dyn Report,
) -> Result<NodeEnd, OpsError> {
    let kind = crate::ops::actions::rollout::KIND;
    let detail = input.detail();
    let image = input.image.to_string();
    let name = target.node.name();
    let one = [name.to_owned()];
    let failed = |reason: String| {
        ops.journal(
            kind,
            &one,
            &detail,
            Outcome::Failed,
            Some(reason.clone()),
            report,
        );
        Ok(NodeEnd::Failed(reason))
    };
    let mut followed_first = 0;
    let plan_id = loop {
        // A safe point: an abort read before this node's change leaves it unchanged.
        if tracker.abort_requested().is_some() {
            return Ok(NodeEnd::Stopped);
        }
        match persist_for_image(ops, name, &input.image, target.plan_id).await? {
            Persisted::Built(plan) => {
                // Read after the plan was persisted: the record appends to what is there now.
                let stored = ops.read_node(name).await?;
                let what = format!("image {} -> {image}", stored.spec.image);
                let record =
                    ops.action_record(kind, Some(&stored), &what, Some(plan.id.clone()), report);
                pin_image(ops, name, &input.image, Some(&record)).await?;
                tracker
                    .node(name, NodeState::Rolling, Some(plan.id.clone()))
                    .await;
                let uid = stored.metadata.uid.as_deref().unwrap_or("");
                ops.event(kind, name, uid, &what, report).await;
                report.note(&Note::PlanPersisted {
                    node: name.to_owned(),
                    plan_id: plan.id.clone(),
                });
                break Some(plan.id);
            }
            Persisted::Resumed(plan) => {
                // Not started, and not idle either: the record names the plan it waits for.
                tracker
                    .node(name, NodeState::Pending, Some(plan.id.clone()))
                    .await;
                report.note(&Note::PlanAlreadyActive {
                    node: name.to_owned(),
                    plan_id: plan.id.clone(),
                });
                if !input.wait {
                    return failed(format!(
                        "plan {} is Active: the image is pinned after it ends (run without --no-wait to follow it first, or again once it ended)",
                        plan.id
                    ));
                }
                followed_first += 1;
                if followed_first > MAX_PLANS_PER_ROLLOUT_NODE {
                    return failed(format!(
                        "plan {} is still Active after {MAX_PLANS_PER_ROLLOUT_NODE} plans followed first",
                        plan.id
                    ));
                }
                match ops.follow(name, &plan.id, report).await {
                    Ok(FollowEnd::Completed) => {}
                    Ok(other) => return failed(other.to_string()),
                    Err(err) => return failed(err.to_string()),
                }
            }
            // The plan followed first took the node to the image (a rerun after a crash).
            Persisted::None(_) if on_image(&ops.read_node(name).await?, &image) => {
                pin_image(ops, name, &input.image, None).await?;
                tracker.node(name, NodeState::Rolling, None).await;
                break None;
            }
            Persisted::None(reason) => {
                // Not on the image and nothing will take it there: this wave failed.
                return failed(format!("no plan: {reason}"));
            }
        }
    };
    ops.journal(kind, &one, &detail, Outcome::Started, None, report);
    if !input.wait {
        return Ok(NodeEnd::Rolled);
    }
    let followed = match plan_id {
        Some(plan_id) => follow_to_image(ops, name, &image, plan_id, report).await,
        None => Ok(None),
    };
    let failure = match followed {
        Ok(None) => await_gate(ops, name, &image, deadline).await,
        other => other,
    };
    let failure = match failure {
        Ok(failure) => failure,
        Err(err) => Some(err.to_string()),
    };
    if let Some(reason) = failure {
        return failed(reason);
    }
    // The journal line carries the gate's verdict. An abort ends the wait for the gate: the
    // node stays changed, not verified.
    let gated = tokio::select! {
        gated = health_gate::gate(ops, target, input.health_gate, report) => gated,
        () = tracker.aborted() => return Ok(NodeEnd::Stopped),
    };
    if let GateEnd::Passed(verdict) | GateEnd::Halted(verdict) = &gated {
        tracker.gate_reading(&format!("{name}: {verdict}")).await;
    }
    match gated {
        GateEnd::Halted(reason) => failed(reason),
        GateEnd::Passed(verdict) => {
            tracker.node(name, NodeState::Rolled, None).await;
            ops.journal(
                kind,
                &one,
                &detail,
                Outcome::Succeeded,
                Some(verdict),
                report,
            );
            Ok(NodeEnd::Rolled)
        }
        GateEnd::NotGated => {
            tracker.node(name, NodeState::Rolled, None).await;
            ops.journal(kind, &one, &detail, Outcome::Succeeded, None, report);
            Ok(NodeEnd::Rolled)
        }
    }
}

fn on_image(node: &SeiNode, image: &str) -> bool {
    node.status
        .as_ref()
        .is_some_and(|s| s.current_image() == image)
}

/// Persists the update plan the node needs once `spec.image` is `image` (planned on the
/// stored node with the image set in memory, the previewed ID), or returns the plan found
/// Active. Written before the pin, so a controller reconciling the pinned node finds this
/// plan Active and runs it rather than building its own.
async fn persist_for_image(
    ops: &Ops<'_>,
    node: &str,
    image: &ImageRef,
    plan_id: uuid::Uuid,
) -> Result<Persisted, OpsError> {
    let namespace = ops.namespace();
    let image = image.to_string();
    ops.driver()
        .persist_for_spec(
            namespace,
            node,
            &ops.settings.platform.images.sidecar,
            Some(plan_id),
            |node| node.spec.image.clone_from(&image),
        )
        .await
        .map_err(|e| OpsError::Step(format!("{namespace}/{node}: {e}")))
}

/// Patches `spec.image`, with the node's console-action record (`record`) in the same patch.
async fn pin_image(
    ops: &Ops<'_>,
    node: &str,
    image: &ImageRef,
    record: Option<&str>,
) -> Result<(), OpsError> {
    let mut patch = serde_json::json!({"spec": {"image": image.to_string()}});
    if let Some(record) = record {
        console_actions::add_to_patch(&mut patch, record);
    }
    ops.ports
        .cluster
        .patch_seinode(ops.namespace(), node, &patch)
        .await
        .map_err(OpsError::cluster(format!("patching spec.image of {node}")))?;
    Ok(())
}

/// Follows `name`'s update plan, then any plan its completion still leaves the node needing
/// to run `image` (the controller's next reconcile builds it; with no controller live the
/// console is that reconcile and persists and follows it itself, a bounded number, so a
/// planner that keeps building plans cannot loop). `Ok(Some(reason))` when the node failed.
async fn follow_to_image(
    ops: &Ops<'_>,
    name: &str,
    image: &str,
    first_plan: String,
    report: &dyn Report,
) -> Result<Option<String>, OpsError> {
    let namespace = ops.namespace();
    let mut plan_id = first_plan;
    for _ in 0..MAX_PLANS_PER_ROLLOUT_NODE {
        match ops.follow(name, &plan_id, report).await? {
            FollowEnd::Completed => {}
            other => return Ok(Some(other.to_string())),
        }
        if on_image(&ops.read_node(name).await?, image) || !ops.executor_choice().await?.embedded {
            break;
        }
        match ops
            .driver()
            .persist(namespace, name, &ops.settings.platform.images.sidecar)
            .await
        {
            Ok(Persisted::Built(plan)) => {
                report.note(&Note::PlanPersisted {
                    node: name.to_owned(),
                    plan_id: plan.id.clone(),
                });
                plan_id = plan.id;
            }
            Ok(Persisted::Resumed(plan)) => plan_id = plan.id,
            Ok(Persisted::None(_)) => break,
            Err(e) => return Err(OpsError::Step(format!("{namespace}/{name}: {e}"))),
        }
    }
    Ok(None)
}

/// Waits until the node runs the image and its pod is Ready (the wave gate after a Complete
/// plan), polling until `deadline`. `Ok(Some(reason))` when the deadline passed first.
async fn await_gate(
    ops: &Ops<'_>,
    name: &str,
    image: &str,
    deadline: Instant,
) -> Result<Option<String>, OpsError> {
    let namespace = ops.namespace();
    let pod_name = format!("{name}-0");
    loop {
        let node = ops.read_node(name).await?;
        let pod = ops
            .ports
            .cluster
            .get(ObjectKind::Pod, namespace, &pod_name)
            .await
            .map_err(OpsError::cluster(format!("{namespace}/{pod_name}")))?;
        let pod = match &pod {
            Some(ClusterObject::Pod(pod)) => Some(pod),
            _ => None,
        };
        match wave_gate(&node, pod, image) {
            Gate::Passed => return Ok(None),
            Gate::Waiting(why) if Instant::now() >= deadline => {
                let warnings = crate::ops::waiting::warnings(ops, name, None).await;
                return Ok(Some(format!(
                    "plan complete but {why} at the deadline{}",
                    crate::ops::waiting::because(&warnings)
                )));
            }
            Gate::Waiting(_) => tokio::time::sleep(GATE_POLL).await,
        }
    }
}
