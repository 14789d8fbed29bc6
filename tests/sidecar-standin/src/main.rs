//! `sidecar-standin`: serve the stand-in sidecar API for one node home until SIGTERM/SIGINT.
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use sidecar_standin::{Options, Standin, StandinRouter};

/// Stand-in for `seictl serve` (tests and the local demo only).
#[derive(Debug, Parser)]
#[command(name = "sidecar-standin", version)]
struct Args {
    /// Node home (like SEI_HOME); `config/config.toml` is created there if absent.
    #[arg(
        long,
        value_name = "DIR",
        required_unless_present = "homes_root",
        conflicts_with = "homes_root"
    )]
    home: Option<PathBuf>,
    /// Serve many nodes on one port: `/{namespace}/{node}/v0/...` uses the home
    /// `DIR/<namespace>/<node>`, created on first use.
    #[arg(long, value_name = "DIR")]
    homes_root: Option<PathBuf>,
    /// Loopback address to listen on; port 0 picks a free port.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7777")]
    listen: SocketAddr,
    /// Write the bound port to this file once listening (atomically).
    #[arg(long, value_name = "FILE")]
    port_file: Option<PathBuf>,
    /// Require one X-Remote-User header, as with SEI_SIDECAR_AUTHN_MODE=trusted-header.
    #[arg(long)]
    trusted_header: bool,
    /// The chain ID the real sidecar reads from SEI_CHAIN_ID.
    #[arg(long, env = "SEI_CHAIN_ID", default_value = "arctic-1")]
    chain_id: String,
    /// Put a kube-rbac-proxy stand-in in front of each node (router only), reviewing tokens
    /// and access through the API server of this kubeconfig.
    #[arg(long, value_name = "FILE", requires = "homes_root")]
    rbac_proxy_kubeconfig: Option<PathBuf>,
    /// Serve every SeiNode's sidecar with this real `seictl` binary (one `seictl serve` per
    /// node; router and --rbac-proxy-kubeconfig only). Nodes annotated
    /// `sei-console.test/sidecar: standin` keep the stand-in.
    #[arg(long, value_name = "BIN", requires = "rbac_proxy_kubeconfig")]
    real_seictl: Option<PathBuf>,
    /// Keep tasks of this type running until deleted (test hook; repeatable).
    #[arg(long = "hold", value_name = "TYPE")]
    hold_types: Vec<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let options = Options {
        home: args.home.clone().unwrap_or_default(),
        trusted_header: args.trusted_header,
        chain_id: args.chain_id,
        hold_types: args.hold_types,
    };
    let running = match (args.home, args.homes_root) {
        (Some(_), _) => Standin::start(args.listen, options)
            .await
            .map(Running::Single),
        (None, Some(root)) => StandinRouter::start(args.listen, root, options)
            .await
            .map(Running::Router),
        (None, None) => Err("--home or --homes-root is required".to_owned()),
    };
    let running = match running {
        Ok(running) => running,
        Err(err) => {
            eprintln!("sidecar-standin: {err}");
            return ExitCode::FAILURE;
        }
    };
    if let (Some(file), Running::Router(router)) = (&args.rbac_proxy_kubeconfig, &running) {
        match reviewer(file).await {
            Ok(client) => {
                if let Some(bin) = &args.real_seictl {
                    router.enable_real_sidecars(bin.clone(), client.clone());
                }
                router.enable_rbac_proxies(client);
            }
            Err(err) => {
                eprintln!("sidecar-standin: kubeconfig {}: {err}", file.display());
                return ExitCode::FAILURE;
            }
        }
    }
    let addr = running.addr();
    if let Some(file) = args.port_file {
        let temporary = file.with_extension("tmp");
        let written = std::fs::write(&temporary, format!("{}\n", addr.port()))
            .and_then(|()| std::fs::rename(&temporary, &file));
        if let Err(err) = written {
            eprintln!("sidecar-standin: writing {}: {err}", file.display());
            return ExitCode::FAILURE;
        }
    }
    eprintln!("sidecar-standin: listening on {addr}");
    wait_for_signal().await;
    match running {
        Running::Single(standin) => standin.stop().await,
        Running::Router(router) => router.stop().await,
    }
    ExitCode::SUCCESS
}

/// The client the proxies review tokens and access with (the real proxy uses its pod's
/// ServiceAccount, bound to system:auth-delegator), and the router reads SeiNodes with. Its
/// requests say who sent them (`sidecar-standin/VERSION`), as the API server's audit log shows.
async fn reviewer(file: &std::path::Path) -> Result<kube::Client, String> {
    let kubeconfig = kube::config::Kubeconfig::read_from(file).map_err(|e| e.to_string())?;
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .map_err(|e| e.to_string())?;
    config.headers.push((
        http::header::USER_AGENT,
        http::HeaderValue::from_static(USER_AGENT),
    ));
    kube::Client::try_from(config).map_err(|e| e.to_string())
}

/// The User-Agent of this add-on's requests to the API server.
const USER_AGENT: &str = concat!("sidecar-standin/", env!("CARGO_PKG_VERSION"));

enum Running {
    Single(Standin),
    Router(StandinRouter),
}

impl Running {
    fn addr(&self) -> std::net::SocketAddr {
        match self {
            Self::Single(standin) => standin.addr,
            Self::Router(router) => router.addr,
        }
    }
}

async fn wait_for_signal() {
    let mut terminate =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
    tokio::select! {
        _ = terminate.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
