//! Task handlers, one per registered type (spec/sidecar.md sections 6-7).
//!
//! Faithful (files under `<home>`, same errors): `config-patch`, `config-apply`,
//! `config-validate`, `config-reload`, `mark-ready`, `mark-not-ready`, `reset-data`, `stop-seid`
//! (no seid here, so it succeeds as upstream does without seid and RPC), `configure-genesis` and
//! the marker-file skips. Effects outside this project's scope (S3, a running chain) complete
//! without that effect, documented per handler below; gov and export tasks that need a chain
//! fail as the real sidecar fails without one.
mod config_model;
mod config_patch;
mod config_registry;
mod identity;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::engine::{Engine, Outcome, TaskRow};
pub use identity::{NodeIdError, node_id};

/// The embedded default `config.toml` the sidecar writes at startup when none exists.
pub const DEFAULT_CONFIG_TOML: &str = include_str!("../../seid-default-config.toml");

/// Every task type the sidecar registers (`sidecar/wire/wire.go`, seictl).
pub const REGISTERED: [&str; 25] = [
    "config-apply",
    "config-patch",
    "config-validate",
    "config-reload",
    "mark-ready",
    "mark-not-ready",
    "configure-genesis",
    "configure-state-sync",
    "snapshot-restore",
    "restart-seid",
    "stop-seid",
    "reset-data",
    "await-condition",
    "generate-identity",
    "generate-gentx",
    "upload-genesis-artifacts",
    "assemble-and-upload-genesis",
    "set-genesis-peers",
    "gov-vote",
    "gov-software-upgrade",
    "gov-param-change",
    "snapshot-upload",
    "snapshot-upload-once",
    "result-export",
    "evm-logical-digest",
];

/// Chains whose genesis is embedded in sei-config (no S3 needed).
const EMBEDDED_GENESIS_CHAINS: [&str; 3] = ["pacific-1", "atlantic-2", "arctic-1"];

pub fn is_registered(task_type: &str) -> bool {
    REGISTERED.contains(&task_type)
}

/// Write the embedded `config/config.toml` when absent, as the sidecar does at startup.
pub fn seed_default_config(home: &Path) -> std::io::Result<()> {
    let path = home.join("config").join("config.toml");
    if path.exists() {
        return Ok(());
    }
    std::fs::write(path, DEFAULT_CONFIG_TOML)
}

/// Decode params into a handler's request struct; absent params decode as `{}`.
fn parse<T: for<'de> Deserialize<'de>>(params: Option<&Value>) -> Result<T, Outcome> {
    let value = params.cloned().unwrap_or_else(|| json!({}));
    serde_json::from_value(value).map_err(|err| Outcome::failed(format!("parsing params: {err}")))
}

/// `<home>/<marker>` exists: the task already ran on this home and is a no-op success.
fn marker_done(home: &Path, marker: &str) -> bool {
    home.join(marker).exists()
}

fn write_marker(home: &Path, marker: &str) -> Result<(), Outcome> {
    std::fs::write(home.join(marker), b"")
        .map_err(|err| Outcome::failed(format!("writing marker {marker}: {err}")))
}

/// Test hook file in a node's home: one task type per line; tasks of those types fail at once
/// with [`injected_failure`]'s error, as a handler error would (status `failed`, `error` set).
/// Removing the file (or the line) lets the next submission of the same ID re-run normally.
pub const FAIL_TASKS_FILE: &str = ".standin-fail-tasks";

/// The failure injected for `task_type` by `<home>/.standin-fail-tasks`, if listed there.
fn injected_failure(home: &Path, task_type: &str) -> Option<Outcome> {
    let listed = std::fs::read_to_string(home.join(FAIL_TASKS_FILE)).ok()?;
    listed
        .lines()
        .any(|line| line.trim() == task_type)
        .then(|| Outcome::failed(format!("{task_type}: injected failure ({FAIL_TASKS_FILE})")))
}

