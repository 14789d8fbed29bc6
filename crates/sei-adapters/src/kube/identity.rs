//! Who the operator is, as the kubeconfig says: the context, its user entry, and the user name
//! the API server will see when the user authenticates with a client certificate (its CN).
use std::fmt;
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use kube::config::Kubeconfig;

/// The operator named in Events and journal lines.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OperatorIdentity {
    /// The kubeconfig context used.
    pub context: String,
    /// The context's user entry name.
    pub user: String,
    /// The client certificate's subject CN (the Kubernetes user name), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certificate_cn: Option<String>,
}

impl OperatorIdentity {
    /// The best name for a person reading an Event: the certificate CN, else the user entry.
    pub fn name(&self) -> &str {
        self.certificate_cn.as_deref().unwrap_or(&self.user)
    }
}

impl fmt::Display for OperatorIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (context {})", self.name(), self.context)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    #[error("the kubeconfig has no current context; pass --context NAME")]
    NoContext,
    #[error("context {0:?} is not in the kubeconfig")]
    UnknownContext(String),
}

/// The operator of `context` (or the current context) in the kubeconfig at `path` (else the
/// default kubeconfig); `unknown` where it cannot be read.
pub fn operator(path: Option<&Path>, context: Option<&str>) -> OperatorIdentity {
    let kubeconfig = match path {
        Some(path) => Kubeconfig::read_from(path),
        None => Kubeconfig::read(),
    };
    kubeconfig
        .ok()
        .and_then(|k| from_kubeconfig(&k, context).ok())
        .unwrap_or_else(|| OperatorIdentity {
            context: context.map_or_else(|| "unknown".into(), str::to_owned),
            user: "unknown".into(),
            certificate_cn: None,
        })
}

/// The identity for `context` (or the current context) of `kubeconfig`. The certificate is read
/// from `client-certificate-data`, else from the `client-certificate` file; an unreadable or
/// unparsable certificate just leaves the CN out.
pub fn from_kubeconfig(
    kubeconfig: &Kubeconfig,
    context: Option<&str>,
) -> Result<OperatorIdentity, IdentityError> {
    let context_name = context
        .map(str::to_owned)
        .or_else(|| kubeconfig.current_context.clone())
        .filter(|c| !c.is_empty())
        .ok_or(IdentityError::NoContext)?;
    let named = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context_name)
        .ok_or_else(|| IdentityError::UnknownContext(context_name.clone()))?;
    let user = named
        .context
        .as_ref()
        .and_then(|c| c.user.clone())
        .unwrap_or_default();
    let auth = kubeconfig
        .auth_infos
        .iter()
        .find(|a| a.name == user)
        .and_then(|a| a.auth_info.as_ref());
    let pem = auth.and_then(|auth| {
        auth.client_certificate_data
            .as_deref()
            .and_then(|data| BASE64.decode(data.trim()).ok())
            .or_else(|| {
                auth.client_certificate
                    .as_deref()
                    .and_then(|file| std::fs::read(Path::new(file)).ok())
            })
    });
    let certificate_cn = pem.as_deref().and_then(certificate_common_name);
    Ok(OperatorIdentity {
        context: context_name,
        user,
        certificate_cn,
    })
}

/// The subject CN of the first certificate in a PEM document.
pub fn certificate_common_name(pem: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(pem).ok()?;
    let body: String = text
        .lines()
        .skip_while(|l| !l.starts_with("-----BEGIN CERTIFICATE-----"))
        .skip(1)
        .take_while(|l| !l.starts_with("-----END"))
        .collect();
    let der = BASE64.decode(body.trim()).ok()?;
    der::subject_common_name(&der)
}

/// Just enough DER to reach `tbsCertificate.subject` and find the CN attribute.
mod der {
    /// OID 2.5.4.3 (commonName), encoded.
    const COMMON_NAME_OID: &[u8] = &[0x55, 0x04, 0x03];
    const SEQUENCE: u8 = 0x30;
    const SET: u8 = 0x31;
    const OID: u8 = 0x06;
    const EXPLICIT_VERSION: u8 = 0xa0;

