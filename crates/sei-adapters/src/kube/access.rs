//! Permission checks against the API server: one SelfSubjectAccessReview per check
//! ([`crate::ports::access`] holds the checks and the order they are asked in).
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::api::{Api, PostParams};

use crate::ports::access::{AccessError, AccessFuture, AccessReview, PermissionCheck};

/// [`AccessReview`] by SelfSubjectAccessReview: what the client's own identity may do.
#[derive(Clone)]
pub struct KubeAccess {
    api: Api<SelfSubjectAccessReview>,
}

impl KubeAccess {
    pub fn new(client: kube::Client) -> Self {
        Self {
            api: Api::all(client),
        }
    }
}

impl AccessReview for KubeAccess {
    fn review(&self, check: PermissionCheck) -> AccessFuture<'_> {
        Box::pin(async move {
            let review = SelfSubjectAccessReview {
                spec: SelfSubjectAccessReviewSpec {
                    resource_attributes: Some(attributes(&check)),
                    ..SelfSubjectAccessReviewSpec::default()
                },
                ..SelfSubjectAccessReview::default()
            };
            let answer = self
                .api
                .create(&PostParams::default(), &review)
                .await
                .map_err(|e| AccessError::Review(super::errors::describe(&e)))?;
            let status = answer.status.unwrap_or_default();
            Ok((!status.allowed).then(|| status.reason.unwrap_or_default()))
        })
    }
}

/// Asks the API server about every check (see [`crate::ports::access::check_permissions`]).
pub async fn check_permissions(
    client: &kube::Client,
    checks: &[PermissionCheck],
) -> Result<(), AccessError> {
    crate::ports::access::check_permissions(&KubeAccess::new(client.clone()), checks).await
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reviews_ask_for_the_checks_attributes() {
        let create = PermissionCheck::new("create", "", "secrets", "sei", "");
        let attributes = attributes(&create);
        assert_eq!(attributes.group.as_deref(), Some(""));
        assert_eq!(attributes.name, None);
        assert_eq!(attributes.namespace.as_deref(), Some("sei"));
    }
}
