//! One Kubernetes API call an action will make, as a permission to check, and a denied one.
//! Pure: asking the API server (SelfSubjectAccessReview) is `kube::access`'s job.
use std::fmt;

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

/// A check the authorizer denied.
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
        let cluster_wide = PermissionCheck::new("get", "", "persistentvolumes", "", "");
        assert_eq!(cluster_wide.to_string(), "get persistentvolumes");
    }

    #[test]
    fn a_denial_names_the_check_and_the_reason_when_given() {
        let check = PermissionCheck::new("create", "", "events", "sei", "");
        let silent = Denial {
            check: check.clone(),
            reason: String::new(),
        };
        assert_eq!(silent.to_string(), r#"create events in namespace "sei""#);
        let explained = Denial {
            check,
            reason: "RBAC: no rule".into(),
        };
        assert_eq!(
            explained.to_string(),
            r#"create events in namespace "sei" (RBAC: no rule)"#
        );
    }
}
