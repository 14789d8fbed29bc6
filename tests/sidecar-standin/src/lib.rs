//! A stand-in for the seictl sidecar (`seictl serve`), for tests and the local demo only.
//!
//! It follows spec/sidecar.md to the letter where the behaviour is observable over HTTP or on
//! disk: routes and status codes, 201 on duplicate IDs, failed IDs re-run with `run` + 1, the
//! in-memory readiness flag, config-patch / config-apply / config-validate writing real files
//! under `<home>/config`, and `/v0/node-id` from `config/node_key.json`. See `tasks` for what
//! each task type does here. Never linked into the shipped `sei-console` binary.
//!
//! `engine` is the task state machine and store, `server` the routes, `tasks/` the handlers; a
//! `Router` serves many nodes on one port; task types listed in `<home>/.standin-fail-tasks` fail.
//! `real` runs one real `seictl serve` per SeiNode, chosen per node on first contact; the stand-in
//! answers only for nodes annotated `sei-console.test/sidecar: standin` (the list of what the real
//! one cannot run here, and why: `tests/sidecar-standin/README.md`).
pub mod engine;
pub mod rbac_proxy;
pub mod real;
pub mod server;
pub mod submissions;
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
            Dispatch::Single(Arc::clone(&engine)),
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

/// Where a connection's requests go: one engine, or one engine per `/{namespace}/{node}` prefix.
#[derive(Clone)]
enum Dispatch {
    Single(Arc<Engine>),
    Router(Arc<Router>),
}

async fn accept_loop(
    listener: TcpListener,
    dispatch: Dispatch,
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
        let dispatch = dispatch.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let dispatch = dispatch.clone();
                async move {
                    match dispatch {
                        Dispatch::Single(engine) => {
                            server::handle(engine, trusted_header, request).await
                        }
                        Dispatch::Router(router) => router.handle(trusted_header, request).await,
                    }
                }
            });
            let _ = http1::Builder::new()
                .max_buf_size(64 * 1024)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Many nodes behind one port: `/{namespace}/{node}/v0/...` reaches the engine whose home is
/// `<root>/<namespace>/<node>`, opened on first use. Each node keeps its own tasks, readiness
/// flag and files, exactly as separate sidecars would; only the port is shared, so the console
/// can reach every node through one URL template that never changes.
pub struct Router {
    root: PathBuf,
    template: Options,
    /// The kube-rbac-proxy stand-ins in front of the nodes, when enabled.
    proxies: std::sync::OnceLock<Arc<rbac_proxy::RbacProxies>>,
    engines: std::sync::Mutex<std::collections::HashMap<(String, String), Arc<Engine>>>,
    /// The real seictl and the API server to read SeiNodes from, when enabled.
    real: std::sync::OnceLock<(PathBuf, kube::Client)>,
    /// Per node, once decided: its real seictl, or `None` for the stand-in.
    backends: std::sync::Mutex<std::collections::HashMap<(String, String), Arc<BackendCell>>>,
}

/// Who serves one node: decided (and the real seictl started) on first contact.
type BackendCell = tokio::sync::OnceCell<Option<Arc<real::RealSidecar>>>;

/// A Kubernetes object name as it may appear in a path segment (no `/`, no `..`).
fn is_object_name(segment: &str) -> bool {
    !segment.is_empty()
        && segment.len() <= 253
        && segment
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        && !segment.starts_with('.')
}

impl Router {
    /// The engine of `namespace/node`, opened (home created, config seeded) on first use.
    pub fn engine(&self, namespace: &str, node: &str) -> Result<Arc<Engine>, String> {
        if !is_object_name(namespace) || !is_object_name(node) {
            return Err(format!("not a namespace/node pair: {namespace}/{node}"));
        }
        let mut engines = self
            .engines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let key = (namespace.to_owned(), node.to_owned());
        if let Some(engine) = engines.get(&key) {
            return Ok(Arc::clone(engine));
        }
        let home = self.root.join(namespace).join(node);
        let engine = Engine::open(EngineConfig {
            home: home.clone(),
            chain_id: self.template.chain_id.clone(),
            hold_types: self.template.hold_types.clone(),
        })
        .map_err(|err| format!("opening {}: {err}", home.display()))?;
        engines.insert(key, Arc::clone(&engine));
        Ok(engine)
    }

