//! Permission checks before an action changes anything: one SelfSubjectAccessReview per call
//! the action will make. All are asked (so the operator sees every missing permission at once);
//! any denial stops the action before its first mutating request.
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};

pub use crate::actions::permission_check::{Denial, PermissionCheck};

/// The review's resource attributes for `check`; empty namespace and name are left out.
fn attributes(check: &PermissionCheck) -> ResourceAttributes {
    let non_empty = |s: &str| Some(s.to_owned()).filter(|s| !s.is_empty());
    ResourceAttributes {
        verb: Some(check.verb.to_owned()),
        group: Some(check.group.to_owned()),
        resource: Some(check.resource.to_owned()),
        subresource: check.subresource.map(str::to_owned),
        namespace: non_empty(&check.namespace),
        name: non_empty(&check.name),
        ..ResourceAttributes::default()
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

fn denied_list(denials: &[Denial]) -> String {
    denials
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reviews in flight at once: a fleet action asks dozens; in order, one at a time, they would
/// add a round trip each before the first change.
const CONCURRENT_REVIEWS: usize = 8;

/// Asks the API server about every check; `Ok` only when all are allowed. Denials are listed
/// in the order of `checks`.
///
/// Checks are first asked without their object name: in RBAC a namespace-wide allow covers
/// every name, so a fleet action needs one review per distinct verb and resource rather than
/// one per node. Only where that is denied are the named checks asked (a Role may allow just
/// some names, `resourceNames`).
pub async fn check_permissions(
    client: &kube::Client,
    checks: &[PermissionCheck],
) -> Result<(), AccessError> {
    let api: Api<SelfSubjectAccessReview> = Api::all(client.clone());
    check_with(checks, |check| {
        let api = api.clone();
        async move {
            let review = SelfSubjectAccessReview {
                spec: SelfSubjectAccessReviewSpec {
                    resource_attributes: Some(attributes(&check)),
                    ..SelfSubjectAccessReviewSpec::default()
                },
                ..SelfSubjectAccessReview::default()
            };
            let answer = api
                .create(&PostParams::default(), &review)
                .await
                .map_err(|e| AccessError::Review(e.to_string()))?;
            let status = answer.status.unwrap_or_default();
            Ok((!status.allowed).then(|| status.reason.unwrap_or_default()))
        }
    })
    .await
}

/// The answer to one review: `None` when allowed, else the authorizer's reason.
type Verdict = Option<String>;

/// [`check_permissions`] over any reviewer (the API server, or a fake in tests).
async fn check_with<F, Fut>(checks: &[PermissionCheck], review: F) -> Result<(), AccessError>
where
    F: Fn(PermissionCheck) -> Fut,
    Fut: std::future::Future<Output = Result<Verdict, AccessError>>,
{
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
    let broad_verdicts = review_all(&broad, &review).await?;
    let denied_broadly = |check: &PermissionCheck| -> Option<&Verdict> {
        let at = broad.iter().position(|b| *b == broad_of(check))?;
        broad_verdicts[at].is_some().then_some(&broad_verdicts[at])
    };
    let named: Vec<PermissionCheck> = checks
        .iter()
        .filter(|c| !c.name.is_empty() && denied_broadly(c).is_some())
        .cloned()
        .collect();
    let named_verdicts = review_all(&named, &review).await?;
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
async fn review_all<F, Fut>(
    checks: &[PermissionCheck],
    review: &F,
) -> Result<Vec<Verdict>, AccessError>
where
    F: Fn(PermissionCheck) -> Fut,
    Fut: std::future::Future<Output = Result<Verdict, AccessError>>,
{
    use futures::stream::{self, StreamExt, TryStreamExt};
    stream::iter(checks.iter().cloned())
        .map(review)
        .buffered(CONCURRENT_REVIEWS)
        .try_collect()
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reviews_leave_out_an_empty_name_and_keep_the_core_group_empty() {
        let create = PermissionCheck::new("create", "", "secrets", "sei", "");
        let create_review = attributes(&create);
        assert_eq!(create_review.group.as_deref(), Some(""));
        assert_eq!(create_review.namespace.as_deref(), Some("sei"));
        assert_eq!(create_review.name, None);
        let status = PermissionCheck::new("patch", "sei.io", "seinodes", "sei", "rpc-0")
            .subresource("status");
        let status_review = attributes(&status);
        assert_eq!(status_review.subresource.as_deref(), Some("status"));
        assert_eq!(status_review.name.as_deref(), Some("rpc-0"));
    }

    /// A fake authorizer: allowed unless listed in `denied` (verb resource name), counting reviews.
    async fn run_fake(
        checks: &[PermissionCheck],
        denied: &[(&str, &str, &str)],
    ) -> (Result<(), AccessError>, usize) {
        let asked = std::sync::atomic::AtomicUsize::new(0);
        let result = check_with(checks, |check| {
            asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let deny = denied
                .iter()
                .any(|(v, r, n)| check.verb == *v && check.resource == *r && check.name == *n);
            async move { Ok(deny.then(|| "RBAC: no rule".to_owned())) }
        })
        .await;
        (result, asked.into_inner())
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
