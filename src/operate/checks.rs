//! The SelfSubjectAccessReview checks of each action: one per API call it will make.
use crate::kube::access::PermissionCheck;

/// Changing one SeiNode's spec and persisting its plan, plus its Event.
pub fn node_change_checks(namespace: &str, node: &str) -> Vec<PermissionCheck> {
    vec![
        PermissionCheck::new("get", "sei.io", "seinodes", namespace, node),
        PermissionCheck::new("patch", "sei.io", "seinodes", namespace, node),
        PermissionCheck::new("patch", "sei.io", "seinodes", namespace, node).subresource("status"),
        PermissionCheck::new("create", "", "events", namespace, ""),
    ]
}

/// Creating a seed: the SeiNode, its plan, its Event, and its node-key Secret (created when
/// the key is generated, read when an existing Secret is named).
pub fn seed_checks(
    namespace: &str,
    node: &str,
    secret: &str,
    generated_key: bool,
) -> Vec<PermissionCheck> {
    vec![
        PermissionCheck::new("create", "sei.io", "seinodes", namespace, ""),
        PermissionCheck::new("get", "sei.io", "seinodes", namespace, node),
        PermissionCheck::new("patch", "sei.io", "seinodes", namespace, node).subresource("status"),
        PermissionCheck::new("create", "", "events", namespace, ""),
        if generated_key {
            PermissionCheck::new("create", "", "secrets", namespace, "")
        } else {
            PermissionCheck::new("get", "", "secrets", namespace, secret)
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_change_checks_every_call_it_makes() {
        let checks: Vec<String> = node_change_checks("sei", "rpc-0")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            checks,
            [
                "get seinodes.sei.io \"rpc-0\" in namespace \"sei\"",
                "patch seinodes.sei.io \"rpc-0\" in namespace \"sei\"",
                "patch seinodes.sei.io/status \"rpc-0\" in namespace \"sei\"",
                "create events in namespace \"sei\"",
            ]
        );
    }

    #[test]
    fn a_seed_with_a_new_key_creates_its_secret_an_existing_one_is_read() {
        let generated = seed_checks("sei", "seed-0", "seed-0-node-key", true);
        assert_eq!(
            generated.last().map(ToString::to_string).as_deref(),
            Some("create secrets in namespace \"sei\"")
        );
        let existing = seed_checks("sei", "seed-0", "mine", false);
        assert_eq!(
            existing.last().map(ToString::to_string).as_deref(),
            Some("get secrets \"mine\" in namespace \"sei\"")
        );
    }
}
