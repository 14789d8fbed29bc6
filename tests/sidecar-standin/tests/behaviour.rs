//! Task semantics of spec/sidecar.md sections 2.5, 4, 5 and 7 as the stand-in implements them.
mod support;

use base64::Engine as _;
use http::{Method, StatusCode};
use serde_json::json;
use support::{Harness, new_id};

#[tokio::test]
async fn readiness_follows_mark_ready_and_mark_not_ready_and_old_ids_need_a_hold_to_rerun() {
    let h = Harness::start(|_| {}).await;
    let ready_id = new_id();
    h.post_task(json!({"id": ready_id, "type": "mark-ready"}))
        .await;
    h.wait_terminal(&ready_id).await;
    assert_eq!(h.get("/v0/healthz").await.status, StatusCode::OK);

    let hold_id = new_id();
    h.post_task(json!({"id": hold_id, "type": "mark-not-ready"}))
        .await;
    assert_eq!(h.wait_terminal(&hold_id).await["status"], "completed");
    assert_eq!(
        h.get("/v0/healthz").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    // The hold purged the mark-ready rows, so the old ID is fresh again and runs (run 1).
    let path = format!("/v0/tasks/{ready_id}");
    assert_eq!(h.get(&path).await.status, StatusCode::NOT_FOUND);
    h.post_task(json!({"id": ready_id, "type": "mark-ready"}))
        .await;
    assert_eq!(h.wait_terminal(&ready_id).await["run"], 1);
    assert_eq!(h.get("/v0/healthz").await.status, StatusCode::OK);
    h.standin.stop().await;
}

#[tokio::test]
async fn readiness_is_not_persisted_and_a_completed_mark_ready_is_not_rerun_after_restart() {
    let h = Harness::start(|_| {}).await;
    let home = h.home.clone();
    let id = new_id();
    h.post_task(json!({"id": id, "type": "mark-ready"})).await;
    h.wait_terminal(&id).await;
    h.standin.stop().await;

    let h = Harness::start_in(home, |_| {}).await;
    assert_eq!(
        h.get("/v0/healthz").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    // Re-POSTing the old completed ID is a no-op: readiness stays false.
    h.post_task(json!({"id": id, "type": "mark-ready"})).await;
    assert_eq!(h.wait_terminal(&id).await["status"], "completed");
    assert_eq!(
        h.get("/v0/healthz").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    // A new ID restores it.
    let fresh = new_id();
    h.post_task(json!({"id": fresh, "type": "mark-ready"}))
        .await;
    h.wait_terminal(&fresh).await;
    assert_eq!(h.get("/v0/healthz").await.status, StatusCode::OK);
    h.standin.stop().await;
}

#[tokio::test]
async fn running_tasks_ignore_resubmission_and_delete_cancels_them() {
    let h = Harness::start(|options| options.hold_types = vec!["await-condition".into()]).await;
    let id = new_id();
    let params = json!({"condition": "height", "targetHeight": 10});
    h.post_task(json!({"id": id, "type": "await-condition", "params": params}))
        .await;
    let path = format!("/v0/tasks/{id}");
    let task = h.get(&path).await.json();
    assert_eq!(task["status"], "running");
    assert!(task.get("completedAt").is_none());
    // Resubmitting a running ID is a no-op: type and params are ignored.
    let reply = h.post_task(json!({"id": id, "type": "mark-ready"})).await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let task = h.get(&path).await.json();
    assert_eq!(
        (task["type"].clone(), task["params"].clone()),
        (json!("await-condition"), params)
    );
    // DELETE cancels: 204, the row is gone and stays gone (cancellation suppresses the error).
    assert_eq!(
        h.send(Method::DELETE, &path, None).await.status,
        StatusCode::NO_CONTENT
    );
    tokio::task::yield_now().await;
    assert_eq!(h.get(&path).await.status, StatusCode::NOT_FOUND);
    // The ID can be reused and starts at run 1.
    h.post_task(json!({"id": id, "type": "mark-ready"})).await;
    assert_eq!(h.wait_terminal(&id).await["run"], 1);
    h.standin.stop().await;
}

#[tokio::test]
async fn stale_running_tasks_are_rehydrated_on_restart() {
    let h = Harness::start(|options| {
        options.hold_types = vec!["config-validate".into(), "mark-ready".into()]
    })
    .await;
    let home = h.home.clone();
    let validate = new_id();
    let ready = new_id();
    h.post_task(json!({"id": validate, "type": "config-validate"}))
        .await;
    h.post_task(json!({"id": ready, "type": "mark-ready"}))
        .await;
    h.standin.stop().await;
    // Simulate a hold submitted after the mark-ready, left running by the crash.
    let store = home.join(sidecar_standin::engine::STORE_FILE);
    let mut rows: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&store).expect("store")).expect("rows");
    let hold = new_id();
    rows.push(
        json!({"id": hold, "type": "mark-not-ready", "status": "running", "run": 1,
        "submittedAt": "2999-01-01T00:00:00Z"}),
    );
    std::fs::write(&store, serde_json::to_vec(&rows).expect("json")).expect("write");

    let h = Harness::start_in(home, |_| {}).await;
    assert_eq!(h.wait_terminal(&hold).await["status"], "completed");
    // The stale mark-ready was purged by the stale hold, which ran first.
    assert_eq!(
        h.get(&format!("/v0/tasks/{ready}")).await.status,
        StatusCode::NOT_FOUND
    );
    // config-validate re-ran with the same run number (and fails: no app.toml yet).
    let task = h.wait_terminal(&validate).await;
    assert_eq!(task["run"], 1);
    assert!(
        task["error"].as_str().is_some_and(|e| e
            .starts_with("config-validate: reading config: reading ")
            && e.contains("app.toml")),
        "{task}"
    );
    assert_eq!(
        h.get("/v0/healthz").await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    h.standin.stop().await;
}

#[tokio::test]
async fn node_id_is_500_until_the_key_exists_then_the_cometbft_id() {
    let h = Harness::start(|_| {}).await;
    let reply = h.get("/v0/node-id").await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        reply.json(),
        json!({"error": "node_key.json not found \u{2014} generate-identity may not have run yet"})
    );
    let key = ed25519_dalek::SigningKey::from_bytes(&[42u8; 32]);
    let value = base64::engine::general_purpose::STANDARD.encode(key.to_keypair_bytes());
    let file = json!({"priv_key": {"type": "tendermint/PrivKeyEd25519", "value": value}});
    std::fs::write(h.home.join("config/node_key.json"), file.to_string()).expect("write key");
    let reply = h.get("/v0/node-id").await;
    assert_eq!(reply.status, StatusCode::OK);
    let node_id = reply.json()["nodeId"].as_str().expect("nodeId").to_owned();
    use sha2::Digest;
    let digest = sha2::Sha256::digest(key.verifying_key().to_bytes());
    let expected: String = digest[..20].iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(node_id, expected);
    h.standin.stop().await;
}

#[tokio::test]
async fn generate_identity_makes_node_id_available() {
    let h = Harness::start(|_| {}).await;
    let id = new_id();
    h.post_task(json!({"id": id, "type": "generate-identity",
        "params": {"chainId": "arctic-1", "moniker": "val-0"}}))
        .await;
    assert_eq!(h.wait_terminal(&id).await["status"], "completed");
    let reply = h.get("/v0/node-id").await;
    assert_eq!(reply.status, StatusCode::OK);
    assert_eq!(reply.json()["nodeId"].as_str().map(str::len), Some(40));
    h.standin.stop().await;
}

#[tokio::test]
async fn config_apply_seed_then_validate_then_patch_then_incremental_apply() {
    let h = Harness::start(|_| {}).await;
    let default_config = h.config_file("config.toml");
    assert!(
        default_config.contains("[statesync]"),
        "startup writes the embedded config.toml"
    );

    let id = new_id();
    let overrides = json!({"logging.level": "error", "network.p2p.persistent_peers": "",
        "network.p2p.external_address": "seed.example.org:26656"});
    h.post_task(json!({"id": id, "type": "config-apply",
        "params": {"mode": "seed", "overrides": overrides, "targetVersion": 0, "incremental": false}}))
        .await;
    assert_eq!(h.wait_terminal(&id).await["status"], "completed");
    let config = h.config_file("config.toml");
    let app = h.config_file("app.toml");
    for line in [
        "mode = \"seed\"",
        "log-level = \"error\"",
        "laddr = \"tcp://0.0.0.0:26656\"",
        "external-address = \"seed.example.org:26656\"",
        "max-connections = 1000",
        "max-incoming-connection-attempts = 32",
        "pex = true",
        "indexer = [\"null\"]",
    ] {
        assert!(
            config.contains(line),
            "config.toml lacks {line:?}:\n{config}"
        );
    }
    for line in [
        "pruning = \"everything\"",
        "ss-enable = false",
        "mode = \"seed\"",
        "version = 2",
    ] {
        assert!(app.contains(line), "app.toml lacks {line:?}:\n{app}");
    }
    assert!(!config.contains('#'), "regenerated without comments");

    let id = new_id();
    h.post_task(json!({"id": id, "type": "config-validate"}))
        .await;
    assert_eq!(h.wait_terminal(&id).await["status"], "completed");

    let id = new_id();
    h.post_task(
        json!({"id": id, "type": "config-patch", "params": {"files": {"config.toml":
        {"p2p": {"external-address": "", "persistent-peers": "a@b:26656"}}}}}),
    )
    .await;
    assert_eq!(h.wait_terminal(&id).await["status"], "completed");
    let config = h.config_file("config.toml");
    assert!(
        config.contains("persistent-peers = 'a@b:26656'"),
        "{config}"
    );
    assert!(
        config.contains("max-connections = 1000\n"),
        "integers stay integers: {config}"
    );

    // Incremental: keeps the on-disk mode and values, applies only the overrides.
    let id = new_id();
    h.post_task(json!({"id": id, "type": "config-apply",
        "params": {"incremental": true, "overrides": {"mempool.size": "10"}}}))
        .await;
    assert_eq!(h.wait_terminal(&id).await["status"], "completed");
    let config = h.config_file("config.toml");
    assert!(
        config.contains("size = 10") && config.contains("persistent-peers = \"a@b:26656\""),
        "{config}"
    );
    h.standin.stop().await;
}

#[tokio::test]
async fn config_apply_and_validate_failures_carry_upstream_messages() {
    let h = Harness::start(|_| {}).await;
    let cases = [
        (
            json!({}),
            "config-apply: mode is required for non-incremental config resolution".to_owned(),
        ),
        (
            json!({"mode": "rpc"}),
            "config-apply: invalid mode \"rpc\"".to_owned(),
        ),
        (
            json!({"mode": "full", "overrides": {"no.such": "1"}}),
            "config-apply: applying overrides: unknown override key \"no.such\"".to_owned(),
        ),
    ];
    for (params, message) in cases {
        let id = new_id();
        h.post_task(json!({"id": id, "type": "config-apply", "params": params}))
            .await;
        assert_eq!(h.wait_terminal(&id).await["error"], message);
    }
    // Seed without pex fails validation with a JSON array of diagnostics naming pex.
    let id = new_id();
    h.post_task(json!({"id": id, "type": "config-apply",
        "params": {"mode": "seed", "overrides": {"network.p2p.pex": "false"}}}))
        .await;
    let error = h.wait_terminal(&id).await["error"]
        .as_str()
        .expect("error")
        .to_owned();
    let diagnostics: serde_json::Value = serde_json::from_str(
        error
            .strip_prefix("config validation failed: ")
            .expect("prefix"),
    )
    .expect("json");
    assert_eq!(diagnostics[0]["severity"], "ERROR");
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("pex"))
    );
    h.standin.stop().await;
}

