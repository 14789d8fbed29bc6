//! The CRD's refusals offline: every rule kind, the API server's wording, and no refusal of the
//! upstream samples or the demo fleet.
use serde_json::{Value, json};

use super::*;

fn node(spec: Value) -> Value {
    json!({"apiVersion": "sei.io/v1alpha1", "kind": "SeiNode",
           "metadata": {"name": "n-0", "namespace": "ns"}, "spec": spec})
}

fn refusal(spec: Value) -> String {
    match validate_create(&node(spec)).expect("the check runs") {
        Ok(()) => panic!("accepted"),
        Err(invalid) => invalid.to_string(),
    }
}

fn accepted(object: &Value) -> bool {
    matches!(validate_create(object), Ok(Ok(())))
}

#[test]
fn the_upstream_samples_and_the_demo_fleet_are_accepted() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets");
    let mut checked = 0;
    for file in [
        "samples/pacific-1-full-node.yaml",
        "samples/pacific-1-shadow-replayer.yaml",
        "samples/pacific-1-snapshotter.yaml",
        "samples/pacific-1-state-syncer.yaml",
        "demo/fleet.yaml",
    ] {
        let text = std::fs::read_to_string(format!("{root}/{file}")).expect("read");
        for document in serde_yaml_ng::Deserializer::from_str(&text) {
            let value = Value::deserialize(document).expect("yaml");
            if value.get("kind") != Some(&json!("SeiNode")) {
                continue;
            }
            checked += 1;
            assert!(accepted(&value), "{file}: {:?}", validate_create(&value));
        }
    }
    assert!(checked >= 8, "only {checked} SeiNodes checked");
}

use serde::Deserialize;

#[test]
fn a_chain_id_outside_the_crd_pattern_is_refused_with_the_api_servers_words() {
    assert_eq!(
        refusal(json!({"chainId": "pacific-1; rm -rf /", "image": "sei:v1", "fullNode": {}})),
        "SeiNode.sei.io \"n-0\" is invalid: spec.chainId: Invalid value: \"pacific-1; rm -rf /\": \
         spec.chainId in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'"
    );
}

#[test]
fn exactly_one_mode_is_a_cel_rule_on_spec() {
    assert_eq!(
        refusal(json!({"chainId": "c", "image": "i", "fullNode": {}, "archive": {}})),
        "SeiNode.sei.io \"n-0\" is invalid: spec: Invalid value: exactly one of \
         fullNode, archive, replayer, validator, or seed must be set"
    );
}

#[test]
fn required_fields_and_several_violations_in_brackets_and_the_rules_then_not_checked() {
    assert_eq!(
        refusal(json!({"image": "", "fullNode": {}})),
        "SeiNode.sei.io \"n-0\" is invalid: [spec.image: Invalid value: \"\": spec.image in body \
         should be at least 1 chars long, spec.chainId: Required value, <nil>: Invalid value: \
         null: some validation rules were not checked because the object was invalid; correct \
         the existing errors to complete validation]"
    );
}

#[test]
fn a_peer_source_with_two_kinds_and_a_replayer_without_peers_are_refused() {
    let two_kinds = refusal(
        json!({"chainId": "c", "image": "i", "fullNode": {}, "peers": [
        {"static": {"addresses": ["a@h:1"]}, "label": {"selector": {"a": "b"}}}]}),
    );
    assert!(
        two_kinds.ends_with(
            "spec.peers[0]: Invalid value: exactly one of ec2Tags, \
             static, or label must be set"
        ),
        "{two_kinds}"
    );
    let replayer = refusal(json!({"chainId": "c", "image": "i",
        "replayer": {"snapshot": {"s3": {"targetHeight": 5}}}}));
    assert!(
        replayer.ends_with("peers is required when replayer mode is set"),
        "{replayer}"
    );
}

#[test]
fn a_validator_packing_two_keys_in_one_secret_is_refused() {
    let message = refusal(json!({"chainId": "c", "image": "i", "validator": {
        "signingKey": {"secret": {"secretName": "keys"}},
        "nodeKey": {"secret": {"secretName": "keys"}}}}));
    assert!(
        message.contains("signingKey and nodeKey must reference distinct Secrets"),
        "{message}"
    );
}

#[test]
fn items_minimum_and_enum_rules() {
    let rpc = refusal(
        json!({"chainId": "c", "image": "i", "fullNode": {"snapshot": {
        "stateSync": {}, "rpcServers": ["h:1"]}}}),
    );
    assert!(
        rpc.contains(
            "spec.fullNode.snapshot.rpcServers: Invalid value: 1: \
             spec.fullNode.snapshot.rpcServers in body should have at least 2 items"
        ),
        "{rpc}"
    );
    let height = refusal(
        json!({"chainId": "c", "image": "i", "fullNode": {"snapshot": {
        "s3": {"targetHeight": 0}}}}),
    );
    assert!(
        height.contains(
            "spec.fullNode.snapshot.s3.targetHeight: Invalid value: 0: \
             spec.fullNode.snapshot.s3.targetHeight in body should be greater than or equal to 1"
        ),
        "{height}"
    );
}

#[test]
fn transition_rules_reading_old_self_do_not_apply_to_a_create() {
    let object = node(json!({"chainId": "c", "image": "i", "fullNode": {},
        "dataVolume": {"import": {"pvcName": "data"}}}));
    assert!(accepted(&object), "{:?}", validate_create(&object));
}
