//! Render rules and the pinned upstream behaviours of spec §8.2/§8.3, one test per behaviour.
use k8s_openapi::api::core::v1::{Container, EnvVar, PodSpec, Probe};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::*;
use crate::api::SeiNode;
use crate::platform::PlatformConfig;

mod bootstrap;
mod containers;
mod guards;
mod objects;

const FULL: &str = "chainId: pacific-1\n  image: sei:v1\n  fullNode: {}";
const ARCHIVE: &str = "chainId: pacific-1\n  image: sei:v1\n  archive: {}";
const REPLAYER: &str =
    "chainId: pacific-1\n  image: sei:v1\n  replayer:\n    snapshot: {s3: {targetHeight: 100}}";
const VALIDATOR: &str = "chainId: pacific-1\n  image: sei:v1\n  validator: {}";
const SEED: &str =
    "chainId: pacific-1\n  image: sei:v1\n  seed:\n    nodeKey: {secret: {secretName: seed-key}}";

/// A node named `n1` in namespace `ns` with the given (two-space indented) spec body.
pub(super) fn node(spec: &str) -> SeiNode {
    node_with_meta("", spec)
}

pub(super) fn node_with_meta(extra_meta: &str, spec: &str) -> SeiNode {
    let yaml = format!(
        "apiVersion: sei.io/v1alpha1\nkind: SeiNode\nmetadata:\n  name: n1\n  namespace: ns\n{extra_meta}spec:\n  {spec}\n"
    );
    serde_yaml_ng::from_str(&yaml).expect("test node parses")
}

pub(super) fn all_modes() -> Vec<(&'static str, SeiNode)> {
    vec![
        ("full", node(FULL)),
        ("archive", node(ARCHIVE)),
        ("replayer", node(REPLAYER)),
        ("validator", node(VALIDATOR)),
        ("seed", node(SEED)),
    ]
}

pub(super) fn fixture() -> PlatformConfig {
    PlatformConfig::test_fixture()
}

pub(super) fn pod(n: &SeiNode) -> PodSpec {
    let sts = statefulset(n, &fixture()).expect("renders");
    sts.spec.template.spec.expect("pod spec")
}

pub(super) fn container<'a>(spec: &'a PodSpec, name: &str) -> &'a Container {
    spec.containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("container {name}"))
}

pub(super) fn env_value(c: &Container, name: &str) -> Option<String> {
    c.env
        .iter()
        .flatten()
        .find(|e| e.name == name)
        .and_then(|e| e.value.clone())
}

pub(super) fn env_names(c: &Container) -> Vec<String> {
    c.env
        .iter()
        .flatten()
        .map(|e: &EnvVar| e.name.clone())
        .collect()
}

pub(super) fn names<T>(items: &[T], name: impl Fn(&T) -> &str) -> Vec<String> {
    items.iter().map(|i| name(i).to_string()).collect()
}

fn probe_port(p: &Probe) -> (String, i32) {
    if let Some(h) = &p.http_get {
        let IntOrString::Int(port) = h.port else {
            panic!("int port")
        };
        (h.path.clone().unwrap_or_default(), port)
    } else {
        let IntOrString::Int(port) = p.tcp_socket.as_ref().expect("tcp").port else {
            panic!("int port")
        };
        ("tcp".into(), port)
    }
}

#[test]
fn resource_labels_default_to_system_labels() {
    let labels = resource_labels(&node(FULL));
    assert_eq!(labels.len(), 3);
    assert_eq!(labels["sei.io/node"], "n1");
    assert_eq!(labels["sei.io/chain"], "pacific-1");
    assert_eq!(labels["sei.io/role"], "node");
}

#[test]
fn resource_labels_merge_pod_labels_and_system_label_wins() {
    let n = node(&format!(
        "{FULL}\n  podLabels: {{team: infra, sei.io/node: other, sei.io/role: x}}"
    ));
    let labels = resource_labels(&n);
    assert_eq!(labels["team"], "infra");
    assert_eq!(labels["sei.io/node"], "n1");
    assert_eq!(labels["sei.io/role"], "node");
}

#[test]
fn resource_labels_omit_chain_when_empty() {
    let n = node("chainId: \"\"\n  image: sei:v1\n  fullNode: {}");
    assert!(!resource_labels(&n).contains_key("sei.io/chain"));
}

#[test]
fn quirk_conditional_pod_label_survives_when_rule_does_not_fire() {
    let n = node(&format!(
        "{FULL}\n  podLabels: {{sei.io/dedicated-node: \"true\"}}"
    ));
    assert_eq!(resource_labels(&n)["sei.io/dedicated-node"], "true");
    // The label alone does not make the node dedicated: only the defensive term.
    let terms = pod(&n)
        .affinity
        .expect("affinity")
        .pod_anti_affinity
        .expect("anti");
    assert_eq!(
        terms
            .required_during_scheduling_ignored_during_execution
            .expect("terms")
            .len(),
        1
    );
}

