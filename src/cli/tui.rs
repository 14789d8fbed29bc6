//! No subcommand: open the interactive console.
use std::sync::Arc;

use super::{CliError, GlobalArgs, logging};
use crate::app::port::Connected;
use crate::app::run::{RunOptions, run};
use crate::app::settings::{FlagOverrides, Settings};
use crate::backend::{ActionSetup, KubeBackend, connect};
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
    let flags = FlagOverrides {
        theme: global.theme,
        read_only: global.read_only,
    };
    let controller_namespace = std::env::var("SEI_CONSOLE_CONTROLLER_NAMESPACE")
        .ok()
        .filter(|ns| !ns.is_empty())
        .unwrap_or_else(|| crate::kube::platform_config::DEFAULT_CONTROLLER_NAMESPACE.to_owned());
    let platform_file = std::env::var_os(super::platform_image::PLATFORM_CONFIG_ENV)
        .filter(|p| !p.is_empty())
        .map(std::path::PathBuf::from);
    let default_sidecar_image = default_sidecar_image(global).await?;
    // The first context connects before the terminal opens (a bad kubeconfig is one line);
    // read-only (flag or config, as the console's settings decide it): no request that
    // changes anything can leave.
    let settings = Settings::from_config(&config, flags);
    let guard = settings.guard;
    let conn = connect(
        global.kubeconfig.as_deref(),
        contexts.first().map(String::as_str),
        guard,
    )
    .await
    .map_err(|e| CliError::Failed(e.to_string()))?;
    let dispatcher = super::action::notifier_for(&config, &identity.to_string());
    let setup = ActionSetup {
        notifier: match &dispatcher {
            Some(dispatcher) => dispatcher.clone(),
            None => Arc::new(crate::ports::notify::NoNotifier),
        },
        controller_namespace: controller_namespace.clone(),
        platform_file: platform_file.clone(),
        operator: identity.to_string(),
        context: identity.context.clone(),
        journal: crate::journal::Journal::default_location().ok(),
        prober: Arc::new(crate::p2p::prober::P2pProber::new(
            crate::p2p::tcp::TcpDialer,
        )),
    };
    let mut env = setup.env(conn.kube_config.clone());
    env.read_only = guard.hint();
    env.require_journal = settings.require_journal;
    let connected = Connected {
        context: conn.context.clone(),
        default_namespace: conn.default_namespace.clone(),
        context_names: crate::kube::client::context_names(global.kubeconfig.as_deref()),
        port: Arc::new({
            let backend = KubeBackend::new(conn, global.kubeconfig.clone())
                .with_guard(guard)
                .with_actions(env);
            // Without a platform file the default sidecar image is the ConfigMap's: follow it.
            if platform_file.is_some() {
                backend
            } else {
                backend.with_platform_config_map(controller_namespace.clone())
            }
        }),
    };
    let doctor_reader = Arc::new(super::doctor_fetch::ConsoleDoctorReader::new(
        global.kubeconfig.clone(),
        controller_namespace.clone(),
        platform_file.clone(),
        config.config.doctor.clone(),
    ));
    let options = RunOptions {
        contexts,
        namespace: global.namespace.clone(),
        all_namespaces: global.all_namespaces,
        config,
        flags,
        no_color: Theme::no_color_from_env(),
        draw: crate::ui::draw,
        default_sidecar_image,
        controller_namespace,
        platform_file,
        doctor_reader: Some(doctor_reader),
        notify: dispatcher.map(|dispatcher| crate::app::run::Notifications {
            status: dispatcher.watch(),
            notifier: dispatcher,
        }),
    };
    run(options, connected)
        .await
        .map_err(|e| CliError::Failed(e.to_string()))
}
