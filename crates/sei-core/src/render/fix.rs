//! Render failures against the present: the fix for a StatefulSet render failure (the
//! renderer's missing-key errors ([`RenderError`]) name the platform-config key that is missing,
//! so the operator is told where to set it), and what a `StatefulSetRenderFailed` event means
//! now ([`judge_render_event`]): the platform config in use still cannot render the node (the
//! fix), renders it (the event is from before, and since when), or was not read (the fix the
//! message names, unchecked). The node screen, `describe` and the doctor share it.
use jiff::Timestamp;

use super::RenderError;
use crate::api::SeiNode;
use crate::platform::PlatformConfig;

/// Where the platform config in use came from, as shown in a fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlatformSource {
    /// The controller's ConfigMap `sei-controller-config` in this namespace.
    ConfigMap { namespace: String },
    /// A file given with `--platform-config`.
    File(String),
}

impl std::fmt::Display for PlatformSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ConfigMap { namespace } => write!(
                f,
                "ConfigMap {namespace}/{} (key {})",
                crate::platform::CONFIG_MAP_NAME,
                crate::platform::CONFIG_MAP_KEY
            ),
            Self::File(path) => write!(f, "the platform config file {path}"),
        }
    }
}

/// The platform-config key whose absence `error` reports, if that is what it reports.
fn missing_platform_key(error: &RenderError) -> Option<&'static str> {
    match error {
        RenderError::KubeRbacProxyImageMissing => Some("images.kubeRBACProxy"),
        RenderError::SeedNodepoolMissing => Some("scheduling.nodepoolSeed"),
        RenderError::CosmosExporterImageMissing => Some("images.cosmosExporter"),
        RenderError::ProbeGuard(_)
        | RenderError::KeyringContainment(_)
        | RenderError::Bootstrap(_)
        | RenderError::InvalidQuantity { .. } => None,
    }
}

/// `set KEY in SOURCE` when rendering failed for a missing platform-config key; `None` for any
/// other render failure.
pub fn render_failure_fix(error: &RenderError, source: &PlatformSource) -> Option<String> {
    missing_platform_key(error).map(|key| format!("set {key} in {source}"))
}

/// The fix for a `StatefulSetRenderFailed` Event read from the cluster (written by the
/// controller or the console): its message ends with the renderer's error text, compared with
/// each missing-key error's own text.
pub fn event_render_fix(message: &str, source: &PlatformSource) -> Option<String> {
    let message = message.trim_end();
    [
        RenderError::KubeRbacProxyImageMissing,
        RenderError::SeedNodepoolMissing,
        RenderError::CosmosExporterImageMissing,
    ]
    .iter()
    .find(|error| message.ends_with(&error.to_string()))
    .and_then(|error| render_failure_fix(error, source))
}

/// The platform config in use: where it comes from, and its content and when it was read (the
/// ConfigMap may not be readable).
#[derive(Debug, Clone, PartialEq)]
pub struct PlatformInUse {
    pub source: PlatformSource,
    pub config: Option<PlatformConfig>,
    /// When `config` was read (a file at start, the ConfigMap each time it was listed or changed).
    pub read_at: Option<Timestamp>,
}

/// What a node's `StatefulSetRenderFailed` event means now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderEventNow {
    /// The platform config in use still cannot render the node: the renderer's error and the fix
    /// (`None`: no canned fix; the error says what).
    StillFails { error: String, fix: Option<String> },
    /// The platform config in use renders the node: the event is from before.
    FromBefore {
        source: PlatformSource,
        read_at: Option<Timestamp>,
    },
    /// No platform config was read: the fix the message names, not checked against the present.
    Unchecked { fix: Option<String> },
}

/// What the latest render-failure event (`message`) of `node` means with the platform config in
/// use.
pub fn judge_render_event(
    node: &SeiNode,
    message: &str,
    platform: Option<&PlatformInUse>,
) -> RenderEventNow {
    let Some(platform) = platform else {
        return RenderEventNow::Unchecked { fix: None };
    };
    let Some(config) = &platform.config else {
        return RenderEventNow::Unchecked {
            fix: event_render_fix(message, &platform.source),
        };
    };
    match super::statefulset(node, config) {
        Err(error) => RenderEventNow::StillFails {
            fix: render_failure_fix(&error, &platform.source),
            error: error.to_string(),
        },
        Ok(_) => RenderEventNow::FromBefore {
            source: platform.source.clone(),
            read_at: platform.read_at,
        },
    }
}

impl RenderEventNow {
    /// The verdict's name in JSON.
    pub fn verdict(&self) -> &'static str {
        match self {
            RenderEventNow::StillFails { .. } => "still-fails",
            RenderEventNow::FromBefore { .. } => "from-before",
            RenderEventNow::Unchecked { .. } => "unchecked",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_map() -> PlatformSource {
        PlatformSource::ConfigMap {
            namespace: "sei-k8s-controller-system".into(),
        }
    }

    #[test]
    fn missing_seed_pool_names_the_key_and_the_config_map() {
        assert_eq!(
            render_failure_fix(&RenderError::SeedNodepoolMissing, &config_map()).as_deref(),
            Some(
                "set scheduling.nodepoolSeed in ConfigMap sei-k8s-controller-system/sei-controller-config (key config.yaml)"
            )
        );
    }

    #[test]
    fn required_image_in_a_file_names_the_file() {
        let source = PlatformSource::File("/etc/platform.yaml".into());
        assert_eq!(
            render_failure_fix(&RenderError::CosmosExporterImageMissing, &source).as_deref(),
            Some("set images.cosmosExporter in the platform config file /etc/platform.yaml")
        );
    }

    #[test]
    fn each_named_key_is_the_one_the_controller_message_names() {
        for error in [
            RenderError::KubeRbacProxyImageMissing,
            RenderError::SeedNodepoolMissing,
            RenderError::CosmosExporterImageMissing,
        ] {
            let key = missing_platform_key(&error).expect("a missing key");
            let message = error.to_string();
            assert!(
                message.starts_with(&format!("{key} is "))
                    && message.ends_with(" in the app-config file"),
                "{message}"
            );
        }
    }

    #[test]
    fn other_render_failures_have_no_canned_fix() {
        let guard = RenderError::ProbeGuard("probe ports collide".into());
        assert_eq!(render_failure_fix(&guard, &config_map()), None);
        // A guard quoting a missing-key message is still not a missing key.
        let quoting = RenderError::Bootstrap(
            "scheduling.nodepoolSeed is not configured in the app-config file".into(),
        );
        assert_eq!(render_failure_fix(&quoting, &config_map()), None);
    }

    #[test]
    fn an_event_message_gets_the_fix_of_the_error_it_ends_with() {
        let message = format!(
            "Cannot render the StatefulSet: syncing statefulset: generating statefulset: {}",
            RenderError::SeedNodepoolMissing
        );
        assert_eq!(
            event_render_fix(&message, &config_map()),
            render_failure_fix(&RenderError::SeedNodepoolMissing, &config_map())
        );
        assert_eq!(
            event_render_fix("Cannot render: something else", &config_map()),
            None
        );
    }
}
