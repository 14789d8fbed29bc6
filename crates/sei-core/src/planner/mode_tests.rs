//! Validate rules and stored params per mode (upstream validator_test.go, full_test.go,
//! archive_test.go, replay_test.go, seed_test.go, common_overrides_test.go,
//! logging_level_test.go, statesync_witness_test.go, sidecar_proxy_test.go).
use serde_json::json;

use super::test_support::*;
use super::*;
use crate::api::*;

fn err(node: &SeiNode) -> String {
    validate(node).expect_err("should be rejected").to_string()
}

fn init_plan(node: &SeiNode) -> TaskPlan {
    build_plan(&mut node.clone(), &ctx())
        .expect("build")
        .expect("plan")
}

fn position(plan: &TaskPlan, kind: TaskKind) -> usize {
    plan.tasks
        .iter()
        .position(|t| t.kind == kind)
        .unwrap_or(usize::MAX)
}

fn params_of(plan: &TaskPlan, kind: TaskKind) -> serde_json::Value {
    plan.tasks
        .iter()
        .find(|t| t.kind == kind)
        .and_then(|t| t.params.as_deref().cloned())
        .expect("task params")
}

#[test]
fn stored_plan_matches_the_spec_example_byte_for_byte() {
    let mut node = validator_node("v-0");
    let plan = build_plan(&mut node, &ctx()).expect("build").expect("plan");
    let id = |kind: &str, index: usize| task_id(&plan.id, &TaskKind::parse(kind), index);
    let expected = json!({"id": "00000000-0000-0000-0000-000000000000", "phase": "Active",
      "targetPhase": "Running", "failedPhase": "Failed", "tasks": [
        {"type":"ensure-data-pvc","id":id("ensure-data-pvc",0),"status":"Pending","params":{"nodeName":"v-0","namespace":"ns"}},
        {"type":"apply-rbac-proxy-config","id":id("apply-rbac-proxy-config",1),"status":"Pending","params":{"nodeName":"v-0","namespace":"ns"}},
        {"type":"apply-statefulset","id":id("apply-statefulset",2),"status":"Pending","params":{"nodeName":"v-0","namespace":"ns"}},
        {"type":"apply-service","id":id("apply-service",3),"status":"Pending","params":{"nodeName":"v-0","namespace":"ns"}},
        {"type":"configure-genesis","id":id("configure-genesis",4),"status":"Pending","params":{"ExpectedGenesisHash":""},"maxRetries":180},
        {"type":"config-apply","id":id("config-apply",5),"status":"Pending","params":{"mode":"validator","overrides":{"logging.level":"error","network.p2p.persistent_peers":""}}},
        {"type":"config-validate","id":id("config-validate",6),"status":"Pending","params":{}},
        {"type":"mark-ready","id":id("mark-ready",7),"status":"Pending","params":{}}]});
    assert_eq!(serde_json::to_value(&plan).expect("ser"), expected);
    assert_eq!(plan.tasks[0].id, "a6787ec4-4403-56ac-afd0-f275a2954e39");
    let text = serde_json::to_string(&plan.tasks[4]).expect("ser");
    assert!(
        text.starts_with(r#"{"type":"configure-genesis","id":"#),
        "key order follows Go"
    );
}

#[test]
fn validator_signing_key_rules() {
    let ok = [
        validator_node("v"),
        with_keys(validator_node("v"), "sk", "nk"),
        {
            let mut n = with_keys(validator_node("v"), "sk", "nk");
            validator_mut(&mut n).snapshot = Some(with_bootstrap(s3(10)));
            n
        },
    ];
    for node in ok {
        validate(&node).expect("valid");
    }
    let mut sk_only = with_keys(validator_node("v"), "sk", "nk");
    validator_mut(&mut sk_only).node_key = None;
    assert_eq!(
        err(&sk_only),
        "validator: nodeKey is required when signingKey is set"
    );
    let mut nk_only = with_keys(validator_node("v"), "sk", "nk");
    validator_mut(&mut nk_only).signing_key = None;
    assert_eq!(
        err(&nk_only),
        "validator: nodeKey requires signingKey to be set"
    );
    assert_eq!(
        err(&with_keys(validator_node("v"), "same", "same")),
        "validator: signingKey and nodeKey must reference distinct Secrets"
    );
    assert_eq!(
        err(&with_keys(validator_node("v"), "", "nk")),
        "validator: signingKey.secret.secretName is required"
    );
    let mut nil_secret = with_keys(validator_node("v"), "sk", "nk");
    validator_mut(&mut nil_secret).signing_key = Some(SigningKeySource::default());
    assert_eq!(
        err(&nil_secret),
        "validator: signingKey.secret.secretName is required"
    );
    assert_eq!(
        err(&with_keys(validator_node("v"), "sk", "")),
        "validator: nodeKey.secret.secretName is required"
    );
    let ceremony_keys = with_genesis_ceremony(with_keys(validator_node("v"), "sk", "nk"));
    assert_eq!(
        err(&ceremony_keys),
        "validator: signingKey is mutually exclusive with genesisCeremony"
    );
}

#[test]
fn validator_operator_keyring_distinctness() {
    let keyed = || with_keys(validator_node("v"), "sk", "nk");
    validate(&with_operator_keyring(keyed(), "opk", "pass")).expect("four distinct names");
    let cases = [
        (
            "sk",
            "pass",
            r#"validator: operatorKeyring Secret "sk" must differ from signingKey Secret"#,
        ),
        (
            "nk",
            "pass",
            r#"validator: operatorKeyring Secret "nk" must differ from nodeKey Secret"#,
        ),
        (
            "opk",
            "opk",
            r#"validator: operatorKeyring data Secret "opk" must differ from its passphrase Secret"#,
        ),
        (
            "opk",
            "sk",
            r#"validator: operatorKeyring passphrase Secret "sk" must differ from signingKey Secret"#,
        ),
        (
            "opk",
            "nk",
            r#"validator: operatorKeyring passphrase Secret "nk" must differ from nodeKey Secret"#,
        ),
    ];
    for (data, pass, message) in cases {
        assert_eq!(err(&with_operator_keyring(keyed(), data, pass)), message);
    }
}

#[test]
fn validator_genesis_ceremony_rules() {
    let mut missing_chain = with_genesis_ceremony(validator_node("v"));
    validator_mut(&mut missing_chain)
        .genesis_ceremony
        .as_mut()
        .expect("gc")
        .chain_id
        .clear();
    assert_eq!(
        err(&missing_chain),
        "validator: genesisCeremony.chainId is required"
    );
    let mut missing_stake = with_genesis_ceremony(validator_node("v"));
    validator_mut(&mut missing_stake)
        .genesis_ceremony
        .as_mut()
        .expect("gc")
        .staking_amount
        .clear();
    assert_eq!(
        err(&missing_stake),
        "validator: genesisCeremony.stakingAmount is required"
    );
}

#[test]
fn quirk_genesis_ceremony_validator_skips_bootstrap_and_balance_checks() {
    let mut node = with_genesis_ceremony(validator_node("v"));
    let validator = validator_mut(&mut node);
    validator
        .genesis_ceremony
        .as_mut()
        .expect("gc")
        .account_balance
        .clear();
    validator.snapshot = Some(with_bootstrap(state_sync()));
    validate(&node).expect("ceremony returns early");
    validator_mut(&mut node).genesis_ceremony = None;
    assert_eq!(
        err(&node),
        "validator: bootstrapImage requires s3 with targetHeight > 0"
    );
}

#[test]
fn validator_plans_place_validate_tasks_and_params() {
    let mut boot = with_operator_keyring(
        with_keys(
            validator_node("v"),
            "validator-0-key",
            "validator-0-nodekey",
        ),
        "opk",
        "pass",
    );
    validator_mut(&mut boot).snapshot = Some(with_bootstrap(s3(10)));
    let plan = init_plan(&boot);
    let pvc = position(&plan, TaskKind::EnsureDataPvc);
    let vsk = position(&plan, TaskKind::ValidateSigningKey);
    let vnk = position(&plan, TaskKind::ValidateNodeKey);
    let vok = position(&plan, TaskKind::ValidateOperatorKeyring);
    assert!(
        pvc < vsk && vsk < vnk && vnk < vok && vok < position(&plan, TaskKind::DeployBootstrapJob)
    );
    assert_eq!(
        params_of(&plan, TaskKind::ValidateSigningKey),
        json!({"secretName":"validator-0-key","namespace":"ns"})
    );
    assert_eq!(
        params_of(&plan, TaskKind::ValidateNodeKey),
        json!({"secretName":"validator-0-nodekey","namespace":"ns"})
    );
    assert_eq!(
        serde_json::to_string(&params_of(&plan, TaskKind::ValidateOperatorKeyring)).expect("ser"),
        r#"{"secretName":"opk","keyName":"node_admin","passphraseSecretName":"pass","passphraseSecretKey":"passphrase","namespace":"ns"}"#
    );
    let base = init_plan(&with_operator_keyring(
        with_keys(validator_node("v"), "sk", "nk"),
        "opk",
        "pass",
    ));
    assert!(
        position(&base, TaskKind::ValidateOperatorKeyring)
            < position(&base, TaskKind::ApplyStatefulSet)
    );
    assert!(
        position(&base, TaskKind::ValidateNodeKey)
            < position(&base, TaskKind::ValidateOperatorKeyring)
    );
    let plain = init_plan(&validator_node("v"));
    assert_eq!(
        position(&plain, TaskKind::ValidateOperatorKeyring),
        usize::MAX
    );
    assert_eq!(position(&plain, TaskKind::ValidateSigningKey), usize::MAX);
}

#[test]
fn quirk_bootstrap_plan_puts_rbac_before_validate_tasks_and_keeps_mark_ready() {
    let mut node = with_keys(validator_node("v"), "sk", "nk");
    validator_mut(&mut node).snapshot = Some(with_bootstrap(s3(10)));
    let plan = init_plan(&node);
    assert!(
        position(&plan, TaskKind::ApplyRbacProxyConfig)
            < position(&plan, TaskKind::ValidateSigningKey)
    );
    let marks = plan
        .tasks
        .iter()
        .filter(|t| t.kind == TaskKind::MarkReady)
        .count();
    assert_eq!(marks, 2);
    assert_eq!(
        params_of(&plan, TaskKind::DeployBootstrapService),
        json!({"serviceName":"v","namespace":"ns"})
    );
    assert_eq!(
        params_of(&plan, TaskKind::DeployBootstrapJob),
        json!({"jobName":"v-bootstrap","namespace":"ns"})
    );
    assert_eq!(
        params_of(&plan, TaskKind::AwaitBootstrapComplete),
        json!({"jobName":"v-bootstrap","namespace":"ns"})
    );
    assert_eq!(
        serde_json::to_string(&params_of(&plan, TaskKind::TeardownBootstrap)).expect("ser"),
        r#"{"jobName":"v-bootstrap","serviceName":"v","namespace":"ns"}"#
    );
    assert_eq!(
        params_of(&plan, TaskKind::SnapshotRestore),
        json!({"TargetHeight": 10})
    );
}

#[test]
fn rbac_comes_before_statefulset_in_validator_and_genesis_plans() {
    for node in [
        validator_node("v"),
        with_genesis_ceremony(validator_node("v")),
    ] {
        let plan = init_plan(&node);
        assert!(
            position(&plan, TaskKind::ApplyRbacProxyConfig)
                < position(&plan, TaskKind::ApplyStatefulSet)
        );
    }
}

#[test]
fn genesis_ceremony_params_are_title_case() {
    let plan = init_plan(&with_genesis_ceremony(validator_node("v-0")));
    assert_eq!(
        params_of(&plan, TaskKind::GenerateIdentity),
        json!({"ChainID":"arctic-1","Moniker":"v-0"})
    );
    assert_eq!(
        serde_json::to_string(&params_of(&plan, TaskKind::GenerateGentx)).expect("ser"),
        r#"{"ChainID":"arctic-1","StakingAmount":"10000000usei","AccountBalance":"20000000usei"}"#
    );
    assert_eq!(
        params_of(&plan, TaskKind::UploadGenesisArtifacts),
        json!({"NodeName":"v-0"})
    );
    assert_eq!(params_of(&plan, TaskKind::SetGenesisPeers), json!({}));
    assert_eq!(params_of(&plan, TaskKind::ConfigApply)["mode"], "validator");
    let without = params_for_task(
        &validator_node("v"),
        &TaskKind::GenerateIdentity,
        None,
        None,
    );
    assert!(without.is_null(), "null params without a genesisCeremony");
}

#[test]
fn snapshot_generation_validation_per_mode() {
    let generation = |keep_recent: i32, publish: bool, tendermint: bool| SnapshotGenerationConfig {
        tendermint: tendermint.then(|| TendermintSnapshotGenerationConfig {
            keep_recent,
            publish: publish.then(TendermintSnapshotPublishConfig::default),
            ..Default::default()
        }),
        ..Default::default()
    };
    for (prefix, make) in [
        ("fullNode", full_node as fn(&str) -> SeiNode),
        ("archive", archive_node as fn(&str) -> SeiNode),
    ] {
        let with = |g: Option<SnapshotGenerationConfig>| {
            let mut node = make("n");
            match (&mut node.spec.full_node, &mut node.spec.archive) {
                (Some(full), _) => full.snapshot_generation = g,
                (_, Some(archive)) => archive.snapshot_generation = g,
                _ => {}
            }
            node
        };
        validate(&with(None)).expect("nil");
        validate(&with(Some(generation(1, false, true)))).expect("keepRecent 1 without publish");
        validate(&with(Some(generation(2, true, true)))).expect("publish with 2");
        assert_eq!(
            err(&with(Some(generation(0, false, false)))),
            format!(
                "{prefix}: snapshotGeneration is set but has no sub-struct (e.g., tendermint); omit it to disable snapshot generation"
            )
        );
        assert_eq!(
            err(&with(Some(generation(1, true, true)))),
            format!(
                "{prefix}: snapshotGeneration.tendermint.keepRecent must be >= 2 when publish is set (upload algorithm requires the second-to-latest snapshot)"
            )
        );
        let plan = init_plan(&with(Some(generation(5, true, true))));
        assert!(
            plan.tasks
                .iter()
                .all(|t| t.kind != TaskKind::SnapshotUpload)
        );
    }
}

#[test]
fn full_bootstrap_image_requires_s3_height() {
    let mut node = full_node("f");
    node.spec.full_node.as_mut().expect("full").snapshot = Some(with_bootstrap(state_sync()));
    assert_eq!(
        err(&node),
        "fullNode: bootstrapImage requires s3 with targetHeight > 0"
    );
    node.spec.full_node.as_mut().expect("full").snapshot = Some(with_bootstrap(s3(0)));
    assert_eq!(
        err(&node),
        "fullNode: bootstrapImage requires s3 with targetHeight > 0"
    );
}

#[test]
fn archive_overrides_and_peers() {
    let mut node = archive_node("a");
    node.status_mut().resolved_peers = Some(vec!["peer1@host:26656".into()]);
    let plan = init_plan(&node);
    assert_eq!(
        params_of(&plan, TaskKind::ConfigApply),
        json!({"mode":"archive","overrides":{"logging.level":"error","network.p2p.persistent_peers":"peer1@host:26656"}})
    );
    node.spec
        .archive
        .as_mut()
        .expect("archive")
        .snapshot_generation = Some(SnapshotGenerationConfig {
        tendermint: Some(TendermintSnapshotGenerationConfig {
            keep_recent: 5,
            ..Default::default()
        }),
        ..Default::default()
    });
    let overrides = params_of(&init_plan(&node), TaskKind::ConfigApply)["overrides"].clone();
    assert_eq!(overrides["storage.snapshot_keep_recent"], "5");
    assert_eq!(overrides["storage.snapshot_interval"], "2000");
    assert_eq!(overrides.as_object().expect("map").len(), 4);
}

#[test]
fn replayer_validation_rules() {
    let mut state_sync_replayer = replayer_node("r", 10);
    state_sync_replayer
        .spec
        .replayer
        .as_mut()
        .expect("r")
        .snapshot = state_sync();
    assert_eq!(
        err(&state_sync_replayer),
        "replayer requires an S3 snapshot source"
    );
    assert_eq!(
        err(&replayer_node("r", 0)),
        "replayer: s3.targetHeight must be > 0"
    );
    let mut no_peers = replayer_node("r", 10);
    no_peers.spec.peers = Some(Vec::new());
    assert_eq!(
        err(&no_peers),
        "replayer requires at least one peer source for block sync"
    );
    let mut export = replayer_node("r", 10);
    export.spec.replayer.as_mut().expect("r").result_export = Some(ResultExportConfig::default());
    assert_eq!(
        err(&export),
        "replayer: resultExport is set but has no sub-struct (e.g., shadowResult); omit it to disable result export"
    );
    export.spec.replayer.as_mut().expect("r").result_export = Some(ResultExportConfig {
        shadow_result: Some(ShadowResultConfig {
            canonical_rpc: "http://rpc".into(),
            ..Default::default()
        }),
        ..Default::default()
    });
    validate(&export).expect("shadowResult passes");
    let overrides = params_of(&init_plan(&export), TaskKind::ConfigApply);
    assert_eq!(overrides["mode"], "full");
    assert_eq!(
        overrides["overrides"]["storage.state_commit.async_commit_buffer"],
        "100"
    );
}

#[test]
fn seed_rules_and_intent() {
    let mut empty_key = seed_node("s", "");
    empty_key.spec.seed.as_mut().expect("seed").node_key = NodeKeySource::default();
    assert_eq!(
        err(&empty_key),
        "seed: nodeKey.secret.secretName is required \u{2014} a seed's NodeID is published and must not be regenerated"
    );
    let plan = init_plan(&seed_node("s", "seed-key"));
    assert_eq!(params_of(&plan, TaskKind::ConfigApply)["mode"], "seed");
    for absent in [
        TaskKind::SnapshotRestore,
        TaskKind::ConfigureStateSync,
        TaskKind::ValidateSigningKey,
        TaskKind::ValidateOperatorKeyring,
    ] {
        assert_eq!(position(&plan, absent), usize::MAX);
    }
    let mut update = running(seed_node("s", "seed-key"), "old", "");
    let update_plan = build_plan(&mut update, &ctx()).expect("b").expect("p");
    assert_eq!(update_plan.tasks[0].kind, TaskKind::ValidateNodeKey);
}

#[test]
fn common_overrides_and_user_precedence() {
    let mut node = full_node("f");
    let common = common_overrides(&node);
    assert_eq!(
        common.get("logging.level").map(String::as_str),
        Some("error")
    );
    assert_eq!(
        common
            .get("network.p2p.persistent_peers")
            .map(String::as_str),
        Some("")
    );
    assert!(!common.contains_key("network.p2p.external_address"));
    node.spec.external_address = Some("1.2.3.4:26656".into());
    node.status_mut().resolved_peers = Some(vec!["a@h:1".into(), "b@h:2".into()]);
    let common = common_overrides(&node);
    assert_eq!(common["network.p2p.external_address"], "1.2.3.4:26656");
    assert_eq!(common["network.p2p.persistent_peers"], "a@h:1,b@h:2");
    node.spec.overrides = Some(
        [
            ("logging.level", "debug"),
            ("network.p2p.external_address", "user:1"),
            ("user.only", "x"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect(),
    );
    let overrides = params_of(&init_plan(&node), TaskKind::ConfigApply)["overrides"].clone();
    assert_eq!(overrides["logging.level"], "debug");
    assert_eq!(overrides["network.p2p.external_address"], "user:1");
    assert_eq!(overrides["user.only"], "x");
}

#[test]
fn configure_state_sync_params_snapshot_resolved_syncers() {
    let mut node = full_node("f");
    node.spec.full_node.as_mut().expect("full").snapshot = Some(SnapshotSource {
        trust_period: Some("168h0m0s".into()),
        backfill_blocks: Some(6000),
        ..state_sync()
    });
    let without = params_of(&init_plan(&node), TaskKind::ConfigureStateSync);
    assert_eq!(
        serde_json::to_string(&without).expect("ser"),
        r#"{"UseLocalSnapshot":false,"TrustPeriod":"168h0m0s","BackfillBlocks":6000,"RpcServers":null}"#
    );
    node.status_mut().resolved_state_syncers = Some(vec!["h1:26657".into(), "h2:26657".into()]);
    let with = params_of(&init_plan(&node), TaskKind::ConfigureStateSync);
    assert_eq!(with["RpcServers"], json!(["h1:26657", "h2:26657"]));
}

#[test]
fn quirk_configure_state_sync_is_inserted_for_s3_too_with_local_snapshot() {
    let mut node = full_node("f");
    node.spec.full_node.as_mut().expect("full").snapshot = Some(s3(42));
    let plan = init_plan(&node);
    assert_eq!(
        position(&plan, TaskKind::ConfigureStateSync) + 1,
        position(&plan, TaskKind::ConfigValidate)
    );
    assert_eq!(
        params_of(&plan, TaskKind::ConfigureStateSync)["UseLocalSnapshot"],
        true
    );
}

#[test]
fn quirk_configure_genesis_is_in_every_init_plan_with_180_retries() {
    let nodes = [
        full_node("f"),
        archive_node("a"),
        replayer_node("r", 1),
        validator_node("v"),
        seed_node("s", "k"),
    ];
    for node in nodes {
        let plan = init_plan(&node);
        let genesis = plan
            .tasks
            .iter()
            .find(|t| t.kind == TaskKind::ConfigureGenesis)
            .expect("CG");
        assert_eq!(genesis.max_retries, 180);
        assert_eq!(
            genesis.params.as_deref(),
            Some(&json!({"ExpectedGenesisHash": ""}))
        );
    }
}

#[test]
fn sidecar_progressions_per_bootstrap_mode() {
    let kinds = |snap: Option<&SnapshotSource>| -> Vec<String> {
        build_sidecar_progression(snap)
            .expect("progression")
            .iter()
            .map(|k| k.abbrev().to_owned())
            .collect()
    };
    assert_eq!(kinds(None), ["CG", "CA", "CV", "MR"]);
    assert_eq!(kinds(Some(&state_sync())), ["CG", "CA", "CSS", "CV", "MR"]);
    assert_eq!(kinds(Some(&s3(1))), ["SR", "CG", "CA", "CSS", "CV", "MR"]);
}
