//! A Kubernetes client from kubeconfig (`--kubeconfig`, `--context`), kubectl's rules.
use std::path::Path;

use kube::Client;
use kube::config::{Config, KubeConfigOptions, Kubeconfig};

use super::errors::REQUEST_TIMEOUT;
use super::read_only::ReadOnlyLayer;
use super::timeout::RequestTimeoutLayer;

/// The one builder of the console's kube clients: every request waits at most
/// [`REQUEST_TIMEOUT`] for its answer (`kube::timeout`); `read_only` adds the read-only guard
/// (`kube::read_only`), which refuses every mutating request before it leaves the process.
pub fn api_client(config: Config, read_only: bool) -> Result<Client, kube::Error> {
    let builder = kube::client::ClientBuilder::try_from(config)?
        .with_layer(&RequestTimeoutLayer::new(REQUEST_TIMEOUT));
    Ok(if read_only {
        builder.with_layer(&ReadOnlyLayer).build()
    } else {
        builder.build()
    })
}

/// A connected client and what it points at.
#[derive(Clone)]
pub struct Connection {
    pub client: Client,
    /// Context name as kubeconfig spells it (`in-cluster` when running in a pod).
    pub context: String,
    /// The context's namespace, else `default`.
    pub default_namespace: String,
    /// The client's configuration (the sidecar's pod-proxy transport needs it); `None` when the
    /// connection was made from a bare client.
    pub kube_config: Option<kube::Config>,
}

/// Why no client could be made; one line for the user.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot read kubeconfig: {0}")]
    Kubeconfig(String),
    #[error("cannot use context {context:?}: {reason}")]
    Context { context: String, reason: String },
    #[error("cannot create Kubernetes client: {0}")]
    Client(String),
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

/// The one kubeconfig file `connect` reads without `--kubeconfig`, and whether the operator
/// named it: `$KUBECONFIG` when it names a single file (named), else `~/.kube/config` (not
/// named); `None` for a list of files (kube merges those, skipping missing ones as kubectl does).
fn kubeconfig_in_use() -> Option<(std::path::PathBuf, bool)> {
    match std::env::var_os("KUBECONFIG").filter(|v| !v.is_empty()) {
        Some(value) => {
            let mut paths = std::env::split_paths(&value);
            let first = paths.next();
            first.filter(|_| paths.next().is_none()).map(|p| (p, true))
        }
        None => std::env::var_os("HOME")
            .map(|home| (Path::new(&home).join(".kube").join("config"), false)),
    }
}

fn read_kubeconfig(path: &Path) -> Result<Kubeconfig, ConnectError> {
    Kubeconfig::read_from(path).map_err(|e| {
        let reason = match std::fs::metadata(path) {
            Err(err) => format!("cannot open it: {err}"),
            Ok(_) => format!("not a kubeconfig: {e}"),
        };
        ConnectError::Kubeconfig(format!("{}: {reason}", path.display()))
    })
}

/// The context names of the kubeconfig `connect` would read (empty when there is none), for
/// completing and checking `:ctx`.
pub fn context_names(kubeconfig: Option<&Path>) -> Vec<String> {
    let file = match kubeconfig {
        Some(path) => Kubeconfig::read_from(path).ok(),
        None => Kubeconfig::read().ok(),
    };
    let mut names: Vec<String> = file
        .map(|f| f.contexts.into_iter().map(|c| c.name).collect())
        .unwrap_or_default();
    names.sort();
    names.dedup();
    names
}

