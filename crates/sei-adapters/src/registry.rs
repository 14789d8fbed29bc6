//! `ports::registry::ImageRegistry` over HTTP: `HEAD /v2/<repository>/manifests/<tag>` with the
//! manifest media types a container runtime accepts (OCI index and manifest, Docker manifest
//! list and v2), the digest from `Docker-Content-Digest`. A `401` with a bearer challenge
//! (`WWW-Authenticate: Bearer realm=…,service=…,scope=…`, how ghcr.io and Docker Hub serve
//! public images) is answered with an anonymous token from the realm, once; no credentials are
//! ever sent. HTTPS with the system's roots, plain HTTP only to a loopback registry
//! (`RegistryTarget::insecure`). The whole resolve is bounded by [`RESOLVE_TIMEOUT`].
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use crate::ports::registry::{Digest, DigestFuture, ImageRegistry, RegistryError, RegistryTarget};

/// One resolve, the token request included.
pub const RESOLVE_TIMEOUT: Duration = Duration::from_secs(15);
/// A token answer is a small JSON object.
const MAX_TOKEN_ANSWER: usize = 64 << 10;
const MANIFEST_TYPES: &str = "application/vnd.oci.image.index.v1+json, \
     application/vnd.oci.image.manifest.v1+json, \
     application/vnd.docker.distribution.manifest.list.v2+json, \
     application/vnd.docker.distribution.manifest.v2+json";

type Client = HyperClient<HttpsConnector<HttpConnector>, Empty<Bytes>>;

/// Reads registries; cheap to clone.
#[derive(Clone)]
pub struct HttpRegistry {
    /// Or why no client could be made (no root certificates): every resolve says so.
    http: Result<Client, std::sync::Arc<std::io::Error>>,
}

impl std::fmt::Debug for HttpRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HttpRegistry")
    }
}

impl Default for HttpRegistry {
    fn default() -> HttpRegistry {
        HttpRegistry::new()
    }
}

impl HttpRegistry {
    pub fn new() -> HttpRegistry {
        let mut http = HttpConnector::new();
        http.set_connect_timeout(Some(Duration::from_secs(5)));
        http.enforce_http(false);
        let http = HttpsConnectorBuilder::new()
            .with_native_roots()
            .map(|builder| {
                let https = builder.https_or_http().enable_http1().wrap_connector(http);
                HyperClient::builder(TokioExecutor::new()).build(https)
            })
            .map_err(std::sync::Arc::new);
        HttpRegistry { http }
    }

    async fn resolve_now(&self, target: &RegistryTarget) -> Result<Digest, RegistryError> {
        let unreachable = |reason: String| RegistryError::Unreachable {
            target: target.to_string(),
            reason,
        };
        let client = self
            .http
            .as_ref()
            .map_err(|err| unreachable(format!("no TLS root certificates to trust: {err}")))?;
        let url = target.manifest_url();
        let first = head(client, target, &url, None).await?;
        let answer = if first.status() == http::StatusCode::UNAUTHORIZED
            && let Some(challenge) = first
                .headers()
                .get(http::header::WWW_AUTHENTICATE)
                .and_then(|v| v.to_str().ok())
                .and_then(BearerChallenge::parse)
        {
            let token = anonymous_token(client, target, &challenge).await?;
            head(client, target, &url, Some(&token)).await?
        } else {
            first
        };
        let status = answer.status();
        match status.as_u16() {
            200 => {}
            404 => {
                return Err(RegistryError::NotFound {
                    target: target.to_string(),
                });
            }
            401 | 403 => {
                return Err(RegistryError::Unauthorized {
                    target: target.to_string(),
                    status: status.as_u16(),
                });
            }
            code => {
                return Err(RegistryError::BadAnswer {
                    target: target.to_string(),
                    reason: format!("HEAD {url} answered HTTP {code}"),
                });
            }
        }
        let header = answer
            .headers()
            .get("docker-content-digest")
            .and_then(|v| v.to_str().ok());
        header
            .and_then(Digest::parse)
            .ok_or_else(|| RegistryError::BadAnswer {
                target: target.to_string(),
                reason: match header {
                    Some(other) => format!("Docker-Content-Digest {other:?} is no sha256 digest"),
                    None => "the manifest's answer has no Docker-Content-Digest".to_owned(),
                },
            })
    }
}

impl ImageRegistry for HttpRegistry {
    fn resolve<'a>(&'a self, target: &'a RegistryTarget) -> DigestFuture<'a> {
        Box::pin(async move {
            tokio::time::timeout(RESOLVE_TIMEOUT, self.resolve_now(target))
                .await
                .unwrap_or_else(|_| {
                    Err(RegistryError::Timeout {
                        target: target.to_string(),
                        seconds: RESOLVE_TIMEOUT.as_secs(),
                    })
                })
        })
    }
}

