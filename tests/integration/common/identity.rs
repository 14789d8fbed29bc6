//! A restricted operator for the action tests: a ServiceAccount of the test namespace bound to
//! a Role, and a kubeconfig that authenticates as it with a TokenRequest token, so the console
//! runs as a distinct, least-privileged identity (also distinguishable in the audit log).
use std::path::{Path, PathBuf};

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use kube::api::{ObjectMeta, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};

use super::{TestNamespace, control_plane};

/// An operator identity (ServiceAccount `name` in the test namespace) and its kubeconfig.
pub struct Operator {
    pub kubeconfig: PathBuf,
    /// As the API server names it: `system:serviceaccount:<namespace>:<name>`.
    pub username: String,
    pub name: String,
}

/// One RBAC rule: `verbs` on `resources` of `group`.
pub fn rule(group: &str, resources: &[&str], verbs: &[&str]) -> PolicyRule {
    PolicyRule {
        api_groups: Some(vec![group.to_owned()]),
        resources: Some(resources.iter().map(|r| (*r).to_owned()).collect()),
        verbs: verbs.iter().map(|v| (*v).to_owned()).collect(),
        ..PolicyRule::default()
    }
}

impl Operator {
    /// Creates the ServiceAccount, a Role with `rules` bound to it, and writes a kubeconfig
    /// (server and CA of the test kubeconfig, a one-hour token) under `dir`.
    pub async fn create(
        ns: &TestNamespace,
        name: &str,
        rules: Vec<PolicyRule>,
        dir: &Path,
    ) -> Operator {
        let meta = |n: &str| ObjectMeta {
            name: Some(n.to_owned()),
            ..ObjectMeta::default()
        };
        let first_rule = rules.first().cloned();
        let service_accounts = ns.api::<ServiceAccount>();
        service_accounts
            .create(
                &PostParams::default(),
                &ServiceAccount {
                    metadata: meta(name),
                    ..ServiceAccount::default()
                },
            )
            .await
            .expect("create ServiceAccount");
        ns.api::<Role>()
            .create(
                &PostParams::default(),
                &Role {
                    metadata: meta(name),
                    rules: Some(rules),
                },
            )
            .await
            .expect("create Role");
        ns.api::<RoleBinding>()
            .create(
                &PostParams::default(),
                &RoleBinding {
                    metadata: meta(name),
                    role_ref: RoleRef {
                        api_group: Some("rbac.authorization.k8s.io".into()),
                        kind: "Role".into(),
                        name: name.to_owned(),
                    },
                    subjects: Some(vec![Subject {
                        kind: "ServiceAccount".into(),
                        name: name.to_owned(),
                        namespace: Some(ns.name.clone()),
                        ..Subject::default()
                    }]),
                },
            )
            .await
            .expect("create RoleBinding");
        let token = service_accounts
            .create_token_request(
                name,
                &PostParams::default(),
                &TokenRequest {
                    spec: Some(TokenRequestSpec {
                        expiration_seconds: Some(3600),
                        ..TokenRequestSpec::default()
                    }),
                    ..TokenRequest::default()
                },
            )
            .await
            .expect("TokenRequest")
            .status
            .expect("token issued")
            .token;
        let admin =
            Kubeconfig::read_from(&control_plane().kubeconfig).expect("read test kubeconfig");
        let cluster = admin.clusters[0].cluster.clone().expect("cluster entry");
        let kubeconfig = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "test", "cluster": {
                "server": cluster.server,
                "certificate-authority-data": cluster.certificate_authority_data,
            }}],
            "users": [{"name": name, "user": {"token": token}}],
            "contexts": [{"name": name, "context": {
                "cluster": "test", "user": name, "namespace": ns.name,
            }}],
            "current-context": name,
        });
        let path = dir.join(format!("{name}.kubeconfig"));
        std::fs::write(
            &path,
            serde_yaml_ng::to_string(&kubeconfig).expect("kubeconfig YAML"),
        )
        .expect("write kubeconfig");
        let operator = Operator {
            kubeconfig: path,
            username: format!("system:serviceaccount:{}:{name}", ns.name),
            name: name.to_owned(),
        };
        if let Some(rule) = first_rule {
            operator.wait_until_granted(ns, &rule).await;
        }
        operator
    }

    /// Waits (10 s at most) until the API server's authorizer grants this operator the first
    /// verb of `rule`: a new RoleBinding reaches its RBAC cache a moment after the create
    /// returns, and a loaded machine made a test's first request land before it.
    async fn wait_until_granted(&self, ns: &TestNamespace, rule: &PolicyRule) {
        let reviews: kube::Api<SelfSubjectAccessReview> = kube::Api::all(self.client().await);
        let attributes = ResourceAttributes {
            group: rule.api_groups.as_ref().and_then(|g| g.first().cloned()),
            resource: rule.resources.as_ref().and_then(|r| r.first().cloned()),
            verb: rule.verbs.first().cloned(),
            namespace: Some(ns.name.clone()),
            ..ResourceAttributes::default()
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let review = SelfSubjectAccessReview {
                spec: SelfSubjectAccessReviewSpec {
                    resource_attributes: Some(attributes.clone()),
                    ..SelfSubjectAccessReviewSpec::default()
                },
                ..SelfSubjectAccessReview::default()
            };
            let allowed = reviews
                .create(&PostParams::default(), &review)
                .await
                .ok()
                .and_then(|r| r.status)
                .is_some_and(|s| s.allowed);
            if allowed {
                return;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{} not granted {attributes:?} 10 s after its RoleBinding",
                self.username
            );
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }

    /// A kube client authenticated as this operator.
    pub async fn client(&self) -> kube::Client {
        let kubeconfig = Kubeconfig::read_from(&self.kubeconfig).expect("operator kubeconfig");
        let config =
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .expect("operator config");
        kube::Client::try_from(super::named(config)).expect("operator client")
    }

    /// Replaces the rules of the operator's Role.
    pub async fn set_rules(&self, ns: &TestNamespace, rules: Vec<PolicyRule>) {
        ns.api::<Role>()
            .patch(
                &self.name,
                &PatchParams::default(),
                &Patch::Merge(serde_json::json!({"rules": rules})),
            )
            .await
            .expect("patch Role");
    }
}
