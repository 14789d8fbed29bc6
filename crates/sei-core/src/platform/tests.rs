use super::*;

const FULL_DOC: &str = r#"
stateSync:
  syncers:
    pacific-1: ["rpc-b:26657", "rpc-a:26657"]
scheduling:
  nodepoolName: pool-default
  nodepoolArchive: pool-archive
  nodepoolValidator: pool-validator
  nodepoolSeed: pool-seed
  tolerationKey: sei.io/workload
  serviceAccount: seid-node
storage:
  classPerf: perf
  classDefault: standard
  classArchive: cold
  sizeDefault: 2000Gi
  sizeArchive: 40Ti
  sizeSeed: 30Gi
resources:
  validator: {cpuRequest: "8", memory: 64Gi}
  node: {cpuRequest: "16"}
  replayer: {memory: 128Gi}
  archive: {cpuRequest: "32", memory: 256Gi}
  seed: {cpuRequest: 500m, memory: 1Gi}
snapshot: {bucket: snaps, region: us-east-2}
resultExport: {bucket: results, region: us-west-2, prefix: shadow/}
genesis: {bucket: genesis, region: eu-west-1}
images:
  sidecar: seictl:1
  kubeRBACProxy: proxy:2
  cosmosExporter: exporter:3
"#;

#[test]
fn from_yaml_decodes_every_key() {
    let cfg = PlatformConfig::from_yaml(FULL_DOC).expect("decodes");
    assert_eq!(cfg.scheduling.nodepool_name, "pool-default");
    assert_eq!(cfg.scheduling.nodepool_archive, "pool-archive");
    assert_eq!(cfg.scheduling.nodepool_validator, "pool-validator");
    assert_eq!(cfg.scheduling.nodepool_seed, "pool-seed");
    assert_eq!(cfg.scheduling.toleration_key, "sei.io/workload");
    assert_eq!(cfg.scheduling.service_account, "seid-node");
    assert_eq!(cfg.storage.class_perf, "perf");
    assert_eq!(cfg.storage.class_default, "standard");
    assert_eq!(cfg.storage.class_archive, "cold");
    assert_eq!(cfg.storage.size_default, "2000Gi");
    assert_eq!(cfg.storage.size_archive, "40Ti");
    assert_eq!(cfg.storage.size_seed, "30Gi");
    assert_eq!(
        cfg.resources.validator,
        ResourceOverride {
            cpu_request: "8".into(),
            memory: "64Gi".into()
        }
    );
    assert_eq!(
        cfg.resources.node,
        ResourceOverride {
            cpu_request: "16".into(),
            memory: String::new()
        }
    );
    assert_eq!(cfg.resources.replayer.memory, "128Gi");
    assert_eq!(cfg.resources.archive.cpu_request, "32");
    assert_eq!(
        cfg.resources.seed,
        ResourceOverride {
            cpu_request: "500m".into(),
            memory: "1Gi".into()
        }
    );
    assert_eq!(
        cfg.snapshot,
        BucketConfig {
            bucket: "snaps".into(),
            region: "us-east-2".into()
        }
    );
    assert_eq!(cfg.result_export.prefix, "shadow/");
    assert_eq!(cfg.result_export.region, "us-west-2");
    assert_eq!(cfg.genesis.bucket, "genesis");
    assert_eq!(cfg.images.sidecar, "seictl:1");
    assert_eq!(cfg.images.kube_rbac_proxy, "proxy:2");
    assert_eq!(cfg.images.cosmos_exporter, "exporter:3");
    assert_eq!(
        cfg.state_sync.syncers["pacific-1"],
        vec!["rpc-b:26657", "rpc-a:26657"]
    );
    assert_eq!(cfg.gateway, GatewayConfig::default());
}

#[test]
fn lenient_unknown_keys_are_ignored() {
    let cfg =
        PlatformConfig::from_yaml("extra: 1\nscheduling:\n  nodepoolName: p\n  surprise: [1]\n")
            .expect("decodes");
    assert_eq!(cfg.scheduling.nodepool_name, "p");
}

#[test]
fn lenient_keys_match_case_insensitively() {
    let cfg =
        PlatformConfig::from_yaml("Scheduling:\n  NODEPOOLSEED: s\nIMAGES:\n  kuberbacproxy: x\n")
            .expect("decodes");
    assert_eq!(cfg.scheduling.nodepool_seed, "s");
    assert_eq!(cfg.images.kube_rbac_proxy, "x");
}

