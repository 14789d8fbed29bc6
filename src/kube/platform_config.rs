//! The controller's platform config read from its ConfigMap (`sei-controller-config`, key
//! `config.yaml`), decoded exactly like the controller decodes the mounted file.
use k8s_openapi::api::core::v1::ConfigMap;
use kube::{Api, Client};

use crate::platform::{CONFIG_MAP_KEY, CONFIG_MAP_NAME, PlatformConfig, PlatformError};

/// Namespace the controller runs in when none is given.
pub const DEFAULT_CONTROLLER_NAMESPACE: &str = "sei-k8s-controller-system";

/// Why the ConfigMap could not give a platform config; one line for the user.
#[derive(Debug, thiserror::Error)]
pub enum PlatformSourceError {
    #[error(
        "ConfigMap {namespace}/{CONFIG_MAP_NAME} not found (pass --platform-config FILE or the controller's namespace)"
    )]
    NotFound { namespace: String },
    #[error("ConfigMap {namespace}/{CONFIG_MAP_NAME} has no key {CONFIG_MAP_KEY}")]
    MissingKey { namespace: String },
    #[error("reading ConfigMap {namespace}/{CONFIG_MAP_NAME}: {reason}")]
    Api { namespace: String, reason: String },
    #[error(
        "parsing controller config from ConfigMap {namespace}/{CONFIG_MAP_NAME} key {CONFIG_MAP_KEY}: {source}"
    )]
    Decode {
        namespace: String,
        source: PlatformError,
    },
}

/// Reads and decodes `config.yaml` of the `sei-controller-config` ConfigMap in `namespace`.
pub async fn load_platform_config(
    client: &Client,
    namespace: &str,
) -> Result<PlatformConfig, PlatformSourceError> {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
    let ns = || namespace.to_string();
    let config_map = api
        .get_opt(CONFIG_MAP_NAME)
        .await
        .map_err(|e| PlatformSourceError::Api {
            namespace: ns(),
            reason: e.to_string(),
        })?
        .ok_or_else(|| PlatformSourceError::NotFound { namespace: ns() })?;
    let text = config_map
        .data
        .as_ref()
        .and_then(|data| data.get(CONFIG_MAP_KEY))
        .ok_or_else(|| PlatformSourceError::MissingKey { namespace: ns() })?;
    PlatformConfig::from_yaml(text).map_err(|source| PlatformSourceError::Decode {
        namespace: ns(),
        source,
    })
}
