//! The task engine: the submission state machine (spec/sidecar.md 4.2), one task per spawned
//! future with no queue (4.3), the in-memory readiness flag (5) and a file-backed store with the
//! restart rehydration rules (4.4). The real sidecar keeps its rows in SQLite; the stand-in keeps
//! them in `<home>/sidecar-standin-tasks.json`, rewritten atomically on every change.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::watch;

use crate::{submissions, tasks};

/// File holding the task rows across restarts.
pub const STORE_FILE: &str = "sidecar-standin-tasks.json";
/// `GET /v0/tasks` returns at most this many rows.
const LIST_LIMIT: usize = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Running,
    Completed,
    Failed,
}

/// One stored task; serialises exactly as the wire `TaskResult`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRow {
    pub id: String,
    #[serde(rename = "type")]
    pub task_type: String,
    pub status: Status,
    pub run: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// RFC 3339 with up to 9 fractional digits, trailing zeros trimmed (Go's RFC3339Nano); the
    /// list is ordered on this text, as the sidecar orders on its stored text.
    pub submitted_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
}

/// What a handler reports when it returns.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub error: Option<String>,
    pub result: Option<Value>,
}

impl Outcome {
    pub fn ok() -> Self {
        Self::default()
    }

    pub fn ok_with(result: Value) -> Self {
        Self {
            error: None,
            result: Some(result),
        }
    }

    pub fn failed(error: impl Into<String>) -> Self {
        Self {
            error: Some(error.into()),
            result: None,
        }
    }
}

/// Fixed settings of one stand-in process.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub home: PathBuf,
    /// What `SEI_CHAIN_ID` would be for the real sidecar.
    pub chain_id: String,
    /// Task types whose handler stays running until the task is deleted (test hook for the
    /// `running` state and for cancelling with DELETE; empty in normal use).
    pub hold_types: Vec<String>,
}

struct Execution {
    generation: u64,
    cancel: watch::Sender<bool>,
}

#[derive(Default)]
struct State {
    rows: HashMap<String, TaskRow>,
    executions: HashMap<String, Execution>,
    next_generation: u64,
}

pub struct Engine {
    pub config: EngineConfig,
    state: Mutex<State>,
    ready: AtomicBool,
    pub authn_rejections: [AtomicU64; 3],
}

/// The error of a failed store write, reported as `persist task: <err>`.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(String);

pub fn now_text() -> String {
    jiff::Timestamp::now().to_string()
}

