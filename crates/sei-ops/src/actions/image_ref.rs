//! Container image references, validated against the OCI distribution reference grammar
//! (`name[:tag][@digest]`, name = `[domain/]path`) before `spec.image` is patched.
use std::fmt;

/// The CRD's `spec.image` maxLength.
pub const MAX_IMAGE_LENGTH: usize = 512;
/// The distribution spec's limit on the name (domain and path) part.
const MAX_NAME_LENGTH: usize = 255;
const MAX_TAG_LENGTH: usize = 128;

/// A parsed image reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRef {
    /// Registry host (with port), when the first component is one.
    pub domain: Option<String>,
    /// Repository path, e.g. `sei-protocol/seid`.
    pub path: String,
    pub tag: Option<String>,
    /// `algorithm:hex`, e.g. `sha256:<64 hex>`.
    pub digest: Option<String>,
}

/// Why a string is not an image reference; messages quote the offending part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageRefError {
    #[error("image reference is empty")]
    Empty,
    #[error("image reference is {0} characters long; at most {MAX_IMAGE_LENGTH} are allowed")]
    TooLong(usize),
    #[error("image name is {0} characters long; at most {MAX_NAME_LENGTH} are allowed")]
    NameTooLong(usize),
    #[error("invalid registry {0:?} (a host name or IP, optionally with :port)")]
    InvalidDomain(String),
    #[error(
        "invalid repository path component {0:?} (lowercase letters and digits, separated by '.', '_', '__' or '-')"
    )]
    InvalidPath(String),
    #[error(
        "invalid tag {0:?} (letters, digits, '_', '.' and '-', not starting with '.' or '-', at most 128)"
    )]
    InvalidTag(String),
    #[error(
        "invalid digest {0:?} (expected algorithm:hex, e.g. sha256: followed by 64 hex digits)"
    )]
    InvalidDigest(String),
    /// Neither tag nor digest: the kubelet pulls `latest`, whatever that is on the day.
    #[error(
        "image reference {0} has no tag or digest: the node's pod would pull `latest`; name a \
         tag ({0}:TAG) or a digest ({0}@sha256:...)"
    )]
    Untagged(String),
}

/// Advice about a valid reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageWarning {
    /// A tag can be moved to other content later; a digest cannot.
    NotPinnedByDigest,
}

impl fmt::Display for ImageWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageWarning::NotPinnedByDigest => f.write_str(
                "image is not pinned by digest: the tag can later point at other content (use name@sha256:...)",
            ),
        }
    }
}

impl ImageRef {
    /// Parses and validates `text`.
    pub fn parse(text: &str) -> Result<ImageRef, ImageRefError> {
        if text.is_empty() {
            return Err(ImageRefError::Empty);
        }
        if text.len() > MAX_IMAGE_LENGTH {
            return Err(ImageRefError::TooLong(text.len()));
        }
        let (rest, digest) = match text.split_once('@') {
            Some((rest, digest)) => {
                validate_digest(digest)?;
                (rest, Some(digest.to_owned()))
            }
            None => (text, None),
        };
        // A tag follows the last ':' only if no '/' comes after it (else it is a registry port).
        let (name, tag) = match rest.rsplit_once(':') {
            Some((name, tag)) if !tag.contains('/') => {
                validate_tag(tag)?;
                (name, Some(tag.to_owned()))
            }
            _ => (rest, None),
        };
        if name.len() > MAX_NAME_LENGTH {
            return Err(ImageRefError::NameTooLong(name.len()));
        }
        let (domain, path) = split_domain(name);
        if let Some(domain) = domain {
            validate_domain(domain)?;
        }
        for component in path.split('/') {
            validate_path_component(component)?;
        }
        Ok(ImageRef {
            domain: domain.map(str::to_owned),
            path: path.to_owned(),
            tag,
            digest,
        })
    }