async fn head(
    client: &Client,
    target: &RegistryTarget,
    url: &str,
    token: Option<&str>,
) -> Result<http::Response<hyper::body::Incoming>, RegistryError> {
    let mut request = http::Request::head(url).header(http::header::ACCEPT, MANIFEST_TYPES);
    if let Some(token) = token {
        request = request.header(http::header::AUTHORIZATION, format!("Bearer {token}"));
    }
    let request = request
        .body(Empty::new())
        .map_err(|err| RegistryError::BadAnswer {
            target: target.to_string(),
            reason: format!("HEAD {url}: {err}"),
        })?;
    client
        .request(request)
        .await
        .map_err(|err| RegistryError::Unreachable {
            target: target.to_string(),
            reason: format!("HEAD {url}: {err}"),
        })
}

/// `GET realm?service=…&scope=…` without credentials: the token public images are read with.
async fn anonymous_token(
    client: &Client,
    target: &RegistryTarget,
    challenge: &BearerChallenge,
) -> Result<String, RegistryError> {
    let bad = |reason: String| RegistryError::BadAnswer {
        target: target.to_string(),
        reason,
    };
    let url = challenge.token_url(target);
    let request = http::Request::get(url.as_str())
        .body(Empty::new())
        .map_err(|err| bad(format!("GET {url}: {err}")))?;
    let answer = client
        .request(request)
        .await
        .map_err(|err| RegistryError::Unreachable {
            target: target.to_string(),
            reason: format!("GET {url}: {err}"),
        })?;
    if !answer.status().is_success() {
        return Err(RegistryError::Unauthorized {
            target: target.to_string(),
            status: answer.status().as_u16(),
        });
    }
    let body = Limited::new(answer.into_body(), MAX_TOKEN_ANSWER)
        .collect()
        .await
        .map_err(|err| bad(format!("GET {url}: {err}")))?
        .to_bytes();
    let json: serde_json::Value =
        serde_json::from_slice(&body).map_err(|err| bad(format!("GET {url}: {err}")))?;
    json.get("token")
        .or_else(|| json.get("access_token"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| bad(format!("GET {url}: no token in the answer")))
}

/// A `WWW-Authenticate: Bearer …` challenge's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BearerChallenge {
    realm: String,
    service: Option<String>,
    scope: Option<String>,
}

impl BearerChallenge {
    fn parse(header: &str) -> Option<BearerChallenge> {
        let params = header.trim().strip_prefix("Bearer ")?;
        let mut realm = None;
        let mut service = None;
        let mut scope = None;
        let mut rest = params.trim();
        while !rest.is_empty() {
            let (key, after) = rest.split_once('=')?;
            let after = after.trim_start();
            let (value, tail) = match after.strip_prefix('"') {
                Some(quoted) => {
                    let end = quoted.find('"')?;
                    (&quoted[..end], &quoted[end + 1..])
                }
                None => after.split_once(',').unwrap_or((after, "")),
            };
            match key.trim() {
                "realm" => realm = Some(value.to_owned()),
                "service" => service = Some(value.to_owned()),
                "scope" => scope = Some(value.to_owned()),
                _ => {}
            }
            rest = tail.trim_start().trim_start_matches(',').trim_start();
        }
        Some(BearerChallenge {
            realm: realm?,
            service,
            scope,
        })
    }

    /// The realm with the service and the pull scope (the challenge's, else the repository's).
    fn token_url(&self, target: &RegistryTarget) -> String {
        let scope = self
            .scope
            .clone()
            .unwrap_or_else(|| format!("repository:{}:pull", target.repository));
        let mut query = vec![("scope", scope)];
        if let Some(service) = &self.service {
            query.insert(0, ("service", service.clone()));
        }
        let query: Vec<String> = query
            .into_iter()
            .map(|(k, v)| format!("{k}={}", percent_encode(&v)))
            .collect();
        let joiner = if self.realm.contains('?') { '&' } else { '?' };
        format!("{}{joiner}{}", self.realm, query.join("&"))
    }
}

/// Query-value encoding: unreserved characters as they are, everything else `%XX`.
fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> RegistryTarget {
        RegistryTarget {
            host: "ghcr.io".into(),
            repository: "sei-protocol/sei".into(),
            tag: "v6.5.0".into(),
        }
    }

    #[test]
    fn ghcr_and_docker_hub_challenges_give_the_anonymous_token_url() {
        let ghcr = BearerChallenge::parse(
            r#"Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:sei-protocol/sei:pull""#,
        )
        .expect("ghcr");
        assert_eq!(
            ghcr.token_url(&target()),
            "https://ghcr.io/token?service=ghcr.io&scope=repository%3Asei-protocol%2Fsei%3Apull"
        );
        let hub = BearerChallenge::parse(
            r#"Bearer realm="https://auth.docker.io/token", service="registry.docker.io""#,
        )
        .expect("hub");
        assert_eq!(hub.service.as_deref(), Some("registry.docker.io"));
        assert_eq!(
            hub.token_url(&target()),
            "https://auth.docker.io/token?service=registry.docker.io&scope=repository%3Asei-protocol%2Fsei%3Apull"
        );
    }

    #[test]
    fn a_challenge_without_a_realm_or_of_another_scheme_is_none() {
        assert_eq!(BearerChallenge::parse(r#"Basic realm="x""#), None);
        assert_eq!(BearerChallenge::parse(r#"Bearer service="x""#), None);
    }
}
