//! Node builders shared by the planner tests (and the CLI/bench fixtures mirror them).
use jiff::Timestamp;

use super::PlanContext;
use crate::api::*;

pub(crate) const PLATFORM_SIDECAR: &str = "ghcr.io/sei-protocol/seictl:platform";

pub fn ctx() -> PlanContext {
    let now = Timestamp::from_second(1_714_564_800).expect("fixed now");
    PlanContext::new(PLATFORM_SIDECAR, now).with_plan_id(uuid::Uuid::nil())
}

fn spec() -> SeiNodeSpec {
    SeiNodeSpec {
        chain_id: "pacific-1".into(),
        image: "ghcr.io/sei-protocol/sei:v6.3.0".into(),
        ..SeiNodeSpec::default()
    }
}

pub fn full_node(name: &str) -> SeiNode {
    SeiNode::new(
        "ns",
        name,
        SeiNodeSpec {
            full_node: Some(Box::new(FullNodeSpec::default())),
            ..spec()
        },
    )
}

pub fn archive_node(name: &str) -> SeiNode {
    SeiNode::new(
        "ns",
        name,
        SeiNodeSpec {
            archive: Some(Box::new(ArchiveSpec::default())),
            ..spec()
        },
    )
}

pub fn static_peers() -> Vec<PeerSource> {
    vec![PeerSource {
        static_: Some(StaticPeerSource {
            addresses: vec!["id@peer:26656".into()],
            ..Default::default()
        }),
        ..Default::default()
    }]
}

pub fn replayer_node(name: &str, target_height: i64) -> SeiNode {
    let replayer = ReplayerSpec {
        snapshot: s3(target_height),
        ..ReplayerSpec::default()
    };
    SeiNode::new(
        "ns",
        name,
        SeiNodeSpec {
            replayer: Some(Box::new(replayer)),
            peers: Some(static_peers()),
            ..spec()
        },
    )
}

pub fn validator_node(name: &str) -> SeiNode {
    SeiNode::new(
        "ns",
        name,
        SeiNodeSpec {
            validator: Some(Box::new(ValidatorSpec::default())),
            ..spec()
        },
    )
}

pub fn seed_node(name: &str, node_key_secret: &str) -> SeiNode {
    let seed = SeedSpec {
        node_key: node_key(node_key_secret),
        ..SeedSpec::default()
    };
    SeiNode::new(
        "ns",
        name,
        SeiNodeSpec {
            seed: Some(Box::new(seed)),
            ..spec()
        },
    )
}

pub fn secret(name: &str) -> SecretNameRef {
    SecretNameRef {
        secret_name: name.into(),
        ..Default::default()
    }
}

pub fn node_key(name: &str) -> NodeKeySource {
    NodeKeySource {
        secret: Some(secret(name)),
        ..Default::default()
    }
}

pub fn s3(target_height: i64) -> SnapshotSource {
    SnapshotSource {
        s3: Some(S3SnapshotSource {
            target_height,
            ..Default::default()
        }),
        ..SnapshotSource::default()
    }
}

pub fn state_sync() -> SnapshotSource {
    SnapshotSource {
        state_sync: Some(StateSyncSource::default()),
        ..SnapshotSource::default()
    }
}

pub fn with_bootstrap(mut snap: SnapshotSource) -> SnapshotSource {
    snap.bootstrap_image = Some("ghcr.io/sei-protocol/sei:v6.3.0".into());
    snap
}

pub fn validator_mut(node: &mut SeiNode) -> &mut ValidatorSpec {
    node.spec.validator.as_mut().expect("validator sub-spec")
}

pub fn with_keys(mut node: SeiNode, signing: &str, node_key_name: &str) -> SeiNode {
    let validator = validator_mut(&mut node);
    validator.signing_key = Some(SigningKeySource {
        secret: Some(secret(signing)),
        ..Default::default()
    });
    validator.node_key = Some(node_key(node_key_name));
    node
}

pub fn with_operator_keyring(mut node: SeiNode, data: &str, pass: &str) -> SeiNode {
    validator_mut(&mut node).operator_keyring = Some(OperatorKeyringSource {
        secret: Some(SecretOperatorKeyringSource {
            secret_name: data.into(),
            passphrase_secret_ref: PassphraseSecretRef {
                secret_name: pass.into(),
                key: "passphrase".into(),
                ..Default::default()
            },
            ..Default::default()
        }),
        ..Default::default()
    });
    node
}

pub fn with_genesis_ceremony(mut node: SeiNode) -> SeiNode {
    validator_mut(&mut node).genesis_ceremony = Some(GenesisCeremonyNodeConfig {
        chain_id: "arctic-1".into(),
        staking_amount: "10000000usei".into(),
        account_balance: "20000000usei".into(),
        index: 0,
        ..Default::default()
    });
    node
}

/// Phase Running with the given observed images.
pub fn running(mut node: SeiNode, current_image: &str, current_sidecar: &str) -> SeiNode {
    let status = node.status_mut();
    status.phase = Some(Phase::Running);
    status.current_image = Some(current_image.into());
    status.current_sidecar_image = Some(current_sidecar.into());
    node
}

/// Running with images equal to the spec (no drift).
pub fn running_steady(node: SeiNode) -> SeiNode {
    let image = node.spec.image.clone();
    running(node, &image, "")
}

pub fn with_condition(
    mut node: SeiNode,
    kind: ConditionType,
    status: ConditionStatus,
    reason: Reason,
) -> SeiNode {
    let now = ctx().now;
    let conditions = node.status_mut().conditions.get_or_insert_with(Vec::new);
    let update = ConditionUpdate {
        kind,
        status,
        reason,
        message: String::new(),
        observed_generation: 1,
    };
    set_condition(conditions, update, now);
    node
}

/// The abbreviations of a plan's task types, as the oracle tables write them.
pub fn abbrevs(plan: &TaskPlan) -> Vec<String> {
    plan.tasks
        .iter()
        .map(|t| t.kind.abbrev().to_owned())
        .collect()
}

pub fn split(abbrevs: &str) -> Vec<String> {
    abbrevs.split(", ").map(str::to_owned).collect()
}
