//! The controller's platform config read from its ConfigMap (`sei-controller-config`, key
//! `config.yaml`), decoded exactly like the controller decodes the mounted file.
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client};
use tokio::sync::mpsc;

use crate::fleet::watches::WatchEvent;
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

/// Reads and decodes `config.yaml` of the `sei-controller-config` ConfigMap in `namespace`;
/// `server` (the API server's URL) is named when it cannot be reached.
pub async fn load_platform_config(
    client: &Client,
    namespace: &str,
    server: Option<&str>,
) -> Result<PlatformConfig, PlatformSourceError> {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
    let config_map = api
        .get_opt(CONFIG_MAP_NAME)
        .await
        .map_err(|e| PlatformSourceError::Api {
            namespace: namespace.to_owned(),
            reason: super::errors::describe_at(&e, server),
        })?
        .ok_or_else(|| PlatformSourceError::NotFound {
            namespace: namespace.to_owned(),
        })?;
    decode_config_map(&config_map, namespace)
}

/// Follows the controller's ConfigMap in `namespace` and sends its `images.sidecar` (`None`
/// when empty) as [`WatchEvent::DefaultSidecarImage`], then the whole config as
/// [`WatchEvent::PlatformConfig`], of scope `epoch` each time the ConfigMap is
/// listed or changed, until the receiver is gone. A ConfigMap that cannot be decoded, is
/// deleted or cannot be watched (forbidden, lost connection) sends nothing: the last known image
/// stands, the reason is logged, and the watcher retries with backoff. No STALE banner: the
/// fleet itself is not stale, only one drift mark may be.
pub async fn watch_default_sidecar_image<M: From<WatchEvent> + Send>(
    client: Client,
    namespace: String,
    epoch: u64,
    tx: mpsc::Sender<M>,
) {
    let api: Api<ConfigMap> = Api::namespaced(client, &namespace);
    let config = watcher::Config::default().fields(&format!("metadata.name={CONFIG_MAP_NAME}"));
    let mut stream = std::pin::pin!(watcher(api, config).default_backoff());
    while let Some(event) = stream.next().await {
        let config_map = match event {
            Ok(watcher::Event::Apply(config_map) | watcher::Event::InitApply(config_map)) => {
                config_map
            }
            Ok(_) => continue,
            Err(err) => {
                tracing::warn!(%err, namespace, "watching the platform ConfigMap");
                continue;
            }
        };
        match decode_config_map(&config_map, &namespace) {
            Ok(config) => {
                let image = Some(config.images.sidecar.clone()).filter(|image| !image.is_empty());
                let events = [
                    WatchEvent::DefaultSidecarImage { epoch, image },
                    WatchEvent::PlatformConfig {
                        epoch,
                        config: Box::new(config),
                    },
                ];
                for event in events {
                    if tx.send(M::from(event)).await.is_err() {
                        return;
                    }
                }
            }
            Err(err) => tracing::warn!(%err, "platform config for sidecar drift"),
        }
    }
}

/// Decodes `config.yaml` of a fetched `sei-controller-config` ConfigMap.
fn decode_config_map(
    config_map: &ConfigMap,
    namespace: &str,
) -> Result<PlatformConfig, PlatformSourceError> {
    let ns = || namespace.to_string();
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

/// The platform config an action works with, resolved once: from `file` when given (a missing
/// or bad file is the operator's mistake), else the controller's ConfigMap. With `required`
/// unset, an unreadable ConfigMap gives an empty config and the note saying so (previews still
/// work; rendering tasks then fail with the controller's own messages).
pub async fn resolve_platform(
    client: &Client,
    server: Option<&str>,
    file: Option<&std::path::Path>,
    controller_namespace: &str,
    required: bool,
) -> Result<ResolvedPlatform, ResolvePlatformError> {
    use crate::actions::render_fix::PlatformSource;
    if let Some(path) = file {
        if !path.exists() {
            return Err(ResolvePlatformError::File(format!(
                "platform config file {} does not exist",
                crate::platform::go_quote(&path.display().to_string())
            )));
        }
        let platform = PlatformConfig::read_file(path)
            .map_err(|e| ResolvePlatformError::File(e.to_string()))?;
        return Ok(ResolvedPlatform {
            platform,
            source: PlatformSource::File(path.display().to_string()),
            note: None,
        });
    }
    let source = PlatformSource::ConfigMap {
        namespace: controller_namespace.to_owned(),
    };
    match load_platform_config(client, controller_namespace, server).await {
        Ok(platform) => Ok(ResolvedPlatform {
            platform,
            source,
            note: None,
        }),
        Err(err) if required => Err(ResolvePlatformError::ConfigMap(err)),
        Err(err) => Ok(ResolvedPlatform {
            platform: PlatformConfig::default(),
            source,
            note: Some(format!("no platform config ({err}); using an empty one")),
        }),
    }
}

/// A resolved platform config and where it came from.
#[derive(Debug, Clone)]
pub struct ResolvedPlatform {
    pub platform: PlatformConfig,
    pub source: crate::actions::render_fix::PlatformSource,
    /// Set when an empty config stands in for an unreadable ConfigMap.
    pub note: Option<String>,
}

/// Why no platform config could be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolvePlatformError {
    /// The `--platform-config` file is missing or invalid.
    #[error("{0}")]
    File(String),
    #[error("{0}")]
    ConfigMap(PlatformSourceError),
}
