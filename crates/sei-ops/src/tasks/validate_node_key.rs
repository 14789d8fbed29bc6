//! `validate-node-key` (internal/task/validate_node_key.go), spec section 2.3.
use serde::Deserialize;

use super::api_calls::ApiCall;
use super::secret_checks::{ConditionReasons, KeyFile, KeyShapeError, conclude};
use super::validate_signing_key::{KeyPair, SecretRefParams};
use super::{Cached, ExecuteError, TaskEnv};
use crate::api::{ConditionType, Reason, SeiNode};

/// The data key holding the Tendermint node key.
pub const NODE_KEY_DATA_KEY: &str = "node_key.json";

const REASONS: ConditionReasons = ConditionReasons {
    kind: ConditionType::NodeKeyReady,
    validated: Reason::NodeKeyValidated,
    not_ready: Reason::NodeKeyNotReady,
    invalid: Reason::NodeKeyInvalid,
};

/// The node key file and how upstream words its checks.
const NODE_KEY: KeyFile = KeyFile {
    task: "validate-node-key",
    data_key: NODE_KEY_DATA_KEY,
    what: "Tendermint node key",
    rules: "node-key",
    check_shape,
};

/// Reads the node-key Secret.
pub const API_CALLS: &[ApiCall] = super::secret_checks::API_CALLS;

#[derive(Debug, Clone)]
pub struct ValidateNodeKey {
    pub params: SecretRefParams,
    pub(crate) state: Cached,
}

#[derive(Debug, Default, Deserialize)]
struct NodeKey {
    #[serde(default)]
    priv_key: KeyPair,
}

impl ValidateNodeKey {
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
        let result = NODE_KEY.validate(env, node, &self.params.secret_name).await;
        conclude(&mut self.state, node, &REASONS, result, env.now)
    }
}

/// Only presence: no length, base64 or type-string checks (as upstream).
fn check_shape(data: &[u8]) -> Result<(), KeyShapeError> {
    let key: NodeKey = serde_json::from_slice(data)?;
    if key.priv_key.kind.is_empty() || key.priv_key.value.is_empty() {
        return Err(KeyShapeError::Missing("priv_key.type or priv_key.value"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::testing::*;

    const VALID: &str = r#"{"priv_key":{"type":"tendermint/PrivKeyEd25519","value":"AAAA"}}"#;

    async fn run(h: &Harness, node: &mut SeiNode) -> (Result<(), ExecuteError>, Cached) {
        let mut t = ValidateNodeKey::new(SecretRefParams {
            secret_name: "nk".into(),
            namespace: String::new(),
        });
        let r = t.execute(&h.env(), node).await;
        (r, t.state)
    }

    #[tokio::test]
    async fn test_validate_node_key_valid_secret_completes() {
        let h = Harness::new();
        h.cluster
            .put_secret("ns", "nk", &[(NODE_KEY_DATA_KEY, VALID)]);
        let mut node = full_node("ns", "s");
        assert_eq!(run(&h, &mut node).await, (Ok(()), Cached::Complete));
        assert_condition(
            &node,
            ConditionType::NodeKeyReady,
            "True",
            "NodeKeyValidated",
        );
    }

    #[tokio::test]
    async fn test_validate_node_key_secret_not_found_transient() {
        let h = Harness::new();
        let mut node = full_node("ns", "s");
        assert_eq!(run(&h, &mut node).await, (Ok(()), Cached::Running));
        assert_condition(
            &node,
            ConditionType::NodeKeyReady,
            "False",
            "NodeKeyNotReady",
        );
    }

    #[tokio::test]
    async fn test_validate_node_key_missing_data_key_terminal() {
        let h = Harness::new();
        h.cluster
            .put_secret("ns", "nk", &[("priv_validator_key.json", VALID)]);
        let mut node = full_node("ns", "s");
        let (r, _) = run(&h, &mut node).await;
        assert!(matches!(r, Err(ExecuteError::Terminal(m)) if m.contains("node_key.json")));
        assert_condition(
            &node,
            ConditionType::NodeKeyReady,
            "False",
            "NodeKeyInvalid",
        );
    }

    #[tokio::test]
    async fn test_validate_node_key_malformed_json_terminal() {
        let h = Harness::new();
        h.cluster
            .put_secret("ns", "nk", &[(NODE_KEY_DATA_KEY, "nope")]);
        let mut node = full_node("ns", "s");
        let (r, _) = run(&h, &mut node).await;
        assert!(matches!(r, Err(ExecuteError::Terminal(m)) if m.contains("not valid JSON")));
    }

    #[tokio::test]
    async fn test_validate_node_key_missing_priv_key_terminal() {
        let h = Harness::new();
        h.cluster.put_secret(
            "ns",
            "nk",
            &[(NODE_KEY_DATA_KEY, r#"{"priv_key":{"type":"","value":""}}"#)],
        );
        let mut node = full_node("ns", "s");
        let (r, _) = run(&h, &mut node).await;
        assert!(matches!(r, Err(ExecuteError::Terminal(m)) if m.contains("priv_key")));
    }

    #[tokio::test]
    async fn test_validate_node_key_missing_then_applied_completes() {
        let h = Harness::new();
        let mut node = full_node("ns", "s");
        assert_eq!(run(&h, &mut node).await.1, Cached::Running);
        h.cluster
            .put_secret("ns", "nk", &[(NODE_KEY_DATA_KEY, VALID)]);
        assert_eq!(run(&h, &mut node).await.1, Cached::Complete);
    }

    #[test]
    fn test_tendermint_node_key_fixture_round_trip() {
        assert!(check_shape(VALID.as_bytes()).is_ok());
        let v: serde_json::Value = serde_json::from_str(VALID).expect("json");
        assert_eq!(v["priv_key"]["type"], "tendermint/PrivKeyEd25519");
    }
}
