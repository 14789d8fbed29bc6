//! The upstream SeiNode CRD, installed byte-identical, validates with its real CEL rules.

use kube::api::{DynamicObject, PostParams};
use serde_json::json;

use crate::common::{TestNamespace, seinode_resource};

fn seinode(name: &str, spec: serde_json::Value) -> DynamicObject {
    let mut object = DynamicObject::new(name, &seinode_resource());
    object.data = json!({ "spec": spec });
    object
}

/// Creates the SeiNode and returns the API server's rejection (status code and message).
async fn rejection(ns: &TestNamespace, object: &DynamicObject) -> (u16, String) {
    match ns.seinodes().create(&PostParams::default(), object).await {
        Ok(created) => panic!("the API server accepted an invalid SeiNode: {created:?}"),
        Err(kube::Error::Api(status)) => (status.code, status.message),
        Err(other) => panic!("unexpected error: {other}"),
    }
}

#[tokio::test]
async fn cel_rejects_two_mode_sub_specs_with_the_upstream_message() {
    let ns = TestNamespace::new("cel-modes").await;
    let object = seinode(
        "two-modes",
        json!({
            "chainId": "pacific-1",
            "image": "ghcr.io/sei-protocol/sei:v6.3.0",
            "fullNode": {},
            "seed": {"nodeKey": {"secret": {"secretName": "seed-node-key"}}}
        }),
    );
    let (code, message) = rejection(&ns, &object).await;
    assert_eq!(code, 422, "{message}");
    assert!(
        message
            .contains("exactly one of fullNode, archive, replayer, validator, or seed must be set"),
        "{message}"
    );
}

#[tokio::test]
async fn cel_rejects_a_validator_with_a_signing_key_but_no_node_key() {
    let ns = TestNamespace::new("cel-keys").await;
    let object = seinode(
        "half-keys",
        json!({
            "chainId": "pacific-1",
            "image": "ghcr.io/sei-protocol/sei:v6.3.0",
            "validator": {"signingKey": {"secret": {"secretName": "validator-signing-key"}}}
        }),
    );
    let (code, message) = rejection(&ns, &object).await;
    assert_eq!(code, 422, "{message}");
    assert!(
        message.contains(
            "signingKey and nodeKey must be set together (validators get both or neither)"
        ),
        "{message}"
    );
}

#[tokio::test]
async fn a_valid_seed_is_accepted() {
    let ns = TestNamespace::new("cel-seed").await;
    let object = seinode(
        "seed-0",
        json!({
            "chainId": "pacific-1",
            "image": "ghcr.io/sei-protocol/sei:v6.3.0",
            "seed": {"nodeKey": {"secret": {"secretName": "seed-node-key"}}}
        }),
    );
    let created = ns
        .seinodes()
        .create(&PostParams::default(), &object)
        .await
        .expect("a valid seed is accepted");
    assert_eq!(
        created.data["spec"]["seed"]["nodeKey"]["secret"]["secretName"],
        "seed-node-key"
    );
    assert!(created.metadata.uid.is_some());
}

/// The offline check (`api::validation`, what `plan -f` and `render -f` refuse) says what the
/// real API server says, word for word, for each kind of rule the CRD carries; and accepts what
/// it accepts.
#[tokio::test]
async fn the_offline_check_refuses_what_the_api_server_refuses_in_its_words() {
    use sei_console::api::validation::validate_create;
    let ns = TestNamespace::new("cel-offline").await;
    let base = || json!({"chainId": "pacific-1", "image": "sei:v1"});
    let with = |extra: serde_json::Value| {
        let mut spec = base();
        for (key, value) in extra.as_object().expect("object") {
            spec[key] = value.clone();
        }
        spec
    };
    let cases = [
        (
            "pattern",
            with(json!({"chainId": "pacific-1; rm -rf /", "fullNode": {}})),
        ),
        ("modes", with(json!({"fullNode": {}, "archive": {}}))),
        ("min-length", with(json!({"image": "", "fullNode": {}}))),
        ("required", json!({"image": "sei:v1", "fullNode": {}})),
        (
            "several",
            json!({"image": "", "fullNode": {}, "archive": {}}),
        ),
        (
            "peer-kinds",
            with(json!({"fullNode": {}, "peers": [
            {"static": {"addresses": ["a@h:1"]}, "label": {"selector": {"a": "b"}}}]})),
        ),
        (
            "replayer-peers",
            with(json!({"replayer": {"snapshot": {"s3": {"targetHeight": 5}}}})),
        ),
        (
            "min-items",
            with(json!({"fullNode": {"snapshot": {"stateSync": {}, "rpcServers": ["h:1"]}}})),
        ),
        (
            "minimum",
            with(json!({"fullNode": {"snapshot": {"s3": {"targetHeight": 0}}}})),
        ),
        (
            "max-length",
            with(json!({"image": "i".repeat(513), "fullNode": {}})),
        ),
        (
            "same-secret",
            with(json!({"validator": {
            "signingKey": {"secret": {"secretName": "keys"}},
            "nodeKey": {"secret": {"secretName": "keys"}}}})),
        ),
        (
            "accepted",
            with(json!({"fullNode": {}, "dataVolume": {"import": {"pvcName": "data"}}})),
        ),
    ];
    let mut mismatches = Vec::new();
    for (name, spec) in cases {
        let object = seinode(name, spec);
        let server = match ns.seinodes().create(&PostParams::default(), &object).await {
            Ok(_) => None,
            Err(kube::Error::Api(status)) => Some(status.message),
            Err(other) => panic!("{name}: unexpected error: {other}"),
        };
        let value = serde_json::to_value(&object).expect("json");
        let offline = validate_create(&value)
            .expect("the check runs")
            .err()
            .map(|invalid| invalid.to_string());
        if offline != server {
            mismatches.push(format!(
                "{name}:\n  offline: {offline:?}\n  server:  {server:?}"
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
