//! `validate-signing-key` (internal/task/validate_signing_key.go), spec section 2.2.
use serde::Deserialize;

use super::api_calls::ApiCall;
use super::secret_checks::{ConditionReasons, KeyFile, KeyShapeError, conclude};
use super::{Cached, ExecuteError, TaskEnv};
use crate::api::{ConditionType, Reason, SeiNode};

/// The data key holding the Tendermint validator key.
pub const SIGNING_KEY_DATA_KEY: &str = "priv_validator_key.json";

/// Reads the signing-key Secret.
pub const API_CALLS: &[ApiCall] = super::secret_checks::API_CALLS;

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct SecretRefParams {
    #[serde(default, rename = "secretname")]
    pub secret_name: String,
    #[serde(default, rename = "namespace")]
    pub namespace: String,
}

#[derive(Debug, Clone)]
pub struct ValidateSigningKey {
    pub params: SecretRefParams,
    pub(crate) state: Cached,
}

const REASONS: ConditionReasons = ConditionReasons {
    kind: ConditionType::SigningKeyReady,
    validated: Reason::SigningKeyValidated,
    not_ready: Reason::SigningKeyNotReady,
    invalid: Reason::SigningKeyInvalid,
};

/// The validator key file and how upstream words its checks.
const SIGNING_KEY: KeyFile = KeyFile {
    task: "validate-signing-key",
    data_key: SIGNING_KEY_DATA_KEY,
    what: "Tendermint validator key",
    rules: "signing-key",
    check_shape,
};

