//! The webhooks of `[notify]` (`ports::notify::WebhookPost`): one `POST` of the notification's
//! JSON to the URL as configured, with the hyper client the chain's reference RPC uses
//! (`rpc::reference::http_or_https_client`: http or https, system roots, HTTP/1). The caller
//! (`ops::notify`) bounds each POST in time and retries; the answer's body is not read past its
//! status: any 2xx delivered, anything else a `PostError::Status`.
use bytes::Bytes;
use http_body_util::Full;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;

use crate::ports::notify::{PostError, PostFuture, WebhookPost};

/// No https client could be made: every POST says so.
#[derive(Debug, Clone, thiserror::Error)]
#[error("no TLS root certificates to trust: {0}")]
struct NoRootCertificates(std::sync::Arc<std::io::Error>);

/// POSTs to webhooks; one per process.
pub struct HttpWebhook {
    /// Or why none could be made: every POST says so.
    http: Result<HyperClient<HttpsConnector<HttpConnector>, Full<Bytes>>, NoRootCertificates>,
}

impl Default for HttpWebhook {
    fn default() -> HttpWebhook {
        HttpWebhook::new()
    }
}

impl HttpWebhook {
    pub fn new() -> HttpWebhook {
        HttpWebhook {
            http: crate::rpc::reference::http_or_https_client()
                .map_err(|err| NoRootCertificates(std::sync::Arc::new(err))),
        }
    }
}

impl WebhookPost for HttpWebhook {
    fn post<'a>(&'a self, url: &'a str, body: Vec<u8>) -> PostFuture<'a> {
        Box::pin(async move {
            let http = self
                .http
                .as_ref()
                .map_err(|why| PostError::Unreachable(why.to_string()))?;
            let uri: http::Uri = url
                .parse()
                .map_err(|err| PostError::Unreachable(format!("not a URI: {err}")))?;
            let request = http::Request::post(uri)
                .header(http::header::CONTENT_TYPE, "application/json")
                .header(
                    http::header::USER_AGENT,
                    concat!("sei-console/", env!("CARGO_PKG_VERSION")),
                )
                .body(Full::new(Bytes::from(body)))
                .map_err(|err| PostError::Unreachable(err.to_string()))?;
            let response = http
                .request(request)
                .await
                .map_err(|err| PostError::Unreachable(innermost(&err)))?;
            let status = response.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(PostError::Status(status.as_u16()))
            }
        })
    }
}

/// The innermost cause of a request that got no answer (`Connection refused`).
fn innermost(err: &hyper_util::client::legacy::Error) -> String {
    use std::error::Error as _;
    let mut cause = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        cause = inner.to_string();
        source = inner.source();
    }
    cause
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Reads one request on a loopback port, answers `answer`, and hands back what it read.
    async fn receive_once(answer: &'static str) -> (String, tokio::task::JoinHandle<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let seen = tokio::spawn(async move {
            let Ok((mut stream, _)) = listener.accept().await else {
                return String::new();
            };
            let mut request = Vec::new();
            let mut chunk = [0u8; 4096];
            while !String::from_utf8_lossy(&request).contains("\"schema\"") {
                match stream.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&chunk[..n]),
                }
                if String::from_utf8_lossy(&request).ends_with('}') {
                    break;
                }
            }
            let _ = stream.write_all(answer.as_bytes()).await;
            let _ = stream.shutdown().await;
            String::from_utf8_lossy(&request).into_owned()
        });
        (format!("http://{addr}/hook?token=t"), seen)
    }

    #[tokio::test]
    async fn a_post_carries_the_json_and_a_2xx_delivers_it() {
        let (url, seen) = receive_once("HTTP/1.1 204 No Content\r\n\r\n").await;
        let webhook = HttpWebhook::new();
        let sent = webhook.post(&url, br#"{"schema":"x"}"#.to_vec()).await;
        assert_eq!(sent, Ok(()));
        let request = seen.await.expect("request");
        assert!(
            request.starts_with("POST /hook?token=t HTTP/1.1\r\n"),
            "{request}"
        );
        assert!(
            request
                .to_ascii_lowercase()
                .contains("content-type: application/json")
        );
        assert!(request.ends_with(r#"{"schema":"x"}"#), "{request}");
    }

    #[tokio::test]
    async fn another_status_or_nobody_listening_is_not_delivered() {
        let (url, _seen) =
            receive_once("HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\n\r\n").await;
        let webhook = HttpWebhook::new();
        assert_eq!(
            webhook.post(&url, br#"{"schema":"x"}"#.to_vec()).await,
            Err(PostError::Status(500))
        );
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = closed.local_addr().expect("addr");
        drop(closed);
        let refused = webhook
            .post(&format!("http://{addr}/"), b"{}".to_vec())
            .await;
        assert!(
            matches!(&refused, Err(PostError::Unreachable(why)) if why.to_ascii_lowercase().contains("refused")),
            "{refused:?}"
        );
    }
}
