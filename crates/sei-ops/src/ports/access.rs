//! The access-review port: the API calls an action will make, as permission checks, and the
//! reviewer that answers them (SelfSubjectAccessReview in `kube::access`, a fake in tests).
//! All are asked, so the operator sees every missing permission at once; any denial stops the
//! action before its first mutating request.
use std::fmt;
use std::future::Future;
use std::pin::Pin;

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

impl fmt::Display for Denial {
    /// The check, then the reason in parentheses when there is one.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.check)?;
        if !self.reason.is_empty() {
            write!(f, " ({})", self.reason)?;
        }
        Ok(())
    }
}

fn denied_list(denials: &[Denial]) -> String {
    denials
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The answer to one review: `None` when allowed, else the authorizer's reason.
pub type Verdict = Option<String>;

/// A boxed `Send` future, keeping [`AccessReview`] object-safe.
pub type AccessFuture<'a> = Pin<Box<dyn Future<Output = Result<Verdict, AccessError>> + Send + 'a>>;

/// Answers one permission check.
pub trait AccessReview: Send + Sync {
    fn review(&self, check: PermissionCheck) -> AccessFuture<'_>;
}
/// Reviews in flight at once: a fleet action asks dozens; in order, one at a time, they would
/// add a round trip each before the first change.
const CONCURRENT_REVIEWS: usize = 8;

/// Asks `reviewer` about every check; `Ok` only when all are allowed. Denials are listed in the
/// order of `checks`.
///
/// Checks are first asked without their object name: in RBAC a namespace-wide allow covers
/// every name, so a fleet action needs one review per distinct verb and resource rather than
/// one per node. Only where that is denied are the named checks asked (a Role may allow just
/// some names, `resourceNames`).
pub async fn check_permissions(
    reviewer: &dyn AccessReview,
    checks: &[PermissionCheck],
) -> Result<(), AccessError> {
    let broad_of = |check: &PermissionCheck| PermissionCheck {
        name: String::new(),
        ..check.clone()
    };
    let mut broad: Vec<PermissionCheck> = Vec::new();
    for check in checks.iter().map(broad_of) {
        if !broad.contains(&check) {
            broad.push(check);
        }
    }
    let broad_verdicts = review_all(&broad, reviewer).await?;
    let denied_broadly = |check: &PermissionCheck| -> Option<&Verdict> {
        let at = broad.iter().position(|b| *b == broad_of(check))?;
        broad_verdicts[at].is_some().then_some(&broad_verdicts[at])
    };
    let named: Vec<PermissionCheck> = checks
        .iter()
        .filter(|c| !c.name.is_empty() && denied_broadly(c).is_some())
        .cloned()
        .collect();
    let named_verdicts = review_all(&named, reviewer).await?;
    let mut denials = Vec::new();
    for check in checks {
        let verdict = if check.name.is_empty() {
            denied_broadly(check).cloned().flatten()
        } else {
            named
                .iter()
                .position(|n| n == check)
                .and_then(|at| named_verdicts[at].clone())
        };
        if let Some(reason) = verdict {
            let denial = Denial {
                check: check.clone(),
                reason,
            };
            if !denials.contains(&denial) {
                denials.push(denial);
            }
        }
    }
    if denials.is_empty() {
        Ok(())
    } else {
        Err(AccessError::Denied(denials))
    }
}

/// Every review of `checks`, [`CONCURRENT_REVIEWS`] at a time, answers in order.
async fn review_all(
    checks: &[PermissionCheck],
    reviewer: &dyn AccessReview,
) -> Result<Vec<Verdict>, AccessError> {
    use futures::stream::{self, StreamExt, TryStreamExt};
    stream::iter(checks.iter().cloned())
        .map(|check| reviewer.review(check))
        .buffered(CONCURRENT_REVIEWS)
        .try_collect()
        .await
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
    }

    /// A fake authorizer: allowed unless listed in `denied` (verb resource name), counting reviews.
    struct Reviewer<'d> {
        denied: &'d [(&'d str, &'d str, &'d str)],
        asked: std::sync::atomic::AtomicUsize,
    }

    impl AccessReview for Reviewer<'_> {
        fn review(&self, check: PermissionCheck) -> AccessFuture<'_> {
            self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let deny = self
                .denied
                .iter()
                .any(|(v, r, n)| check.verb == *v && check.resource == *r && check.name == *n);
            Box::pin(async move { Ok(deny.then(|| "RBAC: no rule".to_owned())) })
        }
    }

    async fn run_fake(
        checks: &[PermissionCheck],
        denied: &[(&str, &str, &str)],
    ) -> (Result<(), AccessError>, usize) {
        let reviewer = Reviewer {
            denied,
            asked: std::sync::atomic::AtomicUsize::new(0),
        };
        let result = check_permissions(&reviewer, checks).await;
        (result, reviewer.asked.into_inner())
    }

    fn fleet_checks(nodes: usize) -> Vec<PermissionCheck> {
        (0..nodes)
            .flat_map(|i| {
                let node = format!("n{i}");
                [
                    PermissionCheck::new("patch", "sei.io", "seinodes", "ns", &node),
                    PermissionCheck::new("update", "coordination.k8s.io", "leases", "ns", &node),
                    PermissionCheck::new("create", "", "events", "ns", ""),
                ]
            })
            .collect()
    }

    #[tokio::test]
    async fn a_namespace_wide_allow_answers_for_every_node_in_one_review() {
        let (result, asked) = run_fake(&fleet_checks(10), &[]).await;
        assert_eq!(result, Ok(()));
        assert_eq!(asked, 3, "one review per verb and resource, not per node");
    }

    #[tokio::test]
    async fn where_the_namespace_wide_form_is_denied_each_name_is_asked() {
        // A Role allowing `update leases` only for some names: the broad form is denied, the
        // names decide. `create events` is denied outright.
        let denied = [
            ("update", "leases", ""),
            ("update", "leases", "n3"),
            ("create", "events", ""),
        ];
        let (result, asked) = run_fake(&fleet_checks(5), &denied).await;
        assert_eq!(
            asked,
            3 + 5,
            "three broad reviews, then the five named leases"
        );
        let Err(AccessError::Denied(denials)) = result else {
            panic!("denied expected: {result:?}");
        };
        let named: Vec<String> = denials.iter().map(|d| d.check.to_string()).collect();
        assert_eq!(
            named,
            [
                r#"create events in namespace "ns""#,
                r#"update leases.coordination.k8s.io "n3" in namespace "ns""#,
            ]
        );
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
