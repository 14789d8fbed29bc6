//! Writing one setting back into the user's config file with `toml_edit`: only that value
//! changes; comments, blank lines and the order of settings stay. A missing file starts from the
//! commented defaults; a broken file is never overwritten.
use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table, Value};

use super::ThemeName;
use super::{DEFAULT_CONFIG_TOML, line_of};

/// Why a setting could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum ConfigWriteError {
    #[error("cannot read config file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("not saving {setting}: config file {} has an error on line {line} ({message}); fix it first", path.display())]
    Broken {
        path: PathBuf,
        setting: String,
        line: usize,
        message: String,
    },
    #[error("not saving {setting}: in config file {}, {conflict} is not a table", path.display())]
    NotATable {
        path: PathBuf,
        setting: String,
        conflict: String,
    },
    #[error("cannot write config file {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Saves the theme (`theme = "..."`).
pub fn save_theme(path: &Path, theme: ThemeName) -> Result<(), ConfigWriteError> {
    save_value(path, &[], "theme", Value::from(theme.name()))
}

/// Saves the filter `context` opens with (`[fleet.filters] "context" = "..."`), when
/// `fleet.remember_filter` is on.
pub fn save_filter(path: &Path, context: &str, filter: &str) -> Result<(), ConfigWriteError> {
    save_value(path, &["fleet", "filters"], context, Value::from(filter))
}

/// Sets `tables.../key = value` in the file at `path`, keeping the old value's surrounding
/// whitespace and trailing comment.
pub fn save_value(
    path: &Path,
    tables: &[&str],
    key: &str,
    value: Value,
) -> Result<(), ConfigWriteError> {
    let setting = tables
        .iter()
        .copied()
        .chain([key])
        .collect::<Vec<_>>()
        .join(".");
    let text = match super::read_text(path) {
        Ok(Ok(text)) => text,
        Ok(Err(refused)) => {
            return Err(ConfigWriteError::Broken {
                path: path.to_path_buf(),
                setting,
                line: 1,
                message: format!("refused before reading: {refused}"),
            });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => DEFAULT_CONFIG_TOML.to_owned(),
        Err(source) => {
            return Err(ConfigWriteError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if let Err(refused) = crate::limits::check_brackets(&text, crate::limits::CONFIG_FILE) {
        let line = match refused {
            crate::limits::LimitError::TooDeep { line, .. } => line,
            crate::limits::LimitError::TooLarge { .. } => 1,
        };
        return Err(ConfigWriteError::Broken {
            path: path.to_path_buf(),
            setting,
            line,
            message: format!("refused before parsing: {refused}"),
        });
    }
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|err: toml_edit::TomlError| ConfigWriteError::Broken {
                path: path.to_path_buf(),
                setting: setting.clone(),
                line: err.span().map_or(1, |span| line_of(&text, span.start)),
                message: err
                    .message()
                    .lines()
                    .next()
                    .unwrap_or("invalid TOML")
                    .to_owned(),
            })?;
    let table =
        table_at(doc.as_table_mut(), tables).ok_or_else(|| ConfigWriteError::NotATable {
            path: path.to_path_buf(),
            setting: setting.clone(),
            conflict: tables.join("."),
        })?;
    set_keeping_decor(table, key, value);
    write_atomically(path, &doc.to_string())
}

/// The table at `names` under `root`, created (as `[a.b]`) where missing.
fn table_at<'a>(root: &'a mut Table, names: &[&str]) -> Option<&'a mut Table> {
    let mut table = root;
    for name in names {
        let item = table.entry(name).or_insert_with(|| {
            let mut new = Table::new();
            new.set_implicit(false);
            Item::Table(new)
        });
        table = item.as_table_mut()?;
    }
    Some(table)
}

fn set_keeping_decor(table: &mut Table, key: &str, mut value: Value) {
    match table.get_mut(key).and_then(Item::as_value_mut) {
        Some(old) => {
            *value.decor_mut() = old.decor().clone();
            *old = value;
        }
        None => {
            table.insert(key, Item::Value(value));
        }
    }
}

/// Write to a sibling temporary file and rename, so a crash never leaves half a config.
fn write_atomically(path: &Path, contents: &str) -> Result<(), ConfigWriteError> {
    let failed = |source| ConfigWriteError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".tmp-{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, contents).map_err(failed)?;
    std::fs::rename(&temporary, path).map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        failed(e)
    })
}
