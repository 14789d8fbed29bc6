//! A chain's reference RPC (`[chains."CHAIN-ID"] reference_rpc` in the config file): `GET
//! <url>/status` straight to that URL over HTTP or HTTPS (not through a pod: it is outside the
//! fleet), read with the same hyper client the sidecar's direct transport uses, within a deadline
//! and with the answer capped like the nodes' (`ports::node_rpc::MAX_ANSWER_BYTES`). The answer
//! is read by `chain::Status::parse`, which takes the bare result and the JSON-RPC envelope.
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use jiff::Timestamp;

use crate::chain::{ReferenceRead, ReferenceUrl, RpcAnswer, RpcFailure, Status};
use crate::ports::node_rpc::MAX_ANSWER_BYTES;

/// No https client could be made: every read says so.
#[derive(Debug, Clone, thiserror::Error)]
#[error("no TLS root certificates to trust: {0}")]
struct NoRootCertificates(std::sync::Arc<std::io::Error>);

/// Reads references; cheap to clone, one per process is enough.
#[derive(Clone)]
pub struct ReferenceReader {
    /// Or why none could be made: every read says so.
    http: Result<HyperClient<HttpsConnector<HttpConnector>, Empty<Bytes>>, NoRootCertificates>,
}

impl std::fmt::Debug for ReferenceReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReferenceReader")
    }
}

impl Default for ReferenceReader {
    fn default() -> ReferenceReader {
        ReferenceReader::new()
    }
}

impl ReferenceReader {
    /// A reader trusting the system's root certificates for https references.
    pub fn new() -> ReferenceReader {
        let http =
            http_or_https_client().map_err(|err| NoRootCertificates(std::sync::Arc::new(err)));
        ReferenceReader { http }
    }

    /// `GET <url>/status` within `timeout`: the reference's height, stamped when the read ended.
    pub async fn read(&self, url: &ReferenceUrl, timeout: Duration) -> ReferenceRead {
        let outcome = match tokio::time::timeout(timeout, self.status(url)).await {
            Ok(outcome) => outcome,
            Err(_) => Err(RpcFailure::Timeout(timeout.as_secs().max(1))),
        };
        ReferenceRead {
            at: Timestamp::now(),
            outcome: outcome.map(|status| status.latest_block_height),
        }
    }

    async fn status(&self, url: &ReferenceUrl) -> Result<Status, RpcFailure> {
        let uri: http::Uri = url
            .status_url()
            .parse()
            .map_err(|err| RpcFailure::BadAnswer(format!("{url} is not a URI: {err}")))?;
        let request = http::Request::get(uri)
            .header(http::header::ACCEPT, "application/json")
            .body(Empty::new())
            .map_err(|err| RpcFailure::BadAnswer(format!("GET {url}/status: {err}")))?;
        let http = self
            .http
            .as_ref()
            .map_err(|why| RpcFailure::Unreachable(why.to_string()))?;
        let response = http
            .request(request)
            .await
            .map_err(|err| connect_failure(url, &err))?;
        let (parts, body) = response.into_parts();
        let body = Limited::new(body, MAX_ANSWER_BYTES)
            .collect()
            .await
            .map_err(|err| {
                if err.is::<http_body_util::LengthLimitError>() {
                    RpcFailure::TooLarge(MAX_ANSWER_BYTES)
                } else {
                    RpcFailure::Unreachable(format!("{url}: answer cut short: {err}"))
                }
            })?;
        Status::parse(&RpcAnswer {
            status: parts.status.as_u16(),
            body: body.to_bytes().to_vec(),
        })
    }
}

/// A client of URLs outside the fleet (a chain's reference RPC, the webhooks of `[notify]`):
/// `http://` or `https://` trusting the system's root certificates, HTTP/1, connecting within
/// 5 s; the caller bounds the whole request. `Err` when there are no root certificates.
pub(crate) fn http_or_https_client<B>()
-> std::io::Result<HyperClient<HttpsConnector<HttpConnector>, B>>
where
    B: hyper::body::Body + Send + 'static,
    B::Data: Send,
{
    let mut http = HttpConnector::new();
    http.set_connect_timeout(Some(Duration::from_secs(5)));
    http.set_nodelay(true);
    http.enforce_http(false);
    HttpsConnectorBuilder::new()
        .with_native_roots()
        .map(|builder| {
            let https = builder.https_or_http().enable_http1().wrap_connector(http);
            HyperClient::builder(TokioExecutor::new()).build(https)
        })
}

/// A request that got no answer: refused when nothing listens, else unreachable with the cause.
fn connect_failure(url: &ReferenceUrl, err: &hyper_util::client::legacy::Error) -> RpcFailure {
    use std::error::Error as _;
    let mut cause = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        cause = inner.to_string();
        source = inner.source();
    }
    let detail = format!("{url}: {cause}");
    if cause.to_ascii_lowercase().contains("refused") {
        RpcFailure::Refused(detail)
    } else {
        RpcFailure::Unreachable(detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// One HTTP answer on a loopback port, then closed.
    async fn serve_once(answer: &'static str) -> std::net::SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            if let Ok((mut stream, _)) = listener.accept().await {
                let mut request = [0u8; 1024];
                let _ = stream.read(&mut request).await;
                let _ = stream.write_all(answer.as_bytes()).await;
                let _ = stream.shutdown().await;
            }
        });
        addr
    }

    fn url(addr: std::net::SocketAddr) -> ReferenceUrl {
        ReferenceUrl::parse(&format!("http://{addr}")).expect("url")
    }

    #[tokio::test]
    async fn a_reference_answering_the_json_rpc_envelope_gives_its_height() {
        let body = r#"{"jsonrpc":"2.0","id":-1,"result":{"node_info":{"id":"aa"},"sync_info":{"latest_block_height":"4242","catching_up":false}}}"#;
        let answer: &'static str = Box::leak(
            format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_boxed_str(),
        );
        let addr = serve_once(answer).await;
        let reader = ReferenceReader::new();
        let read = reader.read(&url(addr), Duration::from_secs(5)).await;
        assert_eq!(read.outcome, Ok(4242));
    }

    #[tokio::test]
    async fn a_closed_port_is_refused_and_a_silent_one_times_out() {
        let closed = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port");
        let reader = ReferenceReader::new();
        let read = reader.read(&url(closed), Duration::from_secs(5)).await;
        assert!(
            matches!(&read.outcome, Err(RpcFailure::Refused(why)) if why.contains(&closed.to_string())),
            "{:?}",
            read.outcome
        );
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let started = std::time::Instant::now();
        let read = reader
            .read(
                &url(silent.local_addr().expect("addr")),
                Duration::from_secs(1),
            )
            .await;
        assert_eq!(read.outcome, Err(RpcFailure::Timeout(1)));
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}
