//! `validate-operator-keyring` (internal/task/validate_operator_keyring.go), spec section 2.4.
use serde::Deserialize;

use super::api_calls::ApiCall;
use super::secret_checks::{
    Check, ConditionReasons, conclude, fetch_secret, secret_data, secret_keys,
};
use super::{Cached, ExecuteError, TaskEnv, go_quote};
use crate::api::{ConditionType, Reason, SeiNode};

const REASONS: ConditionReasons = ConditionReasons {
    kind: ConditionType::OperatorKeyringReady,
    validated: Reason::OperatorKeyringValidated,
    not_ready: Reason::OperatorKeyringNotReady,
    invalid: Reason::OperatorKeyringInvalid,
};

/// Reads the keyring and passphrase Secrets.
pub const API_CALLS: &[ApiCall] = super::secret_checks::API_CALLS;

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ValidateOperatorKeyringParams {
    #[serde(default, rename = "secretname")]
    pub secret_name: String,
    #[serde(default, rename = "keyname")]
    pub key_name: String,
    #[serde(default, rename = "passphrasesecretname")]
    pub passphrase_secret_name: String,
    #[serde(default, rename = "passphrasesecretkey")]
    pub passphrase_secret_key: String,
    #[serde(default)]
    pub namespace: String,
}

#[derive(Debug, Clone)]
pub struct ValidateOperatorKeyring {
    pub params: ValidateOperatorKeyringParams,
    pub(crate) state: Cached,
}

impl ValidateOperatorKeyring {
    pub fn new(params: ValidateOperatorKeyringParams) -> Self {
        Self {
            params,
            state: Cached::Running,
        }
    }

    pub async fn execute(
        &mut self,
        env: &TaskEnv<'_>,
        node: &mut SeiNode,
    ) -> Result<(), ExecuteError> {
        let result = self.validate(env, node).await;
        conclude(&mut self.state, node, &REASONS, result, env.now)
    }