/// Connects like kubectl: the given kubeconfig file (else `$KUBECONFIG`, else
/// `~/.kube/config`, else the in-cluster service account) and the given context (else the
/// current one).
pub async fn connect(
    kubeconfig: Option<&Path>,
    context: Option<&str>,
) -> Result<Connection, ConnectError> {
    let file = match kubeconfig {
        Some(path) => Some(read_kubeconfig(path)?),
        None => match kubeconfig_in_use() {
            // A kubeconfig that is there but unreadable, or that `$KUBECONFIG` names and is not
            // there, is an error naming it, never a silent fall back to the in-cluster service
            // account (whose error, "failed to read an incluster environment variable", misled).
            Some((path, named)) if named || path.exists() => Some(read_kubeconfig(&path)?),
            _ => Kubeconfig::read().ok(),
        },
    };
    let (config, context_name) = match file {
        Some(file) => {
            let name = context
                .map(str::to_owned)
                .or_else(|| file.current_context.clone())
                .unwrap_or_default();
            let known: Vec<String> = file.contexts.iter().map(|c| c.name.clone()).collect();
            if !known.contains(&name) {
                let reason = if name.is_empty() {
                    "no current-context set".to_owned()
                } else {
                    let near = crate::fleet::names::near(&name, known.iter().map(String::as_str));
                    format!(
                        "no such context in the kubeconfig{}",
                        crate::fleet::names::did_you_mean(&near)
                    )
                };
                return Err(ConnectError::Context {
                    context: name,
                    reason: format!("{reason}; contexts: {}", list_or_none(&known)),
                });
            }
            let options = KubeConfigOptions {
                context: context.map(str::to_owned),
                ..KubeConfigOptions::default()
            };
            let config = Config::from_custom_kubeconfig(file, &options)
                .await
                .map_err(|e| ConnectError::Context {
                    context: name.clone(),
                    reason: e.to_string(),
                })?;
            (config, name)
        }
        None if context.is_some() => {
            return Err(ConnectError::Kubeconfig(
                "no kubeconfig found ($KUBECONFIG, ~/.kube/config) to look the context up in"
                    .to_owned(),
            ));
        }
        None => (
            Config::incluster().map_err(|e| ConnectError::Kubeconfig(e.to_string()))?,
            "in-cluster".to_owned(),
        ),
    };
    let config = with_user_agent(config);
    let default_namespace = config.default_namespace.clone();
    let client = api_client(config.clone(), false)
        .map_err(|e| ConnectError::Client(super::errors::describe(&e)))?;
    Ok(Connection {
        client,
        context: context_name,
        default_namespace,
        kube_config: Some(config),
    })
}

/// `sei-console/<version>`: every request says who sent it, so the API server's audit log
/// tells the console from kubectl and the controller.
pub const USER_AGENT: &str = concat!("sei-console/", env!("CARGO_PKG_VERSION"));

/// `config` with the console's User-Agent on every request.
pub fn with_user_agent(config: Config) -> Config {
    with_agent(config, USER_AGENT)
}

/// `config` with `agent` as the one User-Agent of every request (the console's, or a test
/// stand-in's own on the console's library: `controller-standin/VERSION`).
pub fn with_agent(mut config: Config, agent: &'static str) -> Config {
    config
        .headers
        .retain(|(name, _)| name != http::header::USER_AGENT);
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static(agent),
    ));
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_carries_the_consoles_user_agent_once() {
        let mut config = Config::new("https://127.0.0.1:6443".parse().expect("url"));
        config.headers.push((
            http::header::USER_AGENT,
            http::HeaderValue::from_static("other/1"),
        ));
        let config = with_user_agent(config);
        let agents: Vec<_> = config
            .headers
            .iter()
            .filter(|(name, _)| name == http::header::USER_AGENT)
            .map(|(_, value)| value.to_str().unwrap_or_default().to_owned())
            .collect();
        assert_eq!(
            agents,
            [format!("sei-console/{}", env!("CARGO_PKG_VERSION"))]
        );
    }

    #[tokio::test]
    async fn kubeconfig_errors_name_the_file_the_reason_and_the_contexts() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("missing");
        let err = connect(Some(&missing), None).await.err().expect("missing");
        assert!(
            err.to_string()
                .contains(&format!("{}: cannot open it", missing.display())),
            "{err}"
        );
        let garbage = dir.path().join("garbage");
        std::fs::write(&garbage, "{{ not yaml").expect("write");
        let err = connect(Some(&garbage), None).await.err().expect("garbage");
        assert!(
            err.to_string().contains("garbage: not a kubeconfig"),
            "{err}"
        );
        assert!(!err.to_string().contains("incluster"), "{err}");
        let good = dir.path().join("config");
        std::fs::write(
            &good,
            "apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: a\n  context: {cluster: c, user: u}\n- name: b\n  context: {cluster: c, user: u}\n",
        )
        .expect("write");
        let err = connect(Some(&good), Some("nope"))
            .await
            .err()
            .expect("unknown context");
        assert!(err.to_string().contains("contexts: a, b"), "{err}");
        assert_eq!(context_names(Some(&good)), ["a", "b"]);
        assert!(connect(Some(&good), Some("b")).await.is_ok());
    }
}
