//! `sei-console render`: print the StatefulSet, Service and PVC the controller would apply for a
//! SeiNode manifest now, as a Kubernetes `List`.
//!
//! The platform config comes from `--platform-config FILE`, else the controller's ConfigMap
//! `sei-controller-config` (`--controller-namespace`); a render error exits 2 with the controller's
//! message.
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::{Value, json};

use super::{CliError, GlobalArgs};
use crate::api::{KIND, SeiNode};
use crate::kube::platform_config::{DEFAULT_CONTROLLER_NAMESPACE, load_platform_config};
use crate::platform::{PlatformConfig, go_quote};
use crate::render::applied_workload;

/// Output format of `render`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RenderOutput {
    Yaml,
    Json,
}

/// Arguments of `sei-console render`.
#[derive(Debug, Args)]
pub struct RenderArgs {
    /// SeiNode manifest (YAML or JSON); `-` reads standard input.
    #[arg(short = 'f', long, value_name = "NODE.yaml")]
    pub file: PathBuf,
    /// The controller's app-config file (`config.yaml`). Without it the config is read from the
    /// controller's ConfigMap `sei-controller-config` through the kubeconfig.
    #[arg(long, value_name = "FILE", env = "SEI_CONSOLE_PLATFORM_CONFIG")]
    pub platform_config: Option<PathBuf>,
    /// Namespace of the controller (where its ConfigMap `sei-controller-config` lives).
    #[arg(
        long,
        value_name = "NS",
        env = "SEI_CONSOLE_CONTROLLER_NAMESPACE",
        default_value = DEFAULT_CONTROLLER_NAMESPACE
    )]
    pub controller_namespace: String,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = RenderOutput::Yaml)]
    pub output: RenderOutput,
}

/// Runs the command: exit 2 on a bad manifest, a bad config file or a render error.
pub async fn run(global: &GlobalArgs, args: &RenderArgs) -> Result<(), CliError> {
    let mut node = read_node(&args.file)?;
    if node.metadata.namespace.as_deref().unwrap_or("").is_empty() {
        node.metadata.namespace =
            Some(global.namespace.clone().unwrap_or_else(|| "default".into()));
    }
    let platform = match &args.platform_config {
        Some(path) => read_platform_file(path)?,
        None => platform_from_cluster(global, &args.controller_namespace).await?,
    };
    let list = render_list(&node, &platform)?;
    let text = match args.output {
        RenderOutput::Json => serde_json::to_string_pretty(&list)
            .map(|s| s + "\n")
            .map_err(|e| e.to_string()),
        RenderOutput::Yaml => serde_yaml_ng::to_string(&list).map_err(|e| e.to_string()),
    }
    .map_err(|e| CliError::Failed(format!("writing output: {e}")))?;
    print!("{text}");
    Ok(())
}

/// The `List` of the objects the controller would apply now: StatefulSet, Service, and the PVC
/// unless the node imports one. A render error is bad input (exit 2) with the upstream message.
pub fn render_list(node: &SeiNode, platform: &PlatformConfig) -> Result<Value, CliError> {
    node.spec
        .mode()
        .map_err(|e| CliError::BadInput(e.to_string()))?;
    let applied =
        applied_workload(node, platform).map_err(|e| CliError::BadInput(e.to_string()))?;
    let mut items = vec![to_value(&applied.statefulset)?, to_value(&applied.service)?];
    if let Some(pvc) = &applied.data_pvc {
        items.push(to_value(pvc)?);
    }
    Ok(json!({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}))
}

fn to_value<T: serde::Serialize>(object: &T) -> Result<Value, CliError> {
    serde_json::to_value(object).map_err(|e| CliError::Failed(format!("encoding object: {e}")))
}

fn read_node(path: &Path) -> Result<SeiNode, CliError> {
    let shown = if path == Path::new("-") {
        "standard input".to_owned()
    } else {
        path.display().to_string()
    };
    let text = super::manifest::read_manifest_text(path, &shown)?;
    let value: Value = serde_yaml_ng::from_str(&text)
        .map_err(|e| CliError::BadInput(format!("{shown} is not a SeiNode manifest: {e}")))?;
    let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
    if !kind.is_empty() && kind != KIND {
        return Err(CliError::BadInput(format!(
            "{shown} holds a {kind}, not a SeiNode"
        )));
    }
    let value = super::manifest::as_the_api_server_decodes(value)?;
    super::manifest::refuse_invalid(&value, &shown)?;
    let node: SeiNode = serde_json::from_value(value)
        .map_err(|e| CliError::BadInput(format!("{shown} is not a SeiNode manifest: {e}")))?;
    if node.name().is_empty() {
        return Err(CliError::BadInput(format!(
            "{shown}: metadata.name is required"
        )));
    }
    Ok(node)
}

pub(crate) fn read_platform_file(path: &Path) -> Result<PlatformConfig, CliError> {
    // Upstream treats a missing file as an empty config; on the command line that is a typo.
    if !path.exists() {
        let shown = path.display().to_string();
        return Err(CliError::BadInput(format!(
            "platform config file {} does not exist",
            go_quote(&shown)
        )));
    }
    PlatformConfig::read_file(path).map_err(|e| CliError::BadInput(e.to_string()))
}

async fn platform_from_cluster(
    global: &GlobalArgs,
    namespace: &str,
) -> Result<PlatformConfig, CliError> {
    let config = kube_config(global).await?;
    let server = config.cluster_url.to_string();
    let client = connect(config)?;
    load_platform_config(&client, namespace, Some(&server))
        .await
        .map_err(|e| CliError::Failed(e.to_string()))
}

fn connect(config: ::kube::Config) -> Result<::kube::Client, CliError> {
    crate::kube::client::api_client(config, false).map_err(|e| {
        CliError::Failed(format!(
            "cannot create Kubernetes client: {}",
            crate::kube::errors::describe(&e)
        ))
    })
}

/// The client config from `--kubeconfig`/`--context` (or the default kubeconfig).
pub(crate) async fn kube_config(global: &GlobalArgs) -> Result<::kube::Config, CliError> {
    use ::kube::config::{Config, KubeConfigOptions, Kubeconfig};
    let options = KubeConfigOptions {
        context: global.one_context().map(str::to_owned),
        ..Default::default()
    };
    match &global.kubeconfig {
        Some(path) => {
            let file = Kubeconfig::read_from(path)
                .map_err(|e| CliError::Failed(format!("cannot read kubeconfig: {e}")))?;
            Config::from_custom_kubeconfig(file, &options).await
        }
        None => Config::from_kubeconfig(&options).await,
    }
    .map(crate::kube::client::with_user_agent)
    .map_err(|e| CliError::Failed(format!("cannot load kubeconfig: {e}")))
}