/// The shape upstream decodes (`tendermintValidatorKey`); only presence is checked.
#[derive(Debug, Default, Deserialize)]
struct ValidatorKey {
    #[serde(default)]
    address: String,
    #[serde(default)]
    pub_key: KeyPair,
    #[serde(default)]
    priv_key: KeyPair,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct KeyPair {
    #[serde(default, rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub value: String,
}

impl ValidateSigningKey {
    pub fn new(params: SecretRefParams) -> Self {
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
        let result = SIGNING_KEY
            .validate(env, node, &self.params.secret_name)
            .await;
        conclude(&mut self.state, node, &REASONS, result, env.now)
    }
}

fn check_shape(data: &[u8]) -> Result<(), KeyShapeError> {
    let key: ValidatorKey = serde_json::from_slice(data)?;
    if key.address.is_empty() {
        return Err(KeyShapeError::Missing("address"));
    }
    if key.pub_key.kind.is_empty() || key.pub_key.value.is_empty() {
        return Err(KeyShapeError::Missing("pub_key.type or pub_key.value"));
    }
    if key.priv_key.kind.is_empty() || key.priv_key.value.is_empty() {
        return Err(KeyShapeError::Missing("priv_key.type or priv_key.value"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::testing::*;

    const VALID: &str = r#"{"address":"ABCD","pub_key":{"type":"tendermint/PubKeyEd25519","value":"cHVi"},"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"cHJpdg=="}}"#;

    fn task() -> ValidateSigningKey {
        ValidateSigningKey::new(SecretRefParams {
            secret_name: "sk".into(),
            namespace: "ignored".into(),
        })
    }

    async fn run(h: &Harness, node: &mut SeiNode) -> (Result<(), ExecuteError>, Cached) {
        let mut t = task();
        let r = t.execute(&h.env(), node).await;
        (r, t.state)
    }

    #[tokio::test]
    async fn test_validate_signing_key_valid_secret_completes() {
        let h = Harness::new();
        h.cluster
            .put_secret("ns", "sk", &[(SIGNING_KEY_DATA_KEY, VALID)]);
        let mut node = validator_node("ns", "v");
        let (r, state) = run(&h, &mut node).await;
        assert_eq!(r, Ok(()));
        assert_eq!(state, Cached::Complete);
        assert_condition(
            &node,
            ConditionType::SigningKeyReady,
            "True",
            "SigningKeyValidated",
        );
        assert_eq!(
            condition_message(&node, ConditionType::SigningKeyReady),
            "Secret \"sk\" passes all signing-key validation rules"
        );
    }

    #[tokio::test]
    async fn test_validate_signing_key_secret_not_found_transient() {
        let h = Harness::new();
        let mut node = validator_node("ns", "v");
        let (r, state) = run(&h, &mut node).await;
        assert_eq!(r, Ok(()));
        assert_eq!(state, Cached::Running);
        assert_condition(
            &node,
            ConditionType::SigningKeyReady,
            "False",
            "SigningKeyNotReady",
        );
        assert_eq!(
            condition_message(&node, ConditionType::SigningKeyReady),
            "secret \"sk\" not found in namespace \"ns\""
        );
    }

    #[tokio::test]
    async fn test_validate_signing_key_secret_terminating_transient() {
        let h = Harness::new();
        h.cluster
            .put_secret("ns", "sk", &[(SIGNING_KEY_DATA_KEY, VALID)]);
        h.cluster.mark_secret_deleting("ns", "sk");
        let mut node = validator_node("ns", "v");
        let (r, state) = run(&h, &mut node).await;
        assert_eq!((r, state), (Ok(()), Cached::Running));
        assert_condition(
            &node,
            ConditionType::SigningKeyReady,
            "False",
            "SigningKeyNotReady",
        );
        assert!(
            condition_message(&node, ConditionType::SigningKeyReady).contains("is being deleted")
        );
    }

    #[tokio::test]
    async fn test_validate_signing_key_missing_data_key_terminal() {
        let h = Harness::new();
        h.cluster.put_secret("ns", "sk", &[("other", "x")]);
        let mut node = validator_node("ns", "v");
        let (r, _) = run(&h, &mut node).await;
        assert_eq!(
            r,
            Err(ExecuteError::Terminal(
                "secret \"sk\" missing required data key \"priv_validator_key.json\"".into()
            ))
        );
        assert_condition(
            &node,
            ConditionType::SigningKeyReady,
            "False",
            "SigningKeyInvalid",
        );
    }

    #[tokio::test]
    async fn test_validate_signing_key_empty_data_key_terminal() {
        let h = Harness::new();
        h.cluster
            .put_secret("ns", "sk", &[(SIGNING_KEY_DATA_KEY, "")]);
        let mut node = validator_node("ns", "v");
        let (r, _) = run(&h, &mut node).await;
        assert!(
            matches!(r, Err(ExecuteError::Terminal(m)) if m.contains("missing required data key"))
        );
    }

    #[tokio::test]
    async fn test_validate_signing_key_malformed_json_terminal() {
        let h = Harness::new();
        h.cluster
            .put_secret("ns", "sk", &[(SIGNING_KEY_DATA_KEY, "{not json")]);
        let mut node = validator_node("ns", "v");
        let (r, _) = run(&h, &mut node).await;
        assert!(
            matches!(r, Err(ExecuteError::Terminal(m)) if m.contains("is not a valid Tendermint validator key: not valid JSON"))
        );
        // A wrong JSON type is a JSON error too.
        h.cluster
            .put_secret("ns", "sk", &[(SIGNING_KEY_DATA_KEY, r#"{"address":5}"#)]);
        let (r, _) = run(&h, &mut node).await;
        assert!(matches!(r, Err(ExecuteError::Terminal(m)) if m.contains("not valid JSON")));
    }

    #[tokio::test]
    async fn test_validate_signing_key_missing_address_terminal() {
        let h = Harness::new();
        h.cluster.put_secret(
            "ns",
            "sk",
            &[(
                SIGNING_KEY_DATA_KEY,
                r#"{"pub_key":{"type":"t","value":"v"},"priv_key":{"type":"t","value":"v"}}"#,
            )],
        );
        let mut node = validator_node("ns", "v");
        let (r, _) = run(&h, &mut node).await;
        assert!(matches!(r, Err(ExecuteError::Terminal(m)) if m.ends_with(": missing address")));
    }

    #[tokio::test]
    async fn test_validate_signing_key_missing_pub_key_type_terminal() {
        let h = Harness::new();
        h.cluster.put_secret(
            "ns",
            "sk",
            &[(
                SIGNING_KEY_DATA_KEY,
                r#"{"address":"a","pub_key":{"value":"v"},"priv_key":{"type":"t","value":"v"}}"#,
            )],
        );
        let mut node = validator_node("ns", "v");
        let (r, _) = run(&h, &mut node).await;
        assert!(
            matches!(r, Err(ExecuteError::Terminal(m)) if m.ends_with("missing pub_key.type or pub_key.value"))
        );
    }

    #[tokio::test]
    async fn test_validate_signing_key_empty_secret_name_terminal() {
        let h = Harness::new();
        let mut node = validator_node("ns", "v");
        let mut t = ValidateSigningKey::new(SecretRefParams::default());
        let r = t.execute(&h.env(), &mut node).await;
        assert_eq!(
            r,
            Err(ExecuteError::Terminal(
                "validate-signing-key: secretName is empty".into()
            ))
        );
    }

    #[tokio::test]
    async fn test_validate_signing_key_missing_then_applied_completes() {
        let h = Harness::new();
        let mut node = validator_node("ns", "v");
        assert_eq!(run(&h, &mut node).await.1, Cached::Running);
        h.cluster
            .put_secret("ns", "sk", &[(SIGNING_KEY_DATA_KEY, VALID)]);
        assert_eq!(run(&h, &mut node).await.1, Cached::Complete);
        assert_condition(
            &node,
            ConditionType::SigningKeyReady,
            "True",
            "SigningKeyValidated",
        );
    }

    #[test]
    fn test_tendermint_validator_key_fixture_round_trip() {
        assert!(check_shape(VALID.as_bytes()).is_ok());
        let value: serde_json::Value = serde_json::from_str(VALID).expect("json");
        for field in ["address", "pub_key", "priv_key"] {
            assert!(value.get(field).is_some(), "{field}");
        }
    }

    #[test]
    fn params_decode_with_go_field_casing() {
        let params: SecretRefParams = crate::tasks::decode_params(
            "validate-signing-key",
            Some(&serde_json::json!({"SecretName": "a", "namespace": "n", "extra": 1})),
        )
        .expect("decode");
        assert_eq!(params.secret_name, "a");
    }
}
