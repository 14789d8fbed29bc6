//! validator.go: the validator planner (sei-config mode `validator`).
use super::bootstrap::build_bootstrap_plan;
use super::genesis::build_genesis_plan;
use super::node_update::{UpdateGates, build_running_plan};
use super::planner::{bootstrap_image_needs_s3, build_base_plan, init_intent, is_running};
use super::{PlanContext, PlanError, needs_bootstrap};
use crate::api::{SeiNode, TaskPlan, ValidatorSpec};
use crate::platform::go_quote;

fn invalid(message: impl Into<String>) -> PlanError {
    PlanError::Invalid(message.into())
}

/// Upstream `validatorPlanner.Validate`, checks in upstream order.
pub(super) fn validate(node: &SeiNode) -> Result<(), PlanError> {
    let Some(validator) = &node.spec.validator else {
        return Err(invalid("validator sub-spec is nil"));
    };
    if let Some(signing_key) = &validator.signing_key {
        if validator.genesis_ceremony.is_some() {
            return Err(invalid(
                "validator: signingKey is mutually exclusive with genesisCeremony",
            ));
        }
        let signing_name = signing_key
            .secret
            .as_ref()
            .map_or("", |s| s.secret_name.as_str());
        if signing_name.is_empty() {
            return Err(invalid(
                "validator: signingKey.secret.secretName is required",
            ));
        }
        let Some(node_key) = &validator.node_key else {
            return Err(invalid(
                "validator: nodeKey is required when signingKey is set",
            ));
        };
        let node_name = node_key
            .secret
            .as_ref()
            .map_or("", |s| s.secret_name.as_str());
        if node_name.is_empty() {
            return Err(invalid("validator: nodeKey.secret.secretName is required"));
        }
        if node_name == signing_name {
            return Err(invalid(
                "validator: signingKey and nodeKey must reference distinct Secrets",
            ));
        }
    }
    if validator.node_key.is_some() && validator.signing_key.is_none() {
        return Err(invalid("validator: nodeKey requires signingKey to be set"));
    }
    validate_operator_keyring_distinctness(validator)?;
    if let Some(ceremony) = &validator.genesis_ceremony {
        if ceremony.chain_id.is_empty() {
            return Err(invalid("validator: genesisCeremony.chainId is required"));
        }
        if ceremony.staking_amount.is_empty() {
            return Err(invalid(
                "validator: genesisCeremony.stakingAmount is required",
            ));
        }
        // Quirk: a ceremony validator skips the bootstrap check and accountBalance.
        return Ok(());
    }
    if bootstrap_image_needs_s3(validator.snapshot.as_ref()) {
        return Err(invalid(
            "validator: bootstrapImage requires s3 with targetHeight > 0",
        ));
    }
    Ok(())
}

/// Upstream `validateOperatorKeyringDistinctness` (only when `operatorKeyring.secret` is set).
fn validate_operator_keyring_distinctness(validator: &ValidatorSpec) -> Result<(), PlanError> {
    let Some(keyring) = validator.operator_keyring_secret() else {
        return Ok(());
    };
    let data = keyring.secret_name.as_str();
    let pass = keyring.passphrase_secret_ref.secret_name.as_str();
    if !data.is_empty() && data == pass {
        return Err(invalid(format!(
            "validator: operatorKeyring data Secret {} must differ from its passphrase Secret",
            go_quote(data)
        )));
    }
    for (other, label) in [
        (validator.signing_key_secret_name(), "signingKey"),
        (validator.node_key_secret_name(), "nodeKey"),
    ] {
        if other.is_empty() {
            continue;
        }
        if data == other {
            return Err(invalid(format!(
                "validator: operatorKeyring Secret {} must differ from {label} Secret",
                go_quote(data)
            )));
        }
        if !pass.is_empty() && pass == other {
            return Err(invalid(format!(
                "validator: operatorKeyring passphrase Secret {} must differ from {label} Secret",
                go_quote(pass)
            )));
        }
    }
    Ok(())
}

/// Upstream `validatorPlanner.BuildPlan`: genesis-ceremony plan, bootstrap plan or base plan.
pub(super) fn build_plan(
    node: &mut SeiNode,
    ctx: &PlanContext,
) -> Result<Option<TaskPlan>, PlanError> {
    if is_running(node) {
        return Ok(build_running_plan(node, UpdateGates::Validator, ctx));
    }
    let Some(validator) = &node.spec.validator else {
        return Err(invalid("validator sub-spec is nil"));
    };
    if validator.genesis_ceremony.is_some() {
        return Ok(Some(build_genesis_plan(node, ctx)));
    }
    let intent = init_intent(node, "validator", None);
    let snap = validator.snapshot.as_ref();
    let plan = if needs_bootstrap(node) {
        build_bootstrap_plan(node, snap, &intent, ctx)?
    } else {
        build_base_plan(node, snap, &intent, ctx)?
    };
    Ok(Some(plan))
}
