//! `ctrl-s` in the logs view: the lines it shows (the filter's, when one is set) written to
//! `<state dir>/logs/<namespace>_<pod>_<container>_<UTC time>.log` (mode 0600: logs may hold
//! what only the cluster's readers should see), off the loop; the path, or why not, in the
//! footer.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;
use tokio::sync::mpsc;

use super::logs::LogsView;
use super::model::{Cmd, Flash, Model, Msg};

/// Why the lines were not saved.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LogSaveError {
    #[error("logs not saved: no state directory (neither XDG_STATE_HOME nor HOME is set)")]
    NoStateDir,
    #[error("logs not saved to {}: {error}", path.display())]
    Write {
        path: PathBuf,
        error: Arc<std::io::Error>,
    },
    /// The blocking write's task did not return.
    #[error("logs not saved: {0}")]
    Task(Arc<tokio::task::JoinError>),
}

/// The file's name for the view as it is at `now`.
fn file_name(view: &LogsView, now: Timestamp) -> String {
    format!(
        "{}_{}_{}{}_{}.log",
        view.node.namespace,
        view.pod(),
        view.container,
        if view.previous { "-previous" } else { "" },
        now.strftime("%Y%m%dT%H%M%SZ")
    )
}

/// `ctrl-s`: asks for the shown lines to be written (nothing shown: says so, writes nothing).
pub fn save(model: &mut Model) -> Vec<Cmd> {
    let Some(view) = model.logs.as_ref() else {
        return Vec::new();
    };
    let lines: Vec<String> = view.shown().into_iter().cloned().collect();
    if lines.is_empty() {
        model.flash = Some(Flash {
            text: "nothing saved: no lines shown".to_owned(),
            error: true,
        });
        return Vec::new();
    }
    vec![Cmd::SaveLogs {
        file_name: file_name(view, model.now),
        lines,
    }]
}

/// The outcome of a save, in the footer.
pub fn on_saved(model: &mut Model, count: usize, result: Result<PathBuf, LogSaveError>) {
    model.flash = Some(match result {
        Ok(path) => Flash {
            text: format!(
                "saved {count} line{} to {}",
                if count == 1 { "" } else { "s" },
                path.display()
            ),
            error: false,
        },
        Err(error) => Flash {
            text: error.to_string(),
            error: true,
        },
    });
    model.dirty = true;
}

/// Writes `lines` to `file_name` under the state dir and answers with `Msg::LogsSaved`.
pub(crate) async fn write(file_name: String, lines: Vec<String>, tx: mpsc::Sender<Msg>) {
    let count = lines.len();
    let result = tokio::task::spawn_blocking(move || {
        let dir = crate::config::paths::state_dir().ok_or(LogSaveError::NoStateDir)?;
        write_file(&dir.join("logs"), &file_name, &lines)
    })
    .await
    .map_err(|error| LogSaveError::Task(Arc::new(error)))
    .and_then(|written| written);
    let _ = tx.send(Msg::LogsSaved { count, result }).await;
}

/// Writes the lines to `dir/name`, the directory made when missing.
fn write_file(dir: &Path, name: &str, lines: &[String]) -> Result<PathBuf, LogSaveError> {
    let path = dir.join(name);
    let failed = |error| LogSaveError::Write {
        path: path.clone(),
        error: Arc::new(error),
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(&path).map_err(failed)?;
    let mut out = std::io::BufWriter::new(file);
    for line in lines {
        writeln!(out, "{line}").map_err(failed)?;
    }
    out.flush().map_err(failed)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_are_written_to_a_new_file_and_a_refusal_names_the_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let logs = dir.path().join("logs");
        let lines = vec!["one".to_owned(), "two".to_owned()];
        let path = write_file(&logs, "a.log", &lines).expect("written");
        assert_eq!(path, logs.join("a.log"));
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "one\ntwo\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // A file where the directory should be: one line naming the path.
        let error = write_file(&path, "b.log", &lines).expect_err("refused");
        let text = error.to_string();
        assert!(text.starts_with("logs not saved to "), "{text}");
        assert!(
            text.contains("a.log/b.log") && !text.contains('\n'),
            "{text}"
        );
    }
}
