//! `sei-console seed create` against the real API server: the Secret holds a valid CometBFT
//! node key whose NodeID is the one printed, the seed SeiNode references it, and the private key
//! appears nowhere else (stdout, stderr, journal).

use k8s_openapi::api::core::v1::Secret;
use sei_console::actions::node_key::NodeKey;

use crate::common::TestNamespace;
use crate::common::console::cli;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn seed_create_makes_a_valid_key_secret_and_the_seed_without_leaking_the_key() {
    let ns = TestNamespace::new("seed-create").await;
    let state = tempfile::tempdir().expect("tempdir");
    let out = cli(
        &[
            "seed",
            "create",
            "seed-0",
            "-n",
            &ns.name,
            "--chain-id",
            "pacific-1",
            "--image",
            "ghcr.io/sei-protocol/sei:v6.3.0",
            "--external-address",
            "seed-0.example.com:26656",
            "--yes",
            "--no-wait",
            "-o",
            "json",
        ],
        state.path(),
    );
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let last: serde_json::Value =
        serde_json::from_str(stdout.lines().last().expect("result line")).expect("json");
    let node_id = last["nodeId"].as_str().expect("nodeId").to_owned();
    assert_eq!(last["peer"], format!("{node_id}@seed-0.example.com:26656"));

    let secret = ns
        .api::<Secret>()
        .get("seed-0-node-key")
        .await
        .expect("Secret created");
    let json = secret.data.as_ref().expect("data")["node_key.json"]
        .0
        .clone();
    let json = String::from_utf8(json).expect("utf8");
    let key = NodeKey::from_node_key_json(&json).expect("valid CometBFT node key");
    assert_eq!(key.node_id(), node_id);

    let value: serde_json::Value = serde_json::from_str(&json).expect("json");
    let private = value["priv_key"]["value"].as_str().expect("value");
    let journal =
        std::fs::read_to_string(state.path().join("sei-console/journal.jsonl")).expect("journal");
    for (place, haystack) in [
        ("stdout", &stdout),
        ("stderr", &stderr),
        ("journal", &journal),
    ] {
        assert!(!haystack.contains(private), "private key leaked to {place}");
        assert!(
            !haystack.contains(&private[..16]),
            "private key prefix leaked to {place}"
        );
    }

    let node = ns.seinodes().get("seed-0").await.expect("seed SeiNode");
    assert_eq!(
        node.data["spec"]["seed"]["nodeKey"]["secret"]["secretName"],
        "seed-0-node-key"
    );
    assert_eq!(
        node.data["spec"]["externalAddress"],
        "seed-0.example.com:26656"
    );
}

#[tokio::test]
async fn seed_create_with_an_existing_secret_reports_its_node_id_in_the_dry_run() {
    let ns = TestNamespace::new("seed-existing").await;
    let key = NodeKey::from_seed(&[7; 32]);
    let secret: Secret = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "kept-key"},
        "stringData": {"node_key.json": key.to_node_key_json().expose()}
    }))
    .expect("secret");
    ns.api::<Secret>()
        .create(&kube::api::PostParams::default(), &secret)
        .await
        .expect("create Secret");
    let state = tempfile::tempdir().expect("tempdir");
    let out = cli(
        &[
            "seed",
            "create",
            "seed-1",
            "-n",
            &ns.name,
            "--chain-id",
            "pacific-1",
            "--image",
            "ghcr.io/sei-protocol/sei:v6.3.0",
            "--node-key-secret",
            "kept-key",
            "--dry-run",
        ],
        state.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!(
            "existing Secret kept-key; NodeID {}",
            key.node_id()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("peer: needs --external-address"),
        "{stdout}"
    );
    assert!(
        ns.seinodes()
            .get_opt("seed-1")
            .await
            .expect("get")
            .is_none()
    );
}
