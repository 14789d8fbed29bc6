//! A stand-in for the seictl sidecar (`seictl serve`), for tests and the local demo only.
//!
//! It follows spec/sidecar.md to the letter where the behaviour is observable over HTTP or on
//! disk: routes and status codes, 201 on duplicate IDs, failed IDs re-run with `run` + 1, the
//! in-memory readiness flag, config-patch / config-apply / config-validate writing real files
//! under `<home>/config`, and `/v0/node-id` from `config/node_key.json`. See `tasks` for what
//! each task type does here. Never linked into the shipped `sei-console` binary.
pub mod engine;
pub mod server;
pub mod tasks;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;

pub use engine::{Engine, EngineConfig, StoreError};

/// Everything one stand-in needs.
#[derive(Debug, Clone)]
pub struct Options {
    pub home: PathBuf,
    /// `SEI_SIDECAR_AUTHN_MODE=trusted-header`: require one non-empty `X-Remote-User` header on
    /// every path but the four probe/metrics paths.
    pub trusted_header: bool,
    pub chain_id: String,
    /// Test hook: task types that stay `running` until deleted.
    pub hold_types: Vec<String>,
}

impl Options {
    pub fn new(home: impl Into<PathBuf>) -> Self {
        Self {
            home: home.into(),
            trusted_header: false,
            chain_id: "arctic-1".to_owned(),
            hold_types: Vec::new(),
        }
    }
}

/// A running stand-in; dropping it (or calling `stop`) stops accepting connections.
pub struct Standin {
    pub addr: SocketAddr,
    pub engine: Arc<Engine>,
    shutdown: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Standin {
    /// Open the home, bind `listen` (loopback only) and serve in the background.
    pub async fn start(listen: SocketAddr, options: Options) -> Result<Self, String> {
        if !listen.ip().is_loopback() {
            return Err(format!(
                "refusing to listen on {listen}: loopback addresses only"
            ));
        }
        let engine = Engine::open(EngineConfig {
            home: options.home.clone(),
            chain_id: options.chain_id.clone(),
            hold_types: options.hold_types.clone(),
        })
        .map_err(|err| format!("opening {}: {err}", options.home.display()))?;
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|err| format!("binding {listen}: {err}"))?;
        let addr = listener
            .local_addr()
            .map_err(|err| format!("local address: {err}"))?;
        let (shutdown, stopped) = watch::channel(false);
        let task = tokio::spawn(accept_loop(
            listener,
            Arc::clone(&engine),
            options.trusted_header,
            stopped,
        ));
        Ok(Self {
            addr,
            engine,
            shutdown,
            task,
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn stop(self) {
        let _ = self.shutdown.send(true);
        let _ = self.task.await;
    }
}

async fn accept_loop(
    listener: TcpListener,
    engine: Arc<Engine>,
    trusted_header: bool,
    mut stopped: watch::Receiver<bool>,
) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopped.wait_for(|stop| *stop) => return,
        };
        let Ok((stream, _)) = accepted else {
            continue;
        };
        let engine = Arc::clone(&engine);
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                server::handle(Arc::clone(&engine), trusted_header, request)
            });
            let _ = http1::Builder::new()
                .max_buf_size(64 * 1024)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
