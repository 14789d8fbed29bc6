//! The fix for a StatefulSet render failure: the renderer's "… in the app-config file" errors
//! name the platform-config key that is missing, so the operator is told where to set it.

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

const MISSING_SUFFIXES: [&str; 2] = [
    " is not configured in the app-config file",
    " is required in the app-config file",
];

/// `set KEY in SOURCE` when `message` (possibly wrapped: `a: b: KEY is … app-config file`) says a
/// platform-config key is missing; `None` for any other render failure.
pub fn render_failure_fix(message: &str, source: &PlatformSource) -> Option<String> {
    let head = MISSING_SUFFIXES
        .iter()
        .find_map(|suffix| message.trim_end().strip_suffix(suffix))?;
    let key = head.rsplit([' ', ':']).next().filter(|k| !k.is_empty())?;
    Some(format!("set {key} in {source}"))
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
        let message = "Cannot render the StatefulSet: syncing statefulset: generating statefulset: scheduling.nodepoolSeed is not configured in the app-config file";
        assert_eq!(
            render_failure_fix(message, &config_map()).as_deref(),
            Some(
                "set scheduling.nodepoolSeed in ConfigMap sei-k8s-controller-system/sei-controller-config (key config.yaml)"
            )
        );
    }

    #[test]
    fn required_image_in_a_file_names_the_file() {
        let source = PlatformSource::File("/etc/platform.yaml".into());
        assert_eq!(
            render_failure_fix(
                "images.cosmosExporter is required in the app-config file",
                &source
            )
            .as_deref(),
            Some("set images.cosmosExporter in the platform config file /etc/platform.yaml")
        );
    }

    #[test]
    fn other_render_failures_have_no_canned_fix() {
        assert_eq!(
            render_failure_fix("probe ports collide", &config_map()),
            None
        );
    }
}