#[test]
fn lenient_exact_key_wins_over_folded_key_by_sorted_order() {
    // Upstream marshals the converted map with sorted keys: "NodepoolName" < "nodepoolName", so
    // the exact spelling is decoded last and wins regardless of document order.
    let cfg =
        PlatformConfig::from_yaml("scheduling:\n  nodepoolName: exact\n  NodepoolName: folded\n")
            .expect("decodes");
    assert_eq!(cfg.scheduling.nodepool_name, "exact");
}

#[test]
fn lenient_numbers_become_strings() {
    let cfg = PlatformConfig::from_yaml(
        "resources:\n  node: {cpuRequest: 8, memory: 1.5}\n  seed: {cpuRequest: 0.25, memory: 1e6}\n",
    )
    .expect("decodes");
    assert_eq!(cfg.resources.node.cpu_request, "8");
    assert_eq!(cfg.resources.node.memory, "1.5");
    assert_eq!(cfg.resources.seed.cpu_request, "0.25");
    assert_eq!(cfg.resources.seed.memory, "1e+06");
}

#[test]
fn lenient_yaml11_booleans_become_true_false_strings() {
    let cfg = PlatformConfig::from_yaml(
        "scheduling:\n  nodepoolName: no\n  nodepoolSeed: 'no'\n  nodepoolArchive: on\n  tolerationKey: true\n",
    )
    .expect("decodes");
    assert_eq!(cfg.scheduling.nodepool_name, "false");
    assert_eq!(cfg.scheduling.nodepool_seed, "no");
    assert_eq!(cfg.scheduling.nodepool_archive, "true");
    assert_eq!(cfg.scheduling.toleration_key, "true");
}

#[test]
fn lenient_null_values_leave_fields_empty() {
    let cfg = PlatformConfig::from_yaml("scheduling:\n  nodepoolName:\nstorage: ~\nimages: null\n")
        .expect("decodes");
    assert_eq!(cfg, PlatformConfig::default());
}

#[test]
fn empty_document_is_empty_config() {
    assert_eq!(
        PlatformConfig::from_yaml("").expect("decodes"),
        PlatformConfig::default()
    );
    assert_eq!(
        PlatformConfig::from_yaml("---\n# nothing\n").expect("decodes"),
        PlatformConfig::default()
    );
}

#[test]
fn type_mismatch_reports_go_json_error() {
    let err =
        PlatformConfig::from_yaml("scheduling:\n  nodepoolName: [a, b]\n").expect_err("mismatch");
    assert_eq!(
        err.to_string(),
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field SchedulingConfig.scheduling.nodepoolName of type string"
    );
    let err = PlatformConfig::from_yaml("storage: fast\n").expect_err("mismatch");
    assert_eq!(
        err.to_string(),
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field FileConfig.storage of type platform.StorageConfig"
    );
    let err = PlatformConfig::from_yaml("- a\n- b\n").expect_err("mismatch");
    assert_eq!(
        err.to_string(),
        "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type platform.FileConfig"
    );
}

#[test]
fn yaml_syntax_error_is_a_conversion_error() {
    let err = PlatformConfig::from_yaml("scheduling: [unclosed\n").expect_err("bad yaml");
    assert!(
        err.to_string()
            .starts_with("error converting YAML to JSON: yaml: line "),
        "{err}"
    );
}

#[test]
fn syncer_items_are_coerced_to_strings() {
    let cfg = PlatformConfig::from_yaml("stateSync:\n  syncers:\n    '1': [10, host:1]\n")
        .expect("decodes");
    assert_eq!(cfg.state_sync.syncers["1"], vec!["10", "host:1"]);
}

#[test]
fn read_file_missing_file_is_empty_config() {
    let dir = std::env::temp_dir().join(format!("sei-console-platform-{}", std::process::id()));
    let cfg = PlatformConfig::read_file(&dir.join("absent.yaml")).expect("missing is empty");
    assert_eq!(cfg, PlatformConfig::default());
    assert_eq!(
        PlatformConfig::read_file(Path::new("")).expect("blank"),
        PlatformConfig::default()
    );
}