impl Engine {
    /// Open the store under `home`, rehydrate stale rows (spec 4.4) and return the engine.
    pub fn open(config: EngineConfig) -> Result<Arc<Self>, StoreError> {
        for dir in ["config", "data"] {
            std::fs::create_dir_all(config.home.join(dir))
                .map_err(|err| StoreError(format!("creating {dir}: {err}")))?;
        }
        tasks::seed_default_config(&config.home)
            .map_err(|err| StoreError(format!("writing default config.toml: {err}")))?;
        let rows = load_rows(&config.home.join(STORE_FILE))?;
        let engine = Arc::new(Self {
            config,
            state: Mutex::new(State {
                rows: rows.into_iter().map(|row| (row.id.clone(), row)).collect(),
                ..State::default()
            }),
            ready: AtomicBool::new(false),
            authn_rejections: Default::default(),
        });
        engine.rehydrate()?;
        Ok(engine)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a handler panicked while holding it; the rows are still
        // consistent because every mutation is a single insert or remove.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn home(&self) -> &Path {
        &self.config.home
    }

    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::SeqCst)
    }

    pub fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::SeqCst);
    }

    /// Submit by ID (already validated by the HTTP layer): create, no-op, or re-run a failed
    /// task with this request's type and params (spec 4.2). Returns the ID as given. Every
    /// accepted submission is entered in the home's ledger under `submitter` (test bookkeeping).
    pub fn submit(
        self: &Arc<Self>,
        id: String,
        task_type: String,
        params: Option<Value>,
        submitter: &str,
    ) -> Result<String, StoreError> {
        let params = params.filter(|p| p.as_object().is_some_and(|o| !o.is_empty()));
        let mut state = self.lock();
        let run = match state.rows.get(&id) {
            None => 1,
            Some(row) if row.status == Status::Failed => row.run + 1,
            Some(row) => {
                let existing = row.task_type.clone();
                self.enter_in_ledger(&id, &existing, submitter, false);
                return Ok(id);
            }
        };
        let previous = state.rows.get(&id).cloned();
        let row = TaskRow {
            id: id.clone(),
            task_type,
            status: Status::Running,
            run,
            params,
            result: None,
            error: None,
            submitted_at: now_text(),
            completed_at: None,
        };
        state.rows.insert(id.clone(), row.clone());
        if let Err(err) = self.save(&state) {
            match previous {
                Some(previous) => state.rows.insert(id.clone(), previous),
                None => state.rows.remove(&id),
            };
            return Err(err);
        }
        self.enter_in_ledger(&id, &row.task_type, submitter, true);
        self.start(&mut state, row);
        Ok(id)
    }

    fn enter_in_ledger(&self, id: &str, task_type: &str, submitter: &str, started: bool) {
        if let Err(err) = submissions::record(self.home(), id, task_type, submitter, started) {
            eprintln!("sidecar-standin: cannot write the submission ledger: {err}");
        }
    }

    /// Spawn the handler of `row` (which is stored as running).
    fn start(self: &Arc<Self>, state: &mut State, row: TaskRow) {
        let generation = state.next_generation;
        state.next_generation += 1;
        let (cancel, cancelled) = watch::channel(false);
        state
            .executions
            .insert(row.id.clone(), Execution { generation, cancel });
        let engine = Arc::clone(self);
        tokio::spawn(async move {
            let outcome = tasks::run(&engine, &row.task_type, row.params.as_ref(), cancelled).await;
            engine.finish(row, generation, outcome);
        });
    }

    /// Record a handler's return. A deleted task's error is dropped, but a success is written
    /// anyway (cancellation only suppresses error results, spec 2.9).
    fn finish(&self, started: TaskRow, generation: u64, outcome: Outcome) {
        let mut state = self.lock();
        let current = state
            .executions
            .get(&started.id)
            .is_some_and(|e| e.generation == generation);
        if current {
            state.executions.remove(&started.id);
        }
        let completed_at = Some(now_text());
        let status = if outcome.error.is_some() {
            Status::Failed
        } else {
            Status::Completed
        };
        match state.rows.get_mut(&started.id) {
            Some(row) if current => {
                row.status = status;
                row.error = outcome.error;
                row.result = outcome.result;
                row.completed_at = completed_at;
            }
            None if status == Status::Completed => {
                let row = TaskRow {
                    status,
                    result: outcome.result,
                    completed_at,
                    ..started
                };
                state.rows.insert(row.id.clone(), row);
            }
            _ => return,
        }
        if let Err(err) = self.save(&state) {
            eprintln!("sidecar-standin: cannot save task store: {err}");
        }
    }

    pub fn get(&self, id: &str) -> Option<TaskRow> {
        self.lock().rows.get(id).cloned()
    }

    /// Up to 100 rows, newest `submittedAt` text first.
    pub fn list(&self) -> Vec<TaskRow> {
        let state = self.lock();
        let mut rows: Vec<TaskRow> = state.rows.values().cloned().collect();
        rows.sort_by(|a, b| b.submitted_at.cmp(&a.submitted_at));
        rows.truncate(LIST_LIMIT);
        rows
    }

    /// Remove a row, cancelling its handler when running. `Ok(false)` when there is no row.
    pub fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let Some(row) = state.rows.remove(id) else {
            return Ok(false);
        };
        if let Some(execution) = state.executions.remove(id) {
            // The work is cancelled even if the store write below fails (spec 2.9).
            let _ = execution.cancel.send(true);
        }
        if let Err(err) = self.save(&state) {
            state.rows.insert(row.id.clone(), row);
            return Err(err);
        }
        Ok(true)
    }

    /// Delete every `mark-ready` row (what `mark-not-ready` does before clearing readiness).
    pub fn purge_mark_ready(&self) -> Result<(), StoreError> {
        let mut state = self.lock();
        state.rows.retain(|_, row| row.task_type != "mark-ready");
        self.save(&state)
    }

    fn save(&self, state: &State) -> Result<(), StoreError> {
        let mut rows: Vec<&TaskRow> = state.rows.values().collect();
        rows.sort_by(|a, b| a.submitted_at.cmp(&b.submitted_at).then(a.id.cmp(&b.id)));
        let text = serde_json::to_vec_pretty(&rows).map_err(|err| StoreError(err.to_string()))?;
        let path = self.config.home.join(STORE_FILE);
        let temporary = path.with_extension("json.tmp");
        std::fs::write(&temporary, text)
            .and_then(|()| std::fs::rename(&temporary, &path))
            .map_err(|err| StoreError(format!("writing {}: {err}", path.display())))
    }

    /// Restart rules for rows left `running` by a previous process (spec 4.4): stale
    /// `mark-not-ready` first and synchronously, then a stale `mark-ready` is superseded by any
    /// hold submitted at the same time or later, unknown types fail, the rest re-run.
    fn rehydrate(self: &Arc<Self>) -> Result<(), StoreError> {
        let mut state = self.lock();
        let stale_ids = |state: &State, hold: bool| -> Vec<String> {
            let mut ids: Vec<(String, String)> = state
                .rows
                .values()
                .filter(|row| row.status == Status::Running)
                .filter(|row| (row.task_type == "mark-not-ready") == hold)
                .map(|row| (row.submitted_at.clone(), row.id.clone()))
                .collect();
            ids.sort();
            ids.into_iter().map(|(_, id)| id).collect()
        };
        for id in stale_ids(&state, true) {
            let outcome = tasks::mark_not_ready_locked(self, &mut state.rows);
            close_row(&mut state.rows, &id, outcome);
        }
        let latest_hold = state
            .rows
            .values()
            .filter(|row| row.task_type == "mark-not-ready")
            .map(|row| row.submitted_at.clone())
            .max();
        let mut to_start = Vec::new();
        for id in stale_ids(&state, false) {
            let Some(row) = state.rows.get(&id).cloned() else {
                continue;
            };
            if !tasks::is_registered(&row.task_type) {
                let outcome = Outcome::failed("no handler registered for task type");
                close_row(&mut state.rows, &id, outcome);
            } else if row.task_type == "mark-ready"
                && latest_hold
                    .as_ref()
                    .is_some_and(|hold| hold >= &row.submitted_at)
            {
                close_row(&mut state.rows, &id, Outcome::failed("superseded by hold"));
            } else {
                to_start.push(row);
            }
        }
        self.save(&state)?;
        for row in to_start {
            self.start(&mut state, row);
        }
        Ok(())
    }
}

fn close_row(rows: &mut HashMap<String, TaskRow>, id: &str, outcome: Outcome) {
    if let Some(row) = rows.get_mut(id) {
        row.status = if outcome.error.is_some() {
            Status::Failed
        } else {
            Status::Completed
        };
        row.error = outcome.error;
        row.result = outcome.result;
        row.completed_at = Some(now_text());
    }
}

fn load_rows(path: &Path) -> Result<Vec<TaskRow>, StoreError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|err| StoreError(format!("reading {}: {err}", path.display()))),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(err) => Err(StoreError(format!("reading {}: {err}", path.display()))),
    }
}
