//! The platform's default sidecar image (`images.sidecar`), which drift compares
//! `status.currentSidecarImage` with when a node's spec names no sidecar image.
use std::path::Path;

use super::CliError;
use crate::platform::PlatformConfig;

/// Environment variable naming the controller's platform config file for the read views.
pub const PLATFORM_CONFIG_ENV: &str = "SEI_CONSOLE_PLATFORM_CONFIG";

/// Reads `images.sidecar` from the file named by `SEI_CONSOLE_PLATFORM_CONFIG`, if set.
/// Without it, sidecar drift is judged only for nodes whose spec names a sidecar image.
pub fn default_sidecar_image() -> Result<Option<String>, CliError> {
    let Some(path) = std::env::var_os(PLATFORM_CONFIG_ENV).filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let config = PlatformConfig::read_file(Path::new(&path))
        .map_err(|e| CliError::BadInput(format!("{PLATFORM_CONFIG_ENV}: {e}")))?;
    Ok(Some(config.images.sidecar).filter(|image| !image.is_empty()))
}