#[test]
fn read_file_errors_name_the_path() {
    let dir =
        std::env::temp_dir().join(format!("sei-console-platform-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let bad = dir.join("bad.yaml");
    std::fs::write(&bad, "scheduling: [\n").expect("write");
    let err = PlatformConfig::read_file(&bad).expect_err("bad yaml");
    let prefix = format!(
        "parsing controller config file \"{}\": error converting YAML to JSON",
        bad.display()
    );
    assert!(err.to_string().starts_with(&prefix), "{err}");
    // A directory cannot be read as a file.
    let err = PlatformConfig::read_file(&dir).expect_err("directory");
    assert!(
        err.to_string().starts_with(&format!(
            "reading controller config file \"{}\": ",
            dir.display()
        )),
        "{err}"
    );
    let good = dir.join("good.yaml");
    std::fs::write(&good, FULL_DOC).expect("write");
    assert_eq!(
        PlatformConfig::read_file(&good)
            .expect("reads")
            .images
            .sidecar,
        "seictl:1"
    );
    std::fs::remove_dir_all(&dir).expect("cleanup");
}

#[test]
fn test_fixture_values_match_upstream_and_validate() {
    let cfg = PlatformConfig::test_fixture();
    assert_eq!(cfg.scheduling.nodepool_name, "sei-node");
    assert_eq!(cfg.scheduling.nodepool_archive, "sei-archive");
    assert_eq!(cfg.scheduling.nodepool_validator, "sei-validator");
    assert_eq!(cfg.scheduling.nodepool_seed, "sei-seed");
    assert_eq!(cfg.scheduling.toleration_key, "sei.io/workload");
    assert_eq!(cfg.scheduling.service_account, "seid-node");
    assert_eq!(cfg.storage.class_perf, "gp3-10k-750");
    assert_eq!(cfg.storage.class_default, "gp3");
    assert_eq!(cfg.storage.class_archive, "gp3-archive");
    assert_eq!(cfg.storage.size_default, "2000Gi");
    assert_eq!(cfg.storage.size_archive, "40Ti");
    assert_eq!(
        cfg.images.kube_rbac_proxy,
        "quay.io/brancz/kube-rbac-proxy:v0.19.1"
    );
    assert_eq!(cfg.gateway.domain, "test.platform.sei.io");
    cfg.validate().expect("fixture is valid");
}

/// Blanks every required key in turn (in upstream order) and checks it is the one reported.
#[test]
fn validate_reports_first_blank_required_key_in_upstream_order() {
    type Setter = fn(&mut PlatformConfig);
    let keys: [(&str, Setter); 24] = [
        ("scheduling.nodepoolName", |c| {
            c.scheduling.nodepool_name = " ".into()
        }),
        ("scheduling.nodepoolArchive", |c| {
            c.scheduling.nodepool_archive.clear()
        }),
        ("scheduling.nodepoolValidator", |c| {
            c.scheduling.nodepool_validator.clear()
        }),
        ("scheduling.nodepoolSeed", |c| {
            c.scheduling.nodepool_seed.clear()
        }),
        ("scheduling.tolerationKey", |c| {
            c.scheduling.toleration_key.clear()
        }),
        ("scheduling.serviceAccount", |c| {
            c.scheduling.service_account.clear()
        }),
        ("storage.classPerf", |c| c.storage.class_perf.clear()),
        ("storage.classDefault", |c| c.storage.class_default.clear()),
        ("storage.classArchive", |c| c.storage.class_archive.clear()),
        ("storage.sizeDefault", |c| c.storage.size_default.clear()),
        ("storage.sizeArchive", |c| c.storage.size_archive.clear()),
        ("snapshot.bucket", |c| c.snapshot.bucket.clear()),
        ("snapshot.region", |c| c.snapshot.region.clear()),
        ("resultExport.bucket", |c| c.result_export.bucket.clear()),
        ("resultExport.region", |c| c.result_export.region.clear()),
        ("resultExport.prefix", |c| c.result_export.prefix.clear()),
        ("genesis.bucket", |c| c.genesis.bucket.clear()),
        ("genesis.region", |c| c.genesis.region.clear()),
        ("images.sidecar", |c| c.images.sidecar.clear()),
        ("images.kubeRBACProxy", |c| c.images.kube_rbac_proxy.clear()),
        ("images.cosmosExporter", |c| {
            c.images.cosmos_exporter.clear()
        }),
        ("SEI_GATEWAY_NAME", |c| c.gateway.name.clear()),
        ("SEI_GATEWAY_NAMESPACE", |c| c.gateway.namespace.clear()),
        ("SEI_GATEWAY_DOMAIN", |c| c.gateway.domain.clear()),
    ];
    // Blanking from the last key backwards: each newly blanked key is now the first failure.
    let mut cfg = PlatformConfig::test_fixture();
    for (key, blank) in keys.iter().rev() {
        blank(&mut cfg);
        assert_eq!(
            cfg.validate().expect_err("blank").to_string(),
            format!("{key} is required")
        );
    }
}

#[test]
fn validate_missing_nodepool_seed_names_it() {
    let mut cfg = PlatformConfig::test_fixture();
    cfg.scheduling.nodepool_seed = "\t".into();
    assert_eq!(
        cfg.validate().expect_err("missing").to_string(),
        "scheduling.nodepoolSeed is required"
    );
}

#[test]
fn validate_does_not_require_seed_size_or_public_domain() {
    let mut cfg = PlatformConfig::test_fixture();
    cfg.storage.size_seed.clear();
    cfg.gateway.public_domain.clear();
    cfg.storage.size_default = "not a size".into();
    cfg.validate()
        .expect("sizes and public domain are not validated");
}

#[test]
fn validate_rejects_invalid_resource_quantity_with_upstream_wording() {
    let mut cfg = PlatformConfig::test_fixture();
    cfg.resources.archive.memory = "not-a-quantity".into();
    assert_eq!(
        cfg.validate().expect_err("invalid").to_string(),
        "resources.archive.memory: invalid quantity \"not-a-quantity\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    );
}

#[test]
fn validate_checks_overrides_in_role_then_field_order() {
    let mut cfg = PlatformConfig::test_fixture();
    cfg.resources.seed.cpu_request = "bad".into();
    cfg.resources.node.memory = "1kk".into();
    cfg.resources.node.cpu_request = "   ".into();
    assert_eq!(
        cfg.validate().expect_err("invalid").to_string(),
        "resources.node.memory: invalid quantity \"1kk\": unable to parse quantity's suffix"
    );
    cfg.resources.node.memory = "2Gi".into();
    assert!(
        cfg.validate()
            .expect_err("seed")
            .to_string()
            .starts_with("resources.seed.cpuRequest: ")
    );
    cfg.resources.seed.cpu_request = "500m".into();
    cfg.validate().expect("valid overrides");
}

#[test]
fn nodepool_for_mode_routes_each_mode() {
    let cfg = PlatformConfig::test_fixture();
    assert_eq!(cfg.nodepool_for_mode(SeiConfigMode::Archive), "sei-archive");
    assert_eq!(
        cfg.nodepool_for_mode(SeiConfigMode::Validator),
        "sei-validator"
    );
    assert_eq!(cfg.nodepool_for_mode(SeiConfigMode::Seed), "sei-seed");
    assert_eq!(cfg.nodepool_for_mode(SeiConfigMode::Full), "sei-node");
}

#[test]
fn nodepool_for_mode_seed_has_no_default_pool_fallback() {
    let mut cfg = PlatformConfig::test_fixture();
    cfg.scheduling.nodepool_seed.clear();
    assert_eq!(cfg.nodepool_for_mode(SeiConfigMode::Seed), "");
}

#[test]
fn seed_storage_size_falls_back_to_code_default() {
    let mut cfg = PlatformConfig::test_fixture();
    assert_eq!(cfg.seed_storage_size(), "20Gi");
    assert_ne!(cfg.seed_storage_size(), cfg.storage.size_default);
    cfg.storage.size_seed = "50Gi".into();
    assert_eq!(cfg.seed_storage_size(), "50Gi");
}

#[test]
fn effective_sidecar_image_prefers_non_empty_spec_override() {
    let cfg = PlatformConfig::test_fixture();
    assert_eq!(cfg.effective_sidecar_image(None), cfg.images.sidecar);
    assert_eq!(cfg.effective_sidecar_image(Some("")), cfg.images.sidecar);
    assert_eq!(cfg.effective_sidecar_image(Some("mine:1")), "mine:1");
}

#[test]
fn syncers_are_split_sorted_and_deduplicated() {
    let cfg = PlatformConfig::from_yaml(
        "stateSync:\n  syncers:\n    c: [\"b:1, a:1\", \"a:1\\n c:1\\r\\n\", \"  \", \"d:1\\tb:1\"]\n",
    )
    .expect("decodes");
    assert_eq!(cfg.syncers_for_chain("c"), vec!["a:1", "b:1", "c:1", "d:1"]);
    assert!(cfg.syncers_for_chain("other").is_empty());
}

#[test]
fn gateway_reads_the_four_env_names() {
    let gw = GatewayConfig::from_lookup(|name| Some(format!("v-{name}")));
    assert_eq!(gw.name, "v-SEI_GATEWAY_NAME");
    assert_eq!(gw.namespace, "v-SEI_GATEWAY_NAMESPACE");
    assert_eq!(gw.domain, "v-SEI_GATEWAY_DOMAIN");
    assert_eq!(gw.public_domain, "v-SEI_GATEWAY_PUBLIC_DOMAIN");
}

#[test]
fn go_quote_escapes_like_percent_q() {
    assert_eq!(go_quote("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
}
