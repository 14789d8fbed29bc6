//! Container logs of a pod, line by line (`pods/log`): the port `sei-console logs` and the
//! console's logs view (`l`) share; the adapter is `kube::logs::KubeLogs`.
use futures::stream::BoxStream;

/// What to read: one container of one pod, as `kubectl logs` asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRequest {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    /// Keep the stream open for new lines.
    pub follow: bool,
    /// The previous (terminated) container's logs, after a restart.
    pub previous: bool,
    pub since_seconds: Option<i64>,
    pub tail_lines: Option<i64>,
    /// Each line begins with the time the runtime read it (RFC 3339 with nanoseconds, as
    /// `kubectl logs --timestamps` prints it).
    pub timestamps: bool,
}

/// Why no (more) lines come.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    #[error("pod {pod} not found in namespace {namespace} (not created yet, or deleted)")]
    PodMissing { namespace: String, pod: String },
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The API server has no logs for it (yet): the container is waiting to start, it has no
    /// previous container, or the pod has no such container. Its message says which.
    #[error("{0}")]
    Unavailable(String),
    #[error("{0}")]
    Failed(String),
    #[error("the log stream broke: {0}")]
    Broken(String),
}

/// The log's lines, without their line ends.
pub type LogLines = BoxStream<'static, Result<String, LogError>>;

pub type LogFuture<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<LogLines, LogError>> + Send + 'a>>;

/// Opens a container's log; the adapter bounds the wait for the answer's headers.
pub trait PodLogs: Send + Sync {
    fn open<'a>(&'a self, request: &'a LogRequest) -> LogFuture<'a>;
}