#[test]
fn resource_labels_snapshot_publish_only_with_publish() {
    let with = node(
        "chainId: c\n  image: i\n  fullNode:\n    snapshotGeneration: {tendermint: {keepRecent: 2, publish: {}}}",
    );
    assert_eq!(resource_labels(&with)["sei.io/snapshot-publish"], "true");
    let without = node(
        "chainId: c\n  image: i\n  archive:\n    snapshotGeneration: {tendermint: {keepRecent: 2}}",
    );
    assert!(!resource_labels(&without).contains_key("sei.io/snapshot-publish"));
    let archive = node(
        "chainId: c\n  image: i\n  archive:\n    snapshotGeneration: {tendermint: {keepRecent: 2, publish: {}}}",
    );
    assert_eq!(resource_labels(&archive)["sei.io/snapshot-publish"], "true");
    // Never in the selector.
    let sts = statefulset(&archive, &fixture()).expect("renders");
    assert_eq!(sts.spec.selector.match_labels.expect("labels").len(), 1);
}

#[test]
fn role_and_mode_derivation_per_mode() {
    let expect = [
        ("full", Role::Node, crate::platform::SeiConfigMode::Full),
        (
            "archive",
            Role::Archive,
            crate::platform::SeiConfigMode::Archive,
        ),
        (
            "replayer",
            Role::Replayer,
            crate::platform::SeiConfigMode::Full,
        ),
        (
            "validator",
            Role::Validator,
            crate::platform::SeiConfigMode::Validator,
        ),
        ("seed", Role::Seed, crate::platform::SeiConfigMode::Seed),
    ];
    for ((mode, n), (want_mode, want_role, want_config)) in all_modes().into_iter().zip(expect) {
        assert_eq!(mode, want_mode);
        assert_eq!(role(&n), want_role, "{mode}");
        assert_eq!(node_mode(&n), want_config, "{mode}");
    }
    // No mode sub-spec at all: a full node.
    let bare = node("chainId: c\n  image: i");
    assert_eq!(
        (role(&bare), node_mode(&bare)),
        (Role::Node, crate::platform::SeiConfigMode::Full)
    );
}

#[test]
fn seed_role_and_mode_are_not_full_node_defaults() {
    let seed = node(SEED);
    assert_eq!(resource_labels(&seed)["sei.io/role"], "seed");
    assert_eq!(node_mode(&seed).as_str(), "seed");
    assert!(!resource_labels(&seed).contains_key("sei.io/snapshot-publish"));
    assert!(!needs_long_startup(&seed));
}

#[test]
fn needs_long_startup_per_mode() {
    assert!(!needs_long_startup(&node(FULL)));
    assert!(needs_long_startup(&node(
        "chainId: c\n  image: i\n  fullNode: {snapshot: {s3: {targetHeight: 1}}}"
    )));
    assert!(needs_long_startup(&node(ARCHIVE)));
    assert!(needs_long_startup(&node(REPLAYER)));
    assert!(!needs_long_startup(&node(VALIDATOR)));
}

#[test]
fn statefulset_basic_fields() {
    let sts = statefulset(&node(FULL), &fixture()).expect("renders");
    assert_eq!(sts.metadata.name.as_deref(), Some("n1"));
    assert_eq!(sts.metadata.namespace.as_deref(), Some("ns"));
    assert!(sts.metadata.annotations.is_none());
    let spec = sts.spec;
    assert_eq!(spec.replicas, Some(1));
    assert_eq!(spec.service_name.as_deref(), Some("n1"));
    assert_eq!(
        spec.selector.match_labels,
        Some(selector_labels(&node(FULL)))
    );
    assert!(spec.volume_claim_templates.is_none());
    assert!(spec.pod_management_policy.is_none());
    assert_eq!(
        spec.update_strategy.expect("strategy").type_.as_deref(),
        Some("OnDelete")
    );
    let meta = spec.template.metadata.expect("template meta");
    assert_eq!(
        meta.annotations.expect("annotations")["karpenter.sh/do-not-disrupt"],
        "true"
    );
}

#[test]
fn statefulset_pod_labels_propagate_to_metadata_and_template_not_selector() {
    let n = node(&format!("{FULL}\n  podLabels: {{team: infra}}"));
    let spec_sts = statefulset(&n, &fixture()).expect("renders");
    assert_eq!(
        spec_sts.metadata.labels.as_ref().expect("labels")["team"],
        "infra"
    );
    let spec = spec_sts.spec;
    assert_eq!(
        spec.template
            .metadata
            .expect("meta")
            .labels
            .expect("labels")["team"],
        "infra"
    );
    assert!(
        !spec
            .selector
            .match_labels
            .expect("selector")
            .contains_key("team")
    );
}

#[test]
fn init_containers_are_exactly_seid_init_sidecar_proxy() {
    for (mode, n) in all_modes() {
        let spec = pod(&n);
        let init = names(spec.init_containers.as_deref().expect("init"), |c| &c.name);
        assert_eq!(
            init,
            ["seid-init", "sei-sidecar", "kube-rbac-proxy"],
            "{mode}"
        );
    }
}

