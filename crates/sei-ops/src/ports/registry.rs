//! An image registry as a port: the digest a tag points to now, read with the OCI distribution
//! API (`HEAD /v2/<repository>/manifests/<tag>`, its `Docker-Content-Digest` header). A rollout
//! with `--resolve-digest` pins the digest instead of the tag, so every node pulls the same
//! bytes whatever the tag is moved to later. The adapter (`registry::HttpRegistry` in
//! sei-adapters) reads anonymously, following a registry's bearer-token challenge (how
//! ghcr.io and Docker Hub serve public images); credentials are not sent.
use std::future::Future;
use std::pin::Pin;

/// One tag of one repository on one registry, as the distribution API addresses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryTarget {
    /// The registry's API host (`ghcr.io`, `registry-1.docker.io`, `127.0.0.1:5000`).
    pub host: String,
    /// The repository under the host (`sei-protocol/sei`, `library/busybox`).
    pub repository: String,
    pub tag: String,
}

impl RegistryTarget {
    /// Plain HTTP only where Docker's default allows it: a registry on loopback
    /// (`127.0.0.0/8`, `localhost`, `[::1]`); every other registry is read over HTTPS.
    pub fn insecure(&self) -> bool {
        let host = match self.host.rsplit_once(':') {
            Some((host, port)) if !port.contains(']') => host,
            _ => self.host.as_str(),
        };
        host == "localhost"
            || host == "[::1]"
            || host
                .parse::<std::net::Ipv4Addr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// The manifest's URL.
    pub fn manifest_url(&self) -> String {
        let scheme = if self.insecure() { "http" } else { "https" };
        format!(
            "{scheme}://{}/v2/{}/manifests/{}",
            self.host, self.repository, self.tag
        )
    }
}

impl std::fmt::Display for RegistryTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}:{}", self.host, self.repository, self.tag)
    }
}

/// A content digest (`sha256:` and 64 lowercase hex digits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest(String);

impl Digest {
    /// `text` if it is a sha256 digest, else `None`.
    pub fn parse(text: &str) -> Option<Digest> {
        let hex = text.strip_prefix("sha256:")?;
        (hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| Digest(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a tag could not be resolved; each says what was asked of whom.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("{target}: no such tag or repository on the registry (HTTP 404)")]
    NotFound { target: String },
    #[error(
        "{target}: the registry wants credentials (HTTP {status}); sei-console resolves \
         digests anonymously: pin the digest by hand (IMAGE@sha256:…)"
    )]
    Unauthorized { target: String, status: u16 },
    #[error("{target}: the registry cannot be reached: {reason}")]
    Unreachable { target: String, reason: String },
    #[error("{target}: no answer within {seconds} s")]
    Timeout { target: String, seconds: u64 },
    #[error("{target}: {reason}")]
    BadAnswer { target: String, reason: String },
}

pub type DigestFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Digest, RegistryError>> + Send + 'a>>;

/// Resolves tags to the digests they point to now.
pub trait ImageRegistry: Send + Sync {
    fn resolve<'a>(&'a self, target: &'a RegistryTarget) -> DigestFuture<'a>;
}

/// An in-memory registry for unit tests: tags it knows resolve, every other one is not found;
/// each resolve is counted. Never dials.
#[cfg(any(test, feature = "testing"))]
pub mod fake {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    pub struct FakeRegistry {
        /// By `host/repository:tag`.
        pub tags: Mutex<BTreeMap<String, Digest>>,
        pub resolved: Mutex<Vec<String>>,
    }

    impl FakeRegistry {
        pub fn tag(&self, target: &str, digest: &Digest) {
            if let Ok(mut tags) = self.tags.lock() {
                tags.insert(target.to_owned(), digest.clone());
            }
        }
    }

    impl ImageRegistry for FakeRegistry {
        fn resolve<'a>(&'a self, target: &'a RegistryTarget) -> DigestFuture<'a> {
            let key = target.to_string();
            if let Ok(mut resolved) = self.resolved.lock() {
                resolved.push(key.clone());
            }
            let found = self.tags.lock().ok().and_then(|t| t.get(&key).cloned());
            Box::pin(async move { found.ok_or(RegistryError::NotFound { target: key }) })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(host: &str) -> RegistryTarget {
        RegistryTarget {
            host: host.into(),
            repository: "sei-protocol/sei".into(),
            tag: "v6.5.0".into(),
        }
    }

    #[test]
    fn only_loopback_registries_are_read_over_plain_http() {
        assert_eq!(
            target("127.0.0.1:5000").manifest_url(),
            "http://127.0.0.1:5000/v2/sei-protocol/sei/manifests/v6.5.0"
        );
        assert!(target("localhost").insecure());
        assert!(target("127.9.0.3").insecure());
        assert!(target("[::1]:5000").insecure());
        assert!(!target("ghcr.io").insecure());
        assert!(!target("10.0.0.1:5000").insecure());
        assert!(!target("localhost.example.com").insecure());
        assert_eq!(
            target("ghcr.io").manifest_url(),
            "https://ghcr.io/v2/sei-protocol/sei/manifests/v6.5.0"
        );
    }

    #[test]
    fn a_digest_is_sha256_and_64_lowercase_hex_digits() {
        let hex = "0123456789abcdef".repeat(4);
        assert!(Digest::parse(&format!("sha256:{hex}")).is_some());
        assert!(Digest::parse(&format!("sha256:{}", hex.to_uppercase())).is_none());
        assert!(Digest::parse(&format!("sha512:{hex}")).is_none());
        assert!(Digest::parse(&format!("sha256:{}", &hex[1..])).is_none());
    }
}
