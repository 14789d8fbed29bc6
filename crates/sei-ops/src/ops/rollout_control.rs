//! Acting on a rollout from any terminal through its record (`ops::rollout_record`): listing
//! them (`rollout status`), finding one by ID or by node, and aborting one.
//!
//! **Abort** writes `abort` into the record (a `PUT` under its resourceVersion). A live runner
//! reads it within `rollout_record::POLL_EVERY` and stops at its next safe point: no further node
//! and no further wave starts, a node whose update plan is Active runs that plan to its end
//! (upstream's executor never cancels an Active plan: a plan ends Complete or Failed, and a
//! controller reconciling the node would run the same plan on), and a health gate being waited on
//! ends at once (the node is changed, but not verified). The runner then writes `aborted` with
//! what changed and what did not. A rollout whose runner is gone (its heartbeat stale, or its
//! process on this machine gone) is aborted by the aborting process itself: the record says
//! `aborted`, and each node whose plan the dead runner left Active is named (nothing runs it
//! until the same command, an undo, or a live controller runs it to its end).
use std::time::Duration;

use super::rollout_record::{self as rec, NodeState, Request, RolloutState, Runner, StoredRecord};
use super::{Ops, OpsError};

/// How an abort ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbortEnd {
    pub id: String,
    /// The record's state after the abort (`aborted`; or still `running` when the runner has
    /// not reached its safe point within the wait).
    pub state: RolloutState,
    /// Every line: who stopped it, what changed, what did not.
    pub lines: Vec<String>,
}