#[test]
fn pod_spec_volumes_in_order_and_service_account() {
    let spec = pod(&node(FULL));
    let vols = names(spec.volumes.as_deref().expect("volumes"), |v| &v.name);
    assert_eq!(vols, ["data", "sidecar-tmp", "home", "rbac-proxy-config"]);
    let data = &spec.volumes.as_ref().expect("volumes")[0];
    assert_eq!(
        data.persistent_volume_claim
            .as_ref()
            .expect("pvc")
            .claim_name,
        "data-n1"
    );
    assert_eq!(
        spec.volumes.as_ref().expect("volumes")[3]
            .config_map
            .as_ref()
            .expect("cm")
            .name,
        "n1-rbac-proxy-config"
    );
    assert_eq!(spec.service_account_name.as_deref(), Some("seid-node"));
    assert_eq!(spec.automount_service_account_token, Some(true));
    assert_eq!(spec.share_process_namespace, Some(true));
    assert!(spec.node_selector.is_none());
    assert!(spec.termination_grace_period_seconds.is_none());
    assert!(spec.hostname.is_none());
}

#[test]
fn pod_spec_fs_group_on_root_mismatch() {
    let sc = pod(&node(FULL))
        .security_context
        .expect("pod security context");
    assert_eq!(sc.fs_group, Some(65532));
    assert_eq!(sc.fs_group_change_policy.as_deref(), Some("OnRootMismatch"));
    assert!(sc.supplemental_groups.is_none());
}

#[test]
fn seid_and_seid_init_run_as_non_root_without_read_only_rootfs() {
    let spec = pod(&node(FULL));
    for name in ["seid", "seid-init"] {
        let sc = container(&spec, name).security_context.clone().expect("sc");
        assert_eq!(sc.run_as_non_root, Some(true));
        assert_eq!(
            (sc.run_as_user, sc.run_as_group),
            (Some(65532), Some(65532))
        );
        assert_eq!(sc.allow_privilege_escalation, Some(false));
        assert_eq!(
            sc.capabilities.expect("caps").drop,
            Some(vec!["ALL".to_string()])
        );
        assert_eq!(sc.seccomp_profile.expect("seccomp").type_, "RuntimeDefault");
        assert!(sc.read_only_root_filesystem.is_none(), "{name}");
    }
    for name in ["sei-sidecar", "kube-rbac-proxy", "cosmos-exporter"] {
        let sc = container(&spec, name).security_context.clone().expect("sc");
        assert_eq!(sc.read_only_root_filesystem, Some(true), "{name}");
        assert_eq!(sc.run_as_non_root, Some(true), "{name}");
    }
}

#[test]
fn seid_init_bare_script_and_home() {
    let spec = pod(&node(FULL));
    let init = container(&spec, "seid-init");
    let cmd = init.command.clone().expect("command");
    assert_eq!(&cmd[..2], ["/bin/sh", "-c"]);
    assert_eq!(
        cmd[2],
        "if [ -f \"/home/nonroot/.sei/config/genesis.json\" ]; then echo \"data directory already initialized, skipping seid init\"; else seid init pacific-1 --chain-id pacific-1 --home \"/home/nonroot/.sei\" --overwrite; fi && mkdir -p \"/home/nonroot/.sei/tmp\""
    );
    assert!(init.args.is_none() && init.resources.is_none());
    assert_eq!(env_names(init), ["HOME"]);
    assert_eq!(env_value(init, "HOME").as_deref(), Some("/home/nonroot"));
    let mounts = names(init.volume_mounts.as_deref().expect("mounts"), |m| {
        &m.mount_path
    });
    assert_eq!(mounts, ["/home/nonroot/.sei", "/home/nonroot"]);
}

#[test]
fn home_dir_is_data_dir_parent() {
    assert_eq!(
        crate::platform::DATA_DIR,
        format!("{}/.sei", crate::platform::HOME_DIR)
    );
}

#[test]
fn seid_init_client_toml_keyring_backend_for_validators_only() {
    let script = |n: &SeiNode| {
        container(&pod(n), "seid-init")
            .command
            .clone()
            .expect("cmd")[2]
            .clone()
    };
    let test_backend = script(&node(VALIDATOR));
    let guard_end = test_backend
        .find("mkdir -p \"/home/nonroot/.sei/tmp\"")
        .expect("guard");
    let suffix = &test_backend[guard_end..];
    assert!(suffix.starts_with("mkdir -p \"/home/nonroot/.sei/tmp\" && CLIENT_TOML=\"/home/nonroot/.sei/config/client.toml\" && if [ -f \"$CLIENT_TOML\" ] && grep -q '^keyring-backend[[:space:]]*=' \"$CLIENT_TOML\"; then sed -i 's#^keyring-backend[[:space:]]*=.*#keyring-backend = \"test\"#' \"$CLIENT_TOML\"; else mkdir -p \"/home/nonroot/.sei/config\" && echo 'keyring-backend = \"test\"' >> \"$CLIENT_TOML\"; fi"), "{suffix}");
    let file_backend = script(&node(guards::KEYRING_VALIDATOR));
    assert!(file_backend.contains("keyring-backend = \"file\""));
    for (mode, n) in all_modes() {
        if mode != "validator" {
            assert!(!script(&n).contains("CLIENT_TOML"), "{mode}");
        }
    }
}