/// Test hook file in a node's home: one task type per line; tasks of those types stay running
/// while listed, then run their handler (removing the line releases them). A DELETE cancels a
/// held task as it would a running handler.
pub const HOLD_TASKS_FILE: &str = ".standin-hold-tasks";
/// How often a held task re-reads [`HOLD_TASKS_FILE`].
const HOLD_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// Waits while `<home>/.standin-hold-tasks` lists `task_type`; false when cancelled meanwhile.
async fn wait_while_held(
    home: &Path,
    task_type: &str,
    cancelled: &mut watch::Receiver<bool>,
) -> bool {
    let held = || {
        std::fs::read_to_string(home.join(HOLD_TASKS_FILE))
            .is_ok_and(|listed| listed.lines().any(|line| line.trim() == task_type))
    };
    while held() {
        if *cancelled.borrow() {
            return false;
        }
        // A cancellation ends the wait early; otherwise re-read the file. A dropped sender
        // (no cancellation can come any more) falls back to plain polling.
        if let Ok(Err(_)) = tokio::time::timeout(HOLD_POLL, cancelled.changed()).await {
            tokio::time::sleep(HOLD_POLL).await;
        }
    }
    !*cancelled.borrow()
}

/// Run the handler of `task_type`. Types in the engine's hold list wait for cancellation first.
pub async fn run(
    engine: &Arc<Engine>,
    task_type: &str,
    params: Option<&Value>,
    mut cancelled: watch::Receiver<bool>,
) -> Outcome {
    if engine
        .config
        .hold_types
        .iter()
        .any(|held| held == task_type)
    {
        // Held: stay running until DELETE cancels the context, then report what Go's context
        // cancellation reports.
        let _ = cancelled.wait_for(|cancelled| *cancelled).await;
        return Outcome::failed(format!("{task_type}: context canceled"));
    }
    let home = engine.home();
    if !wait_while_held(home, task_type, &mut cancelled).await {
        return Outcome::failed(format!("{task_type}: context canceled"));
    }
    if let Some(failure) = injected_failure(home, task_type) {
        return failure;
    }
    let outcome = match task_type {
        "config-patch" => config_patch::run(home, params),
        "config-apply" => config_model::apply(home, params),
        "config-validate" => config_model::validate(home),
        "config-reload" => config_model::reload(home, params),
        "mark-ready" => {
            engine.set_ready(true);
            Ok(Outcome::ok())
        }
        "mark-not-ready" => Ok(match engine.purge_mark_ready() {
            Ok(()) => {
                engine.set_ready(false);
                Outcome::ok()
            }
            Err(err) => Outcome::failed(format!("mark-not-ready: purging mark-ready: {err}")),
        }),
        "configure-genesis" => configure_genesis(home, &chain_id(engine), params),
        "configure-state-sync" => configure_state_sync(home, params),
        "snapshot-restore" => snapshot_restore(home, params),
        "reset-data" => reset_data(home),
        // No seid process and no local RPC in the stand-in: upstream succeeds in that case.
        "stop-seid" => Ok(Outcome::ok()),
        // Outside scope (needs a running seid): completes as if seid came back.
        "restart-seid" => Ok(Outcome::ok()),
        "await-condition" => await_condition(params),
        "generate-identity" => identity::generate(home, params),
        // Genesis-ceremony steps that talk to S3: outside scope, marker only.
        "generate-gentx" => marker_only(home, ".sei-sidecar-gentx-done"),
        "upload-genesis-artifacts" => marker_only(home, ".sei-sidecar-artifact-upload-done"),
        "set-genesis-peers" => Ok(Outcome::ok()),
        "assemble-and-upload-genesis" => assemble_genesis(home),
        "snapshot-upload-once" => Ok(Outcome::ok_with(
            json!({"outcome": "noop", "noopReason": "fewer-than-2-snapshots"}),
        )),
        other => Ok(Outcome::failed(format!(
            "{other}: needs a running seid, its keyring or S3, which the stand-in does not have"
        ))),
    };
    outcome.unwrap_or_else(|failure| failure)
}

/// File in a node's home naming its chain (written by the control-plane add-on from
/// `spec.chainId`); else the process-wide `--chain-id`.
pub const CHAIN_ID_FILE: &str = ".standin-chain-id";

