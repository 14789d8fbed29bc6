//! Logs go through `tracing` to a file, never to the terminal the console draws on.
//!
//! Where: `--log-file FILE`, else `$XDG_STATE_HOME/sei-console/sei-console.log`, else
//! `~/.local/state/sei-console/sei-console.log`. Level: `SEI_CONSOLE_LOG` (an `EnvFilter`
//! directive such as `debug` or `sei_console=trace,kube=info`), default `info`.
use std::fs::{self, OpenOptions};
use std::path::{Path, PathBuf};

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// Environment variable holding the log filter.
pub const LOG_ENV: &str = "SEI_CONSOLE_LOG";

/// Keeps the background log writer alive; dropping it flushes the file.
pub struct LogGuard {
    _worker: WorkerGuard,
    pub path: PathBuf,
}

/// The default log path from the XDG base-directory rules, if a home can be found.
pub fn default_log_path() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|home| Path::new(&home).join(".local").join("state"))
        })?;
    Some(state.join("sei-console").join("sei-console.log"))
}

/// Why the log file could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum LogInitError {
    #[error("cannot create log directory {}: {source}", dir.display())]
    CreateDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open log file {}: {source}", path.display())]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Installs the global subscriber writing to `path` (or the default path). Returns `Ok(None)`
/// when no path can be determined, so the console still runs, just without a log.
pub fn init(path: Option<&Path>) -> Result<Option<LogGuard>, LogInitError> {
    let Some(path) = path.map(Path::to_path_buf).or_else(default_log_path) else {
        return Ok(None);
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|source| LogInitError::CreateDir {
            dir: dir.to_path_buf(),
            source,
        })?;
    }
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|source| LogInitError::Open {
            path: path.clone(),
            source,
        })?;
    let filter = EnvFilter::try_from_env(LOG_ENV).unwrap_or_else(|_| EnvFilter::new("info"));
    let (writer, worker) = tracing_appender::non_blocking(file);
    let installed = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init();
    if installed.is_err() {
        // A subscriber is already set (tests); keep using it.
        return Ok(None);
    }
    Ok(Some(LogGuard {
        _worker: worker,
        path,
    }))
}