    /// The node's real seictl, started on first contact, or `None` when the stand-in serves it
    /// (real sidecars not enabled, the SeiNode annotated `sei-console.test/sidecar: standin`,
    /// or no such SeiNode).
    pub async fn real_sidecar(
        &self,
        namespace: &str,
        node: &str,
    ) -> Result<Option<Arc<real::RealSidecar>>, String> {
        let Some((bin, kube)) = self.real.get() else {
            return Ok(None);
        };
        if !is_object_name(namespace) || !is_object_name(node) {
            return Err(format!("not a namespace/node pair: {namespace}/{node}"));
        }
        let cell = Arc::clone(
            self.backends
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .entry((namespace.to_owned(), node.to_owned()))
                .or_default(),
        );
        if let Some(decided) = cell.get() {
            return Ok(decided.clone());
        }
        // Decided and started in a task of its own: a caller that gives up (the watcher's
        // first contact has a 2 s deadline) must not cancel a seictl that is still starting.
        let (bin, kube) = (bin.clone(), kube.clone());
        let home = self.root.join(namespace).join(node);
        let (namespace, node) = (namespace.to_owned(), node.to_owned());
        let init = tokio::spawn(async move {
            cell.get_or_try_init(|| async {
                match real::choose(&kube, &namespace, &node).await {
                    real::Choice::Real { chain_id } => {
                        let sidecar = real::RealSidecar::start(&bin, home, &node, &chain_id)
                            .await
                            .map_err(|err| format!("{namespace}/{node}: {err}"))?;
                        eprintln!(
                            "sidecar-standin: {namespace}/{node}: real seictl on {} (chain {chain_id:?})",
                            sidecar.base_url()
                        );
                        Ok::<_, String>(Some(Arc::new(sidecar)))
                    }
                    real::Choice::Standin(why) => {
                        eprintln!("sidecar-standin: {namespace}/{node}: stand-in ({why})");
                        Ok::<_, String>(None)
                    }
                }
            })
            .await
            .cloned()
        });
        let decided = init
            .await
            .map_err(|err| format!("starting the sidecar: {err}"))?;
        if let Err(err) = &decided {
            eprintln!("sidecar-standin: {err}");
        }
        decided
    }

    /// Stops every real seictl.
    pub async fn stop_real_sidecars(&self) {
        let cells: Vec<Arc<BackendCell>> = self
            .backends
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .drain()
            .map(|(_, cell)| cell)
            .collect();
        for cell in cells {
            if let Some(Some(sidecar)) = cell.get() {
                sidecar.stop().await;
            }
        }
    }

    /// Drop the engine of `namespace/node`; the next request reopens it from its home as a
    /// restarted sidecar would start (readiness false, stale running tasks re-run).
    pub fn forget(&self, namespace: &str, node: &str) {
        self.engines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&(namespace.to_owned(), node.to_owned()));
    }

    async fn handle(
        &self,
        trusted_header: bool,
        mut request: http::Request<hyper::body::Incoming>,
    ) -> Result<http::Response<server::Body>, std::convert::Infallible> {
        let path = request.uri().path().to_owned();
        let mut parts = path.splitn(4, '/').skip(1);
        let (Some(namespace), Some(node), Some(rest)) = (parts.next(), parts.next(), parts.next())
        else {
            return Ok(server::not_found());
        };
        // Stand-in only: simulate a restart of this node's sidecar (readiness lost, running
        // tasks rehydrated on the next request), as a container restart would.
        // A real seictl is restarted for real, on the same port and home.
        if rest == "standin/restart" && request.method() == http::Method::POST {
            return Ok(match self.real_sidecar(namespace, node).await {
                Ok(Some(sidecar)) => match sidecar.restart().await {
                    Ok(()) => server::no_content(),
                    Err(err) => server::plain(http::StatusCode::BAD_GATEWAY, &err),
                },
                Ok(None) => {
                    self.forget(namespace, node);
                    server::no_content()
                }
                Err(_) => server::not_found(),
            });
        }
        // Stand-in only: open (PUT, answers the port) or close (DELETE) the node's
        // kube-rbac-proxy, as its pod starts or goes away.
        if rest == "standin/rbac-proxy" {
            let (Some(proxies), true) = (
                self.proxies.get(),
                is_object_name(namespace) && is_object_name(node),
            ) else {
                return Ok(server::not_found());
            };
            return Ok(match *request.method() {
                // The proxy's upstream: the node's real seictl, else its stand-in here.
                http::Method::PUT => match self.real_sidecar(namespace, node).await {
                    Ok(real) => {
                        let upstream = real.map(|sidecar| sidecar.base_url());
                        match proxies.open(namespace, node, upstream).await {
                            Ok(addr) => {
                                server::plain(http::StatusCode::OK, &addr.port().to_string())
                            }
                            Err(err) => {
                                server::plain(http::StatusCode::INTERNAL_SERVER_ERROR, &err)
                            }
                        }
                    }
                    Err(err) => server::plain(http::StatusCode::BAD_GATEWAY, &err),
                },
                http::Method::DELETE => {
                    proxies.close(namespace, node);
                    server::no_content()
                }
                _ => server::not_found(),
            });
        }
        // Only API paths open (and so create) a node's home.
        if rest != "v0" && !rest.starts_with("v0/") {
            return Ok(server::not_found());
        }
        let real = match self.real_sidecar(namespace, node).await {
            Ok(real) => real,
            Err(err) => return Ok(server::plain(http::StatusCode::BAD_GATEWAY, &err)),
        };
        let engine = match &real {
            Some(_) => None,
            None => match self.engine(namespace, node) {
                Ok(engine) => Some(engine),
                Err(_) => return Ok(server::not_found()),
            },
        };
        let query = request
            .uri()
            .query()
            .map(|q| format!("?{q}"))
            .unwrap_or_default();
        let inner = format!("/{rest}{query}");
        match inner.parse() {
            Ok(uri) => *request.uri_mut() = uri,
            Err(_) => return Ok(server::not_found()),
        }
        match (real, engine) {
            (Some(sidecar), _) => Ok(sidecar.forward(request).await),
            (None, Some(engine)) => server::handle(engine, trusted_header, request).await,
            (None, None) => Ok(server::not_found()),
        }
    }
}

