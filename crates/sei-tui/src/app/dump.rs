//! `:dump [FILE]`: the screen in front as plain text in a file, for an incident channel — the
//! fleet's table (every row of the filter, not only those on screen, under the table's header),
//! the node screen as `describe` shows it, the viewer's or the logs' lines, the doctor's findings
//! with their fixes. Without FILE it goes under the state directory
//! (`$XDG_STATE_HOME/sei-console/dumps/<screen>-<UTC time>.txt`). The file is written off the
//! loop (`effects`), never over an existing one, and the status line names its path.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;
use tokio::sync::mpsc;

use super::model::{Cmd, Flash, Model, Msg, Screen};
use super::viewer::ViewerKind;

/// Why a dump was not written.
#[derive(Debug, Clone, thiserror::Error)]
pub enum DumpError {
    #[error("no state directory (neither XDG_STATE_HOME nor HOME is set): name a file, :dump FILE")]
    NoStateDir,
    #[error("{0} exists: name another file")]
    Exists(String),
    #[error("cannot write {path}: {error}")]
    Write {
        path: String,
        error: Arc<std::io::Error>,
    },
    #[error("the write did not finish: {0}")]
    Task(Arc<tokio::task::JoinError>),
}

/// The screen in front: a one-word name (the default file's) and its text.
pub fn screen_text(model: &Model) -> (&'static str, String) {
    if model.doctor.open {
        let mut text = String::new();
        for finding in &model.doctor.findings {
            let object = &finding.object;
            text.push_str(&format!(
                "{} {} {} {}/{}: {}\n  fix: {}\n",
                finding.severity.as_str(),
                finding.class.as_str(),
                object.kind,
                object.namespace,
                object.name,
                finding.summary,
                finding.fix.summary
            ));
            if let Some(command) = &finding.fix.command {
                text.push_str(&format!("  run: {command}\n"));
            }
        }
        if model.doctor.findings.is_empty() {
            text.push_str("no findings\n");
        }
        return ("doctor", text);
    }
    if let Some(view) = &model.logs {
        return ("logs", joined(view.lines.iter()));
    }
    if let Some(viewer) = &model.viewer {
        let name = match viewer.kind {
            ViewerKind::Describe(_) => "describe",
            ViewerKind::Yaml(_) => "yaml",
            ViewerKind::Events => "events",
            ViewerKind::Journal(_) => "journal",
            ViewerKind::Rollouts => "rollouts",
        };
        let lines = super::viewer::lines(model, &viewer.kind);
        return (name, joined(lines.iter()));
    }
    match &model.screen {
        Screen::Node(key) => {
            let lines = super::viewer::lines(model, &ViewerKind::Describe(key.clone()));
            ("node", joined(lines.iter()))
        }
        Screen::Fleet => {
            let rows = model
                .listing
                .keys
                .iter()
                .filter_map(|key| model.fleet.row(key));
            ("fleet", super::copy::table_text(model, rows))
        }
    }
}

fn joined<'a>(lines: impl Iterator<Item = &'a String>) -> String {
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// `<state dir>/dumps/<screen>-<UTC time>.txt`.
pub fn default_path(state_dir: &Path, screen: &str, now: Timestamp) -> PathBuf {
    let at = now.strftime("%Y%m%dT%H%M%SZ");
    state_dir.join("dumps").join(format!("{screen}-{at}.txt"))
}

/// `:dump [FILE]`: the screen's text, to be written by the effects.
pub fn dump(model: &mut Model, file: Option<&str>) -> Vec<Cmd> {
    let (screen, text) = screen_text(model);
    let path = match file {
        Some(file) => PathBuf::from(file),
        None => match crate::config::paths::state_dir() {
            Some(dir) => default_path(&dir, screen, model.now),
            None => {
                model.flash = Some(Flash {
                    text: DumpError::NoStateDir.to_string(),
                    error: true,
                });
                return Vec::new();
            }
        },
    };
    model.flash = Some(Flash {
        text: format!("writing the {screen} to {} …", path.display()),
        error: false,
    });
    vec![Cmd::Dump {
        path,
        what: screen.to_owned(),
        text,
    }]
}

/// Writes a dump off the loop (never over an existing file) and answers `Msg::Dumped`.
pub async fn write(path: PathBuf, what: String, text: String, tx: mpsc::Sender<Msg>) {
    let lines = text.lines().count();
    let target = path.clone();
    let result = tokio::task::spawn_blocking(move || write_new(&target, &text))
        .await
        .map_err(|e| DumpError::Task(Arc::new(e)))
        .and_then(|written| written);
    let _ = tx
        .send(Msg::Dumped {
            path,
            what,
            lines,
            result,
        })
        .await;
}

fn write_new(path: &Path, text: &str) -> Result<(), DumpError> {
    let failed = |error: std::io::Error| DumpError::Write {
        path: path.display().to_string(),
        error: Arc::new(error),
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(failed)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::AlreadyExists => DumpError::Exists(path.display().to_string()),
            _ => failed(error),
        })?;
    file.write_all(text.as_bytes()).map_err(failed)?;
    file.sync_all().map_err(failed)
}

/// The dump was written (or why not): said on the status line with its path.
pub fn on_dumped(
    model: &mut Model,
    path: &Path,
    what: &str,
    lines: usize,
    result: Result<(), DumpError>,
) {
    model.flash = Some(match result {
        Ok(()) => Flash {
            text: format!("dumped the {what} ({lines} lines) to {}", path.display()),
            error: false,
        },
        Err(error) => Flash {
            text: format!("dump not written: {error}"),
            error: true,
        },
    });
    model.dirty = true;
}
