//! The seed peer string of `describe` (and the node screen) on the real control plane: from the
//! node-key Secret when the operator may read it; "forbidden" named when not, then from the
//! stand-in sidecar's `/v0/node-id` once the node's home holds its key.

use std::path::Path;
use std::process::Output;

use kube::api::{DynamicObject, PostParams};
use sei_console::actions::node_key::NodeKey;
use serde_json::{Value, json};

use crate::common::console::console_env;
use crate::common::{TestNamespace, control_plane, seinode_resource};

const ADDRESS: &str = "seed-0.example.com:26656";

/// `describe seed-0 -o json`'s `seedPeer`, or `None` when describe failed.
fn describe(ns: &str, kubeconfig: &Path) -> Option<Value> {
    let out: Output = std::process::Command::new(env!("CARGO_BIN_EXE_sei-console"))
        .envs(console_env())
        .args(["describe", "seed-0", "-n", ns, "-o", "json", "--kubeconfig"])
        .arg(kubeconfig)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run sei-console");
    if !out.status.success() {
        eprintln!("describe: {}", String::from_utf8_lossy(&out.stderr));
        return None;
    }
    let json: Value = serde_json::from_slice(&out.stdout).expect("describe JSON");
    Some(json["seedPeer"].clone())
}

async fn seed_with_key(ns: &TestNamespace, key: &NodeKey) {
    ns.create_node_key_secret("seed-0-node-key", key.to_node_key_json().expose())
        .await;
    let mut node = DynamicObject::new("seed-0", &seinode_resource());
    node.data = json!({"spec": {"chainId": "pacific-1", "image": "ghcr.io/sei-protocol/sei:v6.3.0",
        "externalAddress": ADDRESS,
        "seed": {"nodeKey": {"secret": {"secretName": "seed-0-node-key"}}}}});
    ns.seinodes()
        .create(&PostParams::default(), &node)
        .await
        .expect("create seed");
}

/// The test kubeconfig impersonating `user`, who may read SeiNodes and nothing else.
async fn reader_kubeconfig(ns: &TestNamespace, user: &str, dir: &Path) -> std::path::PathBuf {
    let mut kubeconfig: serde_yaml_ng::Value = serde_yaml_ng::from_str(
        &std::fs::read_to_string(&control_plane().kubeconfig).expect("kubeconfig"),
    )
    .expect("yaml");
    for entry in kubeconfig["users"].as_sequence_mut().expect("users") {
        entry["user"]["as"] = user.into();
    }
    let path = dir.join(format!("{user}.kubeconfig"));
    std::fs::write(&path, serde_yaml_ng::to_string(&kubeconfig).expect("yaml")).expect("write");
    let role = json!({
        "metadata": {"name": "seinode-reader"},
        "rules": [{"apiGroups": ["sei.io"], "resources": ["seinodes"], "verbs": ["get", "list", "watch"]}]
    });
    let binding = json!({
        "metadata": {"name": format!("{user}-reads")},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "seinode-reader"},
        "subjects": [{"kind": "User", "name": user, "apiGroup": "rbac.authorization.k8s.io"}]
    });
    ns.api::<k8s_openapi::api::rbac::v1::Role>()
        .create(
            &PostParams::default(),
            &serde_json::from_value(role).expect("role"),
        )
        .await
        .expect("role");
    ns.api::<k8s_openapi::api::rbac::v1::RoleBinding>()
        .create(
            &PostParams::default(),
            &serde_json::from_value(binding).expect("binding"),
        )
        .await
        .expect("binding");
    path
}

#[tokio::test]
async fn describe_shows_the_seed_peer_from_the_secret_or_why_not_then_from_the_sidecar() {
    let ns = TestNamespace::new("seed-peer").await;
    let key = NodeKey::from_seed(&[9; 32]);
    seed_with_key(&ns, &key).await;
    let expected = format!("{}@{ADDRESS}", key.node_id());

    let peer = describe(&ns.name, &control_plane().kubeconfig).expect("describe");
    assert_eq!(peer["peer"], expected.as_str(), "{peer}");
    assert_eq!(peer["source"], "node-key Secret seed-0-node-key");

    // Without the right to read Secrets, and no key in the sidecar's home yet: both reasons.
    let dir = tempfile::tempdir().expect("tempdir");
    let erin = reader_kubeconfig(&ns, "erin", dir.path()).await;
    let peer = crate::common::wait_for(
        "erin's read access to settle",
        std::time::Duration::from_secs(30),
        || async {
            let peer = describe(&ns.name, &erin);
            Ok::<_, kube::Error>(peer.filter(|p| p["reason"].is_string()))
        },
    )
    .await;
    let reason = peer["reason"].as_str().expect("reason");
    assert!(
        reason.contains("Secret seed-0-node-key: forbidden"),
        "{reason}"
    );
    assert!(reason.contains("sidecar"), "{reason}");

    // The sidecar answers once the node's home holds the key.
    let config = control_plane()
        .dir
        .join("sidecars")
        .join(&ns.name)
        .join("seed-0")
        .join("config");
    std::fs::create_dir_all(&config).expect("home");
    std::fs::write(
        config.join("node_key.json"),
        key.to_node_key_json().expose(),
    )
    .expect("key");
    let peer = describe(&ns.name, &erin).expect("describe");
    assert_eq!(peer["peer"], expected.as_str(), "{peer}");
    assert_eq!(peer["source"], "sidecar /v0/node-id");
}