/// A running multi-node stand-in (see [`Router`]).
pub struct StandinRouter {
    pub addr: SocketAddr,
    pub router: Arc<Router>,
    shutdown: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl StandinRouter {
    /// Serve every node under `root` on `listen` (loopback only). `template` gives the options
    /// each node's engine is opened with (its `home` is ignored).
    pub async fn start(
        listen: SocketAddr,
        root: PathBuf,
        template: Options,
    ) -> Result<Self, String> {
        if !listen.ip().is_loopback() {
            return Err(format!(
                "refusing to listen on {listen}: loopback addresses only"
            ));
        }
        std::fs::create_dir_all(&root)
            .map_err(|err| format!("creating {}: {err}", root.display()))?;
        let listener = TcpListener::bind(listen)
            .await
            .map_err(|err| format!("binding {listen}: {err}"))?;
        let addr = listener
            .local_addr()
            .map_err(|err| format!("local address: {err}"))?;
        let trusted_header = template.trusted_header;
        let router = Arc::new(Router {
            root,
            template,
            proxies: Default::default(),
            engines: Default::default(),
            real: Default::default(),
            backends: Default::default(),
        });
        let (shutdown, stopped) = watch::channel(false);
        let task = tokio::spawn(accept_loop(
            listener,
            Dispatch::Router(Arc::clone(&router)),
            trusted_header,
            stopped,
        ));
        Ok(Self {
            addr,
            router,
            shutdown,
            task,
        })
    }

    /// Put a kube-rbac-proxy stand-in in front of each node (opened through
    /// `PUT /{namespace}/{node}/standin/rbac-proxy`), reviewing tokens and access with `kube`.
    pub fn enable_rbac_proxies(&self, kube: kube::Client) {
        let _ = self.router.proxies.set(rbac_proxy::RbacProxies::new(
            kube,
            format!("http://{}", self.addr),
            self.router.root.clone(),
        ));
    }

    /// Serve every SeiNode's sidecar with the real seictl `bin` (one process per node, see
    /// [`real`]), reading the SeiNodes through `kube`.
    pub fn enable_real_sidecars(&self, bin: PathBuf, kube: kube::Client) {
        let _ = self.router.real.set((bin, kube));
    }

    /// `http://127.0.0.1:<port>/{namespace}/{node}`, the console's `SEI_CONSOLE_SIDECAR_URL`.
    pub fn url_template(&self) -> String {
        format!("http://{}/{{namespace}}/{{node}}", self.addr)
    }

    pub async fn stop(self) {
        let _ = self.shutdown.send(true);
        let _ = self.task.await;
        self.router.stop_real_sidecars().await;
    }
}