impl Ops<'_> {
    /// Every rollout record in the namespace, newest first (unreadable ones skipped).
    pub async fn rollout_records(&self) -> Result<Vec<StoredRecord>, OpsError> {
        let selector = format!("{}={}", rec::MANAGED_BY, rec::MANAGED_BY_VALUE);
        let leases = self
            .ports
            .cluster
            .list_leases(self.namespace(), &selector)
            .await
            .map_err(OpsError::cluster("listing rollout records (Leases)"))?;
        let mut records: Vec<StoredRecord> = leases
            .iter()
            .filter(|l| {
                l.metadata
                    .name
                    .as_deref()
                    .is_some_and(|n| n.starts_with(rec::RECORD_PREFIX))
            })
            .filter_map(|l| rec::from_lease(l).ok())
            .collect();
        records.sort_by_key(|r| std::cmp::Reverse(r.record.started));
        Ok(records)
    }

    /// The rollout `target` names: its ID (or record name), else a node of an unfinished
    /// rollout; without a target, the one unfinished rollout.
    pub async fn find_rollout(&self, target: Option<&str>) -> Result<StoredRecord, OpsError> {
        let records = self.rollout_records().await?;
        let namespace = self.namespace();
        if let Some(target) = target {
            let id = target.strip_prefix(rec::RECORD_PREFIX).unwrap_or(target);
            if let Some(found) = records.iter().find(|r| r.record.id == id) {
                return Ok(found.clone());
            }
            let by_node: Vec<&StoredRecord> = records
                .iter()
                .filter(|r| !r.record.state.is_finished())
                .filter(|r| r.record.nodes.iter().any(|n| n.name == target))
                .collect();
            return match by_node.as_slice() {
                [one] => Ok((*one).clone()),
                [] => Err(OpsError::BadInput(format!(
                    "no rollout {target} and no unfinished rollout of a node {target} in \
                     namespace {namespace} (`sei-console rollout status` lists them)"
                ))),
                several => Err(several_found(target, several)),
            };
        }
        let open: Vec<&StoredRecord> = records
            .iter()
            .filter(|r| !r.record.state.is_finished())
            .collect();
        match open.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(OpsError::BadInput(format!(
                "no unfinished rollout in namespace {namespace}"
            ))),
            several => Err(several_found("the namespace", several)),
        }
    }

    /// Aborts the rollout `target` names (see the module doc); waits up to `wait` for a live
    /// runner to reach its safe point.
    pub async fn abort_rollout(
        &self,
        target: Option<&str>,
        wait: Duration,
    ) -> Result<AbortEnd, OpsError> {
        let found = self.find_rollout(target).await?;
        let id = found.record.id.clone();
        if found.record.state.is_finished() {
            return Err(OpsError::BadInput(format!(
                "rollout {id} is already {}; nothing was changed",
                found.record.state.as_str()
            )));
        }
        let now = self.ports.clock.now();
        let holder = found.holder.clone().unwrap_or_default();
        let runner = found.runner(now, self.ports.holders.process(&holder));
        let request = Request {
            by: self.settings.operator.clone(),
            at: now,
        };
        match runner {
            Runner::Live { holder, .. } => {
                self.write_record(&id, |r| r.abort = Some(request.clone()))
                    .await?;
                let mut lines = vec![format!(
                    "abort of rollout {id} requested; its runner {holder} stops at its next safe \
                     point (no further node or wave; a node's Active plan runs to its end)"
                )];
                let end = self.await_finish(&id, wait).await?;
                let state = end
                    .as_ref()
                    .map_or(RolloutState::Running, |e| e.record.state);
                match end {
                    Some(end) => lines.extend(summary(&end)),
                    None => lines.push(format!(
                        "the runner has not reached a safe point within {} s (a plan still \
                         running); `sei-console rollout status {id}` shows when it has",
                        wait.as_secs()
                    )),
                }
                Ok(AbortEnd { id, state, lines })
            }
            Runner::Orphaned {
                holder,
                renewed_ago,
            } => {
                let why = match renewed_ago {
                    _ if self.ports.holders.process(&holder).is_gone() => {
                        format!("its runner {holder} is gone: its process on this machine exited")
                    }
                    Some(ago) => format!("its runner {holder} stopped heartbeating {ago} s ago"),
                    None => format!("its runner {holder} is gone"),
                };
                let reason = format!("aborted by {} ({why})", request.by);
                let stored = self
                    .write_record(&id, |r| {
                        r.abort = Some(request.clone());
                        r.state = RolloutState::Aborted;
                        r.reason = Some(reason.clone());
                    })
                    .await?;
                let mut lines = vec![format!("rollout {id} {reason}")];
                lines.extend(summary(&stored));
                lines.extend(self.active_plans_left(&stored).await);
                Ok(AbortEnd {
                    id,
                    state: RolloutState::Aborted,
                    lines,
                })
            }
            Runner::Finished => Err(OpsError::BadInput(format!(
                "rollout {id} is already finished; nothing was changed"
            ))),
        }
    }

    /// Lets a holding rollout go on (`rollout promote`): written into its record, read by its
    /// runner within `rollout_record::POLL_EVERY`. Refused unless it holds with a live runner.
    pub async fn promote_rollout(&self, target: Option<&str>) -> Result<String, OpsError> {
        let found = self.find_rollout(target).await?;
        let id = found.record.id.clone();
        if found.record.state != RolloutState::Holding {
            return Err(OpsError::BadInput(format!(
                "rollout {id} is {}, not holding; nothing was changed",
                found.record.state.as_str()
            )));
        }
        let holder = found.holder.clone().unwrap_or_default();
        let now = self.ports.clock.now();
        if let Runner::Orphaned { .. } = found.runner(now, self.ports.holders.process(&holder)) {
            return Err(OpsError::BadInput(format!(
                "rollout {id} holds but its runner {holder} is gone: nothing would go on;                  resume it with `{}` or abort it; nothing was changed",
                found.record.resume_command()
            )));
        }
        let request = Request {
            by: self.settings.operator.clone(),
            at: now,
        };
        self.write_record(&id, |r| r.promote = Some(request.clone()))
            .await?;
        Ok(format!(
            "rollout {id} promoted: its runner {holder} starts wave {} of {} within seconds",
            found.record.wave + 2,
            found.record.waves.len()
        ))
    }

    /// Reads, changes and writes the record under its resourceVersion, again on a conflict
    /// (the runner's heartbeat), a bounded number of times. A finished state clears the holder.
    pub async fn write_record(
        &self,
        id: &str,
        change: impl Fn(&mut rec::RolloutRecord),
    ) -> Result<StoredRecord, OpsError> {
        let name = rec::lease_name(id);
        let namespace = self.namespace();
        for _ in 0..10 {
            let lease = self
                .ports
                .cluster
                .get_lease(namespace, &name)
                .await
                .map_err(OpsError::cluster(format!("reading rollout record {name}")))?
                .ok_or_else(|| OpsError::BadInput(format!("no rollout record {name}")))?;
            let mut stored = rec::from_lease(&lease).map_err(|e| OpsError::Step(e.to_string()))?;
            change(&mut stored.record);
            stored.record.updated = self.ports.clock.now();
            let holder = if stored.record.state.is_finished() {
                None
            } else {
                stored.holder.clone()
            };
            let body = rec::to_lease(
                &stored.record,
                holder.as_deref(),
                stored.renewed.unwrap_or(stored.record.updated),
                lease.metadata.resource_version.clone(),
            );
            match self.ports.cluster.replace_lease(&body).await {
                Ok(written) => {
                    return rec::from_lease(&written).map_err(|e| OpsError::Step(e.to_string()));
                }
                Err(err) if err.is_conflict() => continue,
                Err(err) => {
                    return Err(OpsError::Cluster {
                        context: format!("writing rollout record {name}"),
                        source: err,
                    });
                }
            }
        }
        Err(OpsError::Step(format!(
            "rollout record {name} kept changing under ten writes in a row; nothing was changed"
        )))
    }

    /// Polls the record until it is finished, up to `wait`.
    async fn await_finish(
        &self,
        id: &str,
        wait: Duration,
    ) -> Result<Option<StoredRecord>, OpsError> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let name = rec::lease_name(id);
            if let Some(lease) = self
                .ports
                .cluster
                .get_lease(self.namespace(), &name)
                .await
                .map_err(OpsError::cluster(format!("reading rollout record {name}")))?
                && let Ok(stored) = rec::from_lease(&lease)
                && stored.record.state.is_finished()
            {
                return Ok(Some(stored));
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(None);
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// The plans a dead runner left Active on the nodes it changed.
    async fn active_plans_left(&self, stored: &StoredRecord) -> Vec<String> {
        let mut lines = Vec::new();
        for node in stored
            .record
            .nodes
            .iter()
            .filter(|n| n.state == NodeState::Rolling)
        {
            let Ok(read) = self.read_node(&node.name).await else {
                continue;
            };
            let Some(plan) = read.status.as_ref().and_then(|s| s.plan.as_ref()) else {
                continue;
            };
            if plan.is_active() {
                lines.push(format!(
                    "{}: plan {} to {} is Active ({} of {} tasks done) and nothing runs it now: \
                     an Active plan is never cancelled (upstream), so it stays Active until the \
                     same rollout command, `sei-console rollout undo {}` or a live controller \
                     runs it to its end",
                    node.name,
                    plan.id,
                    node.to,
                    plan.completed_count(),
                    plan.tasks.len(),
                    stored.record.id
                ));
            }
        }
        lines
    }
}