fn chain_id(engine: &Engine) -> String {
    std::fs::read_to_string(engine.home().join(CHAIN_ID_FILE))
        .ok()
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
        .unwrap_or_else(|| engine.config.chain_id.clone())
}

/// `mark-not-ready` while the store lock is already held (restart rehydration).
pub fn mark_not_ready_locked(engine: &Engine, rows: &mut HashMap<String, TaskRow>) -> Outcome {
    rows.retain(|_, row| row.task_type != "mark-ready");
    engine.set_ready(false);
    Outcome::ok()
}

fn marker_only(home: &Path, marker: &str) -> Result<Outcome, Outcome> {
    write_marker(home, marker)?;
    Ok(Outcome::ok())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GenesisParams {
    #[serde(default)]
    expected_genesis_hash: String,
}

/// Embedded chains get a genesis file offline upstream; the stand-in writes a minimal one for
/// every chain (S3 is outside scope) and verifies `expectedGenesisHash` against it.
fn configure_genesis(
    home: &Path,
    chain_id: &str,
    params: Option<&Value>,
) -> Result<Outcome, Outcome> {
    const MARKER: &str = ".sei-sidecar-genesis-done";
    let params: GenesisParams = parse(params)?;
    if marker_done(home, MARKER) {
        return Ok(Outcome::ok());
    }
    let genesis = serde_json::to_vec_pretty(&json!({
        "chain_id": chain_id,
        "genesis_time": "2026-01-01T00:00:00Z",
        "embedded": EMBEDDED_GENESIS_CHAINS.contains(&chain_id),
    }))
    .map_err(|err| Outcome::failed(format!("configure-genesis: {err}")))?;
    let path = home.join("config").join("genesis.json");
    if !params.expected_genesis_hash.is_empty() {
        let actual = identity::sha256_hex(&genesis);
        if actual != params.expected_genesis_hash {
            return Err(Outcome::failed(format!(
                "configure-genesis: verify-hash: genesis hash {actual} does not match expected {}",
                params.expected_genesis_hash
            )));
        }
    }
    std::fs::write(&path, genesis)
        .map_err(|err| Outcome::failed(format!("configure-genesis: writing genesis: {err}")))?;
    write_marker(home, MARKER)?;
    Ok(Outcome::ok())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StateSyncParams {
    #[serde(default)]
    use_local_snapshot: bool,
    #[serde(default)]
    trust_period: String,
    #[serde(default)]
    backfill_blocks: i64,
    #[serde(default)]
    rpc_servers: Vec<String>,
}

/// Writes the `[statesync]` table through the config-patch merge, as upstream. The witnesses are
/// not probed (they live in the cluster; the stand-in reaches no network), so the trust height
/// is the local snapshot height or 1 and the trust hash is a fixed placeholder of 64 hex digits.
fn configure_state_sync(home: &Path, params: Option<&Value>) -> Result<Outcome, Outcome> {
    const MARKER: &str = ".sei-sidecar-statesync-done";
    let params: StateSyncParams = parse(params)?;
    if marker_done(home, MARKER) {
        return Ok(Outcome::ok());
    }
    let trust_height = if params.use_local_snapshot {
        highest_local_snapshot(home).unwrap_or(1)
    } else {
        1
    };
    let mut table = json!({
        "enable": true,
        "trust-height": trust_height,
        "trust-hash": "0".repeat(64),
        "rpc-servers": params.rpc_servers.join(","),
        "use-local-snapshot": params.use_local_snapshot,
    });
    if !params.trust_period.is_empty() {
        table["trust-period"] = json!(params.trust_period);
    }
    if params.backfill_blocks > 0 {
        table["backfill-blocks"] = json!(params.backfill_blocks);
    }
    let patch = json!({"statesync": table});
    config_patch::patch_file(home, "config.toml", &patch)
        .map_err(|err| Outcome::failed(format!("configure-state-sync: {err}")))?;
    write_marker(home, MARKER)?;
    Ok(Outcome::ok())
}

fn highest_local_snapshot(home: &Path) -> Option<i64> {
    std::fs::read_dir(home.join("data").join("snapshots"))
        .ok()?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i64>().ok())
        .max()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SnapshotRestoreParams {
    #[serde(default)]
    target_height: i64,
}

/// S3 is outside scope: records the height it would have restored (`targetHeight`, else 1)
/// in `.sei-sidecar-snapshot-height` and `data/snapshots/<height>/`, then the marker.
fn snapshot_restore(home: &Path, params: Option<&Value>) -> Result<Outcome, Outcome> {
    const MARKER: &str = ".sei-sidecar-snapshot-done";
    let params: SnapshotRestoreParams = parse(params)?;
    if marker_done(home, MARKER) {
        return Ok(Outcome::ok());
    }
    let height = if params.target_height > 0 {
        params.target_height
    } else {
        1
    };
    let fail = |err: std::io::Error| Outcome::failed(format!("snapshot-restore: {err}"));
    std::fs::create_dir_all(home.join("data").join("snapshots").join(height.to_string()))
        .map_err(fail)?;
    std::fs::write(
        home.join(".sei-sidecar-snapshot-height"),
        height.to_string(),
    )
    .map_err(fail)?;
    write_marker(home, MARKER)?;
    Ok(Outcome::ok())
}

/// Wipes `<home>/data`, recreates `priv_validator_state.json`, drops the state-sync marker and
/// reports the bytes removed (no local RPC is serving in the stand-in, so it never refuses).
fn reset_data(home: &Path) -> Result<Outcome, Outcome> {
    let fail = |err: std::io::Error| Outcome::failed(format!("reset-data: {err}"));
    let data = home.join("data");
    let wiped = directory_size(&data);
    if data.exists() {
        std::fs::remove_dir_all(&data).map_err(fail)?;
    }
    std::fs::create_dir_all(&data).map_err(fail)?;
    std::fs::write(
        data.join("priv_validator_state.json"),
        r#"{"height":"0","round":0,"step":0}"#,
    )
    .map_err(fail)?;
    match std::fs::remove_file(home.join(".sei-sidecar-statesync-done")) {
        Ok(()) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(fail(err)),
    }
    Ok(Outcome::ok_with(json!({"wipedBytes": wiped})))
}

fn directory_size(path: &Path) -> i64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| match entry.file_type() {
            Ok(kind) if kind.is_dir() => directory_size(&entry.path()),
            _ => entry
                .metadata()
                .map(|m| i64::try_from(m.len()).unwrap_or(i64::MAX))
                .unwrap_or(0),
        })
        .sum()
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AwaitParams {
    #[serde(default)]
    condition: String,
    #[serde(default)]
    target_height: i64,
    #[serde(default)]
    action: String,
}

/// Validates params as upstream; the condition itself needs a chain (outside scope) and is
/// treated as already met.
fn await_condition(params: Option<&Value>) -> Result<Outcome, Outcome> {
    let params: AwaitParams = parse(params)?;
    match params.condition.as_str() {
        "height" if params.target_height <= 0 => Err(Outcome::failed(
            "await-condition: targetHeight must be > 0 for condition height",
        )),
        "height" | "catchingUp" => match params.action.as_str() {
            "" | "SIGTERM_SEID" => Ok(Outcome::ok()),
            other => Err(Outcome::failed(format!(
                "await-condition: unknown action {other:?}"
            ))),
        },
        other => Err(Outcome::failed(format!(
            "await-condition: unknown condition {other:?}"
        ))),
    }
}

/// Upload is outside scope; returns the hash of the local genesis file as the result shape
/// upstream returns.
fn assemble_genesis(home: &Path) -> Result<Outcome, Outcome> {
    let genesis = std::fs::read(home.join("config").join("genesis.json")).unwrap_or_default();
    write_marker(home, ".sei-sidecar-assemble-done")?;
    Ok(Outcome::ok_with(
        json!({"genesisHash": identity::sha256_hex(&genesis)}),
    ))
}
