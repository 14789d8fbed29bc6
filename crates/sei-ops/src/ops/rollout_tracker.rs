//! The running rollout's side of its record (`ops::rollout_record`): creates it, keeps its
//! heartbeat, writes each state change and node step, and reads it every
//! `rollout_record::POLL_EVERY` for an abort another terminal wrote.
//!
//! Every change of the rollout's state (running, holding, halted, aborted, done) goes through
//! [`Tracker::set_state`], which writes the record and emits one typed
//! [`crate::ops::Note::Rollout`] ([`RolloutChange`]) on the run's `Report`: the one place a
//! notifier hooks in.
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use jiff::Timestamp;
use k8s_openapi::api::coordination::v1::Lease;

use super::rollout_record::{
    self as rec, NodeState, RecordError, Request, RolloutRecord, RolloutState,
};
use super::{Note, Ops, Report};

/// A rollout's state change, as emitted on the run's report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RolloutChange {
    pub id: String,
    pub namespace: String,
    pub state: RolloutState,
    /// Why (a halt's reason, who aborted, the summary of an end).
    pub reason: Option<String>,
}

impl fmt::Display for RolloutChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "rollout {} ({}): {}",
            self.id,
            self.namespace,
            self.state.as_str()
        )?;
        if let Some(reason) = &self.reason {
            write!(f, ": {reason}")?;
        }
        Ok(())
    }
}

/// How a hold ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldEnd {
    Promoted,
    Aborted,
    /// Nobody promoted it within `rollout_record::MAX_HOLD`.
    Expired,
}

struct Inner {
    record: RolloutRecord,
    lease: Lease,
    renewed: Timestamp,
}

/// The runner's hold on its record.
pub struct Tracker<'o> {
    ops: &'o Ops<'o>,
    holder: String,
    inner: tokio::sync::Mutex<Inner>,
    abort: std::sync::Mutex<Option<Request>>,
    aborted: AtomicBool,
}