    /// Parses `text` as an image to pin on a node (`spec.image`): as [`Self::parse`], and a
    /// reference with neither tag nor digest is refused (the pod would pull `latest`).
    pub fn parse_to_pin(text: &str) -> Result<ImageRef, ImageRefError> {
        let image = ImageRef::parse(text)?;
        if image.tag.is_none() && image.digest.is_none() {
            return Err(ImageRefError::Untagged(image.to_string()));
        }
        Ok(image)
    }

    pub fn is_pinned_by_digest(&self) -> bool {
        self.digest.is_some()
    }

    /// Where the tag's manifest is read, as a container runtime resolves the name: no registry
    /// is Docker Hub (`registry-1.docker.io`, one-component paths under `library/`). `None`
    /// when the reference has no tag, or a digest already.
    pub fn registry_target(&self) -> Option<crate::ports::registry::RegistryTarget> {
        if self.digest.is_some() {
            return None;
        }
        let tag = self.tag.clone()?;
        let hub = |domain: &str| matches!(domain, "docker.io" | "index.docker.io");
        let (host, repository) = match self.domain.as_deref() {
            Some(domain) if !hub(domain) => (domain.to_owned(), self.path.clone()),
            _ if self.path.contains('/') => ("registry-1.docker.io".to_owned(), self.path.clone()),
            _ => (
                "registry-1.docker.io".to_owned(),
                format!("library/{}", self.path),
            ),
        };
        Some(crate::ports::registry::RegistryTarget {
            host,
            repository,
            tag,
        })
    }

    /// The same reference pinned to `digest`, its tag kept for people to read
    /// (`name:tag@sha256:…`: the runtime pulls by the digest).
    pub fn pinned_to(&self, digest: &crate::ports::registry::Digest) -> ImageRef {
        ImageRef {
            digest: Some(digest.as_str().to_owned()),
            ..self.clone()
        }
    }

    pub fn warnings(&self) -> Vec<ImageWarning> {
        if self.is_pinned_by_digest() {
            Vec::new()
        } else {
            vec![ImageWarning::NotPinnedByDigest]
        }
    }
}

impl fmt::Display for ImageRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(domain) = &self.domain {
            write!(f, "{domain}/")?;
        }
        f.write_str(&self.path)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

/// The first component is a registry when it has a '.' or ':', is `localhost`, or has an
/// uppercase letter (which a path component may not) — the distribution library's rule.
fn split_domain(name: &str) -> (Option<&str>, &str) {
    match name.split_once('/') {
        Some((first, rest))
            if first.contains(['.', ':'])
                || first == "localhost"
                || first.chars().any(|c| c.is_ascii_uppercase()) =>
        {
            (Some(first), rest)
        }
        _ => (None, name),
    }
}

fn validate_domain(domain: &str) -> Result<(), ImageRefError> {
    let invalid = || ImageRefError::InvalidDomain(domain.to_owned());
    let (host, port) = if let Some(bracketed) = domain.strip_prefix('[') {
        let (v6, after) = bracketed.split_once(']').ok_or_else(invalid)?;
        if v6.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(invalid());
        }
        match after {
            "" => ("", None),
            port => ("", Some(port.strip_prefix(':').ok_or_else(invalid)?)),
        }
    } else {
        match domain.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (domain, None),
        }
    };
    if let Some(port) = port
        && (port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(invalid());
    }
    if !domain.starts_with('[') {
        let valid_label = |label: &str| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        };
        if !host.split('.').all(valid_label) {
            return Err(invalid());
        }
    }
    Ok(())
}

/// `[a-z0-9]+` joined by separators `.`, `_`, `__` or one or more `-`.
fn validate_path_component(component: &str) -> Result<(), ImageRefError> {
    let invalid = || ImageRefError::InvalidPath(component.to_owned());
    let bytes = component.as_bytes();
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if bytes.is_empty() || !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return Err(invalid());
    }
    let mut i = 0;
    while i < bytes.len() {
        if alnum(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && !alnum(bytes[i]) {
            i += 1;
        }
        let separator = &component[start..i];
        let ok = matches!(separator, "." | "_" | "__") || separator.bytes().all(|b| b == b'-');
        if !ok {
            return Err(invalid());
        }
    }
    Ok(())
}