#[tokio::test]
async fn reset_data_reports_wiped_bytes_and_recreates_validator_state() {
    let h = Harness::start(|_| {}).await;
    std::fs::write(h.home.join("data/blocks.db"), vec![0u8; 1000]).expect("write");
    std::fs::write(h.home.join(".sei-sidecar-statesync-done"), b"").expect("marker");
    let id = new_id();
    h.post_task(json!({"id": id, "type": "reset-data"})).await;
    let task = h.wait_terminal(&id).await;
    assert_eq!(task["result"], json!({"wipedBytes": 1000}));
    assert!(!h.home.join("data/blocks.db").exists());
    assert!(h.home.join("data/priv_validator_state.json").exists());
    assert!(!h.home.join(".sei-sidecar-statesync-done").exists());
    h.standin.stop().await;
}

#[tokio::test]
async fn a_listed_task_type_fails_until_the_fail_file_is_cleared_then_the_same_id_reruns() {
    let h = Harness::start(|_| {}).await;
    let fail_file = h.home.join(sidecar_standin::tasks::FAIL_TASKS_FILE);
    std::fs::write(&fail_file, "mark-not-ready\nstop-seid\n").expect("fail file");
    let id = new_id();
    h.post_task(json!({"id": id, "type": "stop-seid"})).await;
    let failed = h.wait_terminal(&id).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(
        failed["error"],
        "stop-seid: injected failure (.standin-fail-tasks)"
    );
    // Types not listed run as usual.
    let ready = new_id();
    h.post_task(json!({"id": ready, "type": "mark-ready"}))
        .await;
    assert_eq!(h.wait_terminal(&ready).await["status"], "completed");

    std::fs::remove_file(&fail_file).expect("clear fail file");
    h.post_task(json!({"id": id, "type": "stop-seid"})).await;
    let rerun = h.wait_terminal(&id).await;
    assert_eq!(rerun["run"], 2);
    assert_eq!(rerun["status"], "completed");
    h.standin.stop().await;
}

