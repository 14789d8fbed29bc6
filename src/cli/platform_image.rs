//! The platform's default sidecar image (`images.sidecar`), which drift compares
//! `status.currentSidecarImage` with when a node's spec names no sidecar image: from the file
//! named by `SEI_CONSOLE_PLATFORM_CONFIG`, else from the controller's ConfigMap
//! (`sei-controller-config` in `SEI_CONSOLE_CONTROLLER_NAMESPACE`, default
//! `sei-k8s-controller-system`), the way the action commands resolve it.
use std::path::Path;
use std::time::Duration;

use super::CliError;
use crate::kube::platform_config::{DEFAULT_CONTROLLER_NAMESPACE, load_platform_config};
use crate::platform::PlatformConfig;

/// Environment variable naming the controller's platform config file for the read views.
pub const PLATFORM_CONFIG_ENV: &str = "SEI_CONSOLE_PLATFORM_CONFIG";
/// Environment variable naming the controller's namespace (its ConfigMap lives there).
pub const CONTROLLER_NAMESPACE_ENV: &str = "SEI_CONSOLE_CONTROLLER_NAMESPACE";
/// Upper bound on reading the ConfigMap, so an unreachable API server never delays start-up long.
pub const CONFIG_MAP_TIMEOUT: Duration = Duration::from_secs(5);

/// Reads `images.sidecar` from the file named by `SEI_CONSOLE_PLATFORM_CONFIG`, if set.
pub fn default_sidecar_image() -> Result<Option<String>, CliError> {
    let Some(path) = std::env::var_os(PLATFORM_CONFIG_ENV).filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let config = PlatformConfig::read_file(Path::new(&path))
        .map_err(|e| CliError::BadInput(format!("{PLATFORM_CONFIG_ENV}: {e}")))?;
    Ok(Some(config.images.sidecar).filter(|image| !image.is_empty()))
}

/// The controller's namespace from `SEI_CONSOLE_CONTROLLER_NAMESPACE`, else the default.
pub fn controller_namespace() -> String {
    std::env::var(CONTROLLER_NAMESPACE_ENV)
        .ok()
        .map(|ns| ns.trim().to_owned())
        .filter(|ns| !ns.is_empty())
        .unwrap_or_else(|| DEFAULT_CONTROLLER_NAMESPACE.to_owned())
}

/// `images.sidecar` from `SEI_CONSOLE_PLATFORM_CONFIG` when set, else from the controller's
/// ConfigMap. A ConfigMap that cannot be read (absent, forbidden, undecodable, slow) only means
/// sidecar drift is judged for nodes whose spec names a sidecar image; the reason is logged.
pub async fn resolve_default_sidecar_image(
    client: &kube::Client,
) -> Result<Option<String>, CliError> {
    if std::env::var_os(PLATFORM_CONFIG_ENV).is_some_and(|p| !p.is_empty()) {
        return default_sidecar_image();
    }
    let namespace = controller_namespace();
    match tokio::time::timeout(
        CONFIG_MAP_TIMEOUT,
        load_platform_config(client, &namespace, None),
    )
    .await
    {
        Ok(Ok(config)) => Ok(Some(config.images.sidecar).filter(|image| !image.is_empty())),
        Ok(Err(err)) => {
            tracing::warn!(%err, "platform config for sidecar drift");
            Ok(None)
        }
        Err(_) => {
            tracing::warn!(namespace, "platform config ConfigMap: no answer in time");
            Ok(None)
        }
    }
}

/// The platform config in use, for judging render failures (`describe`): the file named by
/// `SEI_CONSOLE_PLATFORM_CONFIG` when set, else the controller's ConfigMap (without content
/// when it cannot be read: the fix is then said unchecked).
pub async fn platform_in_use(
    client: &kube::Client,
) -> Result<crate::render::fix::PlatformInUse, CliError> {
    use crate::render::fix::{PlatformInUse, PlatformSource};
    let read_at = Some(jiff::Timestamp::now());
    if let Some(path) = std::env::var_os(PLATFORM_CONFIG_ENV).filter(|p| !p.is_empty()) {
        let config = PlatformConfig::read_file(Path::new(&path))
            .map_err(|e| CliError::BadInput(format!("{PLATFORM_CONFIG_ENV}: {e}")))?;
        return Ok(PlatformInUse {
            source: PlatformSource::File(Path::new(&path).display().to_string()),
            config: Some(config),
            read_at,
        });
    }
    let namespace = controller_namespace();
    let config = match tokio::time::timeout(
        CONFIG_MAP_TIMEOUT,
        load_platform_config(client, &namespace, None),
    )
    .await
    {
        Ok(Ok(config)) => Some(config),
        Ok(Err(err)) => {
            tracing::warn!(%err, "platform config for the render check");
            None
        }
        Err(_) => None,
    };
    Ok(PlatformInUse {
        source: PlatformSource::ConfigMap { namespace },
        read_at: config.as_ref().and(read_at),
        config,
    })
}