    /// One TLV: (tag, contents, rest after it).
    fn next(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
        let (&tag, rest) = input.split_first()?;
        let (&first, rest) = rest.split_first()?;
        let (length, rest) = if first < 0x80 {
            (usize::from(first), rest)
        } else {
            let count = usize::from(first & 0x7f);
            if count == 0 || count > 4 || rest.len() < count {
                return None;
            }
            let length = rest[..count]
                .iter()
                .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
            (length, &rest[count..])
        };
        if rest.len() < length {
            return None;
        }
        Some((tag, &rest[..length], &rest[length..]))
    }

    fn expect(input: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
        let (found, contents, rest) = next(input)?;
        (found == tag).then_some((contents, rest))
    }

    pub(super) fn subject_common_name(der: &[u8]) -> Option<String> {
        let (certificate, _) = expect(der, SEQUENCE)?;
        let (tbs, _) = expect(certificate, SEQUENCE)?;
        let mut fields = tbs;
        if fields.first() == Some(&EXPLICIT_VERSION) {
            fields = next(fields)?.2;
        }
        // serialNumber, signature, issuer, validity, then subject.
        for _ in 0..4 {
            fields = next(fields)?.2;
        }
        let (mut subject, _) = expect(fields, SEQUENCE)?;
        while !subject.is_empty() {
            let (mut set, rest) = expect(subject, SET)?;
            subject = rest;
            while !set.is_empty() {
                let (attribute, rest) = expect(set, SEQUENCE)?;
                set = rest;
                let (oid, value) = expect(attribute, OID)?;
                if oid == COMMON_NAME_OID {
                    let (_, text, _) = next(value)?;
                    return String::from_utf8(text.to_vec()).ok();
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Made with Python's `cryptography`: self-signed, subject O=system:masters, CN=alice@example.
    const ALICE_PEM: &str = include_str!("testdata/alice.crt");

    fn kubeconfig(yaml: &str) -> Kubeconfig {
        Kubeconfig::from_yaml(yaml).expect("kubeconfig")
    }

    #[test]
    fn reads_the_common_name_of_a_certificate() {
        assert_eq!(
            certificate_common_name(ALICE_PEM.as_bytes()).as_deref(),
            Some("alice@example")
        );
        assert_eq!(certificate_common_name(b"not a certificate"), None);
    }

    #[test]
    fn identity_prefers_the_certificate_cn() {
        let yaml = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: prod\ncontexts:\n- name: prod\n  context: {{cluster: c, user: admin-user}}\n- name: dev\n  context: {{cluster: c, user: token-user}}\nusers:\n- name: admin-user\n  user:\n    client-certificate-data: {}\n- name: token-user\n  user: {{token: abc}}\nclusters:\n- name: c\n  cluster: {{server: 'https://127.0.0.1:1'}}\n",
            BASE64.encode(ALICE_PEM)
        );
        let config = kubeconfig(&yaml);
        let prod = from_kubeconfig(&config, None).expect("current context");
        assert_eq!(prod.certificate_cn.as_deref(), Some("alice@example"));
        assert_eq!(prod.to_string(), "alice@example (context prod)");
        let dev = from_kubeconfig(&config, Some("dev")).expect("dev");
        assert_eq!(dev.to_string(), "token-user (context dev)");
        assert_eq!(
            from_kubeconfig(&config, Some("nope")),
            Err(IdentityError::UnknownContext("nope".into()))
        );
    }

    #[test]
    fn no_current_context_is_an_error() {
        let config =
            kubeconfig("apiVersion: v1\nkind: Config\ncontexts: []\nusers: []\nclusters: []\n");
        assert_eq!(
            from_kubeconfig(&config, None),
            Err(IdentityError::NoContext)
        );
    }
}