/// `[\w][\w.-]{0,127}`.
fn validate_tag(tag: &str) -> Result<(), ImageRefError> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = tag.as_bytes();
    let ok = !bytes.is_empty()
        && bytes.len() <= MAX_TAG_LENGTH
        && word(bytes[0])
        && bytes.iter().all(|&b| word(b) || b == b'.' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(ImageRefError::InvalidTag(tag.to_owned()))
    }
}

/// `algorithm:hex` with algorithm components `[A-Za-z][A-Za-z0-9]*` joined by `+ . - _`, at
/// least 32 hex digits, and exactly 64 lowercase ones for sha256 (as registries check).
fn validate_digest(digest: &str) -> Result<(), ImageRefError> {
    let invalid = || ImageRefError::InvalidDigest(digest.to_owned());
    let (algorithm, hex) = digest.split_once(':').ok_or_else(invalid)?;
    let algorithm_ok = algorithm.split(['+', '.', '-', '_']).all(|part| {
        let mut chars = part.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric())
    });
    let hex_ok = hex.len() >= 32 && hex.bytes().all(|b| b.is_ascii_hexdigit());
    let sha256_ok = algorithm != "sha256"
        || (hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    if algorithm_ok && hex_ok && sha256_ok {
        Ok(())
    } else {
        Err(invalid())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_tag_is_read_where_a_container_runtime_would_pull_it() {
        let target = |text: &str| {
            ImageRef::parse(text)
                .expect("valid")
                .registry_target()
                .map(|t| t.to_string())
        };
        assert_eq!(
            target("ghcr.io/sei-protocol/sei:v6.5.0").as_deref(),
            Some("ghcr.io/sei-protocol/sei:v6.5.0")
        );
        assert_eq!(
            target("busybox:1.36").as_deref(),
            Some("registry-1.docker.io/library/busybox:1.36")
        );
        assert_eq!(
            target("docker.io/sei/seid:v1").as_deref(),
            Some("registry-1.docker.io/sei/seid:v1")
        );
        assert_eq!(
            target("127.0.0.1:5000/sei:v1").as_deref(),
            Some("127.0.0.1:5000/sei:v1")
        );
        assert_eq!(target(&format!("sei:v1@{DIGEST}")), None, "pinned already");
        assert_eq!(target("ghcr.io/sei"), None, "no tag");
    }

    #[test]
    fn pinning_keeps_the_tag_for_people_and_adds_the_digest() {
        let digest = crate::ports::registry::Digest::parse(DIGEST).expect("digest");
        let pinned = ImageRef::parse("ghcr.io/sei-protocol/sei:v6.5.0")
            .expect("valid")
            .pinned_to(&digest);
        assert_eq!(
            pinned.to_string(),
            format!("ghcr.io/sei-protocol/sei:v6.5.0@{DIGEST}")
        );
        assert_eq!(ImageRef::parse(&pinned.to_string()), Ok(pinned));
    }

    #[test]
    fn accepts_the_usual_shapes() {
        let plain = ImageRef::parse("seid").expect("plain");
        assert_eq!(
            (plain.domain.as_deref(), plain.path.as_str()),
            (None, "seid")
        );
        let tagged = ImageRef::parse("ghcr.io/sei-protocol/seid:v6.1.0").expect("tagged");
        assert_eq!(tagged.domain.as_deref(), Some("ghcr.io"));
        assert_eq!(tagged.path, "sei-protocol/seid");
        assert_eq!(tagged.tag.as_deref(), Some("v6.1.0"));
        let with_port = ImageRef::parse("localhost:5000/seid").expect("port");
        assert_eq!(with_port.domain.as_deref(), Some("localhost:5000"));
        assert_eq!(with_port.tag, None);
        let pinned = ImageRef::parse(&format!(
            "registry.example.com:443/a/b_c__d-e--f:1@{DIGEST}"
        ))
        .expect("pinned");
        assert_eq!(pinned.digest.as_deref(), Some(DIGEST));
        assert!(pinned.warnings().is_empty());
        ImageRef::parse("[::1]:5000/seid:latest").expect("ipv6 registry");
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "seid",
            "ghcr.io/sei-protocol/seid:v6.1.0",
            &format!("docker.io/library/seid:1.2@{DIGEST}"),
        ] {
            assert_eq!(ImageRef::parse(text).expect("valid").to_string(), text);
        }
    }

    #[test]
    fn warns_when_not_pinned_by_digest() {
        let tagged = ImageRef::parse("ghcr.io/sei-protocol/seid:v6.1.0").expect("valid");
        assert_eq!(tagged.warnings(), vec![ImageWarning::NotPinnedByDigest]);
        assert!(
            tagged.warnings()[0]
                .to_string()
                .contains("not pinned by digest")
        );
    }

    #[test]
    fn rejects_what_a_registry_would_reject() {
        let cases: &[(&str, ImageRefError)] = &[
            ("", ImageRefError::Empty),
            ("Seid", ImageRefError::InvalidPath("Seid".into())),
            ("ghcr.io/Sei/seid", ImageRefError::InvalidPath("Sei".into())),
            ("seid:", ImageRefError::InvalidTag(String::new())),
            ("seid:-x", ImageRefError::InvalidTag("-x".into())),
            ("seid:v 1", ImageRefError::InvalidTag("v 1".into())),
            ("a//b", ImageRefError::InvalidPath(String::new())),
            ("a/b-/c", ImageRefError::InvalidPath("b-".into())),
            ("a/b..c", ImageRefError::InvalidPath("b..c".into())),
            (
                "bad_host.io:x/seid",
                ImageRefError::InvalidDomain("bad_host.io:x".into()),
            ),
            (
                "seid@sha256:abc",
                ImageRefError::InvalidDigest("sha256:abc".into()),
            ),
            ("seid@md5", ImageRefError::InvalidDigest("md5".into())),
            (
                &format!("seid@{}", DIGEST.to_uppercase().replace("SHA", "sha")),
                ImageRefError::InvalidDigest(DIGEST.to_uppercase().replace("SHA", "sha")),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(ImageRef::parse(text).as_ref(), Err(expected), "{text:?}");
        }
        let long = format!("a/{}", "b".repeat(600));
        assert_eq!(ImageRef::parse(&long), Err(ImageRefError::TooLong(602)));
        let long_name = format!("a/{}:1", "b".repeat(300));
        assert_eq!(
            ImageRef::parse(&long_name),
            Err(ImageRefError::NameTooLong(302))
        );
    }

    /// Issue 33: `rollout --image ghcr.io/sei-protocol/sei` patched spec.image untagged.
    #[test]
    fn an_image_to_pin_needs_a_tag_or_a_digest() {
        let untagged = ImageRef::parse_to_pin("ghcr.io/sei-protocol/sei");
        assert_eq!(
            untagged,
            Err(ImageRefError::Untagged("ghcr.io/sei-protocol/sei".into()))
        );
        let message = untagged.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("would pull `latest`"), "{message}");
        assert!(!message.contains('\n'), "one line");
        ImageRef::parse_to_pin("ghcr.io/sei-protocol/sei:v6.4.0").expect("tagged");
        ImageRef::parse_to_pin(&format!("ghcr.io/sei-protocol/sei@{DIGEST}")).expect("digest");
        assert_eq!(
            ImageRef::parse_to_pin("localhost:5000/seid"),
            Err(ImageRefError::Untagged("localhost:5000/seid".into())),
            "a registry port is not a tag"
        );
    }

    #[test]
    fn colon_followed_by_a_path_is_a_port_not_a_tag() {
        let image = ImageRef::parse("reg.local:5000/team/seid").expect("valid");
        assert_eq!(image.domain.as_deref(), Some("reg.local:5000"));
        assert_eq!(image.tag, None);
    }
}
