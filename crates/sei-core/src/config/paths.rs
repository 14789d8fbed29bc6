//! XDG base directories (config and state), resolved from explicit values so tests need no
//! process-wide environment changes.
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Directory name under the XDG base directories.
pub const APP_DIR: &str = "sei-console";

/// `$XDG_CONFIG_HOME/sei-console`, else `~/.config/sei-console`.
pub fn config_dir() -> Option<PathBuf> {
    base_dir(
        std::env::var_os("XDG_CONFIG_HOME"),
        std::env::var_os("HOME"),
        &[".config"],
    )
}

/// `$XDG_STATE_HOME/sei-console`, else `~/.local/state/sei-console`.
pub fn state_dir() -> Option<PathBuf> {
    base_dir(
        std::env::var_os("XDG_STATE_HOME"),
        std::env::var_os("HOME"),
        &[".local", "state"],
    )
}

/// The XDG rule: the variable when set to an absolute path (relative ones are ignored, as the
/// spec says), else the fallback under the home directory.
pub fn base_dir(
    xdg_value: Option<OsString>,
    home: Option<OsString>,
    fallback: &[&str],
) -> Option<PathBuf> {
    let base = xdg_value
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            home.filter(|v| !v.is_empty()).map(|home| {
                fallback
                    .iter()
                    .fold(Path::new(&home).to_path_buf(), |p, part| p.join(part))
            })
        })?;
    Some(base.join(APP_DIR))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xdg_variable_wins_when_absolute() {
        let dir = base_dir(Some("/x/cfg".into()), Some("/home/a".into()), &[".config"]);
        assert_eq!(dir, Some(PathBuf::from("/x/cfg/sei-console")));
    }

    #[test]
    fn relative_or_empty_xdg_variable_falls_back_to_home() {
        for value in ["relative/dir", ""] {
            let dir = base_dir(
                Some(value.into()),
                Some("/home/a".into()),
                &[".local", "state"],
            );
            assert_eq!(dir, Some(PathBuf::from("/home/a/.local/state/sei-console")));
        }
    }

    #[test]
    fn no_home_and_no_variable_gives_none() {
        assert_eq!(base_dir(None, None, &[".config"]), None);
    }
}
