//! Permission checks before an action changes anything: one SelfSubjectAccessReview per call
//! the action will make. All are asked (so the operator sees every missing permission at once);
//! any denial stops the action before its first mutating request.
use std::fmt;

use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};

/// One API call an action will make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionCheck {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`.
    pub verb: &'static str,
    /// API group; empty for the core group.
    pub group: &'static str,
    pub resource: &'static str,
    pub subresource: Option<&'static str>,
    pub namespace: String,
    /// Empty for `create` and collection verbs.
    pub name: String,
}

impl PermissionCheck {
    pub fn new(
        verb: &'static str,
        group: &'static str,
        resource: &'static str,
        namespace: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        PermissionCheck {
            verb,
            group,
            resource,
            subresource: None,
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    pub fn subresource(mut self, subresource: &'static str) -> Self {
        self.subresource = Some(subresource);
        self
    }

    fn attributes(&self) -> ResourceAttributes {
        let non_empty = |s: &str| Some(s.to_owned()).filter(|s| !s.is_empty());
        ResourceAttributes {
            verb: Some(self.verb.to_owned()),
            group: Some(self.group.to_owned()),
            resource: Some(self.resource.to_owned()),
            subresource: self.subresource.map(str::to_owned),
            namespace: non_empty(&self.namespace),
            name: non_empty(&self.name),
            ..ResourceAttributes::default()
        }
    }
}

impl fmt::Display for PermissionCheck {
    /// kubectl's wording: `patch seinodes.sei.io/status "rpc-0" in namespace "sei"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.verb, self.resource)?;
        if !self.group.is_empty() {
            write!(f, ".{}", self.group)?;
        }
        if let Some(sub) = self.subresource {
            write!(f, "/{sub}")?;
        }
        if !self.name.is_empty() {
            write!(f, " {:?}", self.name)?;
        }
        if !self.namespace.is_empty() {
            write!(f, " in namespace {:?}", self.namespace)?;
        }
        Ok(())
    }
}

/// Why the checks did not pass.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// At least one call is not allowed; nothing was changed.
    #[error("not allowed to {}; nothing was changed", denied_list(.0))]
    Denied(Vec<Denial>),
    /// The review itself failed (API server unreachable, reviews not allowed).
    #[error("cannot check permissions: {0}")]
    Review(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    pub check: PermissionCheck,
    /// The authorizer's reason, when it gave one.
    pub reason: String,
}

fn denied_list(denials: &[Denial]) -> String {
    denials
        .iter()
        .map(|d| {
            if d.reason.is_empty() {
                d.check.to_string()
            } else {
                format!("{} ({})", d.check, d.reason)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reviews in flight at once: a fleet action asks dozens; in order, one at a time, they would
/// add a round trip each before the first change.
const CONCURRENT_REVIEWS: usize = 8;

/// Asks the API server about every check; `Ok` only when all are allowed. Denials are listed
/// in the order of `checks`.
pub async fn check_permissions(
    client: &kube::Client,
    checks: &[PermissionCheck],
) -> Result<(), AccessError> {
    use futures::stream::{self, StreamExt, TryStreamExt};
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    // Owned checks: a closure over borrowed ones makes the future unusable in a spawned task
    // (rustc cannot prove it `Send` for every lifetime), and the console checks in one.
    let answers: Vec<Option<Denial>> = stream::iter(checks.to_vec())
        .map(|check| {
            let api = api.clone();
            async move {
                let review = SelfSubjectAccessReview {
                    spec: SelfSubjectAccessReviewSpec {
                        resource_attributes: Some(check.attributes()),
                        ..SelfSubjectAccessReviewSpec::default()
                    },
                    ..SelfSubjectAccessReview::default()
                };
                let answer = api
                    .create(&PostParams::default(), &review)
                    .await
                    .map_err(|e| AccessError::Review(e.to_string()))?;
                let status = answer.status.unwrap_or_default();
                Ok::<_, AccessError>((!status.allowed).then(|| Denial {
                    check,
                    reason: status.reason.unwrap_or_default(),
                }))
            }
        })
        .buffered(CONCURRENT_REVIEWS)
        .try_collect()
        .await?;
    let denials: Vec<Denial> = answers.into_iter().flatten().collect();
    if denials.is_empty() {
        Ok(())
    } else {
        Err(AccessError::Denied(denials))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_read_like_kubectl_auth_can_i() {
        let status = PermissionCheck::new("patch", "sei.io", "seinodes", "sei", "rpc-0")
            .subresource("status");
        assert_eq!(
            status.to_string(),
            "patch seinodes.sei.io/status \"rpc-0\" in namespace \"sei\""
        );
        let create = PermissionCheck::new("create", "", "secrets", "sei", "");
        assert_eq!(create.to_string(), "create secrets in namespace \"sei\"");
        let attributes = create.attributes();
        assert_eq!(attributes.group.as_deref(), Some(""));
        assert_eq!(attributes.name, None);
    }

    #[test]
    fn denial_message_lists_every_missing_permission() {
        let err = AccessError::Denied(vec![
            Denial {
                check: PermissionCheck::new("patch", "sei.io", "seinodes", "sei", "a"),
                reason: String::new(),
            },
            Denial {
                check: PermissionCheck::new("create", "", "events", "sei", ""),
                reason: "RBAC: no rule".into(),
            },
        ]);
        assert_eq!(
            err.to_string(),
            "not allowed to patch seinodes.sei.io \"a\" in namespace \"sei\"; create events in namespace \"sei\" (RBAC: no rule); nothing was changed"
        );
    }
}