    async fn validate(&self, env: &TaskEnv<'_>, node: &SeiNode) -> Result<String, Check> {
        let p = &self.params;
        for (value, field) in [
            (&p.secret_name, "secretName"),
            (&p.passphrase_secret_name, "passphraseSecretName"),
            (&p.passphrase_secret_key, "passphraseSecretKey"),
        ] {
            if value.is_empty() {
                return Err(Check::Invalid(format!(
                    "validate-operator-keyring: {field} is empty"
                )));
            }
        }
        let keyring = fetch_secret(env.cluster, node.namespace(), &p.secret_name).await?;
        let name = go_quote(&p.secret_name);
        let keys = secret_keys(&keyring);
        let mut has_info = false;
        for key in keys.iter().filter(|k| k.ends_with(".info")) {
            has_info = true;
            if secret_data(&keyring, key).is_none_or(<[u8]>::is_empty) {
                return Err(Check::Invalid(format!(
                    "secret {name} data key {} is empty (expected non-empty keyring entry payload)",
                    go_quote(key)
                )));
            }
        }
        if !has_info {
            return Err(Check::Invalid(format!(
                "secret {name} has no \"*.info\" data keys (expected at least one keyring entry)"
            )));
        }
        if !keys.iter().any(|k| k.ends_with(".address")) {
            return Err(Check::Invalid(format!(
                "secret {name} has no \"*.address\" data keys (expected name\u{2192}address index for at least one keyring entry)"
            )));
        }
        if !p.key_name.is_empty() {
            let wanted = format!("{}.info", p.key_name);
            if !keys.contains(&wanted.as_str()) {
                return Err(Check::Invalid(format!(
                    "secret {name} is missing data key {} for keyName {}",
                    go_quote(&wanted),
                    go_quote(&p.key_name)
                )));
            }
        }
        let passphrase =
            fetch_secret(env.cluster, node.namespace(), &p.passphrase_secret_name).await?;
        let pass_name = go_quote(&p.passphrase_secret_name);
        let pass_key = go_quote(&p.passphrase_secret_key);
        match secret_data(&passphrase, &p.passphrase_secret_key) {
            None => {
                return Err(Check::Invalid(format!(
                    "passphrase Secret {pass_name} missing data key {pass_key}"
                )));
            }
            Some([]) => {
                return Err(Check::Invalid(format!(
                    "passphrase Secret {pass_name} data key {pass_key} is empty"
                )));
            }
            Some(_) => {}
        }
        Ok(format!(
            "Secret pair ({name}, {pass_name}) passes operator-keyring validation"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::testing::*;

    fn params() -> ValidateOperatorKeyringParams {
        ValidateOperatorKeyringParams {
            secret_name: "kr".into(),
            key_name: "node_admin".into(),
            passphrase_secret_name: "pp".into(),
            passphrase_secret_key: "passphrase".into(),
            namespace: String::new(),
        }
    }

    async fn run_with(
        h: &Harness,
        p: ValidateOperatorKeyringParams,
    ) -> (Result<(), ExecuteError>, Cached, SeiNode) {
        let mut node = validator_node("ns", "v");
        let mut t = ValidateOperatorKeyring::new(p);
        let r = t.execute(&h.env(), &mut node).await;
        (r, t.state, node)
    }

    fn valid_pair(h: &Harness) {
        h.cluster.put_secret(
            "ns",
            "kr",
            &[("node_admin.info", "payload"), ("abcd.address", "")],
        );
        h.cluster
            .put_secret("ns", "pp", &[("passphrase", "secret")]);
    }

    fn terminal_message(r: Result<(), ExecuteError>) -> String {
        match r {
            Err(ExecuteError::Terminal(m)) => m,
            other => panic!("expected terminal, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn test_validate_operator_keyring_valid_pair_completes() {
        let h = Harness::new();
        valid_pair(&h);
        let (r, state, node) = run_with(&h, params()).await;
        assert_eq!((r, state), (Ok(()), Cached::Complete));
        assert_condition(
            &node,
            ConditionType::OperatorKeyringReady,
            "True",
            "OperatorKeyringValidated",
        );
        assert_eq!(
            condition_message(&node, ConditionType::OperatorKeyringReady),
            "Secret pair (\"kr\", \"pp\") passes operator-keyring validation"
        );
    }

    #[tokio::test]
    async fn test_validate_operator_keyring_missing_secrets_are_transient() {
        let h = Harness::new();
        let (r, state, node) = run_with(&h, params()).await;
        assert_eq!((r, state), (Ok(()), Cached::Running));
        assert_condition(
            &node,
            ConditionType::OperatorKeyringReady,
            "False",
            "OperatorKeyringNotReady",
        );
        h.cluster.put_secret(
            "ns",
            "kr",
            &[("node_admin.info", "payload"), ("a.address", "")],
        );
        let (r, state, node) = run_with(&h, params()).await;
        assert_eq!((r, state), (Ok(()), Cached::Running));
        assert!(
            condition_message(&node, ConditionType::OperatorKeyringReady)
                .contains("\"pp\" not found")
        );
        h.cluster.put_secret("ns", "pp", &[("passphrase", "x")]);
        h.cluster.mark_secret_deleting("ns", "pp");
        let (_, state, _) = run_with(&h, params()).await;
        assert_eq!(state, Cached::Running);
    }

    #[tokio::test]
    async fn test_validate_operator_keyring_shape_failures_are_terminal() {
        let h = Harness::new();
        h.cluster.put_secret("ns", "kr", &[("a.address", "")]);
        let (r, _, node) = run_with(&h, params()).await;
        assert!(terminal_message(r).contains("has no \"*.info\" data keys"));
        assert_condition(
            &node,
            ConditionType::OperatorKeyringReady,
            "False",
            "OperatorKeyringInvalid",
        );

        h.cluster
            .put_secret("ns", "kr", &[("node_admin.info", "x")]);
        let (r, _, _) = run_with(&h, params()).await;
        assert!(terminal_message(r).contains("name\u{2192}address"));

        h.cluster
            .put_secret("ns", "kr", &[("node_admin.info", ""), ("a.address", "")]);
        let (r, _, _) = run_with(&h, params()).await;
        assert!(
            terminal_message(r).contains("is empty (expected non-empty keyring entry payload)")
        );

        h.cluster
            .put_secret("ns", "kr", &[("other.info", "x"), ("a.address", "")]);
        let (r, _, _) = run_with(&h, params()).await;
        assert_eq!(
            terminal_message(r),
            "secret \"kr\" is missing data key \"node_admin.info\" for keyName \"node_admin\""
        );
    }

    #[tokio::test]
    async fn test_validate_operator_keyring_passphrase_key_missing_or_empty_terminal() {
        let h = Harness::new();
        h.cluster
            .put_secret("ns", "kr", &[("node_admin.info", "p"), ("a.address", "")]);
        h.cluster.put_secret("ns", "pp", &[("other", "x")]);
        let (r, _, _) = run_with(&h, params()).await;
        assert_eq!(
            terminal_message(r),
            "passphrase Secret \"pp\" missing data key \"passphrase\""
        );
        h.cluster.put_secret("ns", "pp", &[("passphrase", "")]);
        let (r, _, _) = run_with(&h, params()).await;
        assert_eq!(
            terminal_message(r),
            "passphrase Secret \"pp\" data key \"passphrase\" is empty"
        );
    }

    #[tokio::test]
    async fn test_validate_operator_keyring_empty_names_terminal() {
        let h = Harness::new();
        let mut p = params();
        p.secret_name.clear();
        assert_eq!(
            terminal_message(run_with(&h, p).await.0),
            "validate-operator-keyring: secretName is empty"
        );
        let mut p = params();
        p.passphrase_secret_name.clear();
        assert_eq!(
            terminal_message(run_with(&h, p).await.0),
            "validate-operator-keyring: passphraseSecretName is empty"
        );
        let mut p = params();
        p.passphrase_secret_key.clear();
        assert_eq!(
            terminal_message(run_with(&h, p).await.0),
            "validate-operator-keyring: passphraseSecretKey is empty"
        );
    }

    #[tokio::test]
    async fn test_validate_operator_keyring_converges_after_creation() {
        let h = Harness::new();
        assert_eq!(run_with(&h, params()).await.1, Cached::Running);
        valid_pair(&h);
        assert_eq!(run_with(&h, params()).await.1, Cached::Complete);
    }
}