impl<'o> Tracker<'o> {
    /// Writes the new record (state running) and prunes finished records older than
    /// `rollout_record::PRUNE_AFTER` (best effort).
    pub async fn start(
        ops: &'o Ops<'o>,
        record: RolloutRecord,
        report: &dyn Report,
    ) -> Result<Tracker<'o>, RecordError> {
        let holder = ops.settings.driver.holder.clone();
        let now = ops.ports.clock.now();
        let name = rec::lease_name(&record.id);
        let lease = ops
            .ports
            .cluster
            .create_lease(&rec::to_lease(&record, Some(&holder), now, None))
            .await
            .map_err(|source| RecordError::Api {
                name: name.clone(),
                source,
            })?;
        if let Ok(all) = ops.rollout_records().await {
            for old in rec::prunable(&all, now) {
                let _ = ops.ports.cluster.delete_lease(ops.namespace(), &old).await;
            }
        }
        report.note(&Note::Rollout(RolloutChange {
            id: record.id.clone(),
            namespace: record.namespace.clone(),
            state: RolloutState::Running,
            reason: None,
        }));
        Ok(Tracker {
            ops,
            holder,
            inner: tokio::sync::Mutex::new(Inner {
                record,
                lease,
                renewed: now,
            }),
            abort: std::sync::Mutex::new(None),
            aborted: AtomicBool::new(false),
        })
    }

    pub async fn id(&self) -> String {
        self.inner.lock().await.record.id.clone()
    }

    /// The abort another terminal (or this one) wrote, once read.
    pub fn abort_requested(&self) -> Option<Request> {
        if !self.aborted.load(Ordering::Acquire) {
            return None;
        }
        self.abort.lock().ok().and_then(|a| a.clone())
    }

    /// Changes the record and writes it under its resourceVersion; a conflict (another
    /// terminal wrote an abort) is merged and written again; another holder named: `Lost`.
    pub async fn update(&self, change: impl Fn(&mut RolloutRecord)) -> Result<(), RecordError> {
        let mut inner = self.inner.lock().await;
        self.write(&mut inner, change).await
    }

    async fn write(
        &self,
        inner: &mut Inner,
        change: impl Fn(&mut RolloutRecord),
    ) -> Result<(), RecordError> {
        let cluster = self.ops.ports.cluster;
        let name = rec::lease_name(&inner.record.id);
        for _ in 0..5 {
            let now = self.ops.ports.clock.now();
            change(&mut inner.record);
            inner.record.updated = now;
            let holder = (!inner.record.state.is_finished()).then_some(self.holder.as_str());
            let body = rec::to_lease(
                &inner.record,
                holder,
                now,
                inner.lease.metadata.resource_version.clone(),
            );
            match cluster.replace_lease(&body).await {
                Ok(stored) => {
                    inner.lease = stored;
                    inner.renewed = now;
                    return Ok(());
                }
                Err(err) if err.is_conflict() => self.merge(inner).await?,
                Err(source) => return Err(RecordError::Api { name, source }),
            }
        }
        Err(RecordError::Lost {
            name,
            holder: "another writer (five conflicting writes in a row)".into(),
        })
    }

    /// Reads the stored record after a conflict: takes its abort request and resourceVersion,
    /// refuses when another console holds it.
    async fn merge(&self, inner: &mut Inner) -> Result<(), RecordError> {
        let name = rec::lease_name(&inner.record.id);
        let stored = self
            .stored(&name)
            .await?
            .ok_or_else(|| RecordError::Unreadable {
                name: name.clone(),
                why: "deleted while the rollout ran".into(),
            })?;
        let read = rec::from_lease(&stored)?;
        if read.record.state.is_finished() {
            // Aborted by a terminal that judged this runner gone.
            self.take_abort(read.record.abort.clone());
            return Err(RecordError::Lost {
                name,
                holder: format!("nobody: the record says {}", read.record.state.as_str()),
            });
        }
        if let Some(other) = read.holder.as_ref().filter(|h| **h != self.holder) {
            return Err(RecordError::Lost {
                name,
                holder: other.clone(),
            });
        }
        self.take_abort(read.record.abort.clone());
        inner.record.abort = read.record.abort;
        inner.record.promote = read.record.promote;
        inner.lease = stored;
        Ok(())
    }

    /// The record's Lease as the API server holds it now (none: deleted).
    async fn stored(&self, name: &str) -> Result<Option<Lease>, RecordError> {
        self.ops
            .ports
            .cluster
            .get_lease(self.ops.namespace(), name)
            .await
            .map_err(|source| RecordError::Api {
                name: name.to_owned(),
                source,
            })
    }

    fn take_abort(&self, abort: Option<Request>) {
        if let Some(request) = abort {
            if let Ok(mut slot) = self.abort.lock() {
                *slot = Some(request);
            }
            self.aborted.store(true, Ordering::Release);
        }
    }

    /// Reads the record (an abort request) and renews the heartbeat when due.
    pub async fn poll(&self) -> Result<(), RecordError> {
        let mut inner = self.inner.lock().await;
        let name = rec::lease_name(&inner.record.id);
        if let Some(stored) = self.stored(&name).await?
            && stored.metadata.resource_version != inner.lease.metadata.resource_version
        {
            self.merge(&mut inner).await?;
        }
        let now = self.ops.ports.clock.now();
        let due =
            now.as_second() - inner.renewed.as_second() >= rec::HEARTBEAT_RENEW.as_secs() as i64;
        if due {
            self.write(&mut inner, |_| {}).await?;
        }
        Ok(())
    }

    /// Polls until the record is lost (never returns otherwise): run beside a wave.
    pub async fn keep_alive(&self) -> RecordError {
        loop {
            tokio::time::sleep(rec::POLL_EVERY).await;
            match self.poll().await {
                Ok(()) => {}
                Err(lost @ RecordError::Lost { .. }) => return lost,
                // A failed read or write is tried again at the next poll; the heartbeat's
                // duration leaves room for two misses.
                Err(_) => {}
            }
        }
    }

    /// Resolves once an abort was read (polling meanwhile): raced against a wait that an
    /// abort ends (a health gate's soak).
    pub async fn aborted(&self) {
        loop {
            if self.abort_requested().is_some() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }

    /// Holds after a wave (state holding, emitted) until a promote or an abort is read, or
    /// `rollout_record::MAX_HOLD` passed. `Ok(true)`: promoted, the rollout goes on.
    pub async fn hold(&self, report: &dyn Report) -> Result<HoldEnd, RecordError> {
        self.update(|r| r.promote = None).await?;
        self.set_state(RolloutState::Holding, None, report).await;
        let deadline = tokio::time::Instant::now() + rec::MAX_HOLD;
        loop {
            tokio::time::sleep(rec::POLL_EVERY).await;
            self.poll().await?;
            if self.abort_requested().is_some() {
                return Ok(HoldEnd::Aborted);
            }
            let promote = self.inner.lock().await.record.promote.clone();
            if let Some(promote) = promote {
                let by = format!("promoted by {}", promote.by);
                self.update(|r| r.promote = None).await?;
                self.set_state(RolloutState::Running, Some(by), report)
                    .await;
                return Ok(HoldEnd::Promoted);
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(HoldEnd::Expired);
            }
        }
    }

    /// One node's step.
    pub async fn node(&self, name: &str, state: NodeState, plan: Option<String>) {
        let _ = self
            .update(|r| {
                if let Some(node) = r.node_mut(name) {
                    node.state = state;
                    if plan.is_some() {
                        node.plan.clone_from(&plan);
                    }
                }
            })
            .await;
    }

    /// The wave it is at.
    pub async fn wave(&self, index: usize) {
        let _ = self.update(|r| r.wave = index).await;
    }

    /// The health gate's last reading of a node.
    pub async fn gate_reading(&self, line: &str) {
        let line = rec::bounded(line);
        let _ = self.update(|r| r.last_gate = Some(line.clone())).await;
    }

    /// A new state (with its reason), written and emitted as [`Note::Rollout`]. Finished
    /// states clear the holder: nothing runs it any more.
    pub async fn set_state(
        &self,
        state: RolloutState,
        reason: Option<String>,
        report: &dyn Report,
    ) {
        let reason = reason.map(|r| rec::bounded(&r));
        let written = self
            .update(|r| {
                r.state = state;
                r.reason.clone_from(&reason);
            })
            .await;
        if let Err(err) = written {
            report.note(&Note::Warning(format!(
                "the rollout's record could not be updated: {err}"
            )));
        }
        let inner = self.inner.lock().await;
        // A hold waits for a person: they are told (the ends are told by `action::execute`).
        if state == RolloutState::Holding {
            let record = &inner.record;
            crate::ops::notify::rollout_event(
                self.ops,
                crate::ports::notify::EventKind::RolloutHeld,
                &format!(
                    "rollout {} held after wave {}: sei-console rollout promote {} lets the next \
                     wave go",
                    record.id,
                    record.wave + 1,
                    record.id
                ),
                crate::ports::notify::RolloutFacts {
                    image: record.image.clone(),
                    nodes: record.nodes.iter().map(|n| n.name.clone()).collect(),
                    failed_node: None,
                },
            );
        }
        report.note(&Note::Rollout(RolloutChange {
            id: inner.record.id.clone(),
            namespace: inner.record.namespace.clone(),
            state,
            reason,
        }));
    }
}
