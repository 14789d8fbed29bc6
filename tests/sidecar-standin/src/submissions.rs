//! Stand-in bookkeeping (test hook, no upstream counterpart): every `POST /v0/tasks` per task
//! ID in `<home>/.standin-submissions.json`, so a test can tell which executor submitted a task
//! and whether its handler ran more than once.
use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The ledger file in a node's home.
pub const SUBMISSIONS_FILE: &str = ".standin-submissions.json";

/// What the stand-in saw for one task ID.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Submissions {
    #[serde(rename = "type")]
    pub task_type: String,
    /// Accepted POSTs, duplicates of a running or completed task included.
    pub posts: u32,
    /// POSTs that started the handler (a new row, or a failed row re-run).
    pub runs: u32,
    /// Accepted POSTs per submitter (`X-Remote-User`, else `User-Agent`).
    pub posts_by: BTreeMap<String, u32>,
    /// Handler starts per submitter.
    pub runs_by: BTreeMap<String, u32>,
}

/// The ledger of a home (empty when absent or unreadable).
pub fn read(home: &Path) -> BTreeMap<String, Submissions> {
    std::fs::read(home.join(SUBMISSIONS_FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Records one accepted POST. The caller serialises calls per home (the engine's lock).
pub fn record(
    home: &Path,
    id: &str,
    task_type: &str,
    submitter: &str,
    started: bool,
) -> std::io::Result<()> {
    let mut ledger = read(home);
    let entry = ledger.entry(id.to_owned()).or_default();
    task_type.clone_into(&mut entry.task_type);
    entry.posts += 1;
    *entry.posts_by.entry(submitter.to_owned()).or_default() += 1;
    if started {
        entry.runs += 1;
        *entry.runs_by.entry(submitter.to_owned()).or_default() += 1;
    }
    let text = serde_json::to_vec_pretty(&ledger).map_err(std::io::Error::other)?;
    let path = home.join(SUBMISSIONS_FILE);
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, &path)
}