#[tokio::test]
async fn a_hold_file_keeps_tasks_running_until_its_line_goes_and_the_ledger_counts_posts() {
    let mut h = Harness::start(|_| {}).await;
    let hold_file = h.home.join(sidecar_standin::tasks::HOLD_TASKS_FILE);
    std::fs::write(&hold_file, "mark-ready\n").expect("hold file");
    let id = new_id();
    h.remote_user = vec!["first"];
    h.post_task(json!({"id": id, "type": "mark-ready"})).await;
    h.remote_user = vec!["second"];
    h.post_task(json!({"id": id, "type": "mark-ready"})).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let path = format!("/v0/tasks/{id}");
    assert_eq!(h.get(&path).await.json()["status"], "running");
    std::fs::write(&hold_file, "").expect("release");
    assert_eq!(h.wait_terminal(&id).await["status"], "completed");
    assert_eq!(h.get("/v0/healthz").await.status, StatusCode::OK);

    let ledger = sidecar_standin::submissions::read(&h.home);
    let entry = &ledger[&id];
    assert_eq!((entry.posts, entry.runs), (2, 1));
    assert_eq!(entry.task_type, "mark-ready");
    assert_eq!(
        entry.posts_by,
        [("first".to_owned(), 1), ("second".to_owned(), 1)].into()
    );
    assert_eq!(entry.runs_by, [("first".to_owned(), 1)].into());
    h.standin.stop().await;
}