fn several_found(what: &str, several: &[&StoredRecord]) -> OpsError {
    let ids: Vec<&str> = several.iter().map(|r| r.record.id.as_str()).collect();
    OpsError::BadInput(format!(
        "several unfinished rollouts in {what} ({}): name one",
        ids.join(", ")
    ))
}

/// What a finished record says changed and did not.
pub fn summary(stored: &StoredRecord) -> Vec<String> {
    let record = &stored.record;
    let (changed, unchanged) = record.changed_and_unchanged();
    let list = |nodes: &[&rec::RecordNode], with_state: bool| -> String {
        if nodes.is_empty() {
            return "none".into();
        }
        nodes
            .iter()
            .map(|n| {
                if with_state {
                    format!("{} ({} -> {}, {})", n.name, n.from, n.to, node_words(n))
                } else {
                    format!("{} (still {})", n.name, n.from)
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut lines = vec![format!(
        "rollout {} is {}{}",
        record.id,
        record.state.as_str(),
        record
            .reason
            .as_deref()
            .map(|r| format!(": {r}"))
            .unwrap_or_default()
    )];
    lines.push(format!("changed: {}", list(&changed, true)));
    lines.push(format!("not changed: {}", list(&unchanged, false)));
    lines
}

/// A node of a record in words: its state, and for a node not started whose Active plan (a
/// live controller's, or an abandoned one) runs to its end first, that plan.
pub fn node_words(node: &rec::RecordNode) -> String {
    match (&node.state, &node.plan) {
        (NodeState::Pending, Some(plan)) => {
            format!("not started: its Active plan {plan} runs to its end first")
        }
        (state, _) => node_word(*state).to_owned(),
    }
}

/// A node's state in words.
fn node_word(state: NodeState) -> &'static str {
    match state {
        NodeState::Pending => "not started",
        NodeState::Rolling => "image pinned, not verified",
        NodeState::Rolled => "verified",
        NodeState::Failed => "failed",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(state: NodeState, plan: Option<&str>) -> rec::RecordNode {
        rec::RecordNode {
            name: "cb".into(),
            from: "sei:v1".into(),
            to: "sei:v2".into(),
            state,
            plan: plan.map(str::to_owned),
        }
    }

    #[test]
    fn a_node_waiting_for_an_active_plan_names_it_and_the_others_say_their_state() {
        assert_eq!(
            node_words(&node(NodeState::Pending, Some("p-1"))),
            "not started: its Active plan p-1 runs to its end first"
        );
        assert_eq!(node_words(&node(NodeState::Pending, None)), "not started");
        assert_eq!(
            node_words(&node(NodeState::Rolling, Some("p-2"))),
            "image pinned, not verified"
        );
    }
}
