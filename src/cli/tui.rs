//! No subcommand: open the interactive console.
use super::{CliError, GlobalArgs, logging};
use crate::app::run::{ActionSetup, RunOptions, run};
use crate::app::settings::FlagOverrides;
use crate::ui::theme::Theme;

/// The platform's default sidecar image: `SEI_CONSOLE_PLATFORM_CONFIG`, else the controller's
/// ConfigMap read once before the terminal opens (bounded; a failure only leaves it unknown,
/// and the console reports connection problems itself).
async fn default_sidecar_image(global: &GlobalArgs) -> Result<Option<String>, CliError> {
    use super::platform_image::{PLATFORM_CONFIG_ENV, resolve_default_sidecar_image};
    if std::env::var_os(PLATFORM_CONFIG_ENV).is_some_and(|p| !p.is_empty()) {
        return super::platform_image::default_sidecar_image();
    }
    match crate::kube::client::connect(global.kubeconfig.as_deref(), global.one_context()).await {
        Ok(conn) => resolve_default_sidecar_image(&conn.client).await,
        Err(err) => {
            tracing::warn!(%err, "platform config for sidecar drift");
            Ok(None)
        }
    }
}

pub async fn open(global: &GlobalArgs) -> Result<(), CliError> {
    let guard =
        logging::init(global.log_file.as_deref()).map_err(|e| CliError::BadInput(e.to_string()))?;
    if let Some(guard) = &guard {
        tracing::info!(log = %guard.path.display(), "logging");
    }
    // Same lookup as the commands: `--config FILE` (must be readable), else the XDG path.
    let config = crate::config::load(
        global.config.as_deref(),
        &crate::app::console_actions::config_names(),
    )
    .map_err(|e| CliError::BadInput(e.to_string()))?;
    for problem in &config.problems {
        tracing::warn!(%problem, "config file");
    }
    // `--context` wins over the config file's `contexts`.
    let contexts = if global.context.is_empty() {
        config.config.contexts.clone()
    } else {
        global.context.clone()
    };
    // The operator of the first context (the primary cluster's actions).
    let identity = crate::kube::identity::operator(
        global.kubeconfig.as_deref(),
        contexts.first().map(String::as_str),
    );
    let controller_namespace = std::env::var("SEI_CONSOLE_CONTROLLER_NAMESPACE")
        .ok()
        .filter(|ns| !ns.is_empty())
        .unwrap_or_else(|| crate::kube::platform_config::DEFAULT_CONTROLLER_NAMESPACE.to_owned());
    let platform_file = std::env::var_os(super::platform_image::PLATFORM_CONFIG_ENV)
        .filter(|p| !p.is_empty())
        .map(std::path::PathBuf::from);
    let doctor_reader = std::sync::Arc::new(super::doctor_fetch::ConsoleDoctorReader::new(
        global.kubeconfig.clone(),
        controller_namespace.clone(),
        platform_file.clone(),
        config.config.doctor.clone(),
    ));
    let options = RunOptions {
        kubeconfig: global.kubeconfig.clone(),
        contexts,
        namespace: global.namespace.clone(),
        all_namespaces: global.all_namespaces,
        config,
        flags: FlagOverrides {
            theme: global.theme,
            read_only: global.read_only,
        },
        no_color: Theme::no_color_from_env(),
        draw: crate::ui::draw,
        default_sidecar_image: default_sidecar_image(global).await?,
        actions: ActionSetup {
            controller_namespace,
            platform_file,
            operator: identity.to_string(),
            context: identity.context.clone(),
            journal: crate::journal::Journal::default_location().ok(),
            prober: std::sync::Arc::new(crate::p2p::prober::P2pProber::new(
                crate::p2p::tcp::TcpDialer,
            )),
        },
        doctor_reader: Some(doctor_reader),
    };
    run(options)
        .await
        .map_err(|e| CliError::Failed(e.to_string()))
}
